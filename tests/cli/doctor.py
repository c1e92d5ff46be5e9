#!/usr/bin/env python3
"""kbench doctor tells the truth about a store: each check is ok, warn or
FAIL and a last line counts them; rows a crafted or hand-edited database
holds (orphan cells, which show, compare and the site leave out) fail; the
staging directory a killed `kernel add` left is named at once and removed
by --repair only, named before it goes; a cached KVM verdict of "unusable"
is a warning with the probe's reason on one line. Boots no guest.

Arguments: kbench, results/schema.sql."""
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

KBENCH, SCHEMA = sys.argv[1], sys.argv[2]
failures = []
KID = "a" * 64


def expect(cond, what):
    if not cond:
        failures.append(what)


def kb(home, *args):
    return subprocess.run([KBENCH, "--store", home, *args], capture_output=True, text=True, timeout=120)


def lines_of(p, name):
    return [l for l in p.stdout.split("\n") if re.match(r"^(ok|warn|FAIL) +" + re.escape(name) + " ", l)]


def summary(p):
    last = p.stdout.rstrip("\n").split("\n")[-1]
    m = re.fullmatch(r"doctor: (\d+) ok, (\d+) warn, (\d+) fail", last)
    expect(m, f"doctor ends with its summary line: {last!r}")
    return tuple(int(x) for x in m.groups()) if m else (0, 0, 0)


def main():
    with tempfile.TemporaryDirectory(prefix="kbench-doctor-") as home:
        os.chmod(home, 0o711)
        kdir = os.path.join(home, "kernels")
        os.makedirs(kdir)
        db = os.path.join(home, "results.db")
        with sqlite3.connect(db) as c:
            with open(SCHEMA, encoding="utf-8") as f:
                c.executescript(f.read())
            c.execute("PRAGMA user_version = 1")
        c.close()
        kb(home, "show")        # migrates the version-1 file
        p = kb(home, "doctor")
        rows = lines_of(p, "db-rows")
        expect(rows and rows[0].startswith("ok "), f"an empty database's rows are ok: {rows}")
        counts = summary(p)
        expect(sum(counts) == len([l for l in p.stdout.split("\n") if re.match(r"^(ok|warn|FAIL) ", l)]),
               f"the summary counts every check: {counts}")
        expect((p.returncode == 1) == (counts[2] > 0), f"exit 1 exactly when a check failed: {p.returncode} {counts}")

        # Cells of a kernel whose row is gone (a hand edit with foreign
        # keys off, as sqlite3's default is): the header of show would
        # count them, the tables leave them out.
        with sqlite3.connect(db) as c:
            c.execute("INSERT INTO runs (id, settings_json, started_at, status) VALUES (1, '{}', 1, 'complete')")
            for i in range(2):
                c.execute("INSERT INTO cells (run_id, cell_key, kernel_id, workload, iteration, state) "
                          "VALUES (1, ?, ?, 'dd', 0, 'ok')", (f"c00{i}", KID))
        c.close()
        p = kb(home, "doctor")
        rows = lines_of(p, "db-rows")
        expect(p.returncode == 1 and len(rows) == 1 and rows[0].startswith("FAIL ")
               and "cells.kernel_id: 2 row(s) name no kernels row" in rows[0],
               f"doctor fails the orphan cells, naming the column and the count: {p.returncode} {rows}")
        expect(summary(p)[2] >= 1, "the summary counts the failure")

        # What kill -9 of kernel add leaves: its staging directory with a
        # half image. Named at once, kept without --repair.
        staging = os.path.join(kdir, ".tmp-add-k1ll3d")
        os.makedirs(staging)
        with open(os.path.join(staging, "image"), "wb") as f:
            f.write(b"half an image")
        p = kb(home, "doctor")
        st = lines_of(p, "staging")
        expect(st and st[0].startswith("warn ") and ".tmp-add-k1ll3d" in st[0] and "--repair" in st[0],
               f"doctor names the staging directory and how to remove it: {st}")
        expect(os.path.isdir(staging), "doctor without --repair removes nothing")
        p = kb(home, "doctor", "--repair")
        out = p.stdout.split("\n")
        said = [i for i, l in enumerate(out) if l.startswith("removing ") and staging in l]
        done = [i for i, l in enumerate(out) if re.match(r"^ok +staging +removed " + re.escape(staging), l)]
        expect(said and done and said[0] < done[0], f"--repair names what it removes first: {p.stdout!r}")
        expect(not os.path.exists(staging), "--repair removed the staging directory")
        with sqlite3.connect(db) as c:
            n = c.execute("SELECT count(*) FROM cells").fetchone()[0]
        c.close()
        expect(n == 2, f"--repair keeps every row that holds results: {n} cells")
        p = kb(home, "doctor")
        st = lines_of(p, "staging")
        expect(st and st[0].startswith("ok ") and "none" in st[0], f"nothing left to repair: {st}")

        # --json: every check has its level.
        p = kb(home, "doctor", "--json")
        j = json.loads(p.stdout)
        levels = {c["check"]: c["level"] for c in j["checks"]}
        expect(all(c["level"] in ("ok", "warn", "fail") for c in j["checks"]) and levels.get("db-rows") == "fail"
               and j["summary"]["fail"] >= 1 and j["ok"] is False,
               f"--json gives each check its level and a summary: {levels} {j.get('summary')}")

        # KVM that a probe found unusable: a warning with its reason, one
        # line, and what TCG means for the results.
        if os.path.exists("/dev/kvm"):
            qemu = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True, text=True)
            version = qemu.stdout.split()[3] if qemu.returncode == 0 else ""
            with open(os.path.join(home, "accel.json"), "w") as f:
                json.dump({"host_kernel": os.uname().release, "qemu": version, "kvm_works": False, "probe_s": 0.2,
                           "probed_at": 1, "failure": "libvirt: cannot create domain kb1-kvm-probe: internal "
                           "error: qemu unexpectedly closed the monitor: 2026-12-02T09:42:39.120816Z "
                           "qemu-system-x86_64: error: failed to set MSR 0x10a to 0x69\nqemu-system-x86_64: "
                           "kvm.c:3241: kvm_buf_set_msrs: Assertion failed."}, f)
            p = kb(home, "doctor")
            acc = lines_of(p, "accel")
            expect(acc and acc[0].startswith("warn ") and "failed to set MSR 0x10a to 0x69" in acc[0]
                   and "internal error" not in acc[0] and "not judged" in acc[0],
                   f"a KVM probed unusable is a warning with its reason and what TCG means: {acc} {p.stderr!r}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
