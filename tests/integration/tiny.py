#!/usr/bin/env python3
"""Integration test of vmstat on a kernel without CONFIG_VM_EVENT_COUNTERS:
import a tinyconfig-based bzImage (tools/build-tiny-kernel.sh), run one dd
cell, and check that it ends ok with bi/bo/si/so absent everywhere: NULL in
every stored row (JSON null), the metrics of those columns and the stall
metrics stored without a value but with the agent's note naming
CONFIG_VM_EVENT_COUNTERS, and the columns the kernel does provide (cs, us,
dirty) present. The kernel is $KBENCH_TINY_KERNEL when that is set (a
missing file there: the test says so and exits 77, which meson reports as
SKIP); otherwise /var/cache/kbench-tiny/bzImage, built there by
tools/build-tiny-kernel.sh when it is missing or was built from another
tools/tiny-kernel.config or script (a digest in bzImage.key beside it;
about 4 minutes on 2 cores, once per machine).

A dd cell on a bus the tiny kernel has no driver for (virtio-scsi: neither
virtio-pci nor virtio_scsi; AHCI: no ahci) must fail at once with one
line naming the bus and every driver missing, not wait out a boot.

Then, with the cached tree, the same kernel without CONFIG_TIMERFD and
CONFIG_SIGNALFD (KBENCH_TINY_WITHOUT, an incremental rebuild): its dd cell
must end ok, its vmstat paced by poll() and SIGCHLD taken through a
self-pipe, and its data log must carry the agent's notes naming both
options."""
import hashlib
import json
import os
import re
import subprocess
import sys

from kbtest import expect, kb, temp_store

TINY = os.environ.get("KBENCH_TINY_KERNEL", "/var/cache/kbench-tiny/bzImage")
ABSENT = ("bi", "bo", "si", "so")
TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")


WITHOUT = "TIMERFD SIGNALFD"


