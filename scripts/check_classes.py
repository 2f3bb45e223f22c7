#!/usr/bin/env python3
"""The class-size rule for src/: no class or struct with more than 25
methods.

A class with many methods is many jobs sharing members, so a reader (or a
tool) cannot follow data through signatures; past 25 it is cut into parts
with one job each. What counts is each member function declared in the
class body itself -- constructors, operators and overloads included, each
once; not those of its nested classes (they count for those), not a
`= default` or `= delete` one (nothing to read), not friends or using
declarations. Tests, benchmarks and fuzzers (_test/_bench/_fuzz) are exempt,
as in the size rule (scripts/check_sizes.py, whose lexing this shares:
literals, comments and preprocessor lines are blanked first).

Every class is within the limit: there is no allowlist (a split is done
before it is merged), and the check refuses one.

  check_classes.py SRC_DIR            exit 1 and one line per offender
  check_classes.py --report SRC_DIR   every class over the limit
  check_classes.py --self-test        shows that an offender is caught
"""
import os
import re
import sys
import tempfile

from check_sizes import blank_out, rule_main

MAX_METHODS = 25
EXEMPT = re.compile(r"_(test|bench|fuzz)\.(cc|h)$")
# `class Name`, `struct Name final : public Base` ... up to the `{` of its body.
CLASS_HEAD = re.compile(r"\b(class|struct)\s+(?:\[\[[^\]]*\]\]\s*)?([A-Za-z_]\w*)(?:\s+final)?\s*(?::[^;{}()]*)?$")
# What a declaration opens with when it declares no method of the class.
NOT_A_METHOD = re.compile(r"^\s*(using|friend|typedef|static_assert|enum|template\s*<[^>]*>\s*(class|struct|using))\b")
# Keywords whose parentheses are no parameter list.
NOT_A_NAME = {"decltype", "alignas", "alignof", "sizeof", "noexcept", "static_assert", "__attribute__", "return"}
METHOD_NAME = re.compile(r"(operator\s*\(\s*\)|operator\s*[^\s(\w][^\s(]*|operator\s+\w+|~?[A-Za-z_]\w*)\s*$")


def first_top_level_paren(decl):
    """Index of the first `(` outside any (...) in decl, or -1; `operator()`'s
    own parentheses are part of its name."""
    m = re.search(r"operator\s*\(\s*\)", decl)
    start = m.end() if m else 0
    i = decl.find("(", start)
    return i


def is_method(decl):
    """Whether one declaration of a class body (blanked text up to its `;`
    or its body's `{`) declares a member function."""
    if NOT_A_METHOD.match(decl) or re.search(r"=\s*(default|delete)\s*$", decl):
        return False
    paren = first_top_level_paren(decl)
    if paren < 0:
        return False
    before = decl[:paren]
    m = METHOD_NAME.search(before)
    head = before[:m.start()] if m else before  # an operator's own < > = do not count below
    # `std::function<void(int)> f;`: the parenthesis is inside a template argument.
    if head.count("<") != head.count(">") - head.count("->"):
        return False
    # `int x = f(1);`: an initializer, not a parameter list.
    if "=" in head:
        return False
    return bool(m) and m.group(1) not in NOT_A_NAME


def close_of(code, open_at):
    """Index of the `}` closing the `{` at open_at."""
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(code) - 1


def count_methods(code, open_at, close_at):
    """Methods declared in the class body code[open_at+1:close_at]."""
    count = 0
    decl_start = open_at + 1
    i = decl_start
    while i < close_at:
        ch = code[i]
        if ch == ";":
            count += is_method(code[decl_start:i])
            decl_start = i + 1
        elif ch == "{":
            decl = code[decl_start:i]
            end = close_of(code, i)
            if re.match(r"^\s*(public|private|protected)\s*:", decl):
                decl = re.sub(r"^\s*(public|private|protected)\s*:", "", decl)
            if CLASS_HEAD.search(decl) or re.match(r"^\s*(enum|union)\b", decl):
                decl_start = end + 1  # a nested type: counted on its own
            elif is_method(decl):
                count += 1  # a body: the declaration ends with it
                decl_start = end + 1
            elif not decl.strip():
                decl_start = end + 1  # a body after a constructor's brace-initialized member
            # else a brace initializer (`Location where{};`): the declaration goes on
            i = end
        elif ch == ":" and re.search(r"\b(public|private|protected)\s*$", code[decl_start:i]) \
                and code[i + 1:i + 2] != ":":
            decl_start = i + 1
        i += 1
    return count


