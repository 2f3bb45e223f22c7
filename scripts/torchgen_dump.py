#!/usr/bin/env python3
"""Dumps what torchgen makes of a PyTorch tree's native_functions.yaml, as JSON.

Usage: torchgen_dump.py TREE > out.json

Imports torchgen from TREE itself (so each release is read by its own
torchgen), calls torchgen.gen.parse_native_yaml -- which also adds the
functional/out= variants torchgen generates -- and prints one object per
NativeFunction with the fields optrace's YAML model must reproduce:
name, line, func, variants, dispatch (kernel per backend-index key),
structured, structured_delegate, structured_inherits, autogen, python_module,
category_override, device_guard, device_check, manual_kernel_registration,
manual_cpp_binding, tags, ufunc_inner_loop (key -> loop name).
Needs only python3 and PyYAML. Used by src/yaml/yaml_torchgen_test.cc.
"""
import json
import os
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    tree = os.path.abspath(sys.argv[1])
    sys.path.insert(0, tree)
    from torchgen.gen import parse_native_yaml  # noqa: E402  (from the tree)

    native = os.path.join(tree, "aten/src/ATen/native/native_functions.yaml")
    tags = os.path.join(tree, "aten/src/ATen/native/tags.yaml")
    parsed = parse_native_yaml(native, tags)
    out = []
    for f in parsed.native_functions:
        dispatch = {}
        for key, index in parsed.backend_indices.items():
            m = index.index.get(f.func.name)
            if m is not None:
                dispatch[str(key).split(".")[-1]] = m.kernel
        out.append(
            {
                "name": str(f.func.name),
                "line": f.loc.line,
                "func": str(f.func),
                "variants": sorted(v.name for v in f.variants),
                "dispatch": dispatch,
                "structured": f.structured,
                "structured_delegate": (
                    str(f.structured_delegate) if f.structured_delegate else None
                ),
                "structured_inherits": f.structured_inherits,
                "autogen": [str(a) for a in f.autogen],
                "python_module": f.python_module,
                "category_override": f.category_override,
                "device_guard": f.device_guard,
                "device_check": f.device_check.name,
                "manual_kernel_registration": f.manual_kernel_registration,
                "manual_cpp_binding": f.manual_cpp_binding,
                "tags": sorted(f.tags),
                "ufunc_inner_loop": {
                    str(k): loop.name for k, loop in f.ufunc_inner_loop.items()
                },
            }
        )
    json.dump(out, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
