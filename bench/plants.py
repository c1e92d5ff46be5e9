#!/usr/bin/env python3
"""The planted-regression suite: kbench's own acceptance test. Each class
of regression is a patch against Debian's linux-source-6.1 (bench/plants/),
built with `kbench kernel build --patch` on the tiny configuration
(tools/tiny-kernel.config plus bench/plants/plants.config), and measured
against the same tree unpatched, at kbench's default settings, in one run
(the base and every plant interleaved, so their cells lie side by side).
The table printed at the end says, per class, what the plant really does
(its phase's length and kernel instructions, plant against base in that
run), which judged metrics compare called worse, the relevant MDE, the
cells used and the run's wall time; then, for each class whose kernel
instructions were judged to change, the first functions of compare's
explanation of that change and where the planted function stands (a CPU
plant's function must be first).

    bench/plants.py [--kbench build/cli/kbench] [--store DIR] [-n 6]
                    [--classes sleep-write,cpu-write] [--busy 2]
                    [--disk-busy 1] [--aa 3] [--json FILE]

Each class runs under one workload (dd of 256 MiB for most; fio's random
4 KiB writes and dbench's four clients, which run for a fixed time, for
the classes named fio-* and dbench-*), and the table is printed per
workload. --busy N runs N `yes` loops beside the guests (a busy host);
--disk-busy N runs N loops of direct-I/O dd on the host's own disk beside
them (the guests' disks are files on it, opened cache=none, so the host's
disk latency reaches the guest's waiting); --aa K also runs the base alone
in 2 K separate runs of each workload the classes run and compares them
in pairs, and K runs of the base beside 6.1-night1 (the same source, its
release renamed: an A/A pair measured together, as a night measures),
each compared within its run: no verdict is the right answer. It exits 1
when a class is not called worse (the classes in LIMITS, measured limits,
excepted), or is called better on some measure, or an A/A pair gets a
verdict. Takes about 1.5 minutes per cell pair-round on 2 TCG cores; the
builds are incremental after the first (one O= tree for every patch set
of a source)."""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
SOURCE = "/usr/src/linux-source-6.1.tar.xz"

