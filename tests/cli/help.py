#!/usr/bin/env python3
"""What a user reads first: every verb's --help (and --help-all) starts
"Usage: kbench VERB" and fits in 100 columns, and a command line kbench
cannot take is one line on stderr and exit 2 (a bare kbench, a bare
kbench kernel, doctor with arguments). Boots no guest.

Arguments: kbench."""
import os
import re
import subprocess
import sys
import tempfile

KBENCH = sys.argv[1]
WIDTH = 100
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def kb(home, *args):
    return subprocess.run([KBENCH, "--store", home, *args], capture_output=True, text=True, timeout=60)


def verbs(home):
    """The verbs kbench --help lists, kernel's commands as "kernel CMD"."""
    out = kb(home, "--help").stdout
    names = re.findall(r"^  ([a-z]+) ", out.split("Verbs:\n", 1)[1].split("\n\n", 1)[0], re.M)
    cmds = re.findall(r"^  ([a-z]+) ", kb(home, "kernel", "--help").stdout.split("Commands:\n", 1)[1], re.M)
    expect(len(names) >= 9 and len(cmds) == 4, f"kbench --help lists the verbs ({names}) and kernel its commands "
           f"({cmds})")
    return [[v] for v in names if v != "kernel"] + [["kernel", c] for c in cmds]


def main():
    with tempfile.TemporaryDirectory(prefix="kbench-help-") as home:
        for args in [[], ["kernel"]]:
            p = kb(home, "--help", *args) if not args else kb(home, *args, "--help")
            wide = [l for l in p.stdout.split("\n") if len(l) > WIDTH]
            expect(p.returncode == 0 and not wide, f"kbench {' '.join(args)} --help fits in {WIDTH} columns: {wide}")
        for verb in verbs(home):
            for flag in ("--help", "--help-all"):
                p = kb(home, *verb, flag)
                name = " ".join(verb)
                lines = p.stdout.split("\n")
                expect(p.returncode == 0, f"{name} {flag} exits 0: {p.returncode} {p.stderr!r}")
                expect(lines[0].startswith(f"Usage: kbench {name} "),
                       f"{name} {flag} starts 'Usage: kbench {name}': {lines[0]!r}")
                wide = [l for l in lines if len(l) > WIDTH]
                expect(not wide, f"{name} {flag}: every line within {WIDTH} columns: {wide}")

        # A usage error is one line that says where help is, exit 2.
        for args, said in (([], "no verb given; try 'kbench --help'"),
                           (["kernel"], "try 'kbench kernel --help'"),
                           (["doctor", "extra", "args"], "try 'kbench doctor --help'"),
                           (["nosuchverb"], "try 'kbench --help'")):
            p = kb(home, *args)
            err = p.stderr.rstrip("\n")
            expect(p.returncode == 2 and "\n" not in err and said in err and not p.stdout,
                   f"kbench {' '.join(args)}: one line, exit 2: {p.returncode} {p.stderr!r} {p.stdout[:200]!r}")
        p = kb(home, "doctor", "--help")
        expect("Exit status: 0 no check failed, 1 a check failed, 2 usage error" in p.stdout.replace("\n", " "),
               f"doctor --help documents its exit codes: {p.stdout!r}")
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
