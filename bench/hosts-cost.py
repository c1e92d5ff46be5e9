#!/usr/bin/env python3
"""What one orchestrating kbench costs when its cells run on libvirt hosts
it reaches only through libvirt, so it is known how many hosts one
orchestrator can drive. Side by side in one invocation, on a fresh store
with Debian 6.1.0-57, default dd cells of 256 MiB, cold:

  local   the store's embedded driver (files shared, no upload)
  1 host  one libvirtd of this machine as a remote host (tests/integration/libvirthosts.py)
  2 hosts two of them, two workloads so both work at once

Per setup it prints the cells, kbench's own CPU time per cell (user +
system of the kbench process, its QEMUs excluded: under a daemon they are
not its children), the median boot_s (on a remote host it holds the disk's
upload), the run's wall time, and what staging the kernel and guest image
on a new host took. From the CPU per cell and a cell's length it prints
how many cells, and so hosts at one slot each, one core of the orchestrator
keeps busy. Run it alone, under the guest lock, nothing else running:

    flock /tmp/kbench-guest.lock python3 bench/hosts-cost.py build/cli/kbench

Environment: KBENCH_BENCH_N (repeats, default 4), KBENCH_DEBS."""
import functools
import glob
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "integration"))
import libvirthosts  # noqa: E402

print = functools.partial(print, flush=True)

KBENCH = sys.argv[1]
N = os.environ.get("KBENCH_BENCH_N", "4")
DEBS = os.environ.get("KBENCH_DEBS", "/var/cache/kbench-debs")
K = "6.1.0-57-amd64"


def run(home, connect, workloads, tag):
    """One kbench run; its wall time, its own CPU seconds, its cells and stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    args = [KBENCH, "--store", home, *connect, "run", "-k", K, *sum((["-w", w] for w in workloads), []),
            "-n", N, "--accel", "tcg", "--cold", "--json", "--tag", tag]
    p = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 3):
        sys.exit(f"kbench run exited {p.returncode}:\n{p.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads(p.stdout)["cells"], p.stderr


def main():
    debs = sorted(glob.glob(os.path.join(DEBS, f"linux-image-{K}-unsigned_*.deb")))
    if not debs:
        sys.exit(f"need the {K} .deb in {DEBS} (tools/setup.sh)")
    top = tempfile.mkdtemp(prefix="kbench-hosts-cost-", dir="/var/tmp")
    os.chmod(top, 0o711)
    home = os.path.join(top, "store")
    os.makedirs(home)
    os.chmod(home, 0o711)
    hosts = libvirthosts.start_hosts(top, ["h1", "h2"])
    try:
        subprocess.run([KBENCH, "--store", home, "kernel", "add", "-q", debs[0]], check=True)
        setups = [
            ("local", [], ["dd"]),
            ("1 host", ["--connect", f"h1={hosts[0].uri}"], ["dd"]),
            ("2 hosts", ["--connect", f"h1={hosts[0].uri}", "--connect", f"h2={hosts[1].uri}"],
             ["dd", "dd:bs=512K"]),
        ]
        print(f"{'setup':8} {'cells':>5} {'wall s':>7} {'kbench CPU s/cell':>18} {'boot_s med':>10} "
              f"{'cell s med':>10}  staging")
        for name, connect, workloads in setups:
            wall, cpu, cells, err = run(home, connect, workloads, name.replace(" ", "-"))
            ok = [c for c in cells if c["state"] == "ok"]
            staged = re.findall(r"uploaded \(([0-9.]+) s\)", err)
            print(f"{name:8} {len(ok):5d} {wall:7.1f} {cpu / max(len(cells), 1):18.3f} "
                  f"{statistics.median(c['boot_s'] for c in ok):10.2f} "
                  f"{statistics.median(c['total_s'] for c in ok):10.2f}  "
                  f"{', '.join(s + ' s' for s in staged) or '-'}")
            if name == "local":
                print("         (local: kbench reaps its embedded driver's QEMUs, so their CPU is counted here)")
            if name == "2 hosts":
                per_cell = cpu / max(len(cells), 1)
                cell_s = statistics.median(c["total_s"] for c in ok)
                print(f"one orchestrator core keeps about {cell_s / per_cell:.0f} cells running at once "
                      f"({cell_s:.1f} s a cell, {per_cell:.3f} s of kbench CPU each): that many hosts at one slot")
    finally:
        libvirthosts.stop_hosts(hosts)
        libvirthosts.remove(top)


main()
