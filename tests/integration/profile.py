#!/usr/bin/env python3
"""The profile of the kernel's instructions by function (cell/cellprof.h),
read from real cells: Debian's 6.1.0-47 and -57 (from $KBENCH_DEBS), a
small dd, two cold cells each, interleaved. Checked against what the
kernels are, not against what kbench made of them:
- the first cell of each kernel sends its symbol table (ksym records in
  its raw log) and the kernel store keeps it; the second sends none;
- each phase's rows add up to guest.<phase>.kernel_Minsn exactly (the
  same blocks at the same instants), with almost nothing unresolved;
- the names are functions of that kernel: those of the kernel proper are,
  by instructions, almost all in the kernel's own BTF (the .BTF section
  of the vmlinux in the store, which pahole wrote from the kernel's debug
  information at its build, independent of kallsyms), and a module's are
  text symbols of that module's .ko as Debian shipped it (nm);
- the functions dd must run are where they must be: the ext4 write path
  in the write phase, filemap_read in the read phase, drop_pagecache_sb in
  drop-caches and nowhere else, as a profile resolved at a wrong KASLR
  offset or module base, or cut at the wrong marks, would not have them;
- compare --explain --json lists, per phase, functions whose differences
  and the rest add up to the change of the phase's mean."""
import json
import os
import re
import sqlite3
import struct
import subprocess

from kbtest import debs, expect, kb, temp_store

PHASES = ("write", "drop-caches", "read")
# (phase, function, whether it runs there): the placement checks.
PLACED = [
    ("write", "ext4_buffered_write_iter [ext4]", True),
    ("read", "filemap_read", True),
    ("drop-caches", "drop_pagecache_sb", True),
    ("write", "drop_pagecache_sb", False),
    ("read", "drop_pagecache_sb", False),
    ("write", "filemap_read", False),
]


def btf_functions(vmlinux):
    """The FUNC names of the kernel's BTF (ELF section .BTF)."""
    with open(vmlinux, "rb") as f:
        d = f.read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)
    secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    names = secs[shstrndx][4]
    name = lambda o: d[names + o:d.index(b"\0", names + o)].decode()
    btf = next(s for s in secs if name(s[0]) == ".BTF")
    b = d[btf[4]:btf[4] + btf[5]]
    magic, _, _, hlen, toff, tlen, soff, slen = struct.unpack_from("<HBBIIIII", b, 0)
    expect(magic == 0xeB9F, f"{vmlinux} has BTF")
    types, strs = b[hlen + toff:hlen + toff + tlen], b[hlen + soff:hlen + soff + slen]
    # Bytes after each kind's 12-byte header, by its vlen (linux/btf.h).
    extra = {1: lambda v: 4, 3: lambda v: 12, 4: lambda v: 12 * v, 5: lambda v: 12 * v, 6: lambda v: 8 * v,
             13: lambda v: 8 * v, 14: lambda v: 4, 15: lambda v: 12 * v, 17: lambda v: 4, 19: lambda v: 12 * v}
    p, funcs = 0, set()
    while p < len(types):
        name_off, info, _ = struct.unpack_from("<III", types, p)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        p += 12 + extra.get(kind, lambda v: 0)(vlen)
        if kind == 12:
            funcs.add(strs[name_off:strs.index(b"\0", name_off)].decode())
    return funcs


def module_functions(modules_dir, module):
    """The text symbols of a module's .ko in the kernel store (nm)."""
    for root, _, files in os.walk(modules_dir):
        for f in files:
            if f == module.replace("-", "_") + ".ko" or f == module + ".ko":
                out = subprocess.run(["nm", os.path.join(root, f)], capture_output=True, text=True).stdout
                return {l.split()[2] for l in out.splitlines() if len(l.split()) == 3 and l.split()[1] in "tTwW"}
    return set()


