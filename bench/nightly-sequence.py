#!/usr/bin/env python3
"""Four nights of `kbench nightly` on one host, as a kernel team sees them:
the baseline is the tiny base kernel (Debian's linux-source-6.1 on the tiny
configuration, bench/plants.py's), and a directory source gets one new
kernel a night, built from the same tree:

    night 1: 6.1-night1, the base with only its release renamed
    night 2: 6.1-night2, likewise
    night 3: 6.1-night3, +3 % of kernel instructions in the write phase
             (bench/plants/cpu-write-3pct.patch: a 12,500-turn loop per write())
    night 4: 6.1-night4, 0.2 s more waiting in the write phase
             (bench/plants/sleep-fsync-200.patch: msleep(200) per fsync)

Each night measures its new kernel and the baseline beside it, interleaved
in one run, and compares within that run. The right answer: no verdict on
nights 1 and 2; on night 3 the write phase's kernel instructions worse, on
night 4 its waiting, each from one run (both selectors name the night's
run, which holds both kernels), and the regression mail naming that run
for each side. Exits 1 when a night answers otherwise.

    bench/nightly-sequence.py [--kernels DIR] [--store DIR] [-n 6]
                              [--workload dd:size=256M] [--json FILE]

--kernels is where the kernels are built and kept ($KBENCH_PLANTS_CACHE,
default /var/tmp/kbench-plants: one O= tree for every patch set, so after
the base each builds in under a minute); --store is the nights' store (a
fresh one under /var/tmp, removed after, when not given). About 12 cells a
night; with dd:size=256M about 2 minutes a night on 2 idle TCG cores.
tests/integration/nightly_sequence.py runs it with a smaller dd in CI."""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plants  # noqa: E402

NIGHTS = [
    ("6.1-night1", ["night1.patch"], None),
    ("6.1-night2", ["night2.patch"], None),
    ("6.1-night3", ["night3.patch", "cpu-write-3pct.patch"], r"guest\.write\.kernel_Minsn"),
    ("6.1-night4", ["night4.patch", "sleep-fsync-200.patch"], r"guest\.write\.wait_s"),
]


def build(kbench, store, name, patches):
    argv = ["kernel", "build", plants.SOURCE, "--config", "tinyconfig",
            "--fragment", os.path.join(plants.TOP, "tools", "tiny-kernel.config"),
            "--fragment", os.path.join(plants.HERE, "plants", "plants.config"), "--name", name, "--json"]
    for p in patches:
        argv += ["--patch", os.path.join(plants.HERE, "plants", p)]
    print(f"nightly-sequence: building {name}", file=sys.stderr, flush=True)
    p = plants.run_kbench(kbench, store, *argv, check=False)
    if p.returncode != 0 and "is already taken" in p.stderr:
        plants.run_kbench(kbench, store, "kernel", "remove", name)
        p = plants.run_kbench(kbench, store, *argv, check=False)
    if p.returncode != 0:
        sys.exit(f"nightly-sequence: building {name} failed: {p.stderr.strip()[-800:]}")
    return json.loads(p.stdout)


def drop(image, release, into):
    dst = os.path.join(into, f"vmlinuz-{release}")
    shutil.copyfile(image, dst)
    # The dir source leaves a file modified in the last seconds for the next night.
    os.utime(dst, (time.time() - 120,) * 2)


def run_cells(kbench, store, run_id):
    """The run's cells: kernel, state and host.foreign_cpu_pct."""
    shown = json.loads(plants.run_kbench(kbench, store, "show", "--json", str(run_id)).stdout)
    out = []
    for c in shown.get("cells", []):
        fc = (c.get("metrics") or {}).get("host.foreign_cpu_pct") or {}
        out.append({"kernel": c.get("kernel"), "state": c.get("state"), "foreign_cpu_pct": fc.get("value")})
    return out