# class: (patch, the phase it acts in, what it does, the measure of what it
# does beside the phase's length, run options, the workload). A patch may
# serve several classes: each workload it runs under is a class of its own.
DD = "dd:size=256M"
FIO = "fio:job=randwrite"
DBENCH = "dbench:clients=4"
CLASSES = {
    "cpu-write": ("cpu-write.patch", "write", "CPU work: a 20,000-turn loop on every write() call",
                  "kernel_Minsn", [], DD),
    "udelay-write": ("udelay-write.patch", "write", "a time-based busy-wait: udelay(150) on every write bio",
                     "spin_s", [], DD),
    "sleep-write": ("sleep-write.patch", "write", "sleeping: usleep_range(2 ms) on every write() of a file",
                    "wait_s", [], DD),
    "wait-read": ("wait-read.patch", "read", "sleeping: usleep_range(2 ms) on every read() of a file",
                  "wait_s", [], DD),
    "writeback-stall": ("writeback-stall.patch", "write",
                        "writeback stalls: the flusher sleeps 250 ms after every chunk it writes", "wait_s", [], DD),
    # A dd whose 32 MiB buffer is anonymous memory that reclaim can swap.
    "swap-reclaim": ("swap-reclaim.patch", "write",
                     "reclaim scans anon as hard as file whenever swap exists (swap on, dd's 32 MiB buffer)",
                     "vmstat.swap_out_MiB", ["--swap", "128M"], "dd:size=256M,bs=32M"),
    "readahead": ("readahead.patch", "read", "readahead shrunk to 4 pages (16 KiB)", "kernel_Minsn", [], DD),
    # The same classes at other places and sizes.
    "cpu-read": ("cpu-read.patch", "read", "CPU work: a 5,000-turn loop on every read() call", "kernel_Minsn", [], DD),
    "udelay-read": ("udelay-read.patch", "read", "a time-based busy-wait: udelay(50) on every read bio", "spin_s",
                    [], DD),
    "sleep-write-sparse": ("sleep-write-sparse.patch", "write",
                           "sleeping: usleep_range(2 ms) on every 8th write() of a file", "wait_s", [], DD),
    "sleep-fsync": ("sleep-fsync.patch", "write", "sleeping: msleep(150) once per fsync of a file", "wait_s", [], DD),
    "writeback-short": ("writeback-short.patch", "write",
                        "writeback stalls: the flusher sleeps 100 ms after every chunk it writes", "wait_s", [], DD),
    # Memory the kernel keeps, and reclaim it does not do in the background.
    "leak-write": ("leak-write.patch", "write", "a leak: 16 KiB on every write() of a file, never freed",
                   "mem.held_MiB", [], DD),
    "leak-read": ("leak-read.patch", "read", "a leak: two pages (8 KiB) on every read() of a file, never freed",
                  "mem.held_MiB", [], DD),
    "reclaim-nokswapd": ("reclaim-nokswapd.patch", "read",
                         "reclaim pressure: kswapd is never woken, allocations reclaim directly", "allocstalls",
                         [], DD),
    "reclaim-kswapd-nap": ("reclaim-kswapd-nap.patch", "read",
                           "reclaim pressure: kswapd naps 50 ms each time it is woken", "allocstalls", [], DD),
    # A kernel that stalls in some cells only.
    "stall-half": ("stall-half.patch", "write",
                   "an intermittent stall: the first fsync after boot sleeps 500 ms in half the boots",
                   "halt_longest_s", [], DD),
    "stall-half-short": ("stall-half-short.patch", "write",
                         "an intermittent stall: the first fsync after boot sleeps 250 ms in half the boots",
                         "halt_longest_s", [], DD),
    "stall-third": ("stall-third.patch", "write",
                    "an intermittent stall: the first fsync after boot sleeps 1 s in a third of the boots",
                    "halt_longest_s", [], DD),
    # More reaches the disk for the same work.
    "dup-writes": ("dup-writes.patch", "write", "write amplification: every write bio reaches the disk twice",
                   "disk_written_MiB", [], DD),
    "dup-writes-quarter": ("dup-writes-quarter.patch", "write",
                           "write amplification: every 4th write bio reaches the disk twice", "disk_written_MiB",
                           [], DD),
    "fua-writes": ("fua-writes.patch", "write",
                   "flushes: every write bio is FUA (a disk without FUA gets a flush after each)", "disk_flushes",
                   [], DD),
    # Busy-waits that execute no pause: only their instructions show.
    "poll-nopause": ("poll-nopause.patch", "write",
                     "a busy-wait without cpu_relax(): 50 us on the clock on every write() of a file",
                     "kernel_Minsn", [], DD),
    "poll-nopause-mid": ("poll-nopause-mid.patch", "write",
                         "a busy-wait without cpu_relax(): 100 us on the clock on every write() of a file",
                         "kernel_Minsn", [], DD),
    "poll-nopause-long": ("poll-nopause-long.patch", "write",
                          "a busy-wait without cpu_relax(): 200 us on the clock on every write() of a file",
                          "kernel_Minsn", [], DD),
    # fio's random 4 KiB direct writes at depth 1 run for a fixed time.
    "fio-cpu-dio": ("cpu-dio.patch", "randwrite", "CPU work: a 5,000-turn loop on every direct write",
                    "kernel_insn_per_op", [], FIO),
    "fio-cpu-dio-small": ("cpu-dio-small.patch", "randwrite", "CPU work: a 1,000-turn loop on every direct write",
                          "kernel_insn_per_op", [], FIO),
    "fio-sleep-dio": ("sleep-dio.patch", "randwrite", "sleeping: usleep_range(1 ms) on every direct write",
                      "wait_us_per_op", [], FIO),
    "fio-sleep-dio-sparse": ("sleep-dio-sparse.patch", "randwrite",
                             "sleeping: usleep_range(1 ms) on every 8th direct write", "wait_us_per_op", [], FIO),
    # dbench's four clients for a fixed time: one sleeps while the others run.
    "dbench-cpu-write": ("cpu-write.patch", "dbench", "CPU work: a 20,000-turn loop on every write() call",
                         "kernel_insn_per_op", [], DBENCH),
    "dbench-sleep-write": ("sleep-write.patch", "dbench", "sleeping: usleep_range(2 ms) on every write() of a file",
                           "sleep_us_per_op", [], DBENCH),
    "dbench-sleep-open": ("sleep-open.patch", "dbench", "sleeping: usleep_range(0.5 ms) on every open() of a file",
                          "sleep_us_per_op", [], DBENCH),
}
# Classes below what kbench sees at these sizes (docs/detection.md): a
# busy-wait without pause that adds less than the noise band of the phase's
# instructions, and a stall in a third of the boots, which 6 cells a side
# see about a third of the time. Their rows are shown, and not called worse
# is no failure.
LIMITS = {"poll-nopause", "poll-nopause-mid", "stall-third"}
RUN_OPTS = ["--mem", "256"]
# The A/A partner of the base: the same tree, only its release renamed.
AA_PARTNER = ("6.1-night1", "night1.patch")


