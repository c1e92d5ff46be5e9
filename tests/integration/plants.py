#!/usr/bin/env python3
"""The planted-regression suite's cheap subset (bench/plants.py runs it
whole): Debian's linux-source-6.1 on the tiny configuration, unpatched and
with two plants that add time and next to no instructions, one of each
kind the instruction counts miss:
- sleep-write: usleep_range(2 ms) on every write() of a file, which the
  guest waits through (guest.write.wait_s);
- udelay-write: udelay(150) on every write bio, a busy-wait on the clock
  (guest.write.spin_s).
Each must be called worse against the base on its own judged metric, at
default settings, 6 cells a side, in one run (dd of 256 MiB: 256 writes, so the sleeps add about a second). The kernels are built with
`kbench kernel build --patch` into a store kept in $KBENCH_PLANTS_CACHE
(default /var/cache/kbench-plants): the first build takes minutes, the
plants after it seconds, since every patch set of the source builds in one
tree; checked here too: a plant's build recompiles only what it touched,
and the base built again after the plants is the same image (its patches
undone). Then the plants' own tree state: the base's build is a cache
hit whose tree holds the pristine fs/read_write.c again."""
import json
import os
import shutil
import subprocess
import tarfile

from kbtest import expect, kb, temp_store

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SOURCE = "/usr/src/linux-source-6.1.tar.xz"
CACHE = os.environ.get("KBENCH_PLANTS_CACHE", "/var/cache/kbench-plants")
CONFIG = ["--config", "tinyconfig", "--fragment", os.path.join(TOP, "tools", "tiny-kernel.config"),
          "--fragment", os.path.join(TOP, "bench", "plants", "plants.config")]


def build(name, patch=None):
    argv = ["kernel", "build", SOURCE, *CONFIG, "--name", name, "--json"]
    if patch:
        argv += ["--patch", os.path.join(TOP, "bench", "plants", patch)]
    p = kb(CACHE, *argv, timeout=3600, check=False)
    if p.returncode != 0 and "is already taken" in p.stderr:
        # A plant whose patch changed since the cache was filled.
        kb(CACHE, "kernel", "remove", name)
        p = kb(CACHE, *argv, timeout=3600, check=False)
    expect(p.returncode == 0, f"kbench kernel build {name}: {p.stderr.strip()[-600:]}")
    return json.loads(p.stdout)


def metric(cmp, name):
    for g in cmp["groups"]:
        for m in g["metrics"]:
            if m["name"] == name:
                return m
    return None


os.makedirs(CACHE, mode=0o711, exist_ok=True)
os.chmod(CACHE, 0o711)
base = build("6.1-base")
sleep = build("6.1-sleep-write", "sleep-write.patch")
udelay = build("6.1-udelay-write", "udelay-write.patch")
for k in (sleep, udelay):
    # A cache hit (a machine that built these before) runs no make: no time.
    took = "a cache hit" if k["cache_hit"] else f"{k['build_s']:.0f} s"
    base_took = "a cache hit" if base["cache_hit"] else f"{base['build_s']:.0f} s"
    expect(k["cache_hit"] or k["build_s"] < 0.5 * max(base["build_s"] or 0, 300),
           f"{k['name']} built incrementally in the base's tree ({took}, the base {base_took})")
again = build("6.1-base")
expect(again["cache_hit"] and again["id"] == base["id"], "the base built again after the plants is the same kernel")
# The source's own tree, which the plants patched in place, is pristine again.
tree = os.path.join(CACHE, "build", "src", base["source_id"][len("sha256:"):][:16])
with tarfile.open(SOURCE) as t:
    member = next(m for m in t.getmembers() if m.name.endswith("/fs/read_write.c"))
    pristine = t.extractfile(member).read()
with open(os.path.join(tree, "fs", "read_write.c"), "rb") as f:
    expect(f.read() == pristine, "after the base's build fs/read_write.c is the tarball's again")

with temp_store("kbench-plants-") as home:
    for k in (base, sleep, udelay):
        kb(home, "kernel", "add", "-q", k["image"], "--name", k["name"])
    run = json.loads(kb(home, "run", "-k", "6.1-base", "-k", "6.1-sleep-write", "-k", "6.1-udelay-write",
                        "-w", "dd:size=256M", "-n", "6", "--mem", "256", "--json").stdout)
    cells = run["cells"]
    expect(all(c["state"] == "ok" for c in cells), f"{len(cells)} cells ok")
    # Added as bare images: the tiny kernel lists no symbols (no kallsyms)
    # and a bzImage brings no System.map, so its cells have no profile,
    # and say why.
    out = kb(home, "show", str(run["run"]["id"]), "--cell", cells[0]["key"], "--log", "output").stdout
    expect("no profile: the kernel lists no symbols (no /proc/kallsyms) and has no System.map of its own" in out,
           "a bare tiny image's cell says why it has no profile")
    for plant, name in (("6.1-sleep-write", "guest.write.wait_s"), ("6.1-udelay-write", "guest.write.spin_s")):
        p = kb(home, "compare", f"run:{run['run']['id']}:6.1-base", f"run:{run['run']['id']}:{plant}", "--json",
               check=False)
        expect(p.returncode == 4, f"compare base {plant} exits 4 (worse): {p.returncode}")
        cmp = json.loads(p.stdout)
        m = metric(cmp, name)
        expect(m is not None and m["verdict"] == "worse",
               f"{plant}: {name} worse: {m and m['a']['mean']:.3f} s -> {m and m['b']['mean']:.3f} s "
               f"(CI {m and m['ci95_diff']})")
        insn = metric(cmp, "guest.write.kernel_Minsn")
        expect(insn is not None and abs(insn["change_pct"]) < 3,
               f"{plant}: the kernel instructions of the write phase barely move ({insn and insn['change_pct']:+.2f} %)")
        text = kb(home, "compare", f"run:{run['run']['id']}:6.1-base", f"run:{run['run']['id']}:{plant}",
                  check=False).stdout
        want = "waiting in dd's write phase" if "wait" in name else "busy-waiting (spinning) in dd's write phase"
        expect(want in text.split("\n\n")[1], f"{plant}: compare's answer names '{want}'")
