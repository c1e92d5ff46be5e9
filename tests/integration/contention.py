#!/usr/bin/env python3
"""A cell run beside a busy host says so. One busy loop per host CPU runs
while kbench runs one dd cell with --max-contention 10 --retries 1: both
attempts must be ok, carry host.foreign_cpu_pct over 10 % and host.loadavg1,
and say 'contended' in their detail; the first is re-run because of it
(the second is the last the retry budget allows). The loops are the only
thing the test controls, so it asserts nothing about a quiet host: other
work on the machine can push any cell over the line.
Needs the 6.1.0-57 .deb in $KBENCH_DEBS."""
import json
import os
import subprocess

from kbtest import debs, expect, kb, temp_store


def main():
    found = debs("linux-image-6.1.0-57-amd64-unsigned_*.deb", 1)
    with temp_store("kbench-it-contention-") as home:
        name = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)["name"]
        loops = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(os.cpu_count() or 1)]
        try:
            p = kb(home, "run", "-k", name, "-w", "dd", "--max-contention", "10", "--retries", "1", "--json")
        finally:
            for y in loops:
                y.kill()
                y.wait()
        cells = json.loads(p.stdout)["cells"]
        expect(len(cells) == 2 and [c["attempt"] for c in cells] == [1, 2],
               f"the contended cell was run twice ({len(cells)} attempts)")
        for c in cells:
            m = c["metrics"]
            foreign = m.get("host.foreign_cpu_pct", {}).get("value")
            load = m.get("host.loadavg1", {}).get("value")
            expect(c["state"] == "ok", f"attempt {c['attempt']}: ok ({c['state']}: {c['detail']})")
            expect(foreign is not None and foreign > 10, f"attempt {c['attempt']}: foreign CPU {foreign} % > 10 %")
            expect(load is not None and load >= 0, f"attempt {c['attempt']}: load average {load}")
            expect("contended:" in (c["detail"] or ""), f"attempt {c['attempt']}: detail '{c['detail']}'")
            if "contended" in c:
                expect(c["contended"] is True, f"attempt {c['attempt']}: JSON contended is {c['contended']}")


if __name__ == "__main__":
    main()
