#!/usr/bin/env python3
"""Integration test of the spine: import two real Debian kernels, run dd in
each under QEMU through libvirt's embedded driver, and check what was stored
(every cell ok, dd metrics, vmstat samples, the accelerator) and what the
kernel printed (its console log names the release that was imported). Then
the failure paths: a file that is not a kernel, a kernel that panics at boot,
kernel messages interleaved on the data channel, a guest frozen mid-workload
and guests that run past their deadline are each classified and the run goes
on. Run as root, every cell's QEMU runs as libvirt-qemu (read from the
process by the cell, said in its output), and a second kbench process
reuses libvirt's QEMU capability cache instead of probing QEMU again.
Needs the .debs in $KBENCH_DEBS (tools/setup.sh fetches them)."""
import glob
import json
import pwd
import re
import signal
import subprocess
import time
import os

from kbtest import KBENCH, debs, expect, expect_vmstat_per_second, kb, temp_store


def run_and_freeze(home, *args):
    """Run kbench and, once the cell's disk is mounted (its job is running),
    stop QEMU with SIGSTOP: to kbench the guest hangs mid-workload."""
    p = subprocess.Popen([KBENCH, "--store", home, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    qemu = None
    deadline = time.time() + 300
    while qemu is None and p.poll() is None and time.time() < deadline:
        time.sleep(0.2)
        for log in glob.glob(os.path.join(home, "scratch", f"kb{p.pid}-*", "console.log")):
            with open(log, errors="replace") as f:
                if "EXT4-fs (sda): mounted" not in f.read():
                    continue
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if f"guest=kb{p.pid}-".encode() in f.read():
                            qemu = int(pid)
                except OSError:
                    pass
    if qemu:
        os.kill(qemu, signal.SIGSTOP)
    out, err = p.communicate(timeout=600)
    if qemu:
        try:
            os.kill(qemu, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return qemu, p.returncode, out, err


def caps_cache(home):
    """libvirt's QEMU capability cache under the embedded root: each file's
    inode, mtime and size (a re-probe rewrites the file)."""
    d = os.path.join(home, "libvirt", "cache", "qemu", "capabilities")
    files = sorted(glob.glob(os.path.join(d, "*.xml")))
    return {f: (os.stat(f).st_ino, os.stat(f).st_mtime_ns, os.stat(f).st_size) for f in files}


def qemu_uids(home, run_id, key):
    """The uids of the cell's QEMU as the cell read them from /proc/PID/status."""
    out = kb(home, "show", str(run_id), "--cell", key, "--log", "output").stdout
    m = re.search(r"^\[host\] qemu pid (\d+) uid (\d+) (\d+) (\d+) (\d+) ", out, re.M)
    return [int(x) for x in m.groups()[1:]] if m else None


def expect_disk_and_writeback(home, run_id, cell):
    """The Debian kernel reports /proc/vmstat's writeback figures and the
    disk under test's /proc/diskstats: during dd's write phase the disk was
    busy and Dirty pages were counted, and the sectors written over the cell
    add up to dd's bytes (plus file system metadata and the journal; the read
    phase writes next to nothing)."""
    m = cell["metrics"]
    util = m.get("vmstat.write.util_pct_mean", {}).get("value")
    expect(util is not None and util > 0, f"cell {cell['key']}: vmstat.write.util_pct_mean = {util}")
    dirty = m.get("vmstat.write.nr_dirty_max", {}).get("value")
    expect(dirty is not None, f"cell {cell['key']}: vmstat.write.nr_dirty_max = {dirty} (not null)")
    for k in ("vmstat.write.allocstall_total", "vmstat.write.pgscan_per_s", "vmstat.write.dirty_thresh_mean"):
        expect(m.get(k, {}).get("value") is not None, f"cell {cell['key']}: {k} = {m.get(k, {}).get('value')}")
    shown = json.loads(kb(home, "show", str(run_id), "--cell", cell["key"], "--json").stdout)
    rows = [r for r in shown["vmstat"] if not r["first"]]
    # Each row's rate over its own interval: the agent's last row, sent when
    # the job ends, covers less than the 1 s period.
    times = [r["t_host"] for r in shown["vmstat"]]
    gaps = [b - a for a, b in zip(times, times[1:])]
    written = sum(r["wsect"] * (g if 0 < g <= 1.5 else 1.0)
                  for r, g in zip(shown["vmstat"][1:], gaps) if not r["first"] and r["wsect"] is not None) * 512
    dd_bytes = m["dd.write_MBps"]["value"] * m["dd.write_s"]["value"] * 1e6
    expect(all(r["wsect"] is not None and r["util"] is not None and r["nr_dirty"] is not None for r in rows),
           f"cell {cell['key']}: every row has wsect, util and nr_dirty")
    expect(0.9 * dd_bytes <= written <= 1.3 * dd_bytes,
           f"cell {cell['key']}: {written / 2**20:.1f} MiB written to the disk over the cell, "
           f"dd wrote {dd_bytes / 2**20:.1f} MiB")


def main():
    found = debs("linux-image-6.1.0-*-amd64-unsigned_*.deb", 2)
    with temp_store("kbench-it-spine-") as home:
        names = []
        for d in found:
            out = json.loads(kb(home, "kernel", "add", "--json", d).stdout)
            names.append(out["name"])
        expect(len(set(names)) == 2, f"two kernels imported: {names}")

        # A file that is not a kernel: one-line error, nothing stored.
        bogus = os.path.join(home, "not-a-kernel")
        with open(bogus, "wb") as f:
            f.write(b"MZ this is not a kernel\n" * 100)
        p = kb(home, "kernel", "add", bogus, check=False)
        errors = [l for l in p.stderr.splitlines() if l.startswith("kbench:")]
        expect(p.returncode == 1 and len(errors) == 1 and "not-a-kernel" in errors[0],
               f"non-kernel refused with one error line naming the file: {errors}")
        listed = json.loads(kb(home, "kernel", "list", "--json").stdout)
        expect(len(listed) == 2, "the store still holds exactly two kernels")

        # The main job, small: two kernels x dd (default size: 2x guest RAM) x 2 repeats.
        p = kb(home, "run", "-k", names[0], "-k", names[1], "-w", "dd", "-n", "2",
               "--mem", "256", "--accel", "auto", "--json")
        run = json.loads(p.stdout)
        cells = run["cells"]
        expect(len(cells) == 4, "4 cells stored")
        for c in cells:
            expect(c["state"] == "ok", f"cell {c['key']} ok ({c.get('detail')})")
            expect(c["accel"] in ("kvm", "tcg"), f"cell {c['key']} records accelerator {c['accel']}")
            m = c["metrics"]
            for k in ("dd.write_MBps", "dd.read_MBps", "dd.write_s", "dd.read_s"):
                expect(k in m and m[k]["value"] > 0, f"cell {c['key']} has {k} = {m.get(k, {}).get('value')}")
            expect_vmstat_per_second(c)
            expect_disk_and_writeback(home, run["run"]["id"], c)
            expect(c["boot_s"] > 0, f"cell {c['key']} boot_s = {c['boot_s']:.2f}")
        # Who QEMU ran as: as root, libvirt-qemu and never uid 0 (real,
        # effective, saved and filesystem uid), else kbench's own user.
        want = pwd.getpwnam("libvirt-qemu").pw_uid if os.geteuid() == 0 else os.geteuid()
        for c in cells:
            uids = qemu_uids(home, run["run"]["id"], c["key"])
            expect(uids is not None and all(u == want for u in uids) and (os.geteuid() != 0 or 0 not in uids),
                   f"cell {c['key']}: QEMU ran as uid {uids} (want {want}, never 0)")
        caps = caps_cache(home)
        expect(len(caps) >= 1, f"libvirt cached QEMU's capabilities: {sorted(map(os.path.basename, caps))}")
        # Interleaved: A B A B.
        expect([c["kernel"] for c in cells] == [names[0], names[1]] * 2, "cells alternate kernels")
        # What the kernel printed.
        for c, name in zip(cells, [names[0], names[1]]):
            log = kb(home, "show", str(run["run"]["id"]), "--cell", c["key"], "--log", "console").stdout
            expect(f"Linux version {name}" in log, f"console of {c['key']} shows 'Linux version {name}'")
        # The kernels' identity beside the verdict: the upstream version the
        # .deb was built from (its file name says it) and the .configs' difference.
        upstream = [re.search(r"_(\d+\.\d+\.\d+)-[^_]*_amd64\.deb$", d).group(1) for d in found]
        text = kb(home, "compare", names[0], names[1], check=False).stdout
        expect(f"upstream: A {upstream[0]}, B {upstream[1]}" in text,
               f"compare names the upstream versions {upstream}: {text[:400]!r}")
        expect(re.search(r"^config: (the same options|\d+ options? differs?: CONFIG_)", text, re.M) is not None,
               f"compare says how the configs differ: {text[:600]!r}")
        shown = kb(home, "show", str(run["run"]["id"])).stdout
        expect(f"{names[0]} (upstream {upstream[0]})" in shown, f"show names each kernel's upstream version: "
               f"{shown[:400]!r}")

        # A kernel that panics at boot (no init in the initramfs -> VFS panic),
        # and a guest that outlives its deadline (dd throttled to 1 MB/s):
        # each is classified, and the run continues to the next cell.
        # Boot failures are a cold boot's (--cold): without it the snapshot
        # boot would fail first and the cell boot cold after it, twice the wait.
        p = kb(home, "run", "-k", names[0], "-w", "dd:size=16M", "--append", "rdinit=/nonexistent",
               "--cold", "--json", check=False)
        expect(p.returncode == 3, f"run with a panicking kernel ends with exit 3 (got {p.returncode})")
        cells = json.loads(p.stdout)["cells"]
        expect(cells[0]["state"] == "boot-crash" and "panic" in (cells[0]["detail"] or "").lower(),
               f"panicking kernel is boot-crash: {cells[0]['detail']}")
        expect(not cells[0]["metrics"], "a failed cell has no metrics")
        # A second kbench process found the cache valid: libvirt would
        # rewrite the file had it probed QEMU again (~50 s on this host).
        expect(caps_cache(home) == caps, "the second kbench run reused libvirt's capability cache (file unchanged)")

        # Kernel messages interleaved on the data channel (an early console on
        # ttyS1's port, kept after boot): the cell is corrupt-output, never parsed.
        # Cold: the kernel's boot messages on ttyS1 are what is tested, and a
        # restored guest's boot happened in the snapshot.
        p = kb(home, "run", "-k", names[0], "-w", "dd:size=16M", "--retries", "0", "--json", "--cold",
               "--append", "earlycon=uart8250,io,0x2f8,115200 keep_bootcon", check=False)
        cells = json.loads(p.stdout)["cells"]
        expect(p.returncode == 3 and cells[0]["state"] == "corrupt-output"
               and "not a record: '[" in (cells[0]["detail"] or "") and not cells[0]["metrics"],
               f"kernel text on ttyS1 is corrupt-output without metrics: {cells[0]['detail'][:120]}")

        # A guest that stops mid-workload: silence on ttyS1 past --hang-timeout.
        # The disk is throttled so that the job outlasts the poll for its mount
        # on any host (64 MiB at 2 MB/s: half a minute of writing).
        # Cold: run_and_freeze finds the QEMU by the cell's domain name
        # (a restored guest keeps the snapshot's, kbsnap-...).
        qemu, code, out, err = run_and_freeze(home, "run", "-k", names[0], "-w", "dd:size=64M", "--disk-mbps", "2",
                                              "--hang-timeout", "10", "--retries", "0", "--cold", "--json")
        expect(qemu is not None, f"found the running guest's QEMU (pid {qemu}) and stopped it")
        cells = json.loads(out)["cells"]
        expect(code == 3 and cells[0]["state"] == "hang" and "no ttyS1 record" in cells[0]["detail"],
               f"a guest frozen mid-workload is 'hang': {cells[0]['state']}: {cells[0]['detail']}")

        p = kb(home, "run", "-k", names[0], "-k", names[1], "-w", "dd:size=256M", "--disk-mbps", "1",
               "--timeout", "45", "--retries", "0", "--json", check=False)
        cells = json.loads(p.stdout)["cells"]
        expect(len(cells) == 2 and all(c["state"] == "hang" for c in cells),
               f"throttled guests past the deadline are 'hang' and the run continued: "
               f"{[(c['state'], c['detail']) for c in cells]}")
    print("1 passed, 0 failed")


main()
