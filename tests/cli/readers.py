#!/usr/bin/env python3
"""What people read, checked on the golden store (tests/golden, real runs):
compare, its markdown and show fit 100 columns (and the terminal's width
when COLUMNS says it), seconds read in µs or ms, no line claims that only
instruction counts are judged, `kbench help VERB` is the verb's --help,
`kbench metrics` agrees with what compare judges, and the CSV of compare and
show parses with a header. Boots no guest. Usage: readers.py KBENCH"""
import csv
import fnmatch
import io
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import KBENCH, expect, kb, temp_store  # noqa: E402
from golden import load_store  # noqa: E402

A, B = "run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64"


def widest(text):
    return max((len(line) for line in text.splitlines()), default=0)


def run(home, *args, columns=None):
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    if columns:
        env["COLUMNS"] = str(columns)
    import subprocess
    return subprocess.run([KBENCH, "--store", home, *args], capture_output=True, text=True, env=env)


def fits(home):
    for args in (["compare", A, B], ["compare", "--format", "markdown", A, B], ["show", "1"], ["show"],
                 ["metrics", "dd"], ["compare", "-w", "dd", "6.1.0-47-amd64", "6.1.0-57-amd64"]):
        p = run(home, *args)
        expect(p.returncode in (0, 4) and widest(p.stdout) <= 100,
               f"kbench {' '.join(args)} fits 100 columns (widest {widest(p.stdout)})")
    p = run(home, "compare", A, B, columns=72)
    expect(widest(p.stdout) <= 72, f"COLUMNS=72: compare fits 72 columns (widest {widest(p.stdout)})")
    p = run(home, "compare", "--all", A, B)
    expect(widest(p.stdout) > 100 or "informational" in p.stdout, "--all adds the informational metrics")


def units(home):
    text = run(home, "compare", "--wide", A, B).stdout
    tiny = re.findall(r"[+-]?0\.000\d+ s\b", text)
    expect(not tiny, f"no seconds below a millisecond printed as seconds ({tiny[:3]})")
    expect(re.search(r"\d µs", text) and re.search(r"\d ms", text), "seconds read in µs and ms")
    for args in (["compare", A, B], ["compare", "--help"], ["show", "1"]):
        out = run(home, *args).stdout
        expect("_Minsn counts are judged instead" not in out and "only instruction counts" not in out,
               f"kbench {' '.join(args)} never says only instruction counts are judged")
    md = run(home, "compare", "--format", "markdown", A, B).stdout
    prose = "".join(part for i, part in enumerate(md.split("```")) if i % 2 == 0)
    expect("\\[" not in md and "&gt;" not in md and "&lt;" not in md,
           "the markdown reads as plain text: no \\[, &gt; or &lt;")
    expect("```text\nmetric " in md and "| metric |" not in prose, "markdown's tables are code blocks")


def helps(home):
    for verb in ("compare", "show", "metrics", "run"):
        a, b = run(home, "help", verb), run(home, verb, "--help")
        expect(a.returncode == 0 and a.stdout == b.stdout, f"kbench help {verb} is kbench {verb} --help")
    a, b = run(home, "help", "kernel", "add"), run(home, "kernel", "add", "--help")
    expect(a.returncode == 0 and a.stdout == b.stdout, "kbench help kernel add is kbench kernel add --help")
    p = run(home, "help", "nosuch")
    expect(p.returncode == 2 and "unknown verb" in p.stderr, f"kbench help nosuch: exit 2 ({p.stderr.strip()})")


def metrics_agree(home):
    rows = json.loads(run(home, "metrics", "--json").stdout)["metrics"]
    judged = [r["pattern"] for r in rows if r["judged"]]
    floors = {r["pattern"]: r["floor"] for r in rows if r["judged"]}
    expect(floors.get("guest.*.wait_s") == 0.05 and floors.get("guest.*.kernel_Minsn") is None,
           "metrics --json: waiting's floor 50 ms, instructions judged by their ratio")
    text = run(home, "metrics", "dd").stdout
    expect("guest.<phase>.kernel_Minsn" in text and "beyond 50 ms" in text, "kbench metrics dd lists the floors")
    view = json.loads(run(home, "compare", "--json", A, B).stdout)
    wrong = []
    for g in view["groups"]:
        for m in g["metrics"]:
            registry = any(fnmatch.fnmatchcase(m["name"], p) for p in judged)
            # compare judges a registry-judged rate only where the host does not set the pace.
            if m["judged"] and not registry:
                wrong.append(m["name"])
    expect(not wrong, f"every metric compare judges is a judged row of kbench metrics ({wrong[:3]})")


def csvs(home):
    p = run(home, "compare", "--format", "csv", A, B)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    view = json.loads(run(home, "compare", "--json", A, B).stdout)
    n = sum(len(g["metrics"]) for g in view["groups"])
    expect(p.returncode in (0, 4) and len(rows) == n and rows[0]["group"] and "verdict" in rows[0],
           f"compare --format csv: a row per metric ({len(rows)} of {n})")
    p = run(home, "show", "1", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    expect(p.returncode == 0 and rows and rows[0]["run"] == "1" and rows[0]["metric"],
           f"show 1 --format csv: a row per cell and metric ({len(rows)})")
    p = run(home, "show", "--format", "csv")
    expect(p.returncode == 2 and "csv" in p.stderr, f"show --format csv without a run: usage error ({p.stderr.strip()})")
    site = os.path.join(home, "site-out")
    p = run(home, "publish", "-o", site, "--json")
    j = json.loads(p.stdout) if p.returncode == 0 else {}
    expect(j.get("written", 0) > 0 and j.get("index") == os.path.join(site, "index.html"),
           f"publish --json says what it wrote ({p.stdout.strip()[:200]})")
    p = run(home, "compare", "--json", "--format", "text", A, B)
    expect(p.returncode == 2, f"--json with --format: usage error ({p.stderr.strip()})")


def main():
    with temp_store("kbench-readers-") as home:
        load_store(home)
        fits(home)
        units(home)
        helps(home)
        metrics_agree(home)
        csvs(home)


if __name__ == "__main__":
    main()
