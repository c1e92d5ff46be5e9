#!/usr/bin/env python3
"""Benchmark of warm start against its targets (not a timed test: it boots
real guests, so run it alone, on an idle host, under the guest lock):

    flock /tmp/kbench-guest.lock python3 bench/warm-start.py build/cli/kbench

Everything is measured cold (`--cold`) and warm (`--warm`) side by side
in one invocation, on fresh stores, with medians over the ok cells:

1. boot_s (QEMU start or restore -> agent ready) and the harness overhead
   (total_s - workload_s) / total_s of a default dd cell (Debian 6.1.0-57,
   256 MiB, 1 vCPU), n per side;
2. the same overhead for a cell stretched to about 30 s of workload with
   --disk-mbps (the disk throttled);
3. an FTP cell's agent ready -> first uploaded byte (the first nonzero
   ftp.bytes point on the cell's clock, minus boot_s), its ftp.setup_s
   (the guest's host-start -> first byte) and its boot_s;
4. the quickstart matrix (6.1.0-47 and 6.1.0-57 x dd x 3, 256 MiB), wall
   time of `kbench run`: cold, warm making the snapshots, warm reusing them.

Each warm side first makes its snapshot in a run of its own (not counted),
so the warm medians are of restored cells only; how many cells started warm
is printed, and a side where not all did is marked. The output ends with a
Markdown table for the README's performance section, with the targets.

Environment: KBENCH_BENCH_N (cells per side, default 6), KBENCH_BENCH_QUICK_N
(repeats in the quickstart matrix, default 3), KBENCH_BENCH_DD (the "default
dd" spec, default dd), KBENCH_BENCH_LONG_MBPS (the throttle of the 30 s cell,
default 36: 512 MiB written and 512 MiB read at 36 MB/s), KBENCH_BENCH_FTP
(default ftp:size=64M), KBENCH_DEBS. Small values prove the script works;
their figures mean nothing. Figures from a host that runs anything else are
indicative only: say so when quoting them."""
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
QUICK_N = int(os.environ.get("KBENCH_BENCH_QUICK_N", "3"))
DD = os.environ.get("KBENCH_BENCH_DD", "dd")
LONG_MBPS = os.environ.get("KBENCH_BENCH_LONG_MBPS", "36")
FTP = os.environ.get("KBENCH_BENCH_FTP", "ftp:size=64M")
DEBS = os.environ.get("KBENCH_DEBS", "/var/cache/kbench-debs")
K47, K57 = "6.1.0-47-amd64", "6.1.0-57-amd64"


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


def ok_cells(run):
    return [c for c in run["cells"] if c["state"] == "ok"]


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def overhead(c):
    if c.get("total_s") and c.get("workload_s") is not None:
        return (c["total_s"] - c["workload_s"]) / c["total_s"]
    return None


def metric(name):
    """A cell's stored value of metric name, None when it has none."""
    return lambda c: (c.get("metrics", {}).get(name) or {}).get("value")


def ready_to_first_byte(home, run, c):
    """Cell clock: the first ftp.bytes point above 0, minus boot_s (ready)."""
    cell = json.loads(kb(home, "show", str(run["run"]["id"]), "--cell", c["key"], "--json").stdout)
    ts = [p["t"] for p in cell.get("timeline", []) if p["kind"] == "ftp.bytes" and (p["value"] or 0) > 0]
    if not ts or c.get("boot_s") is None:
        return None
    return min(ts) - c["boot_s"]


def sides(home, *args):
    """args cold (n = N), then a warm run making the snapshot (not
    counted), then args warm (n = N). Returns {'cold': run, 'warm': run}."""
    cold, _ = timed_run(home, *args, "-n", str(N), "--cold")
    timed_run(home, *args, "-n", "1", "--warm")
    warm, _ = timed_run(home, *args, "-n", str(N), "--warm")
    return {"cold": cold, "warm": warm}


def started(run, how):
    cells = run["cells"]
    n = sum(c["start"] == how for c in cells)
    return f"{n}/{len(cells)}" + ("" if n == len(cells) else " (!)")


