#!/usr/bin/env python3
"""`kbench bisect` and `kbench kernel build` as a kernel developer runs
them.

1. `bisect --git --json` over a history of Debian's linux-source-6.1
   (tools/make-bisect-repo.sh: good, a docs commit, a commit that does not
   boot, one that does not build, their fix, the culprit — submit_bio spins
   on every write bio — and a comment; bad), every candidate built with
   `--config tinyconfig --fragment tools/tiny-kernel.config`, measured on
   dd's guest.write.kernel_Minsn, the judged instruction count. Checks: the
   JSON names the culprit's full commit id as first bad, and the stored
   bisection's text (`show --bisect ID`) ends with the same `first bad:`
   line; the commit that does not build was skipped without a cell, the
   one that does not boot after a probe whose cells of it all failed at
   boot, each with its reason; the fix took good's verdict from an
   identical image without a cell (and the culprit the bad end's, whose
   image it is); the culprit was confirmed against its
   parent; the steps are in the store and every measured step's runs exist.
2. A second bisection whose ends are the same commit ends with "no change
   between the ends" and names no culprit.
3. `kernel build` of the bisection's worktree at the commit that does not
   boot: a cache hit
   (it was built by the bisection) under a new `--name`, whose build.json
   holds the commit, the configuration's inputs with their sha256, the
   compiler's version line and the build time, and whose .config holds the
   fragment; then with `--patch` (a patch to a host program of Kbuild that
   makes the build fail at once): the patch is applied to a private copy,
   the worktree is left as it was, and the failure is one line naming the
   build's log.
4. `bisect --kernels` over two Debian kernels (6.1.0-47, 6.1.0-57, -w
   dd:size=64M, at most 4 rounds a step) runs to an answer, and with the
   same kernel at both ends ends "no change between the ends" without a
   cell.

The repository and the build tree (O= trees, ccache) are cached in
$KBENCH_BISECT_CACHE (default /var/cache/kbench-bisect): the first run on a
machine builds the tree in full (about 4 minutes), later runs only what a
commit changed. docs/design.md ("kbench bisect") states how long it takes."""
import hashlib
import json
import os
import re
import subprocess
import sys
import time

from kbtest import debs, expect, kb, temp_store

CACHE = os.environ.get("KBENCH_BISECT_CACHE", "/var/cache/kbench-bisect")
TOOLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools")
FRAGMENT = os.path.join(TOOLS, "tiny-kernel.config")
METRIC = "guest.write.kernel_Minsn"


def repo():
    path = os.path.join(CACHE, "repo")
    p = subprocess.run(["sh", os.path.join(TOOLS, "make-bisect-repo.sh"), path], capture_output=True, text=True)
    expect(p.returncode == 0, f"tools/make-bisect-repo.sh made the history: {p.stderr[-1000:]}")
    ids = {}
    for what in ("culprit", "broken", "noboot"):
        with open(os.path.join(path, ".git", f"kbench-{what}")) as f:
            ids[what] = f.read().strip()
    return path, ids


def bisect(home, path, good, bad, *extra):
    return kb(home, "bisect", "--git", path, "--good", good, "--bad", bad, "--config", "tinyconfig",
              "--fragment", FRAGMENT, "-w", "dd:size=32M", "--mem", "128", "--warm", "--metric", METRIC, *extra,
              check=False)


def check_steps(home, out, ids):
    steps = out["steps"]
    summary = [(s["candidate"][:8], s["decision"], s["rounds"], s["note"]) for s in steps]
    print(f"steps: {summary}")
    broken = [s for s in steps if s["candidate"] == ids["broken"]]
    expect(len(broken) == 1 and broken[0]["decision"] == "skipped" and broken[0]["rounds"] == 0
           and broken[0]["note"] == "it does not build",
           f"the commit that does not build was skipped without a cell: {summary}")
    noboot = [s for s in steps if s["candidate"] == ids["noboot"]]
    expect(len(noboot) == 1 and noboot[0]["decision"] == "skipped" and noboot[0]["rounds"] > 0
           and noboot[0]["note"].startswith("no value: it does not boot"),
           f"the commit that does not boot was skipped after its probe: {summary}")
    listed = json.loads(kb(home, "show", "--json").stdout)
    for run in noboot[0]["runs"]:
        cells = json.loads(kb(home, "show", str(run), "--json").stdout)["cells"]
        mine = [c for c in cells if c["kernel"] == noboot[0]["kernel"]]
        expect(mine and all(c["state"].startswith("boot-") for c in mine),
               f"every cell of the commit that does not boot failed at boot: {[c['state'] for c in mine]}")
    same = [s for s in steps if (s["note"] or "").startswith("the same image as")]
    expect(same and all(s["rounds"] == 0 for s in same) and any(s["decision"] == "good" for s in same),
           f"identical images took a decided verdict without cells, the fix good's: {summary}")
    confirm = [s for s in steps if s["role"] == "confirm"]
    expect(len(confirm) == 1 and confirm[0]["decision"] == "different" and confirm[0]["candidate"] == ids["culprit"],
           f"the culprit reproduced against its parent: {confirm}")
    run_ids = {r["id"] for r in listed}
    for s in steps:
        for run in s["runs"]:
            expect(run in run_ids, f"step {s['step']}'s run {run} is stored")