def load(store, cpu=0, disk=0):
    """Start the load beside the guests: cpu `yes` loops, disk loops that
    write and read 512 MiB with direct I/O on the store's disk (the
    guests' disk files live there). Returns the processes (stop_load)."""
    procs = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(cpu)]
    for i in range(disk):
        f = os.path.join(store, f"disk-busy-{i}.tmp")
        loop = (f"while :; do dd if=/dev/zero of='{f}' bs=1M count=512 oflag=direct status=none; "
                f"dd if='{f}' of=/dev/null bs=1M iflag=direct status=none; done")
        procs.append(subprocess.Popen(["sh", "-c", loop], start_new_session=True))
    return procs


def stop_load(procs, store):
    for p in procs:
        if p.args[0] == "sh":
            os.killpg(p.pid, signal.SIGTERM)
        else:
            p.send_signal(signal.SIGTERM)
        p.wait()
    for f in os.listdir(store):
        if f.startswith("disk-busy-") and f.endswith(".tmp"):
            os.unlink(os.path.join(store, f))


# The function each CPU plant's code is in, as the tiny kernel's System.map
# has it (vfs_write and vfs_read are functions of their own there, not
# inlined): compare's explanation of the plant's instruction change must
# name it first (the suite fails otherwise). readahead's plant adds no
# work of its own in ondemand_readahead: it makes the read path run eight
# times as often, so its explanation is that path; the table says where
# the planted function stands.
PLANTED = {"cpu-write": "vfs_write", "cpu-read": "vfs_read", "readahead": "ondemand_readahead"}
NAMED_FIRST = {"cpu-write", "cpu-read"}


def run_kbench(kbench, store, *argv, check=True):
    p = subprocess.run([kbench, "--store", store, *argv], capture_output=True, text=True)
    if check and p.returncode not in (0, 4):
        sys.exit(f"plants: kbench {' '.join(argv)} exited {p.returncode}: {p.stderr.strip()[-800:]}")
    return p


def build(kbench, store, name, patch):
    argv = ["kernel", "build", SOURCE, "--config", "tinyconfig", "--fragment", os.path.join(TOP, "tools", "tiny-kernel.config"),
            "--fragment", os.path.join(HERE, "plants", "plants.config"), "--name", name, "--json"]
    if patch:
        argv += ["--patch", os.path.join(HERE, "plants", patch)]
    print(f"plants: building {name}", file=sys.stderr, flush=True)
    p = run_kbench(kbench, store, *argv, check=False)
    if p.returncode != 0 and "is already taken" in p.stderr:
        # A plant whose patch changed: its old kernel gives up the name.
        run_kbench(kbench, store, "kernel", "remove", name)
        p = run_kbench(kbench, store, *argv, check=False)
    if p.returncode != 0:
        sys.exit(f"plants: building {name} failed: {p.stderr.strip()[-800:]}")
    return json.loads(p.stdout)


