#!/usr/bin/env python3
"""Runs every ```python block of the documentation pages, so that the
examples a reader copies work with the module as built.

    run_python_snippets.py --root <repository root> README.md docs/python.md ...

Each block runs as-is in a fresh namespace (as a script would: __name__ is
"__main__"), with the current folder set to an empty temporary folder, so a
block that writes files leaves nothing behind. The built module must be
importable (tests/docs/CMakeLists.txt puts the build tree's python/ folder on
PYTHONPATH). Prints "<page> block <n>: ok" per block, or names the page,
block and line of each block that raised, with its traceback, and exits 1.
Fences that name Python otherwise (```py, ```python3) are refused, so no
Python example escapes the test.
"""

import argparse
import os
import re
import sys
import tempfile
import textwrap
import traceback

OPEN = re.compile(r"^(\s*)```\s*(\S+)\s*$")
CLOSE = re.compile(r"^\s*```\s*$")
OTHER_PYTHON = {"py", "python3", "pycon", "ipython"}


def blocks(path, page):
    """Yields (number, first line, code) for each ```python block of a page."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    number = 0
    i = 0
    while i < len(lines):
        match = OPEN.match(lines[i])
        if not match:
            i += 1
            continue
        language = match.group(2)
        if language in OTHER_PYTHON:
            raise SystemExit(f"{page}:{i + 1}: write Python examples as ```python "
                             "(they are run by the test suite), or as ```text if the "
                             "example cannot run")
        start = i + 1
        i += 1
        while i < len(lines) and not CLOSE.match(lines[i]):
            i += 1
        if i == len(lines):
            raise SystemExit(f"{page}:{start}: ``` block not closed")
        if language == "python":
            number += 1
            yield number, start + 1, textwrap.dedent("\n".join(lines[start:i]))
        i += 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="repository root")
    parser.add_argument("pages", nargs="+", help="pages relative to the root")
    args = parser.parse_args()

    total = failed = 0
    for page in args.pages:
        for number, line, code in blocks(os.path.join(args.root, page), page):
            total += 1
            # Line numbers of tracebacks: the page's, by padding the code.
            source = "\n" * (line - 1) + code
            namespace = {"__name__": "__main__"}
            here = os.getcwd()
            with tempfile.TemporaryDirectory(prefix="iklab-doc-") as scratch:
                os.chdir(scratch)
                try:
                    exec(compile(source, page, "exec"), namespace)
                except BaseException:  # SystemExit too: a block must not exit
                    failed += 1
                    print(f"{page} block {number} (line {line}): FAILED", file=sys.stderr)
                    traceback.print_exc()
                else:
                    print(f"{page} block {number}: ok", flush=True)
                finally:
                    os.chdir(here)
    if total == 0:
        print("no ```python block found in " + ", ".join(args.pages), file=sys.stderr)
        return 1
    if failed:
        print(f"{failed} of {total} Python documentation snippet(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
