#!/usr/bin/env python3
"""How noisy each dd metric is, idle and on a busy host, side by side in one
invocation (not a timed test: it boots real guests, so run it alone, under
the guest lock, with nothing else running):

    flock /tmp/kbench-guest.lock python3 bench/insn-noise.py build/cli/kbench

Two runs of the same kernel on a fresh store (Debian 6.1.0-57, 256 MiB,
the default dd, warm, n = KBENCH_BENCH_N cells, default 6): one on the idle
host, one while two `yes` loops keep both of its cores busy. Per metric it
prints the coefficient of variation of each run and the change of the busy
run's mean against the idle one's: the timed rates move with the host, the
guest.*_Minsn instruction counts (TCG plugin) should not. Then it prints
`kbench compare` of the two runs' verdict lines, which must not call a
change. Environment: KBENCH_BENCH_N, KBENCH_DEBS."""
import functools
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

print = functools.partial(print, flush=True)

KBENCH = sys.argv[1]
N = os.environ.get("KBENCH_BENCH_N", "6")
DEBS = os.environ.get("KBENCH_DEBS", "/var/cache/kbench-debs")
K = "6.1.0-57-amd64"
METRICS = ["dd.write_MBps", "dd.read_MBps", "guest.write.kernel_Minsn", "guest.write.user_Minsn",
           "guest.read.kernel_Minsn", "guest.read.user_Minsn", "guest.drop-caches.kernel_Minsn"]


def kb(home, *args, ok=(0,)):
    p = subprocess.run([KBENCH, "--store", home, *args], capture_output=True, text=True)
    if p.returncode not in ok:
        sys.exit(f"kbench {' '.join(args)} exited {p.returncode}:\n{p.stderr}")
    return p


def values(run, name):
    return [c["metrics"][name]["value"] for c in run["cells"]
            if c["state"] == "ok" and (c.get("metrics", {}).get(name) or {}).get("value") is not None]


def cov(v):
    return statistics.stdev(v) / statistics.mean(v) if len(v) > 1 and statistics.mean(v) else float("nan")


def main():
    debs = sorted(glob.glob(os.path.join(DEBS, f"linux-image-{K}-unsigned_*.deb")))
    if not debs:
        sys.exit(f"need the {K} .deb in {DEBS} (tools/setup.sh)")
    home = tempfile.mkdtemp(prefix="kbench-insn-noise-", dir="/var/tmp")
    os.chmod(home, 0o755)
    try:
        kb(home, "kernel", "add", debs[0])
        args = ["-k", K, "-w", "dd", "--mem", "256", "--warm"]
        kb(home, "run", *args, "-n", "1", "--tag", "snapshot", ok=(0, 3))
        idle = json.loads(kb(home, "run", "--json", *args, "-n", N, "--tag", "idle", ok=(0, 3)).stdout)
        hogs = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(2)]
        try:
            busy = json.loads(kb(home, "run", "--json", *args, "-n", N, "--tag", "busy", ok=(0, 3)).stdout)
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        fc = lambda run: statistics.median(values(run, "host.foreign_cpu_pct") or [float("nan")])
        print(f"dd, {K}, n = {N} a run; host.foreign_cpu_pct median: idle {fc(idle):.1f} %, busy {fc(busy):.1f} %")
        print(f"| metric | CoV idle | CoV busy | busy vs idle |\n|---|---:|---:|---:|")
        for m in METRICS:
            a, b = values(idle, m), values(busy, m)
            if not a or not b:
                print(f"| {m} | - | - | - |")
                continue
            ch = statistics.mean(b) / statistics.mean(a) - 1
            print(f"| {m} | {cov(a) * 100:.2f} % | {cov(b) * 100:.2f} % | {ch * 100:+.1f} % |")
        p = kb(home, "compare", "tag:idle", "tag:busy", ok=(0, 4))
        print("\nkbench compare tag:idle tag:busy (exit %d):" % p.returncode)
        for line in p.stdout.splitlines():
            if line.startswith(("guest.", "dd.", "  note:")) or "worse" in line:
                print("  " + line)
    finally:
        shutil.rmtree(home, ignore_errors=True)


main()
