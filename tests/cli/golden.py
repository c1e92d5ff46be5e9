#!/usr/bin/env python3
"""What kbench shows of a fixed store, byte for byte: `kbench compare
--json` (within a run, across runs, paired across a setting, one metric),
`kbench compare` as text and markdown, `kbench show --json`, and every file
of the published site. The store is tests/golden/store.sql, a dump of real
runs (two kernels, dd and ftp, a throttled disk, vmstat every 0.5 s); the
expected outputs are tests/golden/expected/. A change in what kbench prints
of the same results shows here as a diff: when the change is meant, rerun
with KBENCH_GOLDEN_UPDATE=1 and commit the new expected files with it.
Boots no guest. Usage: golden.py KBENCH"""
import difflib
import hashlib
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import expect, kb, temp_store  # noqa: E402

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden")
EXPECTED = os.path.join(HERE, "expected")
UPDATE = os.environ.get("KBENCH_GOLDEN_UPDATE") == "1"
# Times are printed in local time: the expected files are UTC's.
os.environ["TZ"] = "UTC"

# (expected file, kbench arguments[, exit status]); a compare exits 0 or 4
# unless its row says otherwise.
COMMANDS = [
    ("compare-run1.json", ["compare", "--json", "run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64"]),
    ("compare-run1.txt", ["compare", "--all", "run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64"]),
    ("compare-run1.md", ["compare", "--format", "markdown", "run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64"]),
    ("compare-runs.json", ["compare", "--json", "run:1:6.1.0-57-amd64", "run:2:6.1.0-57-amd64"]),
    ("compare-throttle.json", ["compare", "--json", "--ignore-setting", "disk_mbps",
                               "run:1:6.1.0-47-amd64", "run:3:6.1.0-57-amd64"]),
    ("compare-metric.json", ["compare", "--json", "--metric", "dd.*", "-w", "dd",
                             "run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64"]),
    # By kernel name: the latest run that holds both with identical settings
    # (run 1, though 6.1.0-57's latest run is 3); none for B beside A's run
    # 2 (no verdict, exit 1); or across runs, asked for, its power stated.
    ("compare-byname.txt", ["compare", "6.1.0-47-amd64", "6.1.0-57-amd64"]),
    ("compare-byname-apart.json", ["compare", "--json", "run:2:6.1.0-57-amd64", "6.1.0-47-amd64"], 1),
    ("compare-across.txt", ["compare", "--across-runs", "-w", "dd", "run:2:6.1.0-57-amd64", "6.1.0-47-amd64"]),
    ("compare-across-apart.txt", ["compare", "--across-runs", "6.1.0-47-amd64", "6.1.0-57-amd64"], 1),
    ("show.json", ["show", "--json"]),
    ("show-run1.json", ["show", "--json", "1"]),
    ("show-run1.txt", ["show", "1"]),
    ("show-cell.txt", ["show", "1", "--cell", "c000"]),
    ("vmstat-cell.txt", ["show", "1", "--cell", "c000", "--log", "vmstat"]),
]


def load_store(home):
    with open(os.path.join(HERE, "store.sql"), encoding="utf-8") as f:
        sql = f.read()
    with sqlite3.connect(os.path.join(home, "results.db")) as db:
        db.executescript(sql)
    db.close()


def site_listing(site):
    """One line per published file: its sha256 and its path in the site."""
    lines = []
    for root, _, files in os.walk(site):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).hexdigest()
            lines.append(f"{digest}  {os.path.relpath(path, site)}\n")
    return "".join(sorted(lines, key=lambda l: l.split("  ", 1)[1]))


def check(name, got, home):
    got = got.replace(home, "$STORE")
    path = os.path.join(EXPECTED, name)
    if UPDATE:
        os.makedirs(EXPECTED, exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(got)
        print("updated:", name)
        return
    with open(path, encoding="utf-8") as f:
        want = f.read()
    diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "expected/" + name, "got",
                                        n=2))
    expect(got == want, f"{name} is unchanged" + ("" if got == want else ":\n" + diff[:4000]))


def main():
    with temp_store("kbench-golden-") as home:
        load_store(home)
        for name, args, *status in COMMANDS:
            p = kb(home, *args, check=False)
            want = tuple(status) or (0, 4)
            expect(p.returncode in want, f"kbench {' '.join(args)} exits {' or '.join(map(str, want))} (got "
                                         f"{p.returncode}: {p.stderr.strip()[-400:]})")
            if name.endswith(".json"):
                json.loads(p.stdout)
            check(name, p.stdout, home)
        site = os.path.join(home, "out")
        p = kb(home, "publish", "-o", site, check=False)
        expect(p.returncode == 0, f"publish exits 0 ({p.stderr.strip()[-400:]})")
        check("site.sha256", site_listing(site), home)
        if not UPDATE:
            # Names in the listing that differ are a diff worth reading: say where the pages are.
            print("site pages:", len(os.listdir(site)))


if __name__ == "__main__":
    main()
