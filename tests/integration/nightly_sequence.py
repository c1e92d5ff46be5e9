#!/usr/bin/env python3
"""Four nights on one host, the cheap variant of bench/nightly-sequence.py
(which it runs): the tiny base kernel as the baseline of a directory
source that gets one kernel of the same tree a night, two that only rename
its release, then one with +3 % of kernel instructions in dd's write phase
and one that sleeps 0.2 s per fsync. Each night measures its kernel and the
baseline beside it in one run (6 cells each, dd:size=64M) and compares
within it: verdicts on nights 3 and 4 only, on the write phase's
instructions and waiting, each from one run, whose mail names that run for
both sides. The kernels are built with `kbench kernel build --patch` into
$KBENCH_PLANTS_CACHE (default /var/cache/kbench-plants), as
tests/integration/plants.py builds its plants: after the base, each in
under a minute."""
import json
import os
import subprocess
import sys
import tempfile

from kbtest import KBENCH, expect

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CACHE = os.environ.get("KBENCH_PLANTS_CACHE", "/var/cache/kbench-plants")


def main():
    with tempfile.TemporaryDirectory(prefix="kb-nights-", dir=os.environ.get("KBENCH_TEST_TMP", "/var/tmp")) as tmp:
        out = os.path.join(tmp, "nights.json")
        p = subprocess.run([sys.executable, os.path.join(TOP, "bench", "nightly-sequence.py"), "--kbench", KBENCH,
                            "--kernels", CACHE, "--workload", "dd:size=64M", "-n", "6", "--json", out],
                           capture_output=True, text=True, timeout=2400)
        print(p.stdout)
        expect(os.path.exists(out), f"the sequence ran its four nights: {p.stderr.strip()[-1500:]}")
        with open(out) as f:
            nights = json.load(f)["nights"]
        for n in nights:
            a, b = n["compared"][0].split() if n["compared"] else ("?", "?")
            expect(a.split(":")[1] == b.split(":")[1] and a.split(":")[0] == "run",
                   f"night {n['night']} compares {a} with {b}: one run")
        worse = [[f["metric"] for f in n["findings"] if f["verdict"] == "worse"] for n in nights]
        expect(worse[0] == [] and worse[1] == [], f"nights 1 and 2 give no verdict: {worse[:2]}")
        expect("guest.write.kernel_Minsn" in worse[2], f"night 3 finds the write phase's instructions worse: {worse[2]}")
        expect("guest.write.wait_s" in worse[3], f"night 4 finds the write phase's waiting worse: {worse[3]}")
        expect(p.returncode == 0, f"bench/nightly-sequence.py finds every night as it should: {p.stderr.strip()[-800:]}")


if __name__ == "__main__":
    main()
