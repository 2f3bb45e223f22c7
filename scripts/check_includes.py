#!/usr/bin/env python3
"""The stage rule for src/, checked on every #include.

Each folder of src/ is a stage. CMakeLists.txt is the one table of stages:
`optrace_stage(FOLDER DEPS optrace_a optrace_b ... [TEST_DEPS optrace_c])`
names the folders FOLDER's code includes directly (and links), TEST_DEPS
those only its tests include, and `set(OPTRACE_TESTING_DEPS ...)` those of
the test helpers in testing/. This script holds the code to that table both
ways: a file includes only headers of its own folder and of its folder's
direct dependencies, and every direct dependency declared is included by
some file (a table that lists more than the code uses is stale). Quoted
includes must be folder-qualified ("trace/trace.h"). Tests, benchmarks and
fuzzers, and headers only they include (*_test_util.h), may also include
testing/. main.cc (the executable) may include anything.

  check_includes.py REPO_ROOT     exit 1 and one line per wrong include or stale dependency
  check_includes.py --self-test   shows that a wrong include and a stale dependency are caught
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
TEST_FILE = re.compile(r"(_(test|bench|fuzz)\.cc|_test_util\.h)$")
STAGE = re.compile(r"optrace_stage\((\w+)([^)]*)\)")
TESTING = re.compile(r"set\(OPTRACE_TESTING_DEPS([^)]*)\)")


def stage_table(cmake_text):
    """folder -> (direct deps, test-only deps), from CMakeLists.txt's stage lines."""
    text = re.sub(r"#[^\n]*", "", cmake_text)
    declared = {m.group(1): m.group(2).split() for m in STAGE.finditer(text)}
    table = {}
    for folder, words in declared.items():
        deps, test_deps, into = [], [], None
        for w in words:
            if w in ("DEPS", "TEST_DEPS"):
                into = deps if w == "DEPS" else test_deps
            elif into is not None and w.startswith("optrace_") and w[len("optrace_"):] in declared:
                into.append(w[len("optrace_"):])
        table[folder] = (deps, test_deps)
    testing = TESTING.search(text)
    if testing:
        table["testing"] = ([w[len("optrace_"):] for w in testing.group(1).split() if w.startswith("optrace_")], [])
    return table


def violations(root):
    src = os.path.join(root, "src")
    table = stage_table(open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8").read())
    bad = []
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in table:
            bad.append(f"{folder}/: a folder CMakeLists.txt declares no stage for (optrace_stage)")
            continue
        deps, test_deps = table[folder]
        used, test_used = set(), set()
        for name in sorted(os.listdir(path)):
            if not name.endswith((".cc", ".h")):
                continue
            is_test = bool(TEST_FILE.search(name))
            allowed = {folder, *deps} | ({"testing", *test_deps} if is_test else set())
            text = open(os.path.join(path, name), encoding="utf-8", errors="replace").read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                line = text.count("\n", 0, m.start()) + 1
                where = f"src/{folder}/{name}:{line}"
                if "/" not in target:
                    bad.append(f'{where}: #include "{target}" is not folder-qualified')
                    continue
                included = target.split("/")[0]
                (test_used if is_test else used).add(included)
                if included not in allowed:
                    bad.append(f'{where}: {folder}/ may not include "{target}" '
                               f"(its direct dependencies in CMakeLists.txt: {', '.join(sorted(allowed - {folder}))})")
        for dep in deps:
            if dep not in used:
                bad.append(f"CMakeLists.txt: {folder}/ declares {dep} but no file of it includes {dep}/")
        for dep in test_deps:
            if dep not in test_used:
                bad.append(f"CMakeLists.txt: {folder}/'s tests declare {dep} but none includes {dep}/")
    return bad


def self_test():
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "CMakeLists.txt"), "w").write(
            "optrace_stage(base DEPS fmt::fmt)\n"
            "optrace_stage(trace DEPS optrace_base)\n"
            "optrace_stage(mcp   DEPS optrace_base)  # declares base, includes none of it\n")
        for folder, name, body in [
            ("base", "text.h", "#pragma once\n"),
            ("trace", "trace.h", '#include "base/text.h"\n'),
            ("base", "wrong.cc", '#include "trace/trace.h"\n'),
            ("mcp", "bare.cc", '#include "text.h"\n'),
        ]:
            os.makedirs(os.path.join(d, "src", folder), exist_ok=True)
            open(os.path.join(d, "src", folder, name), "w").write(body)
        found = violations(d)
        expect = ["src/base/wrong.cc:1", "src/mcp/bare.cc:1", "CMakeLists.txt: mcp/ declares base"]
        ok = len(found) == 3 and all(any(f.startswith(e) for f in found) for e in expect)
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
