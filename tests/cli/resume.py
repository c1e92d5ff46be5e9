#!/usr/bin/env python3
"""`kbench run --resume` without booting: a run killed after its last cell
left one cell in the database and one in <store>/pending (its commit had
failed). --resume stores the pending cell, finds nothing left to run,
marks the run complete and removes the file; a second --resume changes
nothing (finished_at stays). Needs the 6.1.0-57 .deb in $KBENCH_DEBS."""
import base64
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import debs, expect, kb, temp_store  # noqa: E402


def main():
    found = debs("linux-image-6.1.0-57-amd64-unsigned_*.deb", 1)
    with temp_store("kbench-cli-resume-") as home:
        k = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)
        # The database as kbench creates it (schema.sql, version 1); not
        # through doctor, whose KVM probe would boot a guest.
        db = os.path.join(home, "results.db")
        schema = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "schema.sql")
        with sqlite3.connect(db) as c:
            c.executescript(open(schema).read())
            c.execute("PRAGMA user_version = 1")
            c.execute("PRAGMA journal_mode = WAL")
        settings = {"kernels": [{"name": k["name"], "id": k["id"], "release": k.get("release")}],
                    "workloads": ["dd:size=4M"], "repeats": 2, "mem_mb": 160, "accel_requested": "tcg",
                    "cell_timeout_s": 1800.0, "disk_bytes": 256 << 20}
        with sqlite3.connect(db) as c:
            c.execute("INSERT INTO kernels VALUES (?, ?, ?, 'x.deb', 0)", (k["id"], k["name"], k.get("release")))
            c.execute("INSERT INTO runs(id, settings_json, started_at, status) VALUES (1, ?, 1, 'running')",
                      (json.dumps(settings),))
            c.execute("INSERT INTO cells(run_id, cell_key, kernel_id, workload, iteration, state) "
                      "VALUES (1, 'c000', ?, 'dd', 0, 'ok')", (k["id"],))
        pending = os.path.join(home, "pending")
        os.makedirs(pending)
        cell = {"run_id": 1, "cell_key": "c001", "kernel_id": k["id"], "workload": "dd", "params_json": "{}",
                "iteration": 1, "attempt": 1, "state": "ok", "detail": "", "accel": "tcg", "started_at": 2.0,
                "boot_s": 2.5, "workload_s": 3.0, "total_s": 6.0, "exit_code": 0, "rejected_records": 0,
                "metrics": [{"name": "dd.write_MBps", "value": 41.5, "has_value": True, "unit": "MB/s",
                             "note": None}],
                "vmstat": [], "points": [],
                "logs": [{"stream": "console", "base64": base64.b64encode(b"Linux version\n\xff").decode()}]}
        path = os.path.join(pending, "run1-c001-1.json")
        with open(path, "w") as f:
            json.dump(cell, f)

        p = kb(home, "run", "--resume", "1", "--json", timeout=300)
        cells = json.loads(p.stdout)["cells"]
        expect(sorted(c["key"] for c in cells) == ["c000", "c001"], f"both cells are stored: {cells}")
        expect("every cell is stored" in p.stderr and "stored 1 cell(s)" in p.stderr,
               f"resume says what it did: {p.stderr!r}")
        expect(not os.path.exists(path), "the pending file is gone")
        with sqlite3.connect(db) as c:
            status, fin = c.execute("SELECT status, finished_at FROM runs WHERE id = 1").fetchone()
            log = c.execute("SELECT text FROM logs JOIN cells ON cells.id = logs.cell_id "
                            "WHERE cell_key = 'c001'").fetchone()[0]
        expect(status == "complete" and fin is not None, f"the run is complete: {status} {fin}")
        expect(bytes(log) == b"Linux version\n\xff", "the pending cell's log came back byte for byte")

        p = kb(home, "run", "--resume", "1", "--mem", "256", check=False)
        expect(p.returncode == 2 and "--mem" in p.stderr, f"--resume refuses a saved option: {p.stderr!r}")
        kb(home, "run", "--resume", "1", timeout=300)
        with sqlite3.connect(db) as c:
            fin2 = c.execute("SELECT finished_at FROM runs WHERE id = 1").fetchone()[0]
        expect(fin2 == fin, "a no-op --resume keeps finished_at")


main()
