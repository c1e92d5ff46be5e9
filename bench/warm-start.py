#!/usr/bin/env python3
"""Benchmark of warm start (not a timed test: it boots real guests, so run
it alone, under the guest lock):

    flock /tmp/kbench-guest.lock python3 bench/warm-start.py build/harness/kbench

1. The same kernel (6.1.0-57) and default dd, cold (n) and --warm (n), on a
   fresh store: median boot_s (QEMU start or restore -> agent ready),
   total_s and the run's wall time side by side, then `kbench compare` of
   the two runs (cold = A, warm = B), whose output is printed whole.
2. The quickstart matrix (6.1.0-47 and 6.1.0-57 x dd x 3, 256 MiB) on a
   second fresh store: wall time cold, warm with the snapshots still to be
   made, and warm again reusing them.

Figures from a host that runs anything else are indicative only."""
import functools
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

print = functools.partial(print, flush=True)  # partial results survive an interrupted run

KBENCH = sys.argv[1]
N = int(os.environ.get("KBENCH_BENCH_N", "6"))
DEBS = os.environ.get("KBENCH_DEBS", "/var/cache/kbench-debs")


def kb(home, *args, ok=(0,)):
    p = subprocess.run([KBENCH, "--store", home, *args], capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit(f"kbench {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
    return p


def deb(release):
    found = sorted(glob.glob(os.path.join(DEBS, f"linux-image-{release}-amd64-unsigned_*.deb")))
    if not found:
        sys.exit(f"need the {release} .deb in {DEBS} (tools/setup.sh)")
    return found[0]


def timed_run(home, *args):
    t0 = time.monotonic()
    run = json.loads(kb(home, "run", "--json", *args, ok=(0, 3)).stdout)
    return run, time.monotonic() - t0


def med(cells, key):
    v = [c[key] for c in cells if c["state"] == "ok" and c[key] is not None]
    return statistics.median(v) if v else float("nan")


def main():
    tmp = os.environ.get("KBENCH_TEST_TMP", "/var/tmp")
    a = tempfile.mkdtemp(prefix="kbench-bench-warm-", dir=tmp)
    b = tempfile.mkdtemp(prefix="kbench-bench-quick-", dir=tmp)
    for d in (a, b):
        os.chmod(d, 0o711)  # QEMU runs as libvirt-qemu under root: it must enter the store
    try:
        kb(a, "kernel", "add", deb("6.1.0-57"))
        cold, cold_wall = timed_run(a, "-k", "6.1.0-57-amd64", "-w", "dd", "-n", str(N), "--tag", "cold")
        warm, warm_wall = timed_run(a, "-k", "6.1.0-57-amd64", "-w", "dd", "-n", str(N), "--warm", "--tag", "warm")
        print(f"dd on 6.1.0-57, 256 MiB, n = {N} per side (medians over ok cells)")
        print(f"{'':22}{'cold':>10}{'warm':>10}")
        for key in ("boot_s", "workload_s", "total_s"):
            print(f"{key:22}{med(cold['cells'], key):10.3f}{med(warm['cells'], key):10.3f}")
        print(f"{'run wall time s':22}{cold_wall:10.1f}{warm_wall:10.1f}  (warm includes making the snapshot)")
        print(f"{'cells started warm':22}{sum(c['start'] == 'warm' for c in cold['cells']):10d}"
              f"{sum(c['start'] == 'warm' for c in warm['cells']):10d}")
        p = kb(a, "compare", f"run:{cold['run']['id']}", f"run:{warm['run']['id']}", ok=(0, 4))
        print(f"\nkbench compare run:{cold['run']['id']} (cold) run:{warm['run']['id']} (warm), exit {p.returncode}:")
        print(p.stdout)

        kb(b, "kernel", "add", deb("6.1.0-47"))
        kb(b, "kernel", "add", deb("6.1.0-57"))
        quick = ("-k", "6.1.0-47-amd64", "-k", "6.1.0-57-amd64", "-w", "dd", "-n", "3", "--mem", "256")
        _, q_cold = timed_run(b, *quick)
        _, q_warm1 = timed_run(b, *quick, "--warm")
        _, q_warm2 = timed_run(b, *quick, "--warm")
        print("quickstart matrix (2 kernels x dd x 3), wall time of `kbench run`, s")
        print(f"  cold                      {q_cold:7.1f}")
        print(f"  warm, making snapshots    {q_warm1:7.1f}  ({q_cold / q_warm1:.2f}x)")
        print(f"  warm, snapshots reused    {q_warm2:7.1f}  ({q_cold / q_warm2:.2f}x)")
    finally:
        shutil.rmtree(a, ignore_errors=True)
        shutil.rmtree(b, ignore_errors=True)


if __name__ == "__main__":
    main()