def run(kbench, store, kernels, n, workload, opts, tag):
    argv = ["run", *sum((["-k", k] for k in kernels), []), "-w", workload, "-n", str(n), *RUN_OPTS, *opts,
            "--tag", tag, "--json"]
    print(f"plants: run {tag}: {len(kernels)} kernels x {n}", file=sys.stderr, flush=True)
    t0 = time.monotonic()
    out = json.loads(run_kbench(kbench, store, *argv).stdout)
    return out, time.monotonic() - t0


def compare(kbench, store, a, b):
    return json.loads(run_kbench(kbench, store, "compare", a, b, "--json").stdout)


def metric(cmp, name):
    for g in cmp["groups"]:
        for m in g["metrics"]:
            if m["name"] == name:
                return m
    return None


def mean_diff(m):
    if not m or m["a"]["mean"] is None or m["b"]["mean"] is None:
        return None
    return m["b"]["mean"] - m["a"]["mean"]


def kernel_of(cls):
    """The kernel a class runs: its patch's, whatever the workload."""
    return "6.1-" + CLASSES[cls][0][:-len(".patch")]


def phase_metric(cmp, phase, measure):
    """A measure's metric: a whole name (vmstat.*, mem.*) or the phase's."""
    return metric(cmp, measure if "." in measure else f"guest.{phase}.{measure}")


def effect(cmp, phase, measure):
    """What the plant does in the run: plant against base, as a
    difference for an amount, else a change in percent."""
    m = phase_metric(cmp, phase, measure)
    if not m or m["a"]["mean"] is None or m["b"]["mean"] is None:
        return "n/a"
    name = m["name"].split(".")[-1]
    if m.get("ci95_diff") is not None or m["a"]["mean"] == 0:
        return f"{name} {m['a']['mean']:.3g} -> {m['b']['mean']:.3g} {m['unit']}"
    return f"{name} {m['change_pct']:+.1f} %"


def where(cmp, cls, phase):
    """compare's explanation of the phase's instruction change (judged):
    its first functions, and where the planted function stands."""
    expl = [e for g in cmp["groups"] for e in g.get("explain", []) if e["phase"] == phase]
    if not expl or not expl[0]["functions"]:
        return None, None
    fns = expl[0]["functions"]
    first = ", ".join(f"{f['symbol']} {f['change_Minsn']:+.3g} ({f['pct_of_phase_a']:+.1f} %)" for f in fns[:2])
    planted = PLANTED.get(cls)
    rank = next((i + 1 for i, f in enumerate(fns) if f["symbol"] == planted), None)
    return first, rank