def main():
    tmp = os.environ.get("KBENCH_TEST_TMP", "/var/tmp")
    a = tempfile.mkdtemp(prefix="kbench-bench-warm-", dir=tmp)
    b = tempfile.mkdtemp(prefix="kbench-bench-quick-", dir=tmp)
    for d in (a, b):
        os.chmod(d, 0o711)  # QEMU runs as libvirt-qemu under root: it must enter the store
    rows = []  # (what, cold, warm, target)
    try:
        kb(a, "kernel", "add", deb("6.1.0-57"))
        kb(a, "kernel", "add", deb("6.1.0-47"))
        base = ("-k", K57, "--mem", "256", "--cpus", "1")

        dd = sides(a, *base, "-w", DD, "--tag", "dd")
        long = sides(a, *base, "-w", DD, "--disk-mbps", LONG_MBPS, "--tag", "long")
        # FTP as docs/ftp.md runs it (ext3 data=ordered, 160 MiB, 2 vCPUs).
        ftp = sides(a, "-k", K47, "-w", FTP, "--mem", "160", "--cpus", "2", "--fs", "ext3",
                    "--mount-opts", "data=ordered", "--tag", "ftp")

        for name, s in (("dd", dd), ("long", long), ("ftp", ftp)):
            print(f"{name}: cold cells started cold {started(s['cold'], 'cold')}, "
                  f"warm cells started warm {started(s['warm'], 'warm')}")

        def med(s, side, f):
            return median([f(c) for c in ok_cells(s[side])])

        rows.append(("boot_s, default dd cell (s)", med(dd, "cold", lambda c: c["boot_s"]),
                     med(dd, "warm", lambda c: c["boot_s"]), "warm <= 0.5"))
        rows.append(("workload_s, default dd cell (s)", med(dd, "cold", lambda c: c["workload_s"]),
                     med(dd, "warm", lambda c: c["workload_s"]), ""))
        rows.append(("harness overhead, default dd cell (%)", 100 * med(dd, "cold", overhead),
                     100 * med(dd, "warm", overhead), "warm <= 15"))
        rows.append((f"workload_s, --disk-mbps {LONG_MBPS} cell (s)", med(long, "cold", lambda c: c["workload_s"]),
                     med(long, "warm", lambda c: c["workload_s"]), "about 30"))
        rows.append((f"harness overhead, --disk-mbps {LONG_MBPS} cell (%)", 100 * med(long, "cold", overhead),
                     100 * med(long, "warm", overhead), "warm <= 5"))
        rows.append(("boot_s, FTP cell (s)", med(ftp, "cold", lambda c: c["boot_s"]),
                     med(ftp, "warm", lambda c: c["boot_s"]), ""))
        rows.append(("FTP agent ready -> first uploaded byte (s)",
                     median([ready_to_first_byte(a, ftp["cold"], c) for c in ok_cells(ftp["cold"])]),
                     median([ready_to_first_byte(a, ftp["warm"], c) for c in ok_cells(ftp["warm"])]),
                     "includes the NIC's link-up before host-start"))
        rows.append(("FTP host-start -> first uploaded byte, ftp.setup_s (s)", med(ftp, "cold", metric("ftp.setup_s")),
                     med(ftp, "warm", metric("ftp.setup_s")), "<= 0.5"))
        for m in ("dd.write_MBps", "dd.read_MBps"):
            rows.append((f"{m}, default dd cell (not interleaved: see docs/design.md)", med(dd, "cold", metric(m)),
                         med(dd, "warm", metric(m)), ""))

        kb(b, "kernel", "add", deb("6.1.0-47"))
        kb(b, "kernel", "add", deb("6.1.0-57"))
        quick = ("-k", K47, "-k", K57, "-w", "dd", "-n", str(QUICK_N), "--mem", "256")
        _, q_cold = timed_run(b, *quick, "--cold")
        _, q_warm1 = timed_run(b, *quick, "--warm")
        q_run, q_warm2 = timed_run(b, *quick, "--warm")
        print(f"quickstart, warm again: cells started warm {started(q_run, 'warm')}")
        rows.append((f"quickstart matrix (2 kernels x dd x {QUICK_N}), wall (s)", q_cold, q_warm2,
                     f"warm >= 1.5x faster (here {q_cold / q_warm2:.2f}x)"))
        rows.append(("  the same, warm making both snapshots (s)", q_cold, q_warm1, f"{q_cold / q_warm1:.2f}x"))

        print(f"\nwarm start, n = {N} cells per side, medians over ok cells; TCG")
        print("| measure | cold | warm | target |")
        print("|---|---:|---:|---|")
        for what, c, w, target in rows:
            print(f"| {what} | {c:.2f} | {w:.2f} | {target} |")
    finally:
        shutil.rmtree(a, ignore_errors=True)
        shutil.rmtree(b, ignore_errors=True)


if __name__ == "__main__":
    main()
