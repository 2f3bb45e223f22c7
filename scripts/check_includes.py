#!/usr/bin/env python3
"""The stage rule for src/, checked on every #include.

Each folder of src/ is a stage; a file may include headers of its own folder
and of the folders its stage lists below, nothing else. Quoted includes must
be folder-qualified ("trace/trace.h"). Tests, benchmarks and fuzzers, and
headers only they include (*_test_util.h), may also include testing/. main.cc (the executable) may include anything.

  check_includes.py SRC_DIR   exit 1 and one line per wrong include
  check_includes.py --self-test   shows that a wrong include is caught
"""
import os
import re
import sys
import tempfile

# folder -> folders it may include (besides itself). Keep in step with
# CMakeLists.txt (library deps) and doc/design.md ("The folders").
BELOW = {
    "base": [],
    "yaml": ["base"],
    "cpp": ["base"],
    "py": ["base"],
    "index": ["base", "yaml", "cpp", "py"],
    "trace": ["base", "yaml", "cpp", "py", "index"],
    "render": ["base", "yaml", "cpp", "py", "index", "trace"],
    "lookup": ["base", "yaml", "cpp", "py", "index", "trace", "render"],
    "usescan": ["base", "yaml", "cpp", "py", "index", "trace", "render"],
    "verify": ["base", "yaml", "cpp", "py", "index", "trace", "render", "usescan"],
    "profile": ["base", "yaml", "cpp", "py", "index", "trace"],
    "mcp": ["base"],
    "tools": ["base", "yaml", "cpp", "py", "index", "trace", "render", "lookup", "usescan", "verify", "profile", "mcp"],
    "cli": ["base", "yaml", "cpp", "py", "index", "trace", "render", "lookup", "usescan", "verify", "profile", "mcp",
            "tools"],
    "testing": ["base", "yaml", "cpp", "py", "index"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TEST_FILE = re.compile(r"(_(test|bench|fuzz)\.cc|_test_util\.h)$")


def violations(src):
    bad = []
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in BELOW:
            bad.append(f"{folder}/: a folder the stage rule does not know (add it to scripts/check_includes.py)")
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".cc", ".h")):
                continue
            allowed = {folder, *BELOW[folder]}
            if TEST_FILE.search(name):
                allowed.add("testing")
            text = open(os.path.join(path, name), encoding="utf-8", errors="replace").read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                where = f"src/{folder}/{name}:{line}"
                if "/" not in target:
                    bad.append(f'{where}: #include "{target}" is not folder-qualified')
                elif target.split("/")[0] not in allowed:
                    bad.append(f'{where}: {folder}/ may not include "{target}" '
                               f"(allowed: {', '.join(sorted(allowed))})")
    return bad


def self_test():
    with tempfile.TemporaryDirectory() as d:
        for folder, name, body in [
            ("base", "text.h", "#pragma once\n"),
            ("trace", "trace.h", '#include "base/text.h"\n'),
            ("base", "wrong.cc", '#include "trace/trace.h"\n'),
            ("mcp", "bare.cc", '#include "text.h"\n'),
        ]:
            os.makedirs(os.path.join(d, folder), exist_ok=True)
            open(os.path.join(d, folder, name), "w").write(body)
        found = violations(d)
        expect = ["src/base/wrong.cc:1", "src/mcp/bare.cc:1"]
        ok = len(found) == 2 and all(any(f.startswith(e) for f in found) for e in expect)
        print("\n".join(found))
        return 0 if ok else 1


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    bad = violations(sys.argv[1])
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
