#!/usr/bin/env python3
"""A kbench killed with SIGKILL mid-cell leaves nothing running and loses
nothing: the watchdog kills its QEMU and removes its scratch directory at
once; when the watchdog dies with it (the whole process group killed), the
next command on the store (`kbench doctor` here) kills the QEMU, removes
the scratch and marks the run interrupted; `kbench run --resume` then
finishes the run. Needs the 6.1.0-57 .deb in $KBENCH_DEBS (tools/setup.sh)."""
import json
import os
import signal
import sqlite3
import subprocess
import time

from kbtest import KBENCH, debs, expect, kb, temp_store


def qemus(home):
    """Pids of running QEMU processes whose command line names the store."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                zombie = f.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if "qemu-system" in cmd and home in cmd and not zombie:
            found.append(int(pid))
    return found


def scratch_files(home):
    out = []
    for root, _, files in os.walk(os.path.join(home, "scratch")):
        out += [os.path.join(root, f) for f in files]
    return out


def wait_for(cond, timeout):
    end = time.time() + timeout
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.2)
    return cond()


def start_and_kill(home, name, whole_group):
    """Start a 2-cell run, SIGKILL it while its first guest runs; returns the run id."""
    p = subprocess.Popen([KBENCH, "--store", home, "run", "-k", name, "-w", "dd:size=16M", "-n", "2",
                          "--mem", "160", "--disk-size", "256M"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    expect(wait_for(lambda: qemus(home) and scratch_files(home), 120), "the first cell's QEMU runs")
    time.sleep(3)
    if whole_group:
        os.killpg(p.pid, signal.SIGKILL)
    else:
        p.kill()
    p.wait()
    with sqlite3.connect(os.path.join(home, "results.db")) as c:
        return c.execute("SELECT max(id) FROM runs").fetchone()[0]


def run_status(home, run):
    with sqlite3.connect(os.path.join(home, "results.db")) as c:
        return c.execute("SELECT status FROM runs WHERE id = ?", (run,)).fetchone()[0]


def resume(home, run):
    p = kb(home, "run", "--resume", str(run), "--json", timeout=900)
    cells = json.loads(p.stdout)["cells"]
    expect(len(cells) == 2 and all(c["state"] == "ok" for c in cells),
           f"--resume {run} finished both cells ok: {[c['state'] for c in cells]}")
    expect(run_status(home, run) == "complete", f"run {run} is complete")
    expect(not qemus(home) and not scratch_files(home), "no QEMU and no scratch file after the resume")
    before = finished_at(home, run)
    kb(home, "run", "--resume", str(run), timeout=300)
    expect(finished_at(home, run) == before, f"a no-op --resume {run} keeps finished_at ({before})")


def finished_at(home, run):
    with sqlite3.connect(os.path.join(home, "results.db")) as c:
        return c.execute("SELECT finished_at FROM runs WHERE id = ?", (run,)).fetchone()[0]


def main():
    found = debs("linux-image-6.1.0-57-amd64-unsigned_*.deb", 1)
    with temp_store("kbench-it-kill-") as home:
        name = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)["name"]

        # kbench alone killed: its watchdog cleans up at once.
        run = start_and_kill(home, name, whole_group=False)
        expect(wait_for(lambda: not qemus(home), 15), "no QEMU of the store outlives kbench (watchdog)")
        expect(wait_for(lambda: not scratch_files(home), 15),
               f"the watchdog removed the scratch files: {scratch_files(home)}")
        kb(home, "doctor", check=False)
        expect(run_status(home, run) == "interrupted", f"run {run} is marked interrupted by the next command")
        resume(home, run)

        # kbench and its watchdog killed together: the next command reaps.
        run = start_and_kill(home, name, whole_group=True)
        left = qemus(home)
        p = kb(home, "doctor", check=False)
        expect(left and not qemus(home), f"doctor killed the QEMU left running ({left})")
        expect(not scratch_files(home), f"doctor removed the scratch files: {scratch_files(home)}")
        expect(run_status(home, run) == "interrupted", f"run {run} is marked interrupted")
        expect("interrupted" in p.stdout, "doctor reports what it reaped")
        resume(home, run)


main()
