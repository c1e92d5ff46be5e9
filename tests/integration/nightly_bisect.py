#!/usr/bin/env python3
"""`kbench nightly` starting a bisection (the configuration's "bisect" key,
docs/nightly.md), on real kernels: a directory source whose files name a
tinyconfig kernel first and Debian's 6.1.0-57 second (the dir source reads
them by their bytes, its history orders them by name), the tiny kernel the
baseline, -w dd:size=16M, 4 repeats, guest.write.kernel_Minsn bisected at
most 4 rounds a step. The Debian kernel runs several times the tiny one's
kernel instructions per write, so the night finds that metric worse on
every machine: a regression whose two kernels are one source's history.

Night 1 measures both, exits 4, and its report's bisect line names the
good end (the baseline, which the source yielded) and the first bad
(6.1.0-57); the bisection it names is stored (`show --bisect ID --json`)
with its ends and confirmation, its runs tagged "bisect ...".
Night 2 adds Debian's 6.1.0-47 as the source's third file; it is worse
than the baseline too, and the kernel before it (6.1.0-57) was worse
already (in night 1's run, beside the baseline), so the night starts no
bisection and says why; its comparison is with the baseline measured
beside it in night 2's own run, not one of the bisection's runs, which
measured the baseline too with the same settings.

The tiny kernel is tests/integration/tiny.py's: $KBENCH_TINY_KERNEL, or
/var/cache/kbench-tiny/bzImage built by tools/build-tiny-kernel.sh when
missing (about 4 minutes, once per machine)."""
import json
import os
import re
import shutil
import sys

from kbtest import debs, expect, kb, temp_store
from tiny import TINY, build_cached

METRIC = "guest.write.kernel_Minsn"


def drop(src, into, name):
    os.makedirs(into, exist_ok=True)
    dst = os.path.join(into, name)
    shutil.copyfile(src, dst)
    # The dir source leaves a file modified in the last seconds for the next night.
    os.utime(dst, (os.path.getmtime(dst) - 120,) * 2)


def night(home, cfg):
    p = kb(home, "nightly", cfg, check=False)
    print(p.stdout)
    print(p.stderr[-2500:], file=sys.stderr)
    return p


def main():
    if "KBENCH_TINY_KERNEL" not in os.environ:
        build_cached(TINY)
    if not os.path.isfile(TINY):
        print(f"SKIP: no tiny kernel at {TINY}")
        sys.exit(77)
    k57, k47 = debs("linux-image-6.1.0-57-*")[0], debs("linux-image-6.1.0-47-*")[0]
    with temp_store("kb-nightly-bisect-") as home:
        base = json.loads(kb(home, "kernel", "add", "--json", TINY).stdout)["name"]
        src = os.path.join(home, "drop")
        drop(TINY, src, "kernel-1-tiny.bzImage")
        drop(k57, src, "kernel-2-" + os.path.basename(k57))
        cfg = os.path.join(home, "night.json")
        with open(cfg, "w") as f:
            json.dump({"sources": [{"type": "dir", "path": src}], "baseline": base, "workloads": ["dd:size=16M"],
                       "repeats": 4, "deadline": "1h", "bisect": {"metric": METRIC, "max_rounds": 4}}, f)

        p = night(home, cfg)
        expect(p.returncode == 4 and re.search(rf"^6\.1\.0-57-amd64: {re.escape(METRIC)} \+", p.stdout, re.M),
               f"night 1 finds 6.1.0-57 worse than the tiny baseline on {METRIC} (exit {p.returncode})")
        line = re.search(rf"^bisect: 6\.1\.0-57-amd64 {re.escape(METRIC)} from {re.escape(base)}, 2 kernels: "
                         r"first bad: 6\.1\.0-57-amd64 \(kbench show --bisect (\d+)\)$", p.stdout, re.M)
        expect(line is not None, "night 1's report names the bisection's first bad")
        shown = json.loads(kb(home, "show", "--bisect", line.group(1), "--json").stdout)
        roles = [s["role"] for s in shown["steps"]]
        expect(shown["outcome"] == "first-bad" and shown["first_bad"] == "6.1.0-57-amd64" and shown["good"] == base
               and roles == ["ends", "confirm"] and all(s["rounds"] >= 4 for s in shown["steps"]),
               f"the bisection is stored: {shown['outcome']}, {shown['good']}..{shown['bad']}, steps {roles}")
        runs = json.loads(kb(home, "show", "--json").stdout)
        tags = {r["id"]: r["tag"] for r in runs}
        expect(all(tags.get(run, "").startswith(f"bisect {line.group(1)} step ") for s in shown["steps"]
                   for run in s["runs"]), f"its runs are the bisection's: {tags}")

        drop(k47, src, "kernel-3-" + os.path.basename(k47))
        p = night(home, cfg)
        expect(p.returncode == 4 and re.search(rf"^6\.1\.0-47-amd64: {re.escape(METRIC)} \+", p.stdout, re.M),
               f"night 2 finds 6.1.0-47 worse than the tiny baseline too (exit {p.returncode})")
        expect(re.search(rf"^bisect: 6\.1\.0-47-amd64 {re.escape(METRIC)}: not started: the kernel before it "
                         r"was worse already", p.stdout, re.M) is not None,
               "night 2 starts no bisection: the regression is older than tonight")
        compared = re.search(r"^compared: kbench compare run:(\d+):\S+ run:(\d+):6\.1\.0-47-amd64$", p.stdout, re.M)
        runs = json.loads(kb(home, "show", "--json").stdout)
        tags = {r["id"]: r["tag"] for r in runs}
        expect(compared is not None and compared.group(1) == compared.group(2) and
               tags.get(int(compared.group(1))) == "nightly",
               f"night 2 compares with the baseline measured beside the kernel in its own nightly run, not a "
               f"bisection's ({compared and compared.group(0)})")


if __name__ == "__main__":
    main()
