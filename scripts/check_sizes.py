#!/usr/bin/env python3
"""The size rule for src/: no production .cc over 1,200 lines, no function
body over 150 lines.

Small units are the point: a reader holds a function in view and a file in
mind. The check is deliberately simple -- a brace matcher that knows enough
C++ lexing to skip string, char and raw-string literals, comments and
preprocessor lines. A `{` opens a function body when the text before it (back
to the previous `;`, `{` or `}`) ends in a parameter list `)` possibly
followed by qualifiers, an initializer list or a trailing return type, and is
not a control statement (if/for/while/switch/catch) or a lambda. Bodies
nested inside a function (lambdas, local classes) count towards the
function that holds them. Tests, benchmarks and fuzzers (_test/_bench/_fuzz)
are exempt: their length is their list of cases.

A split in progress may list its offenders in an allowlist file given with
--allowlist (one `path` or `path:function` a line, comments with #); anything
over the limits that is not listed fails, and a listed entry that is no
longer over the limit is reported as stale so the list only shrinks. The
suite passes none: every unit is within the limits.

  check_sizes.py SRC_DIR [--allowlist FILE]   exit 1 and one line per offender
  check_sizes.py --report SRC_DIR             every offender, allowlisted or not
  check_sizes.py --self-test                  shows that an offender is caught
"""
import os
import re
import sys
import tempfile

MAX_FILE_LINES = 1200
MAX_FUNCTION_LINES = 150
EXEMPT = re.compile(r"_(test|bench|fuzz)\.cc$")
CONTROL = {"if", "for", "while", "switch", "catch", "return", "else", "do", "sizeof", "decltype",
           "alignof", "noexcept", "requires", "static_assert"}
# `) : a_(x), b_` or `) : b_` right before a `{`: a member initialized with braces.
MEMBER_BRACE_INIT = re.compile(r"\)\s*(?::(?!:)|,)[^;{}]*?(?<![:\w])(?:[,:]\s*)[A-Za-z_]\w*\s*$")


