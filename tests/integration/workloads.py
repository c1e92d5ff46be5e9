#!/usr/bin/env python3
"""Integration test of the tiobench and bonnie++ workloads: import one real
Debian kernel, run tiobench (threads 1 and 2) and bonnie++ at small sizes
under QEMU, and check what was stored against what the guest printed: every
metric with its unit, rates recomputed from tiotest's own lines, random
phases credited with the operations done, the random read measuring the disk
rather than the page cache, the four-section table of `kbench show`, and
bonnie++'s "+++++" fields stored without a value but with a note (in the
JSON and in the database itself), skipped fields stored not at all. Needs the 6.1.0-47 .deb in $KBENCH_DEBS
(tools/setup.sh fetches it)."""
import json
import os
import re
import sqlite3

from kbtest import debs, expect, kb, temp_store


PHASES = ("seq_write", "rand_write", "seq_read", "rand_read")
TIO_UNITS = {"MBps": "MB/s", "lat_avg_ms": "ms", "lat_max_ms": "ms", "lat_pct_gt2s": "%",
             "lat_pct_gt10s": "%", "cpu_pct": "%", "cpu_eff": "MB/s per CPU"}
THREADS = (1, 2)
RANDOM = 2000
SIZE_MIB = 32
# bonnie++ 2.00a CSV (format 1.98): test -> (rate field, CPU field, latency field, rate suffix, unit)
BONNIE = {
    "seq_out_char": (9, 10, 38, "_KBps", "KiB/s"), "seq_out_block": (11, 12, 39, "_KBps", "KiB/s"),
    "rewrite": (13, 14, 40, "_KBps", "KiB/s"), "seq_in_char": (15, 16, 41, "_KBps", "KiB/s"),
    "seq_in_block": (17, 18, 42, "_KBps", "KiB/s"), "seeks": (19, 20, 43, "_per_s", "1/s"),
    "seq_create": (26, 27, 44, "_per_s", "1/s"), "seq_stat": (28, 29, 45, "_per_s", "1/s"),
    "seq_delete": (30, 31, 46, "_per_s", "1/s"), "rand_create": (32, 33, 47, "_per_s", "1/s"),
    "rand_stat": (34, 35, 48, "_per_s", "1/s"), "rand_delete": (36, 37, 49, "_per_s", "1/s"),
}
LAT_SCALE = {"us": 1, "ms": 1e3, "s": 1e6}

