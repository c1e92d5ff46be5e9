#!/usr/bin/env python3
"""What `kbench bisect`, `kbench kernel build` and `kbench show --bisect`
refuse before they build or boot anything: usage errors exit 2 with one
line naming the option (ends of a git history that are reversed or on
branches that diverged name both refs), a source that is not a kernel tree
exits 1 naming it, an unknown kernel is a usage error found before a
database is made, a store with no bisection says so, and a bisection whose
ends are one image is answered and stored as done. Boots no guest, builds
nothing.
Usage: bisect_cli.py KBENCH SCHEMA_SQL"""
import os
import re
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import debs, expect, kb, temp_store  # noqa: E402

SCHEMA = sys.argv[2]

M = ["--metric", "guest.write.kernel_Minsn", "-w", "dd"]
USAGE = [
    (["bisect", "-w", "dd", "--kernels", "a,b"], "--metric is required"),
    (["bisect", "--metric", "no.such", "-w", "dd", "--kernels", "a,b"], "--metric no.such"),
    (["bisect", "--metric", "dd.write_s", "-w", "dd", "--kernels", "a,b"], "--metric dd.write_s"),
    (["bisect", *M], "give either --kernels"),
    (["bisect", *M, "--kernels", "a,b", "--git", "/tmp"], "give either --kernels"),
    (["bisect", *M, "--git", "/tmp"], "--git needs --good"),
    (["bisect", *M, "--kernels", "a,b", "--good", "x"], "--good and --bad go with --git"),
    (["bisect", *M, "--kernels", "a"], "give two or more kernels"),
    (["bisect", *M, "--kernels", "a,,b"], "give two or more kernels"),
    (["bisect", *M, "--kernels", "a,b", "-k", "c"], "--kernel: a bisection sets its own"),
    (["bisect", *M, "--kernels", "a,b", "-n", "3"], "-n: the rounds are the rule's"),
    (["bisect", *M, "--kernels", "a,b", "--pilot", "1"], "--pilot"),
    (["bisect", *M, "--kernels", "a,b", "--max-rounds", "2", "--pilot", "3"], "--max-rounds"),
    (["bisect", "--metric", "guest.write.kernel_Minsn", "--kernels", "a,b"], "give one -w"),
    (["bisect", *M, "--kernels", "a,b", "--mem", "lots"], "--mem"),
    (["kernel", "build"], "expected one SRC"),
    (["kernel", "build", "/tmp", "--name", "../x"], "is not a kernel name"),
    (["kernel", "build", "/tmp", "--jobs", "-1"], "--jobs"),
    (["show", "--bisect", "x"], "is not a bisection id"),
    (["show", "--bisect", "--tags"], "--bisect takes"),
]


def history(top):
    """A git repository of three commits on main (good, mid, bad) and one
    on a branch off good: nothing a bisection would get as far as building."""
    def git(*args):
        subprocess.run(["git", "-C", top, *args], check=True, capture_output=True)
    git("init", "-q", "-b", "main")
    git("config", "user.name", "kbench")
    git("config", "user.email", "kbench@localhost")
    def commit(name):
        with open(os.path.join(top, "Kconfig"), "a") as f:
            f.write(f"# {name}\n")
        git("add", "Kconfig")
        git("commit", "-q", "-m", name)
        git("tag", name)
    for name in ("good", "mid", "bad"):
        commit(name)
    git("checkout", "-q", "-b", "side", "good")
    commit("side")
    git("checkout", "-q", "main")


def main():
    with temp_store("kbench-bisect-cli-") as home:
        # Ends in the wrong order, or on branches that diverged: refused
        # before a worktree is made or anything built.
        top = os.path.join(home, "repo")
        os.makedirs(top)
        history(top)
        for good, bad in (("bad", "good"), ("mid", "good"), ("side", "bad"), ("bad", "side")):
            p = kb(home, "bisect", *M, "--git", top, "--good", good, "--bad", bad, check=False)
            lines = p.stderr.strip().splitlines()
            expect(p.returncode == 2 and len(lines) == 1 and f"--good {good} is not an ancestor of --bad {bad}"
                   in lines[0],
                   f"--good {good} --bad {bad}: exit 2, one line naming both (exit {p.returncode}: {p.stderr!r})")
        expect(not os.path.exists(os.path.join(home, "build")) or
               not any(n.startswith("git-") for n in os.listdir(os.path.join(home, "build"))),
               "no worktree was made for ends that were refused")

        for args, what in USAGE:
            p = kb(home, *args, check=False)
            lines = p.stderr.strip().splitlines()
            expect(p.returncode == 2 and len(lines) == 1 and what in lines[0],
                   f"kbench {' '.join(args)}: exit 2, one line naming {what!r} (exit {p.returncode}: {p.stderr!r})")
        # The cells' settings are run's options: --help says so and names those a bisection sets itself.
        p = kb(home, "bisect", "--help")
        expect("--help-run" in p.stdout and "kbench run's options" in p.stdout and
               all(f"--{o}" in p.stdout for o in ("kernel", "repeat", "tag", "until-mde", "variant")),
               f"bisect --help points to run's options and names the refused ones: {p.stdout[:900]!r}")
        p = kb(home, "bisect", "--help-run")
        expect("--mem" in p.stdout and "--warm" in p.stdout and "--workload" in p.stdout,
               "bisect --help-run lists run's options")
        p = kb(home, "--help")
        expect(re.search(r"^  kernel .*\bbuild\b", p.stdout, re.M) is not None,
               f"kbench --help names kernel build: {p.stdout[:600]!r}")
        p = kb(home, "kernel", "build", home, check=False)
        expect(p.returncode == 1 and "not a kernel source tree" in p.stderr and home in p.stderr,
               f"a directory that is no kernel tree is named: {p.stderr!r}")
        p = kb(home, "bisect", *M, "--kernels", "x,y", check=False)
        expect(p.returncode == 2 and "no kernel 'x'" in p.stderr and len(p.stderr.strip().splitlines()) == 1,
               f"an unknown kernel is named, a usage error as in run: {p.returncode} {p.stderr!r}")
        expect(not os.path.exists(os.path.join(home, "results.db")),
               "a bisection refused for its kernels makes no database")
        # A database without a bisection (made as kbench makes it).
        with sqlite3.connect(os.path.join(home, "results.db")) as c, open(SCHEMA, encoding="utf-8") as f:
            c.executescript(f.read())
            c.execute("PRAGMA user_version = 1")
        p = kb(home, "show", "--bisect", check=False)
        expect(p.returncode == 0 and "no bisections" in p.stdout, f"show --bisect on a store without one: {p.stdout!r}")
        p = kb(home, "show", "--bisect", "7", check=False)
        expect(p.returncode == 1 and "no bisection 7" in p.stderr, f"show --bisect 7 names the id: {p.stderr!r}")
        # One image at both ends: an answer without a guest, stored as done.
        name = kb(home, "kernel", "add", "-q", debs("linux-image-6.1.0-57-*")[0]).stdout.split()[1]
        p = kb(home, "bisect", *M, "--kernels", f"{name},{name}", check=False)
        expect(p.returncode == 0 and p.stdout.strip().splitlines()[-1] == "no change between the ends",
               f"the same kernel at both ends: no change ({p.returncode}: {p.stdout[-300:]!r})")
        shown = kb(home, "show", "--bisect", "1").stdout.strip().splitlines()
        expect(shown[0].endswith("(done)") and shown[-1] == "no change between the ends",
               f"show --bisect 1 reads it back, done, with its answer: {shown}")


if __name__ == "__main__":
    main()
