#!/usr/bin/env python3
"""cli/test-compare-cli.py: `kbench compare` as a script sees it, on a
store this test writes (results/schema.sql, version 1): the exit status is 0
for an A/A pair, 4 when a metric is worse (and --json says the same), 1 when
nothing pairs like with like, 2 on usage errors; --format markdown prints a
table. Usage: test-compare-cli.py KBENCH SCHEMA_SQL"""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

KBENCH, SCHEMA = sys.argv[1], sys.argv[2]
FAILED = []


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def fill(path):
    db = sqlite3.connect(path)
    with open(SCHEMA, encoding="utf-8") as f:
        db.executescript(f.read())
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO kernels (id, name, added_at) VALUES ('k57', '6.1.0-57-amd64', 1)")
    settings = json.dumps({"repeats": 5, "mem_mb": 256, "cpus": 1, "disk_mbps": 0, "fs": "ext4"})
    runs = {"a1": ([133.1, 130.2, 135.0, 132.4, 133.8], 0), "a2": ([131.9, 134.2, 132.0, 133.5, 130.8], 0),
            "slow": ([92.1, 93.0, 92.4, 92.8, 92.2], 0), "thr": ([92.1, 93.0, 92.4, 92.8, 92.2], 93)}
    cell_id = 0
    for run_id, (tag, (rates, mbps)) in enumerate(runs.items(), 1):
        db.execute("INSERT INTO runs (id, tag, settings_json, started_at, status) VALUES (?, ?, ?, 1, 'complete')",
                   (run_id, tag, settings))
        for i, w in enumerate(rates):
            cell_id += 1
            params = json.dumps({"workload": "dd:size=,bs=1M", "mem_mb": 256, "cpus": 1, "disk_mbps": mbps,
                                 "fs": "ext4"})
            db.execute("INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, params_json, iteration, state) "
                       "VALUES (?, ?, ?, 'k57', 'dd', ?, ?, 'ok')", (cell_id, run_id, f"c{i:03d}", params, i))
            db.execute("INSERT INTO metrics (cell_id, name, value, unit) VALUES (?, 'dd.write_MBps', ?, 'MB/s')",
                       (cell_id, w))
            db.execute("INSERT INTO metrics (cell_id, name, value, unit) VALUES (?, 'dd.read_MBps', ?, 'MB/s')",
                       (cell_id, 380 + i))
    db.commit()
    db.close()


def compare(db, *args):
    return subprocess.run([KBENCH, "--db", db, "compare", *args], capture_output=True, text=True, timeout=60)