def classes(text):
    """(name, line, methods) for every class or struct body in text."""
    code = blank_out(text)
    found = []
    for m in re.finditer(r"\{", code):
        head_start = max(code.rfind(";", 0, m.start()), code.rfind("}", 0, m.start()),
                         code.rfind("{", 0, m.start())) + 1
        head = code[head_start:m.start()]
        c = CLASS_HEAD.search(head)
        if not c or re.search(r"\benum\s*$", head[:c.start()]):
            continue  # no class, or an enum class
        line = code.count("\n", 0, m.start()) + 1
        found.append((c.group(2), line, count_methods(code, m.start(), close_of(code, m.start()))))
    return found


def offenders(src):
    """(methods, message) for every class over the limit."""
    out = []
    for root, _, files in sorted(os.walk(src)):
        for name in sorted(files):
            if not name.endswith((".cc", ".h")) or EXEMPT.search(name):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src).replace(os.sep, "/")
            text = open(path, encoding="utf-8", errors="replace").read()
            for cls, line, methods in classes(text):
                if methods > MAX_METHODS:
                    out.append((methods, f"src/{rel}:{line}: {cls} has {methods} methods (limit {MAX_METHODS})"))
    return out


def check(src, allowlist=None):
    """The lines that fail: every class over the limit; an allowlist is refused."""
    if allowlist is not None:
        return [f"{allowlist}: the class-size rule takes no allowlist -- split the class instead"]
    return [msg for _, msg in offenders(src)]


def self_test():
    def methods(n, name="M"):
        return "".join(f"  int {name}{k}(int x) const;\n" for k in range(n))

    body = (
        "namespace ns {\n"
        # over the limit: declared methods, one defined inline, operators
        f"class Big : public Base {{\n public:\n{methods(MAX_METHODS - 2)}"
        "  int Inline() const { return 1; }\n  bool operator==(const Big&) const;\n"
        "  int operator()(int) const;\n};\n"
        # at the limit: data members, initializers, friends, defaulted and
        # deleted members, a nested class's methods and a function-typed
        # member do not count
        f"struct AtLimit {{\n{methods(MAX_METHODS)}"
        "  AtLimit() = default;\n  AtLimit(const AtLimit&) = delete;\n"
        "  int x = f(1);\n  std::function<void(int)> callback;\n  Location where{};\n"
        "  friend bool operator<(const AtLimit&, const AtLimit&);\n  using Base::Base;\n"
        f"  struct Nested {{\n{methods(3, 'N')}  }};\n"
        "  enum class E { kA, kB };\n"
        '  const char* s = "int F(int);";\n  // int G(int);\n'
        "};\n"
        # a constructor with an initializer list
        f"class Ctor {{\n  Ctor(int a) : a_(a), b_{{a}} {{}}\n{methods(MAX_METHODS)}  int a_, b_;\n}};\n"
        "}  // namespace ns\n"
    )
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "base"))
        open(os.path.join(d, "base", "f.h"), "w").write(body)
        open(os.path.join(d, "base", "f_test.cc"), "w").write(body)
        found = check(d)
        print("\n".join(found))
        counts = {name: n for name, _, n in classes(body)}
        ok = (counts == {"Big": MAX_METHODS + 1, "AtLimit": MAX_METHODS, "Nested": 3, "Ctor": MAX_METHODS + 1}
              and len(found) == 2 and any(": Big has" in f for f in found) and any(": Ctor has" in f for f in found))
        # an allowlist lets nothing pass
        allow = os.path.join(d, "allow.txt")
        open(allow, "w").write(f"base/f.h:Big {MAX_METHODS + 1}\nbase/f.h:Ctor\n")
        ok = ok and len(check(d, allow)) == 1
        print("self-test", "passed" if ok else f"FAILED: counts {counts}")
        return 0 if ok else 1


def main():
    return rule_main(__doc__, self_test, lambda src: [msg for _, msg in offenders(src)], check)


if __name__ == "__main__":
    sys.exit(main())