def build_key(without):
    """What the kernel is built from: the fragment, the script and the
    facilities left out. By content, not by date: every fresh clone dates
    its files now, and a date would rebuild the kernel (twice over, since
    the variant's config rebuilds the whole tree) in every CI run."""
    h = hashlib.sha256()
    for name in ("tiny-kernel.config", "build-tiny-kernel.sh"):
        with open(os.path.join(TOOLS, name), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    h.update(without.encode())
    return h.hexdigest()


def build_cached(image, without=""):
    """The machine's cached tiny kernel (or a variant), (re)built when
    missing or built from anything else (its key file says from what)."""
    key, key_file = build_key(without), image + ".key"
    try:
        with open(key_file) as f:
            built_from = f.read().strip()
    except OSError:
        built_from = None
    if os.path.isfile(image) and built_from == key:
        return
    print(f"building {image} (about 4 minutes the first time)", flush=True)
    p = subprocess.run(["nice", "-n", "10", "sh", os.path.join(TOOLS, "build-tiny-kernel.sh"), os.path.dirname(image)],
                       capture_output=True, text=True, env={**os.environ, "KBENCH_TINY_WITHOUT": without})
    expect(p.returncode == 0 and os.path.isfile(image),
           f"tools/build-tiny-kernel.sh built {image}: {p.stderr[-1500:]}")
    with open(key_file, "w") as f:
        f.write(key + "\n")


def without_fds(home):
    """A kernel without timerfd and signalfd: the agent's fallbacks."""
    image = os.path.join(os.path.dirname(TINY), "bzImage-without-timerfd-signalfd")
    build_cached(image, WITHOUT)
    name = json.loads(kb(home, "kernel", "add", "--json", image, "--name", "6.1-tiny-nofd").stdout)["name"]
    run = json.loads(kb(home, "run", "-k", name, "-w", "dd:size=32M", "--mem", "128", "--json").stdout)
    cells = run["cells"]
    expect(len(cells) == 1 and cells[0]["state"] == "ok",
           f"without timerfd and signalfd the dd cell ends ok: {[(c['state'], c.get('detail')) for c in cells]}")
    data = kb(home, "show", str(run["run"]["id"]), "--cell", "c000", "--log", "data").stdout
    for option in ("CONFIG_TIMERFD", "CONFIG_SIGNALFD"):
        expect(f"this kernel lacks {option}" in data, f"the cell's data log names {option}")


def missing_bus_drivers(home, name):
    """The tiny kernel has PIIX IDE only: other buses fail fast, by name."""
    for bus, missing in (("virtio-scsi", "virtio-pci, virtio_scsi"), ("ahci", "ahci")):
        p = kb(home, "run", "-k", name, "-w", "dd:size=32M", "--mem", "128", "--disk-bus", bus, "--json",
               check=False)
        cells = json.loads(p.stdout)["cells"]
        detail = cells[0].get("detail") or "" if len(cells) == 1 else ""
        expect(p.returncode == 3 and len(cells) == 1 and cells[0]["state"] != "ok"
               and f"disk bus {bus}: kernel" in detail and f"has no {missing} driver" in detail,
               f"--disk-bus {bus}: the cell fails naming the bus and {missing}: "
               f"{[(c['state'], c.get('detail')) for c in cells]}")
        expect(cells[0]["total_s"] < 120, f"--disk-bus {bus}: it fails at once ({cells[0]['total_s']:.1f} s), "
               "not after a boot timeout")


def main():
    if "KBENCH_TINY_KERNEL" not in os.environ:
        build_cached(TINY)
    if not os.path.isfile(TINY):
        print(f"SKIP: no tiny kernel at {TINY} (build one with tools/build-tiny-kernel.sh "
              f"and set KBENCH_TINY_KERNEL)")
        sys.exit(77)
    with temp_store("kbench-tiny-") as home:
        name = json.loads(kb(home, "kernel", "add", "--json", TINY, "--name", "6.1-tiny").stdout)["name"]
        # 128 MiB keeps the cell several vmstat intervals long on a fast
        # host: at 32 MiB a cell of two rows had no interval in its window.
        run = json.loads(kb(home, "run", "-k", name, "-w", "dd:size=128M", "--mem", "128", "--json").stdout)
        cells = run["cells"]
        expect(len(cells) == 1 and cells[0]["state"] == "ok",
               f"one dd cell on {name}, ok: {[(c['state'], c.get('detail')) for c in cells]}")
        cell = json.loads(kb(home, "show", str(run["run"]["id"]), "--cell", "c000", "--json").stdout)
        rows = cell["vmstat"]
        expect(len(rows) >= 3, f"{len(rows)} vmstat rows stored")
        for c in ABSENT:
            expect(all(r.get(c) is None for r in rows), f"{c} is null in every row, never 0")
        for c in ("cs", "us", "free", "dirty"):
            expect(all(r.get(c) is not None for r in rows), f"{c} is present in every row")
        m = cell["metrics"]
        for k in ("vmstat.bo_mean", "vmstat.bi_mean", "vmstat.stall_count", "vmstat.stall_longest_s"):
            v = m.get(k, {})
            expect(k in m and v.get("value") is None and "CONFIG_VM_EVENT_COUNTERS" in (v.get("note") or ""),
                   f"{k}: no value, note {v.get('note')!r}")
        expect(m.get("vmstat.sy_mean", {}).get("value") is not None, "vmstat.sy_mean has a value")
        expect(m.get("dd.write_MBps", {}).get("value", 0) > 0, "dd.write_MBps > 0")
        data = kb(home, "show", str(run["run"]["id"]), "--cell", "c000", "--log", "data").stdout
        # The note lists every absent column, bi and bo among the first.
        expect(re.search(r"vmstat-note # absent si so bi bo\b", data) is not None,
               "the agent's vmstat-note is in the raw ttyS1 log")
        missing_bus_drivers(home, name)
        if "KBENCH_TINY_KERNEL" not in os.environ:
            without_fds(home)


if __name__ == "__main__":
    main()
