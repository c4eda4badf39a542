#!/usr/bin/env python3
"""Fails when a production function is over 80 lines and no comment above it says why.

A function is counted from the first line of its signature to its closing brace; the
braces are matched over the source with comments, strings and character literals skipped.
"Why" is a comment within the lines just above the signature that contains "over 80 lines"
(e.g. "Over 80 lines because it is the table of the spec's keys"). Production sources are
the .cc and .h files under the project's rooms, inline functions in headers too (tests,
tools and generated code are not).

Usage: check_function_length.py REPO_ROOT          (exit 0: clean; 1: listed)
       check_function_length.py --list REPO_ROOT   (every function over the limit, longest first)
       check_function_length.py --self-test        (a planted long function is caught)
"""
import os
import re
import sys
import tempfile

LIMIT = 80
ROOTS = ("base", "topology", "scheduler", "telemetry", "store", "client", "plugins", "api")
TOKEN = re.compile(r'//[^\n]*|/\*.*?\*/|R"(\w*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|'
                   r"'(?:\\.|[^'\\\n])*'|[{};]", re.S)
SIGNATURE_END = re.compile(r"\)\s*(const)?\s*(&&|&)?\s*(override|final)?\s*(noexcept)?\s*"
                           r"(->[^{;]*)?$")
NOT_A_FUNCTION = re.compile(r"^(if|for|while|switch|catch|else|do)\b")
COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
ACCESS = re.compile(r"^(public|protected|private)\s*:$")


def functions(text):
    """(first offset, end offset) of each function definition outside any other function."""
    stack, last_end = [], 0
    for m in TOKEN.finditer(text):
        tok = m.group(0)
        if tok not in ("{", "}", ";"):
            continue
        if tok == "{":
            head = text[last_end:m.start()]
            clean = COMMENT.sub("", head).strip()
            last_line = clean.split("\n")[-1].strip() if clean else ""
            inside = any(kind == "fn" for kind, _ in stack)
            is_fn = (not inside and SIGNATURE_END.search(clean) is not None
                     and not NOT_A_FUNCTION.match(last_line)
                     and "=" not in clean.split("(")[0])
            start = last_end
            for line in head.splitlines(keepends=True):
                text_line = line.strip()
                if text_line and not text_line.startswith("//") and not ACCESS.match(text_line):
                    break
                start += len(line)
            stack.append(("fn" if is_fn else "block", start))
        elif tok == "}" and stack:
            kind, start = stack.pop()
            if kind == "fn":
                yield start, m.end()
        last_end = m.end()


def long_functions(root, limit=LIMIT):
    """(lines, path, first line, signature, says why) of every function over `limit`."""
    out = []
    for top in ROOTS:
        for directory, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".cc", ".h")):
                    continue
                path = os.path.join(directory, name)
                with open(path, errors="replace") as f:
                    text = f.read()
                for start, end in functions(text):
                    first = text.count("\n", 0, start) + 1
                    lines = text.count("\n", start, end) + 1
                    if lines <= limit:
                        continue
                    above = "\n".join(text[:start].split("\n")[-8:])
                    signature = " ".join(text[start:text.find("{", start)].split())[:90]
                    out.append((lines, os.path.relpath(path, root), first, signature,
                                "over 80 lines" in above.lower()))
    return sorted(out, reverse=True)


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "base"))
        body = "".join(f"  x += {i};\n" for i in range(LIMIT))
        with open(os.path.join(root, "base", "a.cc"), "w") as f:
            f.write("int Short() { return 1; }\n\n"
                    f"int Long(int x) {{\n  if (x) {{\n    x = 2;\n  }}\n{body}  return x;\n}}\n\n"
                    "// Over 80 lines because it is a table.\n"
                    f"int Table(int x) {{\n{body}  return x;\n}}\n"
                    "const char* kText = \"{ not a brace }\";\n")
        with open(os.path.join(root, "base", "a.h"), "w") as f:
            f.write(f"class C {{\n public:\n  int Inline(int x) const {{\n{body}    return x;\n  }}\n}};\n")
        found = long_functions(root)
        assert sorted((p, s.split("(")[0], why) for _, p, _, s, why in found) == [
            ("base/a.cc", "int Long", False), ("base/a.cc", "int Table", True),
            ("base/a.h", "int Inline", False)], found
    print("check_function_length self-test: a long function is caught (an inline one in a header "
          "too), one that says why is not")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 3 and argv[1] == "--list":
        for lines, path, first, signature, why in long_functions(argv[2]):
            print(f"{lines:4d} {path}:{first} {signature}{'  (says why)' if why else ''}")
        return 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    unexplained = [f for f in long_functions(argv[1]) if not f[4]]
    for lines, path, first, signature, _ in unexplained:
        print(f"{path}:{first}: {lines} lines, over {LIMIT} with no comment saying why: {signature}")
    if unexplained:
        return 1
    print(f"functions: none over {LIMIT} lines without a comment saying why")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