def check_night(i, expected, code, rep, mail):
    """What night i should have answered; the failures, as lines."""
    bad = []
    worse = [f["metric"] for f in rep["findings"] if f["verdict"] == "worse"]
    compared = [c.split() for c in rep["compared"]]
    if len(compared) != 1:
        bad.append(f"night {i}: {len(compared)} comparisons, not 1")
    for a, b in compared:
        ra, rb = a.split(":")[1], b.split(":")[1]
        if ra != rb:
            bad.append(f"night {i}: {a} against {b}: not one run")
    if rep["failures"] or rep["errors"]:
        bad.append(f"night {i}: failures {rep['failures']}, errors {rep['errors']}")
    if expected is None:
        if code != 0 or rep["findings"]:
            bad.append(f"night {i}: exit {code}, findings {worse or rep['findings']}: wanted no verdict")
        return bad
    if code != 4 or not any(re.fullmatch(expected, m) for m in worse):
        bad.append(f"night {i}: exit {code}, worse {worse}: wanted {expected} worse")
    if not re.search(r"^  B: .* in run (\d+) \(measured together, interleaved\)$", mail, re.M):
        bad.append(f"night {i}: the mail does not say both sides came from one run")
    return bad


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbench", default=os.path.join(plants.TOP, "build", "cli", "kbench"))
    ap.add_argument("--kernels", default=os.environ.get("KBENCH_PLANTS_CACHE", "/var/tmp/kbench-plants"))
    ap.add_argument("--store", help="the nights' store (default: a fresh one, removed after)")
    ap.add_argument("-n", type=int, default=6, help="repeats: cells per kernel a night (default 6)")
    ap.add_argument("--workload", default=plants.DD)
    ap.add_argument("--json", help="write the nights as JSON to this file")
    args = ap.parse_args()
    os.makedirs(args.kernels, mode=0o711, exist_ok=True)
    os.chmod(args.kernels, 0o711)
    base = build(args.kbench, args.kernels, "6.1-base", [])
    built = [build(args.kbench, args.kernels, name, patches) for name, patches, _ in NIGHTS]

    store = args.store or tempfile.mkdtemp(prefix="kb-nights-", dir=os.environ.get("KBENCH_TEST_TMP", "/var/tmp"))
    os.makedirs(store, exist_ok=True)
    os.chmod(store, 0o711)
    nights, failed = [], []
    try:
        src, mail = os.path.join(store, "drop"), os.path.join(store, "mail.txt")
        os.makedirs(src, exist_ok=True)
        cfg = os.path.join(store, "night.json")
        with open(cfg, "w") as f:
            json.dump({"sources": [{"type": "dir", "path": src}], "baseline": base["release"],
                       "workloads": [args.workload], "repeats": args.n, "vm": {"mem": "256M"}, "deadline": "2h",
                       "publish_dir": os.path.join(store, "site"), "notify": f"cat > '{mail}'"}, f)
        drop(base["image"], base["release"], src)
        for i, (k, (name, _, expected)) in enumerate(zip(built, NIGHTS), 1):
            drop(k["image"], k["release"], src)
            if os.path.exists(mail):
                os.unlink(mail)
            t0 = time.monotonic()
            p = plants.run_kbench(args.kbench, store, "nightly", "--json", cfg, check=False)
            secs = time.monotonic() - t0
            if p.returncode not in (0, 4):
                sys.exit(f"nightly-sequence: night {i} exited {p.returncode}: {p.stderr.strip()[-1500:]}")
            rep = json.loads(p.stdout)
            text = open(mail).read() if os.path.exists(mail) else ""
            run_id = int(rep["compared"][0].split()[0].split(":")[1]) if rep["compared"] else 0
            cells = run_cells(args.kbench, store, run_id) if run_id else []
            fc = [c["foreign_cpu_pct"] for c in cells if c["foreign_cpu_pct"] is not None]
            nights.append({"night": i, "kernel": k["release"], "exit": p.returncode, "compared": rep["compared"],
                           "findings": rep["findings"], "seconds": secs, "cells": len(cells),
                           "foreign_cpu_pct": fc})
            failed += check_night(i, expected, p.returncode, rep, text)
    finally:
        if not args.store:
            shutil.rmtree(store, ignore_errors=True)
    print("| night | new kernel | compared | findings | exit | cells | host.foreign_cpu_pct mean / max | wall time |")
    print("|---|---|---|---|---|---|---|---|")
    for n in nights:
        finds = "; ".join(f"{f['metric']} {f.get('change_text') or format(100 * f['change'], '+.1f') + ' %'} "
                          f"{f['verdict']}" for f in n["findings"]) or "none"
        fc = n["foreign_cpu_pct"]
        load = f"{statistics.mean(fc):.1f} / {max(fc):.1f} %" if fc else "n/a"
        print(f"| {n['night']} | {n['kernel']} | {', '.join(n['compared'])} | {finds} | {n['exit']} | {n['cells']} | "
              f"{load} | {n['seconds']:.0f} s |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n": args.n, "workload": args.workload, "nights": nights, "failed": failed}, f, indent=1)
    for line in failed:
        print("nightly-sequence:", line, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
