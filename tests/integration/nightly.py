#!/usr/bin/env python3
"""End-to-end test of `kbench nightly` on real kernels, as a new user would
try it: a directory source holding the baseline package (6.1.0-47) and a
second kernel package dropped in (6.1.0-57), -w dd:size=64M, n = 5.

Night 1 measures both kernels in one run and exits 0 or 4; its report must
agree with `kbench compare` given the same selectors (the report names
them) and the same alpha: the same exit status, the same worse metrics.
Night 2, with nothing new, measures nothing (no run is added) and exits 0.
Night 3 adds a source holding 6.1.0-57 again with a disk throttle at about
40 % of the write rate night 1 measured: that variant is measured in a run
of its own with the baseline beside it on the same throttled disk, and
compared with it there, like with like (the throttle is no regression of
the kernel): both selectors name that run, `kbench compare` agrees with
the report, and a regression, if the two kernels differ on the throttled
disk, reaches the notify command with the run each side came from and a
reproduction of one run of both kernels.
Night 4 adds a source named "dirty7-" yielding 6.1.0-57 again with the
sysctl vm.dirty_ratio=7: a variant, measured in a run of its own (the
baseline beside it) under the
name dirty7-6.1.0-57-amd64 while the kernels table holds the image once
under its own name; its cells record 7 as read back from the guest's
/proc/sys/vm/dirty_ratio, and the site has a page under the variant's name.
Night 5, with nothing new, measures nothing: the fingerprint with sysctls
and the variant matches what the runs stored.
Last, `kbench run --sysctl vm.no_such_sysctl=1` ends its one cell as a
workload-failure whose note names the key.

alpha is 0.2 as the other nights' tests; every cell costs about 8 s of
guest time, so the test keeps to 31 cells."""
import json
import os
import re
import shutil
import sqlite3
import sys

from kbtest import debs, expect, kb, temp_store

ALPHA = 0.2
REPEATS = 5


def config(path, sources, site, **extra):
    cfg = {"sources": sources, "baseline": "6.1.0-47-amd64", "workloads": ["dd:size=64M"], "repeats": REPEATS,
           "alpha": ALPHA, "deadline": "1h", "publish_dir": site, **extra}
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


def drop(pkg, into):
    os.makedirs(into, exist_ok=True)
    dst = os.path.join(into, os.path.basename(pkg))
    shutil.copyfile(pkg, dst)
    # A file modified in the last seconds may still be being copied in:
    # the dir source leaves it for the next night.
    os.utime(dst, (os.path.getmtime(dst) - 120,) * 2)


def runs(home):
    with sqlite3.connect(os.path.join(home, "results.db")) as db:
        return db.execute("SELECT id, status FROM runs ORDER BY id").fetchall()