def blank_out(text):
    """Text with literals, comments and preprocessor lines replaced by spaces
    (newlines kept), so braces and parentheses in them do not count."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#" :
            # preprocessor line, with backslash continuations
            j = i
            while j < n:
                if text[j] == "\n" and text[j - 1] != "\\":
                    break
                j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        at_line_start = c == "\n"
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            k = text.find("(", i + 2)
            delim = text[i + 2:k] if k >= 0 else ""
            j = text.find(")" + delim + '"', k + 1) if k >= 0 else -1
            j = n if j < 0 else j + len(delim) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():
                # digit separator (1'000) or u8'x' prefix: a separator only
                # when between digits
                if text[i - 1].isdigit() and i + 1 < n and text[i + 1].isalnum():
                    out.append(" ")
                    i += 1
                    continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def function_name(head):
    """The name of the function whose body follows `head` (the code between
    the previous ; { } and this {), or None when it is not a function."""
    head = head.strip()
    # strip trailing qualifiers, trailing return types and initializer lists:
    # find the parameter list, the last top-level (...) whose opener follows
    # a name.
    depth = 0
    close = None
    for k in range(len(head) - 1, -1, -1):
        ch = head[k]
        if ch == ")":
            if depth == 0 and close is None:
                close = k
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                before = head[:k].rstrip()
                m = re.search(r"([A-Za-z_~][A-Za-z_0-9]*(?:::[A-Za-z_~][A-Za-z_0-9]*)*(?:\s*<[^()]*>)?|operator\s*\S+)$",
                              before)
                if not m:
                    if before.endswith("]"):
                        return None  # lambda [..](..) {
                    continue
                name = m.group(1)
                last = re.split(r"::", name)[-1].strip()
                if last in CONTROL:
                    return None
                # an initializer-list entry `member_(x)` after `:` -- keep
                # going left to the real parameter list
                prev = before[: m.start()].rstrip()
                if prev.endswith(",") or (prev.endswith(":") and not prev.endswith("::")):
                    continue
                if prev.endswith("]"):
                    return None
                if prev.endswith("=") or prev.endswith("return") or prev.endswith("("):
                    return None
                return name
        elif ch in "=" and depth == 0 and close is None:
            return None  # `x = {` or `x = Foo{`: an initializer
    return None


def functions(text):
    """(name, first line, body lines) for every outermost function body."""
    code = blank_out(text)
    found = []
    stack = []  # entries: (kind, name, line) with kind 'fn' or 'other'
    seg_start = 0
    for i, ch in enumerate(code):
        if ch == "{":
            inside_fn = any(k == "fn" for k, _, _ in stack)
            head = code[seg_start:i]
            if not inside_fn and MEMBER_BRACE_INIT.search(head):
                # `Foo() : a_(x), b_{y} {`: b_'s braces are part of the
                # head of Foo's body, which comes after them
                stack.append(("init", None, 0))
                continue
            name = None if inside_fn else function_name(head)
            line = code.count("\n", 0, i) + 1
            stack.append(("fn" if name else "other", name, line))
            seg_start = i + 1
        elif ch == "}":
            if stack:
                kind, name, line = stack.pop()
                if kind == "init":
                    continue
                if kind == "fn":
                    end = code.count("\n", 0, i) + 1
                    found.append((name, line, end - line - 1))
            seg_start = i + 1
        elif ch == ";":
            seg_start = i + 1
    return found


def offenders(src):
    """(key, message) for every file or function over the limits; key is the
    allowlist spelling: `folder/file.cc` or `folder/file.cc:Name`."""
    out = []
    for root, _, files in sorted(os.walk(src)):
        for name in sorted(files):
            if not name.endswith(".cc") or EXEMPT.search(name):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            text = open(path, encoding="utf-8", errors="replace").read()
            lines = text.count("\n")
            if lines > MAX_FILE_LINES:
                out.append((rel, f"src/{rel}: {lines} lines (limit {MAX_FILE_LINES})"))
            for fn, line, body in functions(text):
                if body > MAX_FUNCTION_LINES:
                    out.append((f"{rel}:{fn}",
                                f"src/{rel}:{line}: {fn} has a {body}-line body (limit {MAX_FUNCTION_LINES})"))
    return out


def read_allowlist(path):
    if not path or not os.path.exists(path):
        return []
    keys = []
    for raw in open(path, encoding="utf-8"):
        entry = raw.split("#", 1)[0].strip()
        if entry:
            keys.append(entry)
    return keys


def check(src, allowlist):
    found = offenders(src)
    allowed = read_allowlist(allowlist)
    bad = [msg for key, msg in found if key not in allowed]
    keys = {key for key, _ in found}
    stale = [f"{a}: allowlisted in {os.path.basename(allowlist)} but within the limits now -- remove it"
             for a in allowed if a not in keys]
    return bad + stale


def self_test():
    long_body = "\n".join(f"  x += {k};" for k in range(MAX_FUNCTION_LINES + 1))
    short_body = "  return 1;"
    body = (
        '#include "base/text.h"\n'
        "namespace ns {\n"
        f"int Long(int x) {{\n{long_body}\n  return x;\n}}\n"
        f"int Short() {{\n{short_body}\n}}\n"
        f"int WithLambda() {{\n  auto f = [](int x) {{ return x; }};\n  return f(1);\n}}\n"
        # braces in a string, a char, a comment and a raw string do not count
        'const char* s = "}}}";\nchar c = \'}\';\n// }\nconst char* r = R"x(})x";\n'
        f"struct S {{\n  S() : a_(1) {{\n{long_body}\n  }}\n  int a_;\n}};\n"
        f"struct T {{\n  T(int x) : a_(x), b_{{x}} {{\n{long_body}\n  }}\n  int a_, b_;\n}};\n"
        "}  // namespace ns\n"
    )
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "base"))
        open(os.path.join(d, "base", "f.cc"), "w").write(body)
        open(os.path.join(d, "base", "big.cc"), "w").write("int x;\n" * (MAX_FILE_LINES + 1))
        open(os.path.join(d, "base", "big_test.cc"), "w").write("int x;\n" * (MAX_FILE_LINES + 1))
        allow = os.path.join(d, "allow.txt")
        open(allow, "w").write("# comment\nbase/gone.cc:Gone\n")
        found = check(d, allow)
        print("\n".join(found))
        expect = ["src/base/f.cc:3: Long", "src/base/f.cc:", "src/base/big.cc:", "base/gone.cc:Gone"]
        ok = (len(found) == 5 and all(any(f.startswith(e) for f in found) for e in expect)
              and any(": S has" in f for f in found) and any(": T has" in f for f in found)
              and not any("big_test" in f or "Short" in f or "WithLambda" in f for f in found))
        # and an allowlisted offender passes
        open(allow, "w").write("base/f.cc:Long\nbase/f.cc:S\nbase/f.cc:T\nbase/big.cc\n")
        ok = ok and check(d, allow) == []
        return 0 if ok else 1


def rule_main(doc, self_test, report, check, argv=None):
    """The command line of the rule checks (this one and check_classes.py):
    `SRC_DIR [--allowlist FILE]` prints what fails (exit 1), `--report SRC_DIR`
    every offender, `--self-test` shows an offender caught. `report(src)`
    lists offenders' messages; `check(src, allowlist)` the lines that fail."""
    args = sys.argv[1:] if argv is None else argv
    if args == ["--self-test"]:
        return self_test()
    if len(args) == 2 and args[0] == "--report":
        for msg in report(args[1]):
            print(msg)
        return 0
    allowlist = None
    if len(args) == 3 and args[1] == "--allowlist":
        allowlist = args[2]
    elif len(args) != 1:
        print(doc, file=sys.stderr)
        return 2
    bad = check(args[0], allowlist)
    for b in bad:
        print(b)
    return 1 if bad else 0


def main():
    return rule_main(__doc__, self_test, lambda src: [msg for _, msg in offenders(src)], check)


if __name__ == "__main__":
    sys.exit(main())
