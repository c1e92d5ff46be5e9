#!/usr/bin/env python3
"""The store lock: while another process holds <store>/lock, `kbench run`
refuses with exit 1 and names the holder's pid (not libvirt's "Failed to
acquire pid file"), and `kbench doctor` reports the store in use. Boots no
guest: the lock is held here with flock(2), as kbench holds it."""
import fcntl
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import expect, kb, temp_store  # noqa: E402


def main():
    with temp_store("kbench-cli-lock-") as home:
        with open(os.path.join(home, "lock"), "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.truncate(0)
            f.write(f"{os.getpid()} run {int(time.time())}\n")
            f.flush()
            p = kb(home, "run", "-k", "any", "-w", "dd", check=False)
            line = p.stderr.strip()
            expect(p.returncode == 1 and f"pid {os.getpid()}" in line and "kbench run" in line
                   and "\n" not in line, f"a second run names the holder, exit 1: {p.returncode} {line!r}")
            p = kb(home, "doctor", check=False)
            expect(p.returncode == 1 and f"pid {os.getpid()}" in p.stdout,
                   f"doctor reports the store in use: {p.stdout!r}")
        p = kb(home, "doctor", check=False)
        expect(f"pid {os.getpid()}" not in p.stdout, "the lock is free once its holder lets go")


main()