def row(cls, cmp, phase, secs, cells, measure, workload):
    wall, insn = metric(cmp, f"guest.{phase}.wall_s"), metric(cmp, f"guest.{phase}.kernel_Minsn")
    worse = [m for g in cmp["groups"] for m in g["metrics"] if m["verdict"] == "worse"]
    better = [m for g in cmp["groups"] for m in g["metrics"] if m["verdict"] == "better"]

    def says(m):
        if m.get("ci95_diff"):
            return f"{m['name']} {m['diff']:+.3g} {m['unit']}"
        return f"{m['name']} {m['change_pct']:+.1f}%"

    mdes = []
    # The phase's work, waiting and spinning (per operation in a timed
    # phase), and the class's own measure.
    names = [f"guest.{phase}.{w}" for w in ("kernel_Minsn", "wait_s", "spin_s", "kernel_insn_per_op",
                                            "wait_us_per_op", "spin_us_per_op")]
    own = phase_metric(cmp, phase, measure)
    if own and own["name"] not in names:
        names.append(own["name"])
    for name in names:
        m = metric(cmp, name)
        if not m or not m["judged"]:
            continue
        if m.get("mde_abs") is not None:
            mdes.append(f"{name.split('.')[-1]} {m['mde_abs']:.3g} {m['unit']}")
        elif m.get("mde_pct") is not None:
            mdes.append(f"{name.split('.')[-1]} {m['mde_pct']:.1f}%")
    return {
        "class": cls,
        "workload": workload,
        "does": CLASSES[cls][2] if cls in CLASSES else "nothing (A/A)",
        "phase": phase,
        "wall_s_change": mean_diff(wall),
        "wall_pct_change": wall["change_pct"] if wall else None,
        "kernel_Minsn_pct_change": insn["change_pct"] if insn else None,
        "effect": effect(cmp, phase, measure),
        "worse": [says(m) for m in worse],
        "better": [says(m) for m in better],
        "mde": mdes,
        "cells_per_side": cells,
        "wall_time_s": secs,
        "called_worse": bool(worse),
        "where": where(cmp, cls, phase)[0],
        "planted": PLANTED.get(cls),
        "planted_rank": where(cmp, cls, phase)[1],
    }


def print_table(rows):
    """One table per workload, in the order the rows came; then where the
    judged instruction changes went."""
    for workload in dict.fromkeys(r["workload"] for r in rows):
        print(f"\n{workload}:\n")
        print("| class | what the plant does | true effect: phase length, kernel insns | judged worse | MDE | cells a side | run wall time |")
        print("|---|---|---|---|---|---|---|")
        for r in (r for r in rows if r["workload"] == workload):
            eff = "n/a"
            if r["wall_s_change"] is not None:
                eff = (f"{r['phase']}: {r['wall_s_change']:+.2f} s ({r['wall_pct_change']:+.1f} %), "
                       f"kernel insns {r['kernel_Minsn_pct_change']:+.1f} %; {r['effect']}")
            worse = "; ".join(r["worse"]) or ("nothing (a limit)" if r["class"] in LIMITS else "**nothing**")
            if r["better"]:
                worse += " (better: " + "; ".join(r["better"]) + ")"
            print(f"| {r['class']} | {r['does']} | {eff} | {worse} | {', '.join(r['mde'])} | {r['cells_per_side']} | {r['wall_time_s']:.0f} s |")
    explained = [r for r in rows if r["where"]]
    if explained:
        print("\nWhere the judged instruction change went (compare's explanation, Minsn a cell and % of the base's phase):\n")
        print("| class | phase | first functions | the planted function | its place |")
        print("|---|---|---|---|---|")
    for r in explained:
        rank = f"{r['planted_rank']}." if r["planted_rank"] else "not in the first 8"
        print(f"| {r['class']} | {r['phase']} | {r['where']} | {r['planted'] or '-'} | {rank if r['planted'] else '-'} |")


