#!/usr/bin/env python3
"""Does pinning QEMU's threads make a TCG dd cell less noisy? One run of
one kernel (Debian 6.1.0-57, 256 MiB, the default dd, cold), 2 x
KBENCH_BENCH_N cells in a row; every other cell's QEMU is pinned while it
runs: its vCPU threads ("CPU n/TCG", QEMU names them so under libvirt) on
the last CPU, every other thread of it on the first, as libvirt's
<vcpupin>/<emulatorpin> would. The two halves alternate in one run, so the
host's drift falls on both alike. Prints, per timed metric, the CoV of the
pinned and the unpinned cells, their means and the ratio, and the cells'
foreign CPU (how idle the host was). Run it alone, under the guest lock:

    flock /tmp/kbench-guest.lock python3 bench/pinning.py build/cli/kbench

Environment: KBENCH_BENCH_N (default 8), KBENCH_DEBS."""
import functools
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

print = functools.partial(print, flush=True)

KBENCH = sys.argv[1]
N = int(os.environ.get("KBENCH_BENCH_N", "8"))
DEBS = os.environ.get("KBENCH_DEBS", "/var/cache/kbench-debs")
K = "6.1.0-57-amd64"
METRICS = ["dd.write_MBps", "dd.read_MBps", "guest.write.kernel_Minsn", "host.foreign_cpu_pct"]
NCPU = os.cpu_count()


def pin_loop(home, stop):
    """Pin the threads of every QEMU of an odd cell (c001, c003, ...) of the store, again and again:
    threads a QEMU starts later are pinned too."""
    while not stop.is_set():
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read()
            except OSError:
                continue
            m = re.search(rb"guest=kb[0-9]+-r[0-9]+-c([0-9]+)", cmd)
            if b"qemu-system" not in cmd or not m or home.encode() not in cmd or int(m.group(1)) % 2 == 0:
                continue
            for tid in os.listdir(f"/proc/{pid}/task"):
                try:
                    with open(f"/proc/{pid}/task/{tid}/comm") as f:
                        comm = f.read().strip()
                    cpu = NCPU - 1 if re.match(r"CPU \d+/TCG", comm) else 0
                    os.sched_setaffinity(int(tid), {cpu})
                except OSError:
                    pass
        time.sleep(0.05)


def stats(cells, name):
    v = [c["metrics"][name]["value"] for c in cells if (c["metrics"].get(name) or {}).get("value") is not None]
    if len(v) < 2:
        return "n/a"
    m = statistics.mean(v)
    return f"{m:9.2f} CoV {100 * statistics.stdev(v) / m if m else float('nan'):5.1f} % (n={len(v)})"


def main():
    debs = sorted(glob.glob(os.path.join(DEBS, f"linux-image-{K}-unsigned_*.deb")))
    if not debs:
        sys.exit(f"need the {K} .deb in {DEBS} (tools/setup.sh)")
    if NCPU < 2:
        sys.exit("pinning needs two CPUs")
    home = tempfile.mkdtemp(prefix="kbench-pinning-", dir="/var/tmp")
    os.chmod(home, 0o755)
    stop = threading.Event()
    t = threading.Thread(target=pin_loop, args=(home, stop), daemon=True)
    try:
        subprocess.run([KBENCH, "--store", home, "kernel", "add", "-q", debs[0]], check=True)
        t.start()
        p = subprocess.run([KBENCH, "--store", home, "run", "-k", K, "-w", "dd", "--mem", "256", "-n", str(2 * N),
                            "--json"], capture_output=True, text=True)
        stop.set()
        if p.returncode not in (0, 3):
            sys.exit(p.stderr)
        cells = [c for c in json.loads(p.stdout)["cells"] if c["state"] == "ok"]
        pinned = [c for c in cells if int(c["key"][1:]) % 2 == 1]
        free = [c for c in cells if int(c["key"][1:]) % 2 == 0]
        print(f"{'metric':28} {'unpinned':>32} {'pinned':>32}")
        for name in METRICS:
            print(f"{name:28} {stats(free, name):>32} {stats(pinned, name):>32}")
    finally:
        stop.set()
        shutil.rmtree(home, ignore_errors=True)


main()
