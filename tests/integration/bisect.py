#!/usr/bin/env python3
"""`kbench bisect --git` as a kernel developer runs it: a git history over
Debian's linux-source-6.1 (tools/make-bisect-repo.sh: good, a docs commit,
a commit that does not build, its fix, the culprit — submit_bio spins on
every write bio — and a comment; bad), every candidate built with
`--config tinyconfig --fragment tools/tiny-kernel.config`, measured on
dd's guest.write.kernel_Minsn, the judged instruction count.

Checks: the last line is `first bad: <the culprit's full commit id>`; the
commit that does not build was skipped, and the docs and fix commits took
good's verdict from identical images without a cell of their own; the
culprit was confirmed against its parent; the steps are in the store
(`show --bisect ID --json`) and every measured step's runs exist. A second
bisection whose ends are the same commit ends with "no change between the
ends" and names no culprit.

The repository and the build tree (O= trees, ccache) are cached in
$KBENCH_BISECT_CACHE (default /var/cache/kbench-bisect): the first run on a
machine builds the tree in full (about 4 minutes), later runs only what a
commit changed."""
import json
import os
import re
import subprocess
import sys
import time

from kbtest import expect, kb, temp_store

CACHE = os.environ.get("KBENCH_BISECT_CACHE", "/var/cache/kbench-bisect")
TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")


def repo():
    path = os.path.join(CACHE, "repo")
    p = subprocess.run(["sh", os.path.join(TOOLS, "make-bisect-repo.sh"), path], capture_output=True, text=True)
    expect(p.returncode == 0, f"tools/make-bisect-repo.sh made the history: {p.stderr[-1000:]}")
    with open(os.path.join(path, ".git", "kbench-culprit")) as f:
        return path, f.read().strip()


def bisect(home, path, good, bad, *extra):
    return kb(home, "bisect", "--git", path, "--good", good, "--bad", bad, "--config", "tinyconfig",
              "--fragment", os.path.join(TOOLS, "tiny-kernel.config"), "-w", "dd:size=32M", "--mem", "128", "--warm",
              "--metric", "guest.write.kernel_Minsn", *extra, check=False)


def main():
    path, culprit = repo()
    os.makedirs(os.path.join(CACHE, "build"), exist_ok=True)
    with temp_store("kbench-bisect-") as home:
        # The builds' O= trees and ccache outlive the store.
        os.symlink(os.path.join(CACHE, "build"), os.path.join(home, "build"))
        t0 = time.monotonic()
        p = bisect(home, path, "good", "bad")
        took = time.monotonic() - t0
        print(p.stdout)
        print(p.stderr[-3000:], file=sys.stderr)
        expect(p.returncode == 0, f"kbench bisect exits 0 (got {p.returncode}: {p.stderr.strip()[-600:]})")
        last = p.stdout.strip().splitlines()[-1]
        expect(last == f"first bad: {culprit}", f"the last line names the culprit ({last!r}, culprit {culprit})")
        print(f"bisection took {took:.0f} s")
        m = re.search(r"^bisection (\d+):", p.stdout, re.M)
        expect(m is not None, "the result names its bisection")
        shown = json.loads(kb(home, "show", "--bisect", m.group(1), "--json").stdout)
        steps = shown["steps"]
        by_decision = {s["decision"] for s in steps}
        expect(shown["outcome"] == "first-bad" and shown["first_bad"] == culprit,
               f"show --bisect keeps the outcome: {shown['outcome']}, {shown['first_bad']}")
        expect(any(s["decision"] == "skipped" for s in steps), f"the commit that does not build was skipped: "
                                                                f"{[(s['candidate'][:8], s['decision']) for s in steps]}")
        same = [s for s in steps if (s["note"] or "").startswith("the same image as")]
        expect(same and all(s["rounds"] == 0 for s in same),
               f"identical images took a verdict without cells: {[(s['candidate'][:8], s['note']) for s in same]}")
        confirm = [s for s in steps if s["role"] == "confirm"]
        expect(len(confirm) == 1 and confirm[0]["decision"] == "different" and confirm[0]["candidate"] == culprit,
               f"the culprit reproduced against its parent: {confirm}")
        listed = kb(home, "show").stdout
        for s in steps:
            for run in s["runs"]:
                expect(re.search(rf"^\s*{run}\s", listed, re.M) is not None, f"step {s['step']}'s run {run} is stored")
        expect("good" in by_decision or same, "some candidate was found good")

        p = bisect(home, path, "bad", "bad")
        expect(p.returncode == 0 and p.stdout.strip().splitlines()[-1] == "no change between the ends"
               and "first bad" not in p.stdout,
               f"ends that are the same commit: no change, no culprit ({p.stdout.strip()[-300:]!r})")


if __name__ == "__main__":
    main()