def close(a, b, rel=1e-4):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def check_tiobench(home, run_id, cell):
    m = cell["metrics"]
    key = cell["key"]
    for ph in PHASES:
        for t in THREADS:
            p = f"tiobench.{ph}.t{t}."
            # A phase short enough to use no measurable CPU (a fast host) has
            # no efficiency, and says so; everything else always has a value.
            idle_cpu = m.get(p + "cpu_pct", {}).get("value") == 0
            for what, unit in TIO_UNITS.items():
                name = p + what
                no_value = idle_cpu and what == "cpu_eff"
                expect(name in m and m[name]["unit"] == unit and (m[name]["value"] is None) == no_value,
                       f"{key}: {name} = {m.get(name, {}).get('value')} {m.get(name, {}).get('unit')}")
            expect(m[p + "MBps"]["value"] > 0 and m[p + "lat_max_ms"]["value"] >= m[p + "lat_avg_ms"]["value"] > 0,
                   f"{key}: {ph} t{t} rate > 0 and max latency >= average > 0")
            expect(0 <= m[p + "lat_pct_gt10s"]["value"] <= m[p + "lat_pct_gt2s"]["value"] <= 100,
                   f"{key}: {ph} t{t} latency shares within 0..100%")
            # One vCPU: the process cannot use more CPU than wall time.
            expect(0 <= m[p + "cpu_pct"]["value"] <= 101, f"{key}: {ph} t{t} cpu_pct "
                   f"{m[p + 'cpu_pct']['value']:.1f} within 0..100% on one vCPU")
            if idle_cpu:
                expect(m[p + "cpu_eff"]["note"] == "no CPU time measured", f"{key}: {ph} t{t} cpu_eff noted")
            else:
                expect(close(m[p + "cpu_eff"]["value"], m[p + "MBps"]["value"] / (m[p + "cpu_pct"]["value"] / 100)),
                       f"{key}: {ph} t{t} cpu_eff = MBps / (cpu_pct / 100)")
    expect(m["tiobench.size_MiB"]["value"] == SIZE_MIB and m["tiobench.size_MiB"]["unit"] == "MiB",
           f"{key}: tiobench.size_MiB = {SIZE_MIB}")
    expect(m["tiobench.block_bytes"]["value"] == 4096 and m["tiobench.block_bytes"]["unit"] == "B",
           f"{key}: tiobench.block_bytes = 4096")

    # What tiotest printed in the guest: the stored rates follow from it,
    # and random phases count RANDOM / T operations per thread, not the file.
    out = kb(home, "show", str(run_id), "--cell", key, "--log", "output").stdout
    lines = [l for l in out.splitlines() if l.startswith("tiotest phase=")]
    expect(len(lines) == len(PHASES) * len(THREADS), f"{key}: tiotest printed {len(lines)} result lines")
    for line in lines:
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        ph, t = f["phase"], int(f["threads"])
        want_ops = RANDOM // t * t if ph.startswith("rand") else SIZE_MIB * 2**20 // 4096 // t * t
        expect(int(f["ops"]) == want_ops and int(f["bytes"]) == want_ops * 4096,
               f"{key}: {ph} t{t} did {f['ops']} operations (expected {want_ops})")
        mbps = int(f["bytes"]) / float(f["wall_s"]) / 1e6
        expect(close(m[f"tiobench.{ph}.t{t}.MBps"]["value"], mbps, 1e-6),
               f"{key}: {ph} t{t} MBps {mbps:.2f} = bytes / wall_s of the guest's line")
    # Caches are dropped before each read phase. Had the random read run
    # from the page cache the sequential read just filled, it would beat the
    # sequential read (which reads ahead from the disk) several times over.
    for t in THREADS:
        rr, sr = m[f"tiobench.rand_read.t{t}.MBps"]["value"], m[f"tiobench.seq_read.t{t}.MBps"]["value"]
        expect(rr < sr, f"{key}: random read t{t} ({rr:.1f} MB/s) reads the disk: slower than "
               f"sequential ({sr:.1f} MB/s)")


def check_show_table(home, run_id, key):
    text = kb(home, "show", str(run_id)).stdout
    start = text.find(f"-- {key} ")
    expect(start >= 0, f"kbench show has a section for {key}")
    block = text[start:text.find("\n-- ", start + 1) if text.find("\n-- ", start + 1) > 0 else len(text)]
    titles = ["Sequential Reads", "Random Reads", "Sequential Writes", "Random Writes"]
    pos = [block.find("\n" + s + "\n") for s in titles]
    expect(all(p >= 0 for p in pos) and pos == sorted(pos), f"kbench show prints the four sections in order: {pos}")
    for s, p in zip(titles, pos):
        sec = block[p:]
        nxt = [q for q in pos if q > p]
        if nxt:
            sec = block[p:min(nxt)]
        expect("Rate" in sec and "(CPU%)" in sec and "Latency" in sec and ">2s" in sec and ">10s" in sec
               and "Eff" in sec, f"section {s} has the classic columns")
        rows = [l.split() for l in sec.splitlines() if re.match(r"^\s+\d+\s+\d+\s+\d+\s", l)]
        expect([int(r[2]) for r in rows] == list(THREADS) and all(r[0] == str(SIZE_MIB) and r[1] == "4096"
                                                                   for r in rows),
               f"section {s} has one row per thread count, size {SIZE_MIB} MiB, block 4096: {rows}")


