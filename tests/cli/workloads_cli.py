#!/usr/bin/env python3
"""`kbench workloads` and what is derived from the workload registry: the
workloads it lists are those `kbench run --help` lists (both read
workloads/registry.c's rows); --packages prints each guest package once;
tools/setup.sh installs the guests' packages from it rather than from a list
of its own; restating metrics say they are not judged. Boots no guest."""
import os
import re
import subprocess
import sys

KBENCH = sys.argv[1]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def expect(cond, msg):
    if not cond:
        sys.exit("FAIL: " + msg)
    print("ok:", msg)


def kb(*args):
    p = subprocess.run([KBENCH, *args], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, f"kbench {' '.join(args)} exits 0 ({p.stderr.strip()})")
    return p.stdout


def main():
    help_text = kb("run", "--help")
    block = help_text[help_text.index("Workloads"):]
    in_help = re.findall(r"^  ([a-z][a-z0-9]*)  ", block, re.M)
    listed = re.findall(r"^([a-z][a-z0-9]*): ", kb("workloads"), re.M)
    expect(listed == in_help and {"dd", "tiobench", "bonnie", "ftp", "dbench", "copy"} <= set(listed),
           f"kbench workloads lists run --help's workloads in order: {listed}")
    text = kb("workloads")
    expect(re.search(r"^  dd\.\*_s .*not judged: the same measurement as dd\.\*_MBps$", text, re.M),
           "dd.*_s is shown as not judged, and why")

    packages = kb("workloads", "--packages").split()
    expect(len(packages) == len(set(packages)) and all(re.fullmatch(r"[a-z0-9][a-z0-9+.-]+", p) for p in packages),
           f"--packages: Debian package names, each once: {packages}")
    expect({"bonnie++", "vsftpd", "dbench"} <= set(packages), "the guests need bonnie++, vsftpd and dbench")

    setup = open(os.path.join(ROOT, "tools", "setup.sh")).read()
    listed_in_setup = re.search(r"^packages=\((.*?)^\)", setup, re.M | re.S).group(1).split()
    expect(not set(listed_in_setup) & {"bonnie++", "vsftpd", "dbench"},
           "setup.sh's own list has no workload's package")
    expect("build/cli/kbench workloads --packages" in setup, "setup.sh installs what kbench workloads --packages prints")
    print("1 passed, 0 failed")


main()
