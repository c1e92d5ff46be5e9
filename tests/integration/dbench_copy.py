#!/usr/bin/env python3
"""Integration test of the dbench, copy and fio workloads: import one real
Debian kernel, run dbench (2 clients, 10 s), copy (a 16 MiB tree) and fio
(the randread preset, 16 MiB, 2 s) once each under QEMU, and check what was
stored against what the guest printed: every cell ok; dbench's throughput
and per-operation latencies from its final table (the warm-up excluded),
max at least average; copy's seconds from its phase marks, its rates from
the tree the job reported, and per-phase vmstat figures for the copy, sync
and read phases; fio's bandwidth, IOPS and latency percentiles from the
JSON it printed, with units and per-phase figures of its preset's phase.
Needs the 6.1.0-47 .deb in $KBENCH_DEBS (tools/setup.sh fetches it), dbench
on the host and the fio tools/setup.sh builds."""
import json
import re

from kbtest import debs, expect, kb, temp_store

COPY_MIB = 16


def close(a, b, rel=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-12)


def check_dbench(home, run_id, cell):
    m, key = cell["metrics"], cell["key"]
    out = kb(home, "show", str(run_id), "--cell", key, "--log", "output").stdout
    tp = [l for l in out.splitlines() if l.startswith("Throughput ")]
    expect(len(tp) == 1, f"{key}: dbench printed one Throughput line")
    mbps = float(tp[0].split()[1])
    expect(m["dbench.MBps"]["unit"] == "MB/s" and close(m["dbench.MBps"]["value"], mbps),
           f"{key}: dbench.MBps {m['dbench.MBps']['value']} is the Throughput line's {mbps}")
    expect("warmup" in out or "execute" in out, f"{key}: dbench printed its progress lines")
    rows = re.findall(r"^ (\w+)\s+\d+\s+([\d.]+)\s+([\d.]+)$", out, re.M)
    expect(len(rows) >= 10, f"{key}: dbench's table has {len(rows)} rows")
    for op, avg, mx in rows:
        a, x = m.get(f"dbench.{op}.avg_ms"), m.get(f"dbench.{op}.max_ms")
        expect(a and x and a["unit"] == x["unit"] == "ms" and close(a["value"], float(avg))
               and close(x["value"], float(mx)) and x["value"] >= a["value"],
               f"{key}: dbench.{op} avg {avg} / max {mx} ms stored")
    expect(m["dbench.max_latency_ms"]["value"] > 0, f"{key}: dbench.max_latency_ms stored")
    expect("vmstat.dbench.samples" in m, f"{key}: vmstat figures of the dbench phase")


def check_copy(home, run_id, cell):
    m, key = cell["metrics"], cell["key"]
    out = kb(home, "show", str(run_id), "--cell", key, "--log", "output").stdout
    tree = re.findall(r"^copy: files (\d+) bytes (\d+)$", out, re.M)
    expect(len(tree) == 1 and int(tree[0][1]) == COPY_MIB << 20, f"{key}: the job reported its tree: {tree}")
    files, size = int(tree[0][0]), int(tree[0][1])
    expect(m["copy.files"]["value"] == files and m["copy.size_MiB"]["value"] == COPY_MIB,
           f"{key}: copy.files {files}, copy.size_MiB {COPY_MIB}")
    for ph in ("copy", "read"):
        s = m[f"copy.{ph}_s"]["value"]
        expect(s > 0 and close(m[f"copy.{ph}_MBps"]["value"], size / s / 1e6, 1e-4)
               and close(m[f"copy.{ph}_files_per_s"]["value"], files / s, 1e-4),
               f"{key}: copy.{ph}_MBps and _files_per_s follow from {s:.3f} s")
        expect(f"vmstat.{ph}.samples" in m, f"{key}: vmstat figures of the {ph} phase")
    expect(m["copy.sync_s"]["value"] >= 0 and m["copy.sync_s"]["unit"] == "s", f"{key}: copy.sync_s stored")


def fio_results(out):
    """fio's JSON results in a job's output: each from a line "{" to a line "}"."""
    docs, cur = [], None
    for line in out.splitlines():
        if cur is None and line == "{":
            cur = [line]
        elif cur is not None:
            cur.append(line)
            if line == "}":
                docs.append(json.loads("\n".join(cur)))
                cur = None
    return docs


def check_fio(home, run_id, cell, insn):
    m, key = cell["metrics"], cell["key"]
    out = kb(home, "show", str(run_id), "--cell", key, "--log", "output").stdout
    docs = fio_results(out)
    expect(len(docs) == 1 and [j["jobname"] for j in docs[0]["jobs"]] == ["randread"],
           f"{key}: fio printed one result, of the job randread")
    rd = docs[0]["jobs"][0]["read"]
    expect(rd["total_ios"] > 0 and docs[0]["jobs"][0]["error"] == 0, f"{key}: fio read {rd['total_ios']} blocks")
    want = {"fio.randread.read_MBps": (rd["bw_bytes"] / 1e6, "MB/s"), "fio.randread.read_iops": (rd["iops"], "IO/s")}
    # The job's I/Os over every direction: what its phase's figures per
    # operation divide by.
    job = docs[0]["jobs"][0]
    want["fio.randread.ios"] = (sum(job[d]["total_ios"] for d in ("read", "write", "trim") if d in job), "ios")
    for pct, suffix in (("50.000000", "p50"), ("99.000000", "p99"), ("99.900000", "p99_9")):
        want[f"fio.randread.read_clat_{suffix}_us"] = (rd["clat_ns"]["percentile"][pct] / 1e3, "us")
    for name, (value, unit) in want.items():
        expect(name in m and m[name]["unit"] == unit and close(m[name]["value"], value),
               f"{key}: {name} {m.get(name, {}).get('value')} {unit} is fio's {value}")
    expect(not any(n.startswith("fio.") and n not in want for n in m), f"{key}: no other fio.* metrics")
    expect("vmstat.randread.samples" in m, f"{key}: vmstat figures of the randread phase")
    if insn:
        expect("guest.randread.kernel_Minsn" in m and m["guest.randread.kernel_Minsn"]["value"] > 0,
               f"{key}: instructions counted in the randread phase")


def main():
    found = debs("linux-image-6.1.0-47-amd64-unsigned_*.deb", 1)
    with temp_store("kbench-it-dbench-copy-") as home:
        name = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)["name"]
        p = kb(home, "run", "-k", name, "-w", "dbench:clients=2,duration=10", "-w", f"copy:size={COPY_MIB}M",
               "-w", "fio:job=randread,size=16M,runtime=2", "-n", "1", "--mem", "256", "--cpus", "1", "--json")
        run = json.loads(p.stdout)
        run_id = run["run"]["id"]
        cells = {c["workload"]: c for c in run["cells"]}
        expect(len(run["cells"]) == 3 and set(cells) == {"dbench", "copy", "fio"}, "3 cells: dbench, copy and fio")
        for c in run["cells"]:
            expect(c["state"] == "ok", f"cell {c['key']} ({c['workload']}) ok ({c.get('detail')}), "
                   f"{c['total_s']:.1f} s")
        check_dbench(home, run_id, cells["dbench"])
        check_copy(home, run_id, cells["copy"])
        # The plugin counts every phase when it is built (TCG), dbench's as fio's.
        check_fio(home, run_id, cells["fio"], "guest.dbench.kernel_Minsn" in cells["dbench"]["metrics"])
    print("1 passed, 0 failed")


main()