def worktree_of(path):
    """The private worktree bisect/bisect.c builds path's candidates in."""
    top = subprocess.run(["git", "-C", path, "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                         check=True).stdout.strip()
    tree = os.path.join(os.path.realpath(os.path.join(CACHE, "build")),
                        "git-" + hashlib.sha256(top.encode()).hexdigest()[:16])
    expect(os.path.isdir(tree), f"the bisection's worktree is {tree}")
    return tree


def kernel_build(home, path, ids):
    """kernel build of a tree the bisection built: a cache hit, its record;
    then a patch, applied to a copy. At the commit that does not boot: no
    other commit builds its image, so its build.json is its own (an image
    two commits build, as good's and the fix's, keeps the record of the
    last build that ran make for it, which depends on what the cache held)."""
    tree = worktree_of(path)
    subprocess.run(["git", "-C", tree, "checkout", "-q", "--detach", "--force", ids["noboot"]], check=True)
    p = kb(home, "kernel", "build", tree, "--config", "tinyconfig", "--fragment", FRAGMENT, "--name", "kb-noboot",
           check=False)
    expect(p.returncode == 0 and p.stdout.startswith("cache hit: kb-noboot (")
           and f"built before from {ids['noboot']}" in p.stdout,
           f"the same inputs again are a cache hit, stored under --name: {p.stdout!r} {p.stderr[-500:]!r}")
    k = [k for k in json.loads(kb(home, "kernel", "list", "--json").stdout) if k["name"] == "kb-noboot"]
    expect(len(k) == 1 and k[0]["build"] and k[0]["config"], f"kb-noboot keeps build.json and .config: {k}")
    with open(k[0]["build"]) as f:
        record = json.load(f)
    with open(FRAGMENT, "rb") as f:
        frag_sha = hashlib.sha256(f.read()).hexdigest()
    gcc = subprocess.run(["gcc", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    expect(record["commit"] == ids["noboot"] and record["source_id"] == ids["noboot"]
           and record["config"] == "tinyconfig" and [x["sha256"] for x in record["fragments"]] == [frag_sha]
           and record["patches"] == [] and record["compiler"] == gcc and record["build_s"] > 0,
           f"build.json: commit, configuration, compiler, build time: {record}")
    with open(k[0]["config"]) as f:
        config = f.read()
    expect("CONFIG_ATA_PIIX=y" in config and "CONFIG_64BIT=y" in config, "its .config holds the fragment's options")

    # A patch that stops the build at its first host program: cheap, and
    # only a build of the patched tree can fail so.
    patch = os.path.join(home, "fail-fast.patch")
    with open(patch, "w") as f:
        f.write("--- a/scripts/basic/fixdep.c\n+++ b/scripts/basic/fixdep.c\n@@ -1,3 +1,4 @@\n"
                "+#error kbench fixture: the patch was applied\n")
        with open(os.path.join(tree, "scripts/basic/fixdep.c")) as src:
            head = [next(src) for _ in range(3)]
        f.writelines(" " + line for line in head)
    p = kb(home, "kernel", "build", tree, "--config", "tinyconfig", "--fragment", FRAGMENT, "--patch", patch,
           check=False)
    err = p.stderr.strip().splitlines()
    log = re.search(r"see (\S+\.log)", err[-1] if err else "")
    expect(p.returncode == 1 and log is not None and "failed" in err[-1],
           f"a patched build that fails is one line naming its log: {p.stderr[-800:]!r}")
    with open(log.group(1)) as f:
        expect("kbench fixture: the patch was applied" in f.read(), "the log shows the patched line stopped it")
    status = subprocess.run(["git", "-C", tree, "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                            text=True).stdout
    expect(status == "", f"the patch went to a copy: the tree is as it was ({status[:300]!r})")


def kernels_bisect(home):
    """--kernels over two Debian kernels: an answer; the same kernel at both ends: no change."""
    names = [json.loads(kb(home, "kernel", "add", "--json", d).stdout)["name"]
             for d in (debs("linux-image-6.1.0-47-*")[0], debs("linux-image-6.1.0-57-*")[0])]
    t0 = time.monotonic()
    p = kb(home, "bisect", "--kernels", ",".join(names), "-w", "dd:size=64M", "--warm", "--metric", METRIC,
           "--max-rounds", "4", check=False)
    print(p.stdout)
    print(f"bisect --kernels took {time.monotonic() - t0:.0f} s")
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    expect((p.returncode == 0 and last in (f"first bad: {names[1]}", "no change between the ends"))
           or (p.returncode == 3 and last == "cannot tell"),
           f"bisect --kernels {','.join(names)} runs to an answer (exit {p.returncode}: {last!r}; "
           f"{p.stderr[-600:]!r})")
    p = kb(home, "bisect", "--kernels", f"{names[0]},{names[0]}", "-w", "dd:size=64M", "--metric", METRIC,
           check=False)
    expect(p.returncode == 0 and p.stdout.strip().splitlines()[-1] == "no change between the ends"
           and re.search(r"^ +0 ends +\S+ +\S+ +0 ", p.stdout, re.M),
           f"the same kernel at both ends: no change, no cell ({p.stdout.strip()[-300:]!r})")


def main():
    path, ids = repo()
    os.makedirs(os.path.join(CACHE, "build"), exist_ok=True)
    with temp_store("kbench-bisect-") as home:
        # The builds' O= trees and ccache outlive the store.
        os.symlink(os.path.join(CACHE, "build"), os.path.join(home, "build"))
        t0 = time.monotonic()
        p = bisect(home, path, "good", "bad", "--json")
        took = time.monotonic() - t0
        print(p.stderr[-3000:], file=sys.stderr)
        expect(p.returncode == 0, f"kbench bisect exits 0 (got {p.returncode}: {p.stderr.strip()[-600:]})")
        out = json.loads(p.stdout)
        print(f"bisection took {took:.0f} s")
        expect(out["outcome"] == "first-bad" and out["first_bad"] == ids["culprit"] and out["confirmed"] is True,
               f"--json names the culprit, confirmed: {out['outcome']}, {out['first_bad']}, {out['confirmed']}")
        # Where the change went, last good to first bad: the culprit's loop
        # is in submit_bio, a function of its own in the tiny kernel's map.
        fns = [f["symbol"] for f in (out.get("explain") or {}).get("functions", [])]
        expect(fns[:1] == ["submit_bio"], f"the answer says where the change went, submit_bio first: {fns[:4]}")
        text = kb(home, "show", "--bisect", str(out["bisection"])).stdout
        expect(text.strip().splitlines()[-1] == f"first bad: {out['first_bad']}",
               f"the stored bisection's last line is the JSON's first bad: {text.strip()[-200:]!r}")
        shown = json.loads(kb(home, "show", "--bisect", str(out["bisection"]), "--json").stdout)
        expect(shown["outcome"] == "first-bad" and shown["first_bad"] == ids["culprit"]
               and len(shown["steps"]) == len(out["steps"]),
               f"show --bisect keeps the outcome and the steps: {shown['outcome']}, {shown['first_bad']}")
        check_steps(home, out, ids)

        p = bisect(home, path, "bad", "bad")
        expect(p.returncode == 0 and p.stdout.strip().splitlines()[-1] == "no change between the ends"
               and "first bad" not in p.stdout,
               f"ends that are the same commit: no change, no culprit ({p.stdout.strip()[-300:]!r})")

        t0 = time.monotonic()
        kernel_build(home, path, ids)
        print(f"kernel build checks took {time.monotonic() - t0:.0f} s")
        kernels_bisect(home)


if __name__ == "__main__":
    main()
