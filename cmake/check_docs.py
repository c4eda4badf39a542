#!/usr/bin/env python3
"""Checks that the docs stay a front page and guides that match the program.

  check_docs.py front-page REPO_ROOT      README.md is a front page: under 200 lines, the two
                                          commands of the quick start, a link to every guide
  check_docs.py links REPO_ROOT           every relative link of README.md, docs/*.md and
                                          docs/guides/*.md names a file or folder that exists
  check_docs.py cli-flags REPO_ROOT CLI   docs/guides/cli.md names every subcommand and every
                                          flag of every subcommand's --help (the CLI binary's)
  check_docs.py --self-test               each check catches what it is for

Exit 0: clean; 1: problems, listed one per line.
"""
import glob
import os
import re
import subprocess
import sys
import tempfile

MAX_README_LINES = 200
QUICK_START = ("make demo", "make test")
LINK = re.compile(r"\]\(([^)\s]+)\)")
# "  -h,--help   ..." or "  --rail-local,--no-rail-local{false}  ...": every long option.
OPTION = re.compile(r"^\s+(?:-\w,)?(--[a-z0-9][a-z0-9-]*)((?:,--[a-z0-9-]+)*)", re.M)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def check_front_page(root):
    readme = read(os.path.join(root, "README.md"))
    problems = []
    lines = readme.count("\n")
    if lines >= MAX_README_LINES:
        problems.append(f"README.md: {lines} lines; a front page stays under {MAX_README_LINES} "
                        "(move the detail into docs/guides/)")
    for command in QUICK_START:
        if f"\n{command}" not in readme:
            problems.append(f"README.md: the quick start does not start a line with '{command}'")
    for guide in sorted(glob.glob(os.path.join(root, "docs", "guides", "*.md"))):
        name = os.path.relpath(guide, root)
        if f"]({name})" not in readme:
            problems.append(f"README.md: no link to {name}")
    return problems


def check_links(root):
    problems = []
    pages = [os.path.join(root, "README.md")] + sorted(
        glob.glob(os.path.join(root, "docs", "*.md")) +
        glob.glob(os.path.join(root, "docs", "guides", "*.md")))
    for page in pages:
        text = read(page)
        for number, line in enumerate(text.split("\n"), 1):
            for target in LINK.findall(line):
                if re.match(r"^(https?:|mailto:|#)", target):
                    continue
                path = target.split("#", 1)[0]
                if not os.path.exists(os.path.join(os.path.dirname(page), path)):
                    problems.append(f"{os.path.relpath(page, root)}:{number}: link to "
                                    f"'{target}', which does not exist")
    return problems


def help_of(cli, path):
    run = subprocess.run([cli] + path + ["--help"], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"{' '.join([cli] + path)} --help exited {run.returncode}: {run.stderr}")
    return run.stdout


def subcommands(help_text):
    if "Subcommands:" not in help_text:
        return []
    listing = help_text.split("Subcommands:", 1)[1]
    return [line.split()[0] for line in listing.split("\n") if line.startswith("  ") and line.strip()]


def names(text, word):
    """Whether `word` appears in `text` as a whole flag or name ('--jobs' not in '--jobs-out')."""
    return re.search(re.escape(word) + r"(?![A-Za-z0-9-])", text) is not None


def check_cli_flags(root, cli):
    guide_path = os.path.join(root, "docs", "guides", "cli.md")
    guide = read(guide_path)
    problems = []

    def walk(path):
        text = help_of(cli, path)
        if path and not names(guide, f"{path[-1]}"):
            problems.append(f"docs/guides/cli.md: no word of the subcommand '{' '.join(path)}'")
        for first, rest in OPTION.findall(text):
            for flag in [first] + [f for f in rest.split(",") if f]:
                if flag != "--help" and not names(guide, flag):
                    problems.append(f"docs/guides/cli.md: '{' '.join(['topoplace'] + path)}' "
                                    f"has {flag}, which the guide does not name")
        for sub in subcommands(text):
            walk(path + [sub])

    walk([])
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "docs", "guides"))

        def write(path, text):
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)

        write("docs/guides/cli.md", "topoplace place --fabric F [--jobs-out F]\n")
        write("README.md", "# t\n\nmake demo\nmake test\n[cli](docs/guides/cli.md)\n")
        assert check_front_page(root) == [], check_front_page(root)
        assert check_links(root) == [], check_links(root)
        write("README.md", "# t\n" + "x\n" * MAX_README_LINES + "make demo\n[a](docs/nope.md)\n")
        front = check_front_page(root)
        assert any("lines" in p for p in front) and any("make test" in p for p in front), front
        assert any("docs/guides/cli.md" in p for p in front), front
        assert any("nope.md" in p for p in check_links(root)), check_links(root)
        cli = os.path.join(root, "cli")
        write("cli", "#!/bin/sh\ncase \"$1\" in\n"
              "  place) printf 'Options:\\n  -h,--help  x\\n  --fabric TEXT  y\\n  --jobs INT  z\\n';;\n"
              "  *) printf 'Subcommands:\\n  place  Place\\n';;\nesac\n")
        os.chmod(cli, 0o755)
        problems = check_cli_flags(root, cli)
        assert len(problems) == 1 and "--jobs" in problems[0], problems
    print("check_docs self-test: a long README, a missing command, guide or link, and a flag the "
          "CLI guide does not name are caught")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    checks = {"front-page": (check_front_page, 3), "links": (check_links, 3),
              "cli-flags": (check_cli_flags, 4)}
    if len(argv) < 3 or argv[1] not in checks or len(argv) != checks[argv[1]][1]:
        print(__doc__, file=sys.stderr)
        return 2
    check, _ = checks[argv[1]]
    problems = check(*argv[2:])
    for problem in problems:
        print(problem)
    if not problems:
        print(f"docs: {argv[1]} clean")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
