#!/usr/bin/env python3
"""One run over several libvirt hosts. Two libvirtd daemons of this
machine, each with its own sockets, configuration and state (libvirthosts),
stand for two hosts that kbench reaches only through libvirt: the kernel,
the guest image and the disks are uploaded into each host's storage pool,
and both consoles come back as streams.

1. 2 kernels x dd x 4 over both hosts completes with the count and shape
   of a single-host run, every cell records its host (name, CPU, QEMU and
   libvirt versions), and the kernels of that comparison ran on one host.
2. Two workloads over both hosts run at once, one comparison a host; one
   daemon is stopped mid-run: its cell ends infra-error naming the lost
   host, its remaining cells go to the other host, nothing is lost, and
   the run ends with every cell ok.
3. compare never pairs cells of two hosts.
Needs root, libvirtd, and the 6.1.0-47/57 .debs in $KBENCH_DEBS."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time

import libvirthosts
from kbtest import KBENCH, debs, expect, kb, temp_store


def cells_by_host(home, run):
    with sqlite3.connect(os.path.join(home, "results.db")) as c:
        return c.execute("SELECT c.cell_key, c.attempt, c.state, h.name, c.detail FROM cells c "
                         "LEFT JOIN hosts h ON h.id = c.host_id WHERE c.run_id = ? ORDER BY c.id", (run,)).fetchall()


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root for the libvirt daemons")
        sys.exit(77)
    found = debs("linux-image-6.1.0-4[0-9]-amd64-unsigned_*.deb", 1) + debs("linux-image-6.1.0-57-amd64-unsigned_*.deb", 1)
    top = tempfile.mkdtemp(prefix="kbench-it-hosts-", dir=os.environ.get("KBENCH_TEST_TMP", "/var/tmp"))
    os.chmod(top, 0o711)
    hosts = libvirthosts.start_hosts(top, ["h1", "h2"])
    connect = []
    for h in hosts:
        connect += ["--connect", f"{h.name}={h.uri}"]
    try:
        with temp_store("kbench-it-hosts-store-") as home:
            names = [json.loads(kb(home, "kernel", "add", "--json", d).stdout)["name"] for d in found]
            small = ["--mem", "160", "--disk-size", "256M", "--accel", "tcg"]

            # 1. One comparison over two hosts: the count and shape of one host's run.
            p = kb(home, *connect, "run", "-k", names[0], "-k", names[1], "-w", "dd:size=64M", "-n", "4",
                   *small, "--json", timeout=1800)
            run = json.loads(p.stdout)
            cells = run["cells"]
            expect(len(cells) == 8 and all(c["state"] == "ok" for c in cells),
                   f"8 cells, all ok: {[(c['key'], c['state']) for c in cells]}")
            rows = cells_by_host(home, run["run"]["id"])
            placed = {r[3] for r in rows}
            expect(len(placed) == 1 and placed <= {"h1", "h2"},
                   f"the comparison's cells ran on one host, and each says which: {placed}")
            expect(all(c.get("host") in ("h1", "h2") for c in cells), "kbench show --json names each cell's host")
            with sqlite3.connect(os.path.join(home, "results.db")) as c:
                hrows = c.execute("SELECT name, hostname, cpu_model, qemu_version, libvirt_version FROM hosts").fetchall()
            expect(len(hrows) >= 1 and all(all(v for v in r) for r in hrows),
                   f"the host row has its hostname, CPU, QEMU and libvirt versions: {hrows}")
            single = json.loads(kb(home, "run", "-k", names[0], "-k", names[1], "-w", "dd:size=64M", "-n", "4",
                                   *small, "--json", timeout=1800).stdout)
            shape = lambda r: sorted((c["key"], c["kernel"], c["workload"], c["iteration"]) for c in r["cells"])
            expect(shape(single) == shape(run), "a single-host run of the same matrix has the same cells")

            # 2. Two comparisons at once, one host each; a daemon dies mid-run.
            proc = subprocess.Popen([KBENCH, "--store", home, *connect, "run", "-k", names[0], "-k", names[1],
                                     "-w", "dd:size=64M", "-w", "dd:size=32M", "-n", "3", *small, "--json",
                                     "--tag", "two-hosts"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            # Wait until both hosts run a cell, then stop the second.
            end = time.time() + 300
            while time.time() < end and proc.poll() is None:
                # A guest's pid file: libvirt's QEMU driver keeps its own
                # driver.pid there from its first connection on.
                busy = [h for h in hosts if any(f.endswith(".pid") and f != "driver.pid" for f in
                                                os.listdir(h.dir + "/run/libvirt/qemu")
                                                if os.path.isdir(h.dir + "/run/libvirt/qemu"))]
                if len(busy) == 2:
                    break
                time.sleep(0.2)
            expect(proc.poll() is None, "both hosts run a cell at once")
            time.sleep(2)
            hosts[1].stop()
            hosts[1].kill_guests()
            out, err = proc.communicate(timeout=1800)
            print(err)
            res = json.loads(out)
            rows = cells_by_host(home, res["run"]["id"])
            lost = [r for r in rows if r[2] == "infra-error"]
            expect(len(lost) >= 1 and all("host h2 lost" in r[4] for r in lost),
                   f"the cell on the stopped host ended infra-error naming it: {lost}")
            last = {}
            for key, attempt, state, host, _ in rows:
                last[key] = (state, host)
            expect(len(last) == 12, f"every planned cell has a row: {len(last)} of 12")
            expect(all(s == "ok" for s, _ in last.values()), f"every cell ended ok at last: {last}")
            moved = [k for k, (s, h) in last.items() if h == "h1"]
            expect(len(moved) > 6, f"the stopped host's remaining cells ran on h1 ({len(moved)} of 12 there)")
            expect(proc.returncode == 0, f"the run ends ok once every cell is (exit {proc.returncode})")
            expect("h2" in err and "lost" in err, "stderr says the host was lost")

            # 3. compare never pairs across hosts: the 32M comparison ran on
            # both (its first cells on h2, the rest on h1).
            p = kb(home, "compare", "tag:two-hosts:" + names[0], "tag:two-hosts:" + names[1], "-w", "dd",
                   "--json", check=False)
            v = json.loads(p.stdout)
            for g in v["groups"]:
                expect(g["settings"].get("host") in ("h1", "h2"), f"a paired group is one host's: {g['settings']}")
            p = kb(home, "compare", "--ignore-setting", "host", "tag:two-hosts", "tag:two-hosts", check=False)
            expect(p.returncode == 2 and "host" in p.stderr, f"pairing across hosts is refused: {p.stderr.strip()}")
    finally:
        libvirthosts.stop_hosts(hosts)
        libvirthosts.remove(top)


main()
