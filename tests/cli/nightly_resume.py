#!/usr/bin/env python3
"""`kbench nightly` resumes a nightly run cut short on an earlier night
before it plans, without booting: run 1 (tagged nightly) was interrupted
after its last cell was stored; the night finishes it through --resume's
logic (nothing left to run, it becomes complete), counts its cells as
measured, and so measures nothing new. --dry-run only says it would
resume. Needs the 6.1.0-57 .deb in $KBENCH_DEBS."""
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import debs, expect, kb, temp_store  # noqa: E402

SPEC = "dd:size=4M,bs=1M"


def main():
    found = debs("linux-image-6.1.0-57-amd64-unsigned_*.deb", 1)
    with temp_store("kbench-cli-nightly-resume-") as home:
        k = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)
        db = os.path.join(home, "results.db")
        schema = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "schema.sql")
        with sqlite3.connect(db) as c:
            c.executescript(open(schema).read())
            c.execute("PRAGMA user_version = 1")
            c.execute("PRAGMA journal_mode = WAL")
        # What the runner stores for a nightly run of this configuration.
        settings = {"kernels": [{"name": k["name"], "id": k["id"], "release": k.get("release")}],
                    "workloads": [SPEC], "repeats": 2, "mem_mb": 160, "cpus": 1, "disk_bytes": 256 << 20,
                    "disk_mbps": 0, "fs": "ext4", "mount_opts": "", "swap_bytes": 0, "accel_requested": "tcg",
                    "accel": "tcg", "append": None, "cell_timeout_s": 1800.0, "hang_timeout_s": 60.0,
                    "retries": 2, "planned_cells": 2}
        params = {"workload": SPEC, "mem_mb": 160, "cpus": 1, "disk_bytes": 256 << 20, "disk_mbps": 0,
                  "fs": "ext4", "mount_opts": "", "swap_bytes": 0, "accel": "tcg"}
        with sqlite3.connect(db) as c:
            c.execute("INSERT INTO kernels VALUES (?, ?, ?, 'x.deb', 0)", (k["id"], k["name"], k.get("release")))
            c.execute("INSERT INTO runs(id, tag, settings_json, started_at, status) "
                      "VALUES (1, 'nightly', ?, 1, 'interrupted')", (json.dumps(settings),))
            for i in range(2):
                c.execute("INSERT INTO cells(run_id, cell_key, kernel_id, workload, params_json, iteration, state) "
                          "VALUES (1, ?, ?, 'dd', ?, ?, 'ok')", (f"c00{i}", k["id"], json.dumps(params), i))
        drop = os.path.join(home, "drop")
        os.mkdir(drop)
        cfg = os.path.join(home, "night.json")
        with open(cfg, "w") as f:
            json.dump({"sources": [{"type": "dir", "path": drop}], "baseline": k["name"], "workloads": ["dd:size=4M"],
                       "repeats": 2, "vm": {"mem": "160M", "disk_size": "256M"}}, f)

        p = kb(home, "nightly", "--dry-run", cfg)
        expect("would resume run 1" in p.stdout, "dry run says it would resume run 1")
        expect("plan: 0 new kernel(s), 0 run(s)" in p.stdout,
               f"the baseline alone, its cells stored, is not measured: {p.stdout!r}")
        p = kb(home, "nightly", "--json", cfg, check=False)
        expect(p.returncode == 0, f"the night exits 0: {p.returncode} {p.stderr[-1500:]!r}")
        with sqlite3.connect(db) as c:
            rows = c.execute("SELECT id, status FROM runs").fetchall()
        expect(rows == [(1, "complete")], f"run 1 was resumed and finished, no run added: {rows}")
        rep = json.loads(p.stdout)
        expect(rep["findings"] == [] and rep["exit_status"] == 0, "nothing regressed")


main()
