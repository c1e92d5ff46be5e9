#!/usr/bin/env python3
"""Messages a user can act on, for stores and files that are not what they
should be; boots no guest: `kbench vmstat DIR` names the reason (a directory, not a regular file), `show`
leaves an empty --db file empty and shows a read-only store, and a database with garbage in its middle
is reported by `doctor` (integrity_check; that `run` refuses such a file
is checked by results/test-db.c's db_check test and by tests/cli/hostile.py).
Usage: messages.py KBENCH SCHEMA_SQL"""
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import expect, kb, temp_store  # noqa: E402


def new_db(home):
    """A kbench database in home: results/schema.sql (version 1), which
    kbench migrates when it opens it (doctor and the read verbs never
    create one)."""
    db = os.path.join(home, "results.db")
    with sqlite3.connect(db) as c:
        with open(sys.argv[2], encoding="utf-8") as f:
            c.executescript(f.read())
        c.execute("PRAGMA user_version = 1")
    c.close()
    kb(home, "show", check=False)


def main():
    with temp_store("kbench-cli-messages-") as home:
        p = kb(home, "vmstat", home, check=False)
        expect(p.returncode == 1 and "a directory, not a regular file" in p.stderr,
               f"vmstat DIR names the reason: {p.stderr!r}")

        data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "vmstat")
        p = kb(home, "vmstat", os.path.join(data, "seed-2002-stalls.txt"), check=False)
        expect(p.returncode == 0 and "columns:" in p.stdout, "vmstat FILE prints its summary")
        p = kb(home, "vmstat", "--json", "--skip-first", "--bo-threshold", "50",
               os.path.join(data, "blind-kbench.txt"), check=False)
        expect(p.returncode == 0 and json.loads(p.stdout)["columns"][9] == "bo", "vmstat --json is JSON")
        p = kb(home, "vmstat", "--bo-threshold", "inf", os.path.join(data, "blind-kbench.txt"), check=False)
        expect(p.returncode == 2, f"vmstat --bo-threshold inf is a usage error: exit {p.returncode}")

        empty = os.path.join(home, "empty.db")
        open(empty, "w").close()
        p = kb(home, "--db", empty, "show", check=False)
        expect(p.returncode != 0 and os.path.getsize(empty) == 0,
               f"show leaves an empty --db file empty: exit {p.returncode}, {os.path.getsize(empty)} bytes")

        db = os.path.join(home, "results.db")
        # A read-only store can be shown (root ignores file modes: a
        # read-only bind mount makes it read-only for root too).
        ro = os.path.join(home, "ro")
        os.makedirs(ro)
        new_db(ro)
        if os.geteuid() == 0 and subprocess.run(["mount", "--bind", ro, ro]).returncode == 0:
            try:
                subprocess.run(["mount", "-o", "remount,ro,bind", ro], check=True)
                p = kb(ro, "show", check=False)
                expect(p.returncode == 0 and "unable to open" not in p.stderr,
                       f"a read-only store is shown: exit {p.returncode} {p.stderr.strip()!r}")
            finally:
                subprocess.run(["umount", ro])
        # A real kbench database, brought to the current schema by kbench,
        # then filled and damaged.
        new_db(home)
        with sqlite3.connect(db) as c:
            c.execute("INSERT INTO runs(settings_json, started_at, status) VALUES ('{}', 0, 'complete')")
            c.execute("INSERT INTO kernels VALUES ('k', 'k', 'r', 's', 0)")
            for i in range(400):
                c.execute("INSERT INTO cells(run_id, cell_key, kernel_id, workload, iteration, state) "
                          "VALUES (1, ?, 'k', 'dd', 0, 'ok')", (f"c{i:03d}",))
                c.execute("INSERT INTO logs VALUES (?, 'console', ?)", (i + 1, os.urandom(2048).hex()))
        size = os.path.getsize(db)
        with open(db, "r+b") as f:
            f.seek(size // 2)
            f.write(os.urandom(32768))
        p = kb(home, "doctor", check=False)
        line = [l for l in p.stdout.splitlines() if " database " in l]
        expect(p.returncode == 1 and line and line[0].startswith("FAIL") and ("integrity_check" in line[0] or "malformed" in line[0]),
               f"doctor reports the damage: {line}")


main()