with temp_store("kbench-profile-") as home:
    kernels = []
    for d in debs("linux-image-6.1.0-47-amd64-unsigned_*.deb") + debs("linux-image-6.1.0-57-amd64-unsigned_*.deb"):
        kernels.append(json.loads(kb(home, "kernel", "add", "--json", d).stdout))
    names = [k["name"] for k in kernels]
    run = json.loads(kb(home, "run", "-k", names[0], "-k", names[1], "-w", "dd:size=32M", "-n", "2", "--mem", "256",
                        "--accel", "tcg", "--json").stdout)
    run_id = run["run"]["id"]
    expect(all(c["state"] == "ok" for c in run["cells"]), "every cell ok")

    listed = {k["name"]: k for k in json.loads(kb(home, "kernel", "list", "--json").stdout)}
    for k in names:
        expect(os.path.isfile(os.path.join(os.path.dirname(listed[k]["image"]), "ksyms")),
               f"the kernel store keeps {k}'s symbol table")
    first_it = min(c["iteration"] for c in run["cells"])
    for c in run["cells"]:
        data = kb(home, "show", str(run_id), "--cell", c["key"], "--log", "data").stdout
        sent = len(re.findall(r" ksym ", data))
        first = c["iteration"] == first_it
        expect((sent > 0) == first, f"cell {c['key']} ({c['kernel']} #{c['iteration']}) "
                                    f"{'sent' if first else 'did not send'} its symbol table ({sent} records)")

    db = sqlite3.connect(f"file:{os.path.join(home, 'results.db')}?mode=ro", uri=True)
    for k in names:
        btf = btf_functions(listed[k]["vmlinux"])
        mods = {}
        cells = db.execute("SELECT c.id, c.cell_key FROM cells c JOIN kernels k ON k.id = c.kernel_id "
                           "WHERE c.run_id = ? AND k.name = ?", (run_id, k)).fetchall()
        for cell_id, key in cells:
            for phase in PHASES:
                rows = dict(db.execute("SELECT y.name, p.insns FROM profile p JOIN symbols y ON y.id = p.symbol_id "
                                       "WHERE p.cell_id = ? AND p.phase = ?", (cell_id, phase)).fetchall())
                minsn, = db.execute("SELECT value FROM metrics WHERE cell_id = ? AND name = ?",
                                    (cell_id, f"guest.{phase}.kernel_Minsn")).fetchone()
                total = sum(rows.values())
                expect(abs(total - minsn * 1e6) <= 1e-9 * total,
                       f"{k} {key} {phase}: {len(rows)} functions sum to the phase's {minsn:.4f} Minsn")
                unknown = rows.get("[unknown]", 0)
                expect(unknown <= 1e-3 * total, f"{k} {key} {phase}: {unknown} instructions unresolved")
                core = {n: i for n, i in rows.items() if not n.endswith("]")}
                in_btf = sum(i for n, i in core.items() if n.split(".")[0] in btf)
                expect(in_btf >= 0.9 * sum(core.values()),
                       f"{k} {key} {phase}: {100 * in_btf / sum(core.values()):.1f} % of the kernel proper's "
                       f"instructions in functions its BTF names")
                in_mods = [re.fullmatch(r"(\S+) \[([\w-]+)\]", n) for n in rows]
                in_mods = [m for m in in_mods if m]
                for m in in_mods:
                    if m.group(2) not in mods:
                        mods[m.group(2)] = module_functions(listed[k]["modules_dir"], m.group(2))
                bad = [m.group(0) for m in in_mods if m.group(1) not in mods[m.group(2)]]
                expect(in_mods and not bad, f"{k} {key} {phase}: the {len(in_mods)} functions of modules are text "
                                            f"symbols of their .ko (not: {bad[:5]})")
                for p, fn, runs in PLACED:
                    if p == phase:
                        expect((rows.get(fn, 0) > 0) == runs,
                               f"{k} {key}: {fn} {'runs' if runs else 'does not run'} in the {phase} phase "
                               f"({rows.get(fn, 0)} instructions)")

    cmp = json.loads(kb(home, "compare", f"run:{run_id}:{names[0]}", f"run:{run_id}:{names[1]}", "--explain",
                        "--json", check=False).stdout)
    expl = cmp["groups"][0].get("explain", [])
    expect(sorted(e["phase"] for e in expl) == sorted(PHASES), f"compare --explain explains every phase: "
                                                                f"{[e['phase'] for e in expl]}")
    for e in expl:
        listed_sum = sum(f["change_Minsn"] for f in e["functions"]) + e["others"]["change_Minsn"]
        expect(abs(listed_sum - e["change_Minsn"]) <= 1e-6 * max(1, abs(e["a_Minsn"])),
               f"{e['phase']}: the functions and the others add up to the change, {e['change_Minsn']:+.4f} Minsn")
        m = next(m for m in cmp["groups"][0]["metrics"] if m["name"] == e["metric"])
        expect(abs(e["change_Minsn"] - (m["b"]["mean"] - m["a"]["mean"])) <= 1e-6 * m["a"]["mean"],
               f"{e['phase']}: which is the change of the phase's mean")