def check_bonnie(home, run_id, cell):
    m = cell["metrics"]
    key = cell["key"]
    out = kb(home, "show", str(run_id), "--cell", key, "--log", "output").stdout
    csv = [l for l in out.splitlines() if l.startswith("1.98,2.00a,")]
    expect(len(csv) == 1, f"{key}: bonnie++ printed one CSV line")
    f = csv[0].split(",")
    expect(len(f) == 50, f"{key}: the CSV line has 50 fields")
    too_fast = set()
    for test, (ri, ci, li, suffix, unit) in BONNIE.items():
        for name, field, u in ((f"bonnie.{test}{suffix}", f[ri], unit), (f"bonnie.{test}_cpu_pct", f[ci], "%")):
            if field == "":
                expect(name not in m, f"{key}: skipped test gives no {name}")
            elif set(field) == {"+"}:
                too_fast.add(name)
                expect(name in m and m[name]["value"] is None and m[name]["note"] == "too fast to measure"
                       and m[name]["unit"] == u, f"{key}: {name} '{field}' stored without value, noted, in {u}")
            else:
                expect(name in m and m[name]["value"] == float(field) and m[name]["unit"] == u,
                       f"{key}: {name} = {field} {u}")
        if f[li]:
            num = re.match(r"^([0-9.]+)(us|ms|s)$", f[li])
            name = f"bonnie.{test}_lat_us"
            expect(num and name in m and m[name]["unit"] == "us"
                   and close(m[name]["value"], float(num.group(1)) * LAT_SCALE[num.group(2)]),
                   f"{key}: {name} = {f[li]} in microseconds")
    # fast=yes: the per-character tests (a write(2) per byte, a minute under
    # TCG) are skipped, their fields empty and without metrics.
    for test in ("seq_out_char", "seq_in_char"):
        expect(f[BONNIE[test][0]] == "" and not any(k.startswith(f"bonnie.{test}_") for k in m),
               f"{key}: skipped {test} has no metrics")
    # How many tests bonnie++ can time depends on the host's speed: on a fast
    # one every field is "+++++". What holds at any speed is that each rate
    # is either measured and positive or has no value and says why.
    rates = [k for k in m if k.startswith("bonnie.") and k.endswith(("_KBps", "_per_s"))]
    expect(rates and all((m[k]["value"] is not None and m[k]["value"] > 0) or
                         (m[k]["value"] is None and m[k]["note"] == "too fast to measure") for k in rates),
           f"{key}: each of {len(rates)} rates is measured and > 0 or too fast to measure "
           f"({sum(m[k]['value'] is None for k in rates)} too fast)")
    return too_fast


def main():
    found = debs("linux-image-6.1.0-47-amd64-unsigned_*.deb", 1)
    with temp_store("kbench-it-workloads-") as home:
        name = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)["name"]
        p = kb(home, "run", "-k", name,
               "-w", f"tiobench:threads={'/'.join(map(str, THREADS))},size={SIZE_MIB}M,random={RANDOM}",
               "-w", "bonnie:size=32M,ram=16M,files=1,fast=yes", "-n", "1", "--mem", "256", "--cpus", "1", "--json")
        run = json.loads(p.stdout)
        run_id = run["run"]["id"]
        cells = {c["workload"]: c for c in run["cells"]}
        expect(len(run["cells"]) == 2 and set(cells) == {"tiobench", "bonnie"}, "2 cells: tiobench and bonnie")
        for c in run["cells"]:
            expect(c["state"] == "ok", f"cell {c['key']} ({c['workload']}) ok ({c.get('detail')}), "
                   f"{c['total_s']:.1f} s")
        check_tiobench(home, run_id, cells["tiobench"])
        check_show_table(home, run_id, cells["tiobench"]["key"])
        too_fast = check_bonnie(home, run_id, cells["bonnie"])

        # The database itself: "+++++" is NULL with its note, never 0.
        db = sqlite3.connect(os.path.join(home, "results.db"))
        rows = db.execute("select m.name, m.value, m.note from metrics m join cells c on c.id = m.cell_id "
                          "where c.workload = 'bonnie' and m.name like 'bonnie.%' and m.value is null").fetchall()
        expect({r[0] for r in rows} == too_fast and all(r[2] == "too fast to measure" for r in rows),
               f"DB: the {len(rows)} bonnie metrics without value are exactly the '+' fields, each noted")
        db.close()
    print("1 passed, 0 failed")


main()
