#!/usr/bin/env python3
"""A full host disk is a host failure, said as such and never a lost cell.
The store lives on a 200 MB tmpfs (its kernels directory outside, on disk);
once the first cell's QEMU runs, a ballast file fills the tmpfs, so the
guest's writes meet ENOSPC on the host. The disk's error_policy='stop'
pauses the guest; the cell must be infra-error "host disk full", stored
(the run's reserve makes room for the commit), the run stopped and marked
interrupted (exit 3); with the ballast gone, --resume finishes the run.
Needs root (mount) and the 6.1.0-57 .deb in $KBENCH_DEBS."""
import json
import re
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

from kbtest import KBENCH, debs, expect, kb


def qemu_running(home):
    """Whether a cell's guest (not libvirt's capability probe) of the store runs."""
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if b"qemu-system" in cmd and re.search(rb"guest=kb[0-9]+-r[0-9]+-c", cmd) and home.encode() in cmd:
            return True
    return False


def fill(path):
    """Write zeros into path until the filesystem is full."""
    chunk = b"\0" * (1 << 20)
    with open(path, "wb") as f:
        try:
            while True:
                f.write(chunk)
                f.flush()
        except OSError:
            pass


def main():
    if os.geteuid() != 0:
        print("SKIP: needs root to mount a tmpfs")
        sys.exit(77)
    found = debs("linux-image-6.1.0-57-amd64-unsigned_*.deb", 1)
    top = tempfile.mkdtemp(prefix="kbench-it-full-", dir=os.environ.get("KBENCH_TEST_TMP", "/var/tmp"))
    os.chmod(top, 0o711)  # QEMU runs as libvirt-qemu: it must reach the store and the kernels
    home = os.path.join(top, "store")
    os.makedirs(home)
    os.makedirs(os.path.join(top, "kernels"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200m", "tmpfs", home], check=True)
    try:
        os.symlink(os.path.join(top, "kernels"), os.path.join(home, "kernels"))
        name = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)["name"]
        # Cold: the test waits for the cell's own domain (kb<pid>-r<run>-c...)
        # and its booting console, and a snapshot (tens of MB) would take
        # the small tmpfs's room before the ballast does. --resume keeps it.
        p = subprocess.Popen([KBENCH, "--store", home, "run", "-k", name, "-w", "dd:size=64M", "-n", "2",
                              "--mem", "160", "--disk-size", "96M", "--json", "--retries", "0", "--cold"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        end = time.time() + 120
        while not qemu_running(home) and time.time() < end and p.poll() is None:
            time.sleep(0.2)
        expect(qemu_running(home), "the first cell's QEMU runs")
        # Fill once the guest boots (its console log grows): libvirt has
        # written its state by then, so only the guest's writes meet ENOSPC.
        def console_bytes():
            return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(os.path.join(home, "scratch"))
                       for f in fs if f == "console.log")
        while console_bytes() < 4096 and time.time() < end and p.poll() is None:
            time.sleep(0.2)
        expect(console_bytes() >= 4096, "the guest is booting")
        ballast = os.path.join(home, "ballast")
        fill(ballast)
        out, err = p.communicate(timeout=600)
        print(err)
        expect(p.returncode == 3, f"the run ends with exit 3: {p.returncode}")
        cells = json.loads(out)["cells"]
        expect(len(cells) == 1 and cells[0]["state"] == "infra-error" and "host disk full" in cells[0]["detail"],
               f"the cell is infra-error 'host disk full': {[(c['state'], c['detail']) for c in cells]}")
        expect("--resume" in err, "stderr says how to resume")
        with sqlite3.connect(os.path.join(home, "results.db")) as c:
            status = c.execute("SELECT status FROM runs WHERE id = 1").fetchone()[0]
        expect(status == "interrupted", f"the run is marked interrupted: {status}")
        expect(not os.path.exists(os.path.join(home, "pending")) or not os.listdir(os.path.join(home, "pending")),
               "the commit succeeded (nothing left pending)")
        os.unlink(ballast)
        p = kb(home, "run", "--resume", "1", "--json", timeout=900)
        cells = json.loads(p.stdout)["cells"]
        expect(sum(c["state"] == "ok" for c in cells) == 2, f"--resume finished both cells: "
               f"{[c['state'] for c in cells]}")
    finally:
        subprocess.run(["umount", "-l", home])
        shutil.rmtree(top, ignore_errors=True)


main()