def main():
    with tempfile.TemporaryDirectory(prefix="kbench-test-compare-cli-") as d:
        db = os.path.join(d, "results.db")
        fill(db)

        p = compare(db, "tag:a1", "tag:a2")
        expect(p.returncode == 0, f"A/A exits 0 (got {p.returncode}: {p.stderr.strip()})")
        expect(" worse " not in p.stdout and "0 worse, 0 better" in p.stdout, "A/A: no verdict")

        p = compare(db, "tag:a1", "tag:slow")
        expect(p.returncode == 4, f"a slower run exits 4 (got {p.returncode})")
        line = next((l for l in p.stdout.splitlines() if l.startswith("dd.write_MBps")), "")
        expect("worse" in line, f"dd.write_MBps is worse: {line!r}")
        p = compare(db, "tag:a1", "tag:slow", "--json")
        j = json.loads(p.stdout)
        expect(p.returncode == 4 and j["exit_status"] == 4 and j["worse"] == 1, "--json: exit status 4, one worse")
        m = {x["name"]: x for x in j["groups"][0]["metrics"]}
        expect(m["dd.write_MBps"]["verdict"] == "worse" and m["dd.write_MBps"]["welch"]["p"] < 0.001,
               "--json: dd.write_MBps worse, with its Welch p")
        expect(m["dd.read_MBps"]["verdict"] == "~", "--json: dd.read_MBps unchanged")

        # Nothing pairs like with like: the disk speed is what the two tags
        # compare, so the cells pair across it, and the output says so.
        p = compare(db, "tag:a1", "tag:thr")
        expect(p.returncode == 4 and "paired across differing settings: disk_mbps" in p.stdout,
               f"a throttled run pairs across disk_mbps and is worse (exit {p.returncode}: {p.stderr.strip()})")
        j = json.loads(compare(db, "tag:a1", "tag:thr", "--json").stdout)
        expect(j["ignore_settings"] == ["disk_mbps"] and j["exit_status"] == 4,
               "--json names the setting paired across")
        p = compare(db, "tag:a1", "tag:thr", "-w", "ftp")
        expect(p.returncode == 1 and "has no cells of workload ftp" in p.stderr,
               f"a workload neither side ran: error, exit 1 ({p.stderr.strip()})")

        p = compare(db, "tag:a1", "tag:slow", "--format", "markdown")
        expect(p.returncode == 4 and "```text\nmetric " in p.stdout and "\ndd.write_MBps " in p.stdout,
               "--format markdown prints its table in a code block")

        for args, what in ((["tag:a1"], "one selector"), (["run:x", "tag:a1"], "a bad selector"),
                           (["tag:a1", "tag:a2", "--alpha", "2"], "--alpha 2"),
                           (["tag:a1", "tag:a2", "--noise", "x"], "--noise x"),
                           (["tag:a1", "tag:a2", "--format", "html"], "--format html"),
                           (["tag:a1", "tag:a2", "--json", "--format", "text"], "--json with --format")):
            p = compare(db, *args)
            expect(p.returncode == 2 and p.stderr.startswith("kbench: compare: "), f"{what}: usage error, exit 2")
        # A --metric that matches nothing, or a setting no cell has, is the
        # user's typo: never an empty table or a false "paired across" with
        # exit 0, which a script would read as "no regression".
        p = compare(db, "tag:a1", "tag:slow", "--metric", "dd.wirte*")
        expect(p.returncode == 1 and "--metric 'dd.wirte*' matches no metric" in p.stderr,
               f"a --metric that matches nothing: error, exit 1 (got {p.returncode}: {p.stderr.strip()})")
        p = compare(db, "tag:a1", "tag:slow", "--metric", "dd.write*")
        expect(p.returncode == 4, f"a --metric that matches: exit 4 (got {p.returncode})")
        p = compare(db, "tag:a1", "tag:a2", "--ignore-setting", "disk_mpbs")
        expect(p.returncode == 2 and "--ignore-setting 'disk_mpbs'" in p.stderr and "paired across" not in p.stdout,
               f"--ignore-setting of a setting no cell has: usage error, exit 2 (got {p.returncode}: "
               f"{p.stderr.strip()})")
        p = compare(db, "tag:a1", "tag:thr", "--ignore-setting", "disk_mbps")
        expect(p.returncode == 4 and "paired across differing settings: disk_mbps" in p.stdout,
               f"--ignore-setting of a real setting pairs across it (got {p.returncode}: {p.stderr.strip()})")

        # Different workload parameters are different measurements: never
        # paired across on the sly, even when nothing else pairs.
        sq = sqlite3.connect(db)
        sq.execute("INSERT INTO runs (id, tag, settings_json, started_at, status) VALUES (8, 'big', ?, 1, "
                   "'complete')", (json.dumps({"repeats": 5, "mem_mb": 256, "cpus": 1, "disk_mbps": 0, "fs": "ext4"}),))
        for i, w in enumerate([60.1, 61.0, 60.4, 60.8, 60.2]):
            params = json.dumps({"workload": "dd:size=1G,bs=1M", "mem_mb": 256, "cpus": 1, "disk_mbps": 0, "fs": "ext4"})
            sq.execute("INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, params_json, iteration, state) "
                       "VALUES (?, 8, ?, 'k57', 'dd', ?, ?, 'ok')", (800 + i, f"c{i:03d}", params, i))
            sq.execute("INSERT INTO metrics (cell_id, name, value, unit) VALUES (?, 'dd.write_MBps', ?, 'MB/s')",
                       (800 + i, w))
        sq.commit()
        sq.close()
        p = compare(db, "tag:a1", "tag:big")
        expect(p.returncode == 1 and "paired across" not in p.stdout and "nothing to compare" in p.stderr
               and "workload" in p.stdout,
               f"another dd size is not paired across (exit {p.returncode}: {p.stdout[-300:]!r} {p.stderr.strip()})")

        # A kernel name from the store in an error: no escape reaches the terminal.
        sq = sqlite3.connect(db)
        sq.execute("INSERT INTO kernels (id, name, added_at) VALUES ('kx', ?, 1)", ("evil\x1b[31m\x1b]0;t\x07",))
        sq.execute("INSERT INTO runs (id, tag, settings_json, started_at, status) VALUES (9, 'two', '{}', 1, 'complete')")
        for i, k in enumerate(("k57", "kx")):
            sq.execute("INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, iteration, state) "
                       "VALUES (?, 9, ?, ?, 'dd', 0, 'ok')", (900 + i, f"c{i:03d}", k))
        sq.commit()
        sq.close()
        p = compare(db, "run:9", "tag:a1")
        expect(p.returncode == 1 and "several kernels" in p.stderr and "\x1b" not in p.stderr
               and "\x07" not in p.stderr and p.stderr.count("\n") == 1,
               f"a hostile kernel name in an error is masked: {p.stderr!r}")

        # kbench show reads RUN the same way: a bad one is a usage error.
        for run in ("0", "1x", "99999999999999999999"):
            p = subprocess.run([KBENCH, "--db", db, "show", run], capture_output=True, text=True, timeout=60)
            expect(p.returncode == 2 and "bad run" in p.stderr, f"show {run}: usage error, exit 2 (got {p.returncode})")
        p = subprocess.run([KBENCH, "--db", db, "show", "77"], capture_output=True, text=True, timeout=60)
        expect(p.returncode == 1 and "no run 77" in p.stderr, f"show 77: error, exit 1 (got {p.returncode})")

        p = compare(db, "tag:nope", "tag:a1")
        expect(p.returncode == 1 and "no run tagged 'nope'" in p.stderr, "an unknown tag: error, exit 1")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
