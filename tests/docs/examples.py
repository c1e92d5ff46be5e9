#!/usr/bin/env python3
"""The examples of kbench's output in README.md and docs/*.md are what
kbench prints today. An example is a marker line and the fenced block
under it:

    <!-- example: kbench compare run:1:6.1.0-47-amd64 run:1:6.1.0-57-amd64 -->
    ```console
    $ kbench compare run:1:6.1.0-47-amd64 run:1:6.1.0-57-amd64
    ...what it prints...
    ```

The command runs on a copy of the golden store (tests/golden/store.sql:
real runs of two Debian kernels, see tests/cli/golden.py), from the source
tree's root, with TZ=UTC; its standard output, with the store's directory
written as $STORE, must equal the block after the `$` line, and its exit status must be 0, or N when the marker says
`example exit=N:`. So an example cannot go stale: a change in what kbench
prints fails here, and KBENCH_DOCS_UPDATE=1 rewrites the blocks from the
output (commit them with the change). Boots no guest.

Usage: examples.py KBENCH SOURCE_ROOT [FILE...] (default: README.md and
docs/*.md)."""
import difflib
import glob
import os
import re
import shlex
import sqlite3
import subprocess
import sys
import tempfile

KBENCH, ROOT = sys.argv[1], os.path.abspath(sys.argv[2])
FILES = sys.argv[3:] or [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
UPDATE = os.environ.get("KBENCH_DOCS_UPDATE") == "1"
MARKER = re.compile(r"^<!-- example(?: exit=(\d+))?: (kbench .*?) -->$")
failures = []


def load_golden(home):
    with open(os.path.join(ROOT, "tests", "golden", "store.sql"), encoding="utf-8") as f:
        sql = f.read()
    with sqlite3.connect(os.path.join(home, "results.db")) as db:
        db.executescript(sql)
    db.close()


def examples(lines, path):
    """(marker line index, command, exit status, first output line, end
    fence line) for each example of a file; a marker without its block is
    a failure, named with the file and line."""
    found = []
    for i, line in enumerate(lines):
        m = MARKER.match(line.rstrip("\n"))
        if not m:
            if line.startswith(("<!-- example:", "<!-- example exit")):
                failures.append(f"{path}:{i + 1}: not an example marker: {line.strip()}")
            continue
        cmd, status = m.group(2), int(m.group(1) or 0)
        where = f"{path}:{i + 1}"
        if i + 2 >= len(lines) or lines[i + 1].rstrip("\n") != "```console":
            failures.append(f"{where}: the marker is not followed by a ```console block")
            continue
        if lines[i + 2].rstrip("\n") != "$ " + cmd:
            failures.append(f"{where}: the block's first line is not '$ {cmd}'")
            continue
        end = next((j for j in range(i + 3, len(lines)) if lines[j].rstrip("\n") == "```"), None)
        if end is None:
            failures.append(f"{where}: the ```console block is not closed")
            continue
        found.append((i, cmd, status, i + 3, end))
    return found


def run(home, cmd):
    argv = shlex.split(cmd)
    env = dict(os.environ, TZ="UTC")
    env.pop("KBENCH_HOME", None)
    p = subprocess.run([KBENCH, "--store", home, *argv[1:]], cwd=ROOT, env=env, capture_output=True,
                       encoding="utf-8", timeout=120)
    return p.returncode, p.stdout.replace(home, "$STORE"), p.stderr


def check_file(path, home):
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    rel = os.path.relpath(path, ROOT)
    found = examples(lines, rel)
    # From the last example up, so a rewritten block does not move the others.
    for i, cmd, status, first, end in reversed(found):
        code, out, err = run(home, cmd)
        where = f"{rel}:{i + 1}: {cmd}"
        if code != status:
            failures.append(f"{where}: exit status {code}, the example says {status}: {err.strip()[-300:]}")
            continue
        if out and not out.endswith("\n"):
            out += "\n"
        want = "".join(lines[first:end])
        if out == want:
            print(f"ok: {where}")
            continue
        if UPDATE:
            lines[first:end] = [out]
            print(f"updated: {where}")
            continue
        diff = "".join(difflib.unified_diff(want.splitlines(True), out.splitlines(True), "the example",
                                            "kbench's output", n=1))
        failures.append(f"{where}: the example is not what kbench prints (KBENCH_DOCS_UPDATE=1 rewrites it):\n"
                        + diff[:3000])
    if UPDATE:
        with open(path, "w", encoding="utf-8") as f:
            f.writelines(lines)
    return len(found)


def main():
    total = 0
    with tempfile.TemporaryDirectory(prefix="kbench-docs-", dir=os.environ.get("KBENCH_TEST_TMP", "/var/tmp")) as home:
        os.chmod(home, 0o711)
        load_golden(home)
        for path in FILES:
            total += check_file(path, home)
    # A marker syntax that silently matched nothing would make this test pass on no examples at all.
    if total == 0:
        failures.append("no examples found in " + ", ".join(os.path.relpath(p, ROOT) for p in FILES))
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print(f"{total} examples are what kbench prints")


if __name__ == "__main__":
    main()
