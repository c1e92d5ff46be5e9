#!/usr/bin/env python3
"""What `kbench run` refuses before it creates a run row, and with which exit
code (docs/reference.md, "Exit codes": 2 for a usage error or a request this
host cannot serve): bad numbers, an unknown kernel or workload, a filesystem
without mkfs on this host, a disk larger than the free space of the store.
Boots no guest; needs a Debian kernel .deb in $KBENCH_DEBS to import
(tools/setup.sh)."""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import debs, expect, kb, temp_store  # noqa: E402


def runs(home):
    db = os.path.join(home, "results.db")
    if not os.path.exists(db):
        return 0
    with sqlite3.connect(db) as c:
        return c.execute("SELECT count(*) FROM runs").fetchone()[0]


def main():
    found = debs("linux-image-6.1.0-57-amd64-unsigned_*.deb", 1)
    with temp_store("kbench-cli-refusals-") as home:
        name = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)["name"]
        # Twice the free space and then some: other processes freeing files
        # between this look and kbench's must not make the disk fit (and
        # boot a guest). The option's range ends at 16384G.
        free = os.statvfs(home)
        too_big = f"{min(2 * (free.f_bavail * free.f_frsize >> 30) + 64, 16384)}G"
        cases = [
            (["--timeout", "inf"], "--timeout"),
            (["--timeout", "nan"], "--timeout"),
            (["--hang-timeout", "1e999"], "--hang-timeout"),
            (["--vmstat-interval", "0.05"], "--vmstat-interval"),
            (["--vmstat-interval", "10", "--hang-timeout", "15"], "--vmstat-interval"),
            (["--mem", "4294967424"], "--mem"),
            (["--disk-size", "16000T"], "--disk-size"),
            (["--cpus", "99999999999"], "--cpus"),
            (["-n", "0"], "--repeat"),
            (["--disk-size", too_big], "--disk-size"),
            (["--fs", "nosuchfs"], "mkfs.nosuchfs"),
            (["-k", "no-such-kernel"], "no-such-kernel"),
            (["-w", "nope"], "nope"),
            (["-w", "dd:sz=3"], "sz"),
        ]
        for extra, named in cases:
            args = ["run", "-k", name, "-w", "dd", *extra]
            if extra[0] in ("-k", "-w"):
                args = ["run", *(["-w", "dd"] if extra[0] == "-k" else ["-k", name]), *extra]
            p = kb(home, *args, check=False)
            line = p.stderr.strip()
            expect(p.returncode == 2 and named in line and "\n" not in line,
                   f"{' '.join(extra)}: exit {p.returncode}, one line naming {named}: {line!r}")
        expect(runs(home) == 0, "no run row was created")


main()
