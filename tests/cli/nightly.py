#!/usr/bin/env python3
"""`kbench nightly` without a guest: a second night on a store in use names
the holder's pid and exits 1; a configuration asking for a sysctl the guest
agent cannot take (a name outside [a-z0-9_.]) is refused with one line naming it; a
configuration error names the file and key; a missing baseline is said;
usage errors exit 2."""
import fcntl
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import expect, kb, temp_store  # noqa: E402


def write(path, obj):
    with open(path, "w") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj))
    return path


def main():
    with temp_store("kbench-cli-nightly-") as home:
        drop = os.path.join(home, "drop")
        os.mkdir(drop)
        good = {"sources": [{"type": "dir", "path": drop}], "baseline": "6.1.0-47-amd64", "workloads": ["dd"]}
        cfg = write(os.path.join(home, "night.json"), good)

        p = kb(home, "nightly", check=False)
        expect(p.returncode == 2, f"no configuration is a usage error: {p.returncode}")
        p = kb(home, "nightly", "--dry-run", "--json", cfg, check=False)
        expect(p.returncode == 2, f"--dry-run --json is a usage error: {p.returncode}")

        with open(os.path.join(home, "lock"), "a+") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            f.truncate(0)
            f.write(f"{os.getpid()} nightly {int(time.time())}\n")
            f.flush()
            p = kb(home, "nightly", cfg, check=False)
            line = p.stderr.strip()
            expect(p.returncode == 1 and f"pid {os.getpid()}" in line and "kbench nightly" in line
                   and "\n" not in line, f"a second night names the holder, exit 1: {p.returncode} {line!r}")

        # The file's syntax allows capitals; the agent's sysctl names do not.
        bad = dict(good, sources=[{"type": "dir", "path": drop, "name": "dirty-",
                                   "overrides": {"sysctls": {"vm.Dirty_ratio": 5}}}])
        p = kb(home, "nightly", "--dry-run", write(os.path.join(home, "sysctl.json"), bad), check=False)
        line = p.stderr.strip()
        expect(p.returncode == 2 and "sources[0].overrides.sysctls" in line and "not a sysctl name" in line
               and "vm.Dirty_ratio=5" in line and "\n" not in line,
               f"a sysctl the agent cannot take is refused up front: {p.returncode} {line!r}")

        p = kb(home, "nightly", "--dry-run", write(os.path.join(home, "typo.json"), dict(good, repeat=3)),
               check=False)
        expect(p.returncode == 2 and "typo.json: repeat: unknown key" in p.stderr,
               f"an unknown key names the file and key, exit 2 (usage): {p.returncode} {p.stderr.strip()!r}")

        # A setting the run option refuses (so --resume would refuse the
        # run's own settings) is refused in the file, by the option's range.
        p = kb(home, "nightly", "--dry-run", write(os.path.join(home, "swap.json"), dict(good, vm={"swap": "512K"})),
               check=False)
        line = p.stderr.strip()
        expect(p.returncode == 2 and "swap.json: vm.swap: '512K' is not a size in 1M..1024G (or 0)" in line
               and "\n" not in line, f"a swap below the option's 1 MiB is refused up front: {p.returncode} {line!r}")

        p = kb(home, "nightly", "--dry-run", cfg, check=False)
        expect(p.returncode == 1 and "baseline '6.1.0-47-amd64' is not in the store" in p.stderr,
               f"a missing baseline is said: {p.stderr.strip()!r}")


main()