# The phase and measure an A/A pair of a workload is shown by.
AA_PHASE = {DD: ("write", "wait_s"), FIO: ("randwrite", "wait_us_per_op"), DBENCH: ("dbench", "sleep_us_per_op")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbench", default=os.path.join(TOP, "build", "cli", "kbench"))
    ap.add_argument("--store", default=os.environ.get("KBENCH_PLANTS_STORE", "/var/tmp/kbench-plants"))
    ap.add_argument("-n", type=int, default=6, help="cells per kernel (default 6)")
    ap.add_argument("--classes", default=",".join(CLASSES), help="comma-separated classes (default: all)")
    ap.add_argument("--busy", type=int, default=0, help="run N `yes` loops beside the guests")
    ap.add_argument("--disk-busy", type=int, default=0,
                    help="run N direct-I/O dd loops on the host's disk beside the guests")
    ap.add_argument("--aa", type=int, default=0,
                    help="also K A/A pairs of separate base runs of each workload the classes run, and K runs "
                         "of the base beside its A/A partner")
    ap.add_argument("--json", help="write the rows as JSON to this file")
    args = ap.parse_args()
    classes = [c for c in args.classes.split(",") if c]
    for c in classes:
        if c not in CLASSES:
            ap.error(f"unknown class {c} (one of {', '.join(CLASSES)})")
    os.makedirs(args.store, mode=0o711, exist_ok=True)
    os.chmod(args.store, 0o711)

    build(args.kbench, args.store, "6.1-base", None)
    for c in classes:
        if not any(kernel_of(o) == kernel_of(c) for o in classes[:classes.index(c)]):
            build(args.kbench, args.store, kernel_of(c), CLASSES[c][0])
    if args.aa:
        build(args.kbench, args.store, AA_PARTNER[0], AA_PARTNER[1])

    busy = load(args.store, args.busy, args.disk_busy)
    rows = []
    stamp = time.strftime("%Y%m%d-%H%M%S")
    try:
        # Classes whose runs share settings share one run (and its base cells).
        by_opts = {}
        for c in classes:
            by_opts.setdefault((CLASSES[c][5], tuple(CLASSES[c][4])), []).append(c)
        for (workload, opts), group in by_opts.items():
            tag = f"plants-{stamp}-{'-'.join(group)}"[:100]
            kernels = ["6.1-base", *dict.fromkeys(kernel_of(c) for c in group)]
            out, secs = run(args.kbench, args.store, kernels, args.n, workload, list(opts), tag)
            rid = out["run"]["id"]
            for c in group:
                cmp = compare(args.kbench, args.store, f"run:{rid}:6.1-base", f"run:{rid}:{kernel_of(c)}")
                rows.append(row(c, cmp, CLASSES[c][1], secs, args.n, CLASSES[c][3], workload))
        for workload in dict.fromkeys(CLASSES[c][5] for c in classes if CLASSES[c][5] in AA_PHASE):
            for k in range(args.aa):
                ids = []
                for side in "ab":
                    out, secs = run(args.kbench, args.store, ["6.1-base"], args.n, workload, [],
                                    f"plants-aa-{stamp}-{workload.split(':')[0]}-{k}{side}")
                    ids.append(out["run"]["id"])
                cmp = compare(args.kbench, args.store, f"run:{ids[0]}:6.1-base", f"run:{ids[1]}:6.1-base")
                phase, measure = AA_PHASE[workload]
                rows.append(row(f"A/A {k + 1} (runs {ids[0]}, {ids[1]})", cmp, phase, secs, args.n, measure,
                                workload))
        for k in range(args.aa):
            out, secs = run(args.kbench, args.store, ["6.1-base", AA_PARTNER[0]], args.n, DD, [],
                            f"plants-aa-{stamp}-{k}-together")
            rid = out["run"]["id"]
            cmp = compare(args.kbench, args.store, f"run:{rid}:6.1-base", f"run:{rid}:{AA_PARTNER[0]}")
            rows.append(row(f"A/A {k + 1} together (run {rid})", cmp, "write", secs, args.n, "wait_s", DD))
    finally:
        stop_load(busy, args.store)
    print_table(rows)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"busy": args.busy, "disk_busy": args.disk_busy, "n": args.n, "rows": rows}, f, indent=1)
    missed = [r["class"] for r in rows if r["class"] in CLASSES and not r["called_worse"] and r["class"] not in LIMITS]
    better = [r["class"] for r in rows if r["class"] in CLASSES and r["better"]]
    aa_false = [r["class"] for r in rows if r["class"].startswith("A/A") and (r["worse"] or r["better"])]
    unnamed = [r["class"] for r in rows if r["class"] in NAMED_FIRST and r["planted_rank"] != 1]
    if missed or better or aa_false or unnamed:
        print(f"plants: not called worse: {', '.join(missed) or 'none'}; called better too: "
              f"{', '.join(better) or 'none'}; A/A with a verdict: {', '.join(aa_false) or 'none'}; "
              f"planted function not named first: {', '.join(unnamed) or 'none'}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