def main():
    base, new = debs("linux-image-6.1.0-47-*"), debs("linux-image-6.1.0-57-*")
    with temp_store("kb-nightly-") as home:
        drop1, drop2, site = (os.path.join(home, d) for d in ("drop", "drop-throttled", "site"))
        drop(base[0], drop1)
        drop(new[0], drop1)
        cfg1 = config(os.path.join(home, "night.json"), [{"type": "dir", "path": drop1}], site)

        p = kb(home, "nightly", "--dry-run", cfg1)
        expect("run 1:" in p.stdout and "6.1.0-57-amd64 (0 of 5 stored)" in p.stdout
               and "6.1.0-47-amd64 (the baseline)" in p.stdout, "dry run plans both kernels in one run")
        expect(runs(home) == [], "dry run measures nothing")

        p = kb(home, "nightly", "--json", cfg1, check=False)
        expect(p.returncode in (0, 4), f"night 1 exits 0 or 4 (got {p.returncode}; stderr: {p.stderr[-2000:]})")
        rep = json.loads(p.stdout)
        expect(sorted(rep["measured"]) == ["6.1.0-47-amd64", "6.1.0-57-amd64"], "night 1 measured both kernels")
        expect(len(runs(home)) == 1 and runs(home)[0][1] == "complete", "night 1 made one complete run")
        expect(rep["failures"] == [] and rep["errors"] == [], "night 1: no failed kernel, no error")
        expect(len(rep["compared"]) == 1, "night 1 compared one new kernel with the baseline")
        a, b = rep["compared"][0].split()
        c = kb(home, "compare", "--json", "--alpha", str(ALPHA), a, b, check=False)
        expect(c.returncode == p.returncode, f"kbench compare {a} {b} exits as night 1 did ({c.returncode})")
        cv = json.loads(c.stdout)
        cworse = sorted(m["name"] for g in cv["groups"] for m in g["metrics"] if m["verdict"] == "worse")
        nworse = sorted(f["metric"] for f in rep["findings"] if f["verdict"] == "worse")
        expect(cworse == nworse, f"night 1's worse metrics are compare's ({nworse})")
        expect(os.path.exists(os.path.join(site, "index.html")), "night 1 published the site")
        write = [m for g in cv["groups"] for m in g["metrics"] if m["name"] == "dd.write_MBps"][0]
        rate = write["b"]["mean"]

        p = kb(home, "nightly", cfg1)
        expect("nothing new to measure" in p.stdout and len(runs(home)) == 1,
               f"night 2 measures nothing new ({len(runs(home))} runs; stdout: {p.stdout[-600:]})")

        drop(new[0], drop2)
        mbps = max(1, int(0.4 * rate))
        cfg3 = config(os.path.join(home, "night3.json"),
                      [{"type": "dir", "path": drop1},
                       {"type": "dir", "path": drop2, "overrides": {"disk_mbps": mbps}}], site,
                      notify=f"cat > {os.path.join(home, 'notified.txt')}")
        p = kb(home, "nightly", cfg3, check=False)
        print(p.stdout)
        expect(p.returncode in (0, 4), f"night 3 (disk at {mbps} MB/s) exits 0 or 4 (got {p.returncode}; "
                                       f"stderr: {p.stderr[-2000:]})")
        expect(len(runs(home)) == 2, "night 3 measured the throttled variant, in one run")
        run3 = runs(home)[-1][0]
        sel = re.search(r"^compared: kbench compare (\S+) (\S+)$", p.stdout, re.M)
        expect(sel is not None and sel.group(1) == f"run:{run3}:6.1.0-47-amd64" and
               sel.group(2) == f"run:{run3}:6.1.0-57-amd64",
               f"night 3 compares the kernel with the baseline measured beside it in run {run3}: {sel and sel.group(0)}")
        expect("[across" not in p.stdout, "nothing is paired across settings")
        c = kb(home, "compare", "--json", "--alpha", str(ALPHA), sel.group(1), sel.group(2), check=False)
        cv = json.loads(c.stdout)
        cworse = sorted(m["name"] for g in cv["groups"] for m in g["metrics"] if m["verdict"] == "worse")
        nworse = sorted(re.findall(r"^6\.1\.0-57-amd64: (\S+) [-+]", p.stdout, re.M))
        expect(c.returncode == p.returncode and cworse == nworse and cv["ignore_settings"] == [] and
               any(m["judged"] and m["name"] == "dd.write_MBps" for g in cv["groups"] for m in g["metrics"]),
               f"kbench compare {sel.group(1)} {sel.group(2)} agrees: exit {c.returncode}, worse {cworse}, "
               f"rates judged on the throttled disk, nothing paired across ({cv.get('ignore_settings')})")
        if p.returncode == 4:
            with open(os.path.join(home, "notified.txt")) as f:
                notified = f.read()
            expect(f"  A: 6.1.0-47-amd64 in run {run3}\n  B: 6.1.0-57-amd64 in run {run3} (measured together, "
                   "interleaved)" in notified, "the mail says which run each side came from")
            repro = re.findall(r"^  (kbench (?:run|compare) .*)$", notified, re.M)
            expect(len(repro) == 2 and f"--disk-mbps {mbps}" in repro[0] and
                   "-k 6.1.0-47-amd64 -k 6.1.0-57-amd64" in repro[0] and repro[1].startswith("kbench compare"),
                   f"it gives one run of both kernels and their comparison: {repro}")

        drop3 = os.path.join(home, "drop-dirty7")
        drop(new[0], drop3)
        cfg4 = config(os.path.join(home, "night4.json"),
                      [{"type": "dir", "path": drop1},
                       {"type": "dir", "path": drop2, "overrides": {"disk_mbps": mbps}},
                       {"type": "dir", "path": drop3, "name": "dirty7-",
                        "overrides": {"sysctls": {"vm.dirty_ratio": 7}}}], site)
        p = kb(home, "nightly", "--json", cfg4, check=False)
        expect(p.returncode in (0, 4), f"night 4 exits 0 or 4 (got {p.returncode}; stderr: {p.stderr[-2000:]})")
        rep = json.loads(p.stdout)
        expect(sorted(rep["measured"]) == ["6.1.0-47-amd64", "dirty7-6.1.0-57-amd64"] and len(runs(home)) == 3,
               f"night 4 measured the sysctl variant under its own name, the baseline beside it ({rep['measured']}, "
               f"{len(runs(home))} runs)")
        expect(rep["failures"] == [], f"night 4: no failed cell ({rep['failures']})")
        with sqlite3.connect(os.path.join(home, "results.db")) as db:
            kernels = db.execute("SELECT name FROM kernels ORDER BY name").fetchall()
            settings = json.loads(db.execute("SELECT settings_json FROM runs ORDER BY id DESC").fetchone()[0])
            params = [json.loads(r[0]) for r in db.execute(
                "SELECT params_json FROM cells WHERE run_id = (SELECT max(id) FROM runs) AND state = 'ok'")]
        expect(kernels == [("6.1.0-47-amd64",), ("6.1.0-57-amd64",)],
               f"the variant's image is stored once, under its own name ({kernels})")
        expect(settings.get("variant") == "dirty7-" and settings.get("sysctls") == ["vm.dirty_ratio=7"],
               f"night 4's run carries the variant and its sysctls ({settings.get('variant')}, "
               f"{settings.get('sysctls')})")
        expect(len(params) == 2 * REPEATS and all(c.get("sysctls_applied") == {"vm.dirty_ratio": "7"} for c in params),
               f"each cell recorded vm.dirty_ratio as the guest read it back: {[c.get('sysctls_applied') for c in params]}")
        pages = [f for _, _, files in os.walk(site) for f in files if "dirty7" in f]
        expect(pages, "the site has a page under the variant's name")
        expect("dirty7-6.1.0-57-amd64 dd" in p.stderr, "night 4's progress names the cells by the variant's name")
        # compare takes the variant by the name it is shown under; the bare
        # name is the kernel's runs without the label. No run holds both:
        # no verdict by name, unless asked across runs and settings.
        c = kb(home, "compare", "--json", "6.1.0-57-amd64", "dirty7-6.1.0-57-amd64", check=False)
        cv = json.loads(c.stdout) if c.stdout else {}
        expect(c.returncode == 1 and cv.get("no_verdict") is True and
               cv["first_line"].startswith("no verdict: no run holds A and B with identical settings"),
               f"by name, the base and the variant measured apart get no verdict (exit {c.returncode}: "
               f"{cv.get('first_line')})")
        c = kb(home, "compare", "--json", "--across-runs", "--ignore-setting", "disk_mbps,sysctls,variant",
               "6.1.0-57-amd64", "dirty7-6.1.0-57-amd64", check=False)
        cv = json.loads(c.stdout) if c.returncode in (0, 4) else {}
        last = runs(home)[-1][0]
        expect(c.returncode in (0, 4) and cv["b"]["resolved"] == f"dirty7-6.1.0-57-amd64 in run {last}" and
               cv["a"]["resolved"] != cv["b"]["resolved"] and cv["groups"] and
               cv["first_line"].startswith("across runs"),
               f"kbench compare --across-runs 6.1.0-57-amd64 dirty7-6.1.0-57-amd64 pairs the base with the variant "
               f"(exit {c.returncode}: {cv.get('a')}, {cv.get('b')}; {c.stderr.strip()})")

        p = kb(home, "nightly", cfg4)
        expect("nothing new to measure" in p.stdout and len(runs(home)) == 3,
               f"night 5 measures nothing new ({len(runs(home))} runs; stdout: {p.stdout[-600:]})")

        p = kb(home, "run", "-k", "6.1.0-57-amd64", "-w", "dd:size=16M", "--retries", "0",
               "--sysctl", "vm.no_such_sysctl=1", "--json", check=False)
        with sqlite3.connect(os.path.join(home, "results.db")) as db:
            state, detail = db.execute("SELECT state, detail FROM cells ORDER BY id DESC").fetchone()
        expect(p.returncode == 3 and state == "workload-failure" and "vm.no_such_sysctl" in detail
               and "\n" not in detail,
               f"a sysctl the kernel lacks fails the cell naming it: exit {p.returncode}, {state}: {detail!r}")


main()
