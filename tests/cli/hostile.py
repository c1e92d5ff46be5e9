#!/usr/bin/env python3
"""What a careless or hostile user gets from the verbs that boot no guest:
publish writes only into a kbench site and removes only what it wrote; a
FIFO, socket or device given as a file is refused without blocking; kernel
remove respects the store's lock; one rule decides what a kbench database
is; run refuses a kernel or workload given twice, an empty tag and an
--append the kernel would cut; usage errors exit 2; markdown carries no
markup from the store; vmstat bounds its options; bidirectional controls
are masked; a mistyped store is not created; a damaged database is
reported with one problem per line. Every check runs (a failure does not
end the test), so one run lists everything that does not hold.
Usage: hostile.py KBENCH SCHEMA_SQL; needs a Debian kernel .deb in
$KBENCH_DEBS (tools/setup.sh)."""
import fcntl
import glob
import json
import os
import socket
import sqlite3
import stat
import subprocess
import sys
import tempfile
import threading
import time

KBENCH, SCHEMA = sys.argv[1], sys.argv[2]
DEBS = os.environ.get("KBENCH_DEBS", "/var/cache/kbench-debs")
FAILED = []
RLO = "\u202e"


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def kb(home, *args, timeout=60, db=None, stdin=None):
    pre = ["--store", home] + (["--db", db] if db else [])
    try:
        return subprocess.run([KBENCH, *pre, *args], capture_output=True, text=True, timeout=timeout,
                              stdin=stdin if stdin is not None else subprocess.DEVNULL, errors="replace")
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -999, "", "timed out")


def one_line(p):
    s = p.stderr.strip()
    return s if "\n" not in s else None


def fill(path, kernel="6.1.0-57-amd64", tag1="a1", tag2="a2", metric="dd.write_MBps", detail=None, spec="dd:size=,bs=1M"):
    """A kbench database at schema version 1 with two runs of one kernel."""
    db = sqlite3.connect(path)
    with open(SCHEMA, encoding="utf-8") as f:
        db.executescript(f.read())
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO kernels (id, name, added_at) VALUES ('k57', ?, 1)", (kernel,))
    settings = json.dumps({"repeats": 3, "mem_mb": 256, "cpus": 1, "fs": "ext4"})
    cell = 0
    for run, tag in enumerate((tag1, tag2), 1):
        db.execute("INSERT INTO runs (id, tag, settings_json, started_at, status) VALUES (?, ?, ?, 1, 'complete')",
                   (run, tag, settings))
        for i in range(3):
            cell += 1
            params = json.dumps({"workload": spec, "mem_mb": 256, "cpus": 1, "fs": "ext4"})
            db.execute("INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, params_json, iteration, state, "
                       "detail) VALUES (?, ?, ?, 'k57', 'dd', ?, ?, 'ok', ?)",
                       (cell, run, f"c{i:03d}", params, i, detail))
            db.execute("INSERT INTO metrics (cell_id, name, value, unit) VALUES (?, ?, ?, 'MB/s')",
                       (cell, metric, 130.0 + i + run))
    db.commit()
    db.close()


def damage(db):
    """Overwrite a b-tree page header of db so that PRAGMA quick_check
    answers with a row of several lines ("*** in database main ***" and
    the problem), as a damaged store does; found by trying on a copy."""
    size, ps = os.path.getsize(db), 4096
    good = open(db, "rb").read()
    trial = db + ".trial"
    for page in range(2, size // ps):
        for off in (8, 0):
            bad = bytearray(good)
            bad[page * ps + off:page * ps + off + 4] = b"\xff\xff\xff\x7f"
            with open(trial, "wb") as f:
                f.write(bad)
            c = sqlite3.connect(trial)
            try:
                rows = c.execute("PRAGMA quick_check(100)").fetchall()
            except sqlite3.DatabaseError:
                rows = []
            c.close()
            if rows and rows[0][0] != "ok" and "\n" in rows[0][0]:
                os.remove(trial)
                with open(db, "wb") as f:
                    f.write(bad)
                return
    os.remove(trial)
    sys.exit("FAIL: found no page to damage")


def publish_site(d):
    home = os.path.join(d, "pub")
    os.makedirs(home)
    db = os.path.join(home, "results.db")
    fill(db)

    # A directory of someone else's files is refused, and nothing in it changes.
    w = os.path.join(d, "w")
    os.makedirs(w)
    mine = os.path.join(w, "kernel-notes.html")
    with open(mine, "w") as f:
        f.write("mine\n")
    with open(os.path.join(w, "index.html"), "w") as f:
        f.write("my index\n")
    p = kb(home, "publish", "-o", w)
    expect(p.returncode == 1 and one_line(p) and w in p.stderr and "--force" in p.stderr,
           f"publish refuses a non-empty directory that is not a site, one line naming it: {p.returncode} {p.stderr!r}")
    expect(os.path.exists(mine) and open(os.path.join(w, "index.html")).read() == "my index\n",
           "publish leaves the refused directory's files as they were")

    # --force writes into it, and takes over only the pages it writes.
    p = kb(home, "publish", "-o", w, "--force")
    expect(p.returncode == 0 and os.path.exists(mine), f"publish --force writes, and keeps kernel-notes.html: {p.stderr!r}")
    expect(os.path.exists(os.path.join(w, ".kbench-site")), "the site carries its manifest")
    p = kb(home, "publish", "-o", w)
    expect(p.returncode == 0 and os.path.exists(mine) and "stale" not in p.stdout,
           f"publishing again into the site keeps a file it did not write: {p.stdout!r}")

    # A fresh site: a page of an earlier pass is removed, a stranger's file
    # with a page's name is neither removed nor replaced.
    s = os.path.join(d, "site")
    p = kb(home, "publish", "-o", s, "--compare", "tag:a1:tag:a2")
    expect(p.returncode == 0, f"publish into a new directory: {p.returncode} {p.stderr!r}")
    pages = sorted(os.listdir(s))
    cmp_pages = [x for x in pages if x.startswith("compare-")]
    theirs = os.path.join(s, "compare-theirs.html")
    with open(theirs, "w") as f:
        f.write("theirs\n")
    p = kb(home, "publish", "-o", s, "--compare", "run:1:run:2")
    # the comparison's page and its data file beside it
    expect(p.returncode == 0 and "2 stale removed" in p.stdout and os.path.exists(theirs)
           and not any(os.path.exists(os.path.join(s, x)) for x in cmp_pages),
           f"only the page kbench wrote is removed as stale: {p.stdout!r}")
    # A file named as the next page will be, put there by someone else.
    with open(os.path.join(s, "index.html"), "a") as f:
        f.write("")
    os.remove(os.path.join(s, "index.html"))
    with open(os.path.join(s, "index.html"), "w") as f:
        f.write("someone else's\n")
    manifest = os.path.join(s, ".kbench-site")
    if os.path.exists(manifest):        # a kbench without one fails the check below
        man = open(manifest).read().splitlines()
        with open(manifest, "w") as f:
            f.write("\n".join(x for x in man if x != "index.html") + "\n")
    p = kb(home, "publish", "-o", s)
    expect(p.returncode == 1 and one_line(p) and "index.html" in p.stderr
           and open(os.path.join(s, "index.html")).read() == "someone else's\n",
           f"a page name taken by a file kbench did not write is refused: {p.returncode} {p.stderr!r}")

    p = kb(home, "publish", "-o", "")
    expect(p.returncode == 2 and one_line(p) and not p.stderr.startswith("kbench: :"),
           f"publish -o '' is a usage error: {p.returncode} {p.stderr!r}")


def special_files(d):
    home = os.path.join(d, "special")
    os.makedirs(home)
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    sock_path = os.path.join(d, "sock")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(sock_path)
    sock.listen(1)
    for what, path in (("a FIFO", fifo), ("a socket", sock_path), ("a character device", "/dev/zero")):
        p = kb(home, "kernel", "add", path, timeout=10)
        expect(p.returncode == 1 and one_line(p) and what in p.stderr,
               f"kernel add on {what} is refused at once: {p.returncode} {p.stderr.strip()!r}")
        p = kb(home, "vmstat", path, timeout=10)
        expect(p.returncode == 1 and one_line(p) and what in p.stderr,
               f"vmstat on {what} is refused at once: {p.returncode} {p.stderr.strip()!r}")
        cfg = kb(home, "nightly", "--dry-run", path, timeout=10)
        expect(cfg.returncode == 2 and what in cfg.stderr,
               f"nightly on {what} is refused at once: {cfg.returncode} {cfg.stderr.strip()!r}")
        p = kb(home, "show", db=path, timeout=10)
        expect(p.returncode == 1 and one_line(p) and "not a regular file" in p.stderr,
               f"--db {what} is refused at once: {p.returncode} {p.stderr.strip()!r}")
    sock.close()


def databases(d):
    home = os.path.join(d, "dbs")
    os.makedirs(home)
    empty = os.path.join(home, "results.db")
    open(empty, "w").close()
    for verb in (["show"], ["compare", "a", "b"], ["publish", "-o", os.path.join(d, "dbsite")], ["doctor"]):
        p = kb(home, *verb)
        expect(p.returncode != 0 and "empty, not a kbench results database" in (p.stderr + p.stdout)
               and os.path.getsize(empty) == 0,
               f"{verb[0]}: a 0-byte results.db is not a kbench database and stays empty: {p.returncode} "
               f"{(p.stderr + p.stdout).strip()[-200:]!r} {os.path.getsize(empty)} bytes")
    os.remove(empty)
    c = sqlite3.connect(empty)
    c.execute("PRAGMA user_version = 3")
    c.commit()
    c.close()
    for verb in (["show"], ["doctor"]):
        p = kb(home, *verb)
        out = p.stderr + p.stdout
        expect(p.returncode == 1 and "not a kbench results database" in out and "no table 'kernels'" in out,
               f"{verb[0]}: kbench's user_version without its tables is not a kbench database: {out.strip()[-200:]!r}")


def store_creation(d):
    nosuch = os.path.join(d, "no", "such")
    for verb in (["kernel", "list"], ["kernel", "remove", "x"], ["doctor"], ["show"], ["compare", "a", "b"],
                 ["publish"]):
        p = kb(nosuch, *verb)
        expect(p.returncode != 0 and not os.path.exists(nosuch) and nosuch in (p.stderr + p.stdout),
               f"{' '.join(verb)} on a missing store fails naming it and creates nothing: {p.returncode} "
               f"{(p.stderr + p.stdout).strip()[-160:]!r}")
    p = kb(nosuch, "kernel", "add", os.path.join(d, "no-such-file"))
    expect(os.path.isdir(nosuch) and f"creating the store {nosuch}" in p.stderr,
           f"kernel add may create the store, and says so: {p.stderr.strip()!r}")


def vmstat(d):
    home = os.path.join(d, "vm")
    os.makedirs(home)
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "vmstat", "seed-2002-stalls.txt")
    p = kb(home, "vmstat", "--interval", "18446744073709551617", data)
    expect(p.returncode == 2 and one_line(p) and "--interval" in p.stderr,
           f"vmstat --interval 2^64+1 is a usage error: {p.returncode} {p.stderr.strip()[:200]!r}")
    p = kb(home, "vmstat", "--interval", "9" * 100000, data)
    expect(p.returncode == 2 and len(p.stderr) < 400, f"a 100 KB bad value is not echoed whole: {len(p.stderr)} bytes")
    p = kb(home, "vmstat", "--bo-threshold", "x" * 100000, data)
    expect(p.returncode == 2 and len(p.stderr) < 400, f"nor a bad --bo-threshold: {len(p.stderr)} bytes")
    junk = os.path.join(d, "junk.txt")
    with open(junk, "w") as f:
        f.write("hello\nworld\n")
    p = kb(home, "vmstat", junk)
    expect(p.returncode == 1 and "no vmstat rows found" in p.stderr,
           f"no vmstat rows is a failure: {p.returncode} {p.stderr.strip()!r}")


def markdown_and_bidi(d):
    home = os.path.join(d, "md")
    os.makedirs(home)
    db = os.path.join(home, "results.db")
    evil = "<img src=x onerror=alert(1)>"
    fill(db, kernel=evil + RLO + "k", tag1="a1", tag2="a2" + RLO, metric="dd.<script>alert(1)</script>",
         detail="ok " + RLO + "gnp.exe", spec="dd:size=<b>x</b>")
    p = kb(home, "compare", "run:1", "run:2", "--all", "--format", "markdown")
    out = p.stdout
    expect(p.returncode in (0, 4) and "| dd.&lt;script&gt;" in out,
           f"markdown escapes a metric name as the HTML writer does: {p.returncode} {p.stderr.strip()!r}")
    # Outside code spans nothing from the store is raw markup.
    outside = "".join(part for i, part in enumerate(out.split("`")) if i % 2 == 0)
    expect("<img" not in outside and "<script" not in outside and "<b>" not in outside,
           f"no <img>, <script> or <b> from the store outside code spans: {[l for l in out.splitlines() if '<' in l][:3]}")
    expect(RLO not in out, "markdown masks U+202E")
    for args in (["show"], ["show", "1"], ["show", "1", "--cell", "c000"], ["compare", "run:1", "run:2"]):
        p = kb(home, *args)
        expect(p.returncode in (0, 4) and RLO not in p.stdout and p.stdout,
               f"{' '.join(args)} masks U+202E: {p.returncode} {p.stderr.strip()!r}")
    site = os.path.join(d, "mdsite")
    p = kb(home, "publish", "-o", site)
    leaked = [f for f in glob.glob(os.path.join(site, "*.html")) if RLO in open(f, encoding="utf-8").read()]
    expect(p.returncode == 0 and not leaked, f"the site masks U+202E: {p.returncode} {leaked[:3]}")
    p = kb(home, "compare", evil + RLO + "k", "nope")
    expect(RLO not in p.stderr, f"an error line masks U+202E: {p.stderr.strip()!r}")


def with_kernel(d):
    found = sorted(glob.glob(os.path.join(DEBS, "linux-image-6.1.0-57-amd64-unsigned_*.deb")))
    if not found:
        expect(False, f"a linux-image-6.1.0-57-amd64-unsigned .deb in {DEBS} (tools/setup.sh)")
        return
    home = os.path.join(d, "k")
    os.makedirs(home)
    os.chmod(home, 0o711)
    for bad in ("", "../../etc/x", "-x", "a/b"):
        p = kb(home, "kernel", "add", "--name", bad, found[0])
        expect(p.returncode == 2 and one_line(p) and "--name" in p.stderr,
               f"kernel add --name {bad!r} is a usage error: {p.returncode} {p.stderr.strip()!r}")
    p = kb(home, "kernel", "add", "--json", found[0], timeout=300)
    if p.returncode != 0:
        expect(False, f"kernel add {found[0]}: {p.stderr.strip()!r}")
        return
    k = json.loads(p.stdout)
    name, kid = k["name"], k["id"]

    # run: refused before any run row, exit 2 (a disk too large for the
    # host is there too, so an older kbench stops before it boots).
    free = os.statvfs(home)
    too_big = f"{min(2 * (free.f_bavail * free.f_frsize >> 30) + 64, 16384)}G"
    cases = [
        (["-k", name, "-k", kid[:12], "-w", "dd"], "same kernel"),
        (["-k", name, "-k", name, "-w", "dd"], "same kernel"),
        (["-k", name, "-w", "dd", "-w", "dd"], "same workload"),
        (["-k", name, "-w", "dd", "-w", "dd:bs=1M"], "same workload"),
        (["-k", name, "-w", "dd", "--tag", ""], "--tag"),
        (["-k", name, "-w", "dd", "--tag", "a\nb"], "--tag"),
        (["-k", name, "-w", "dd", "--append", "quiet\ninit=/bin/sh"], "--append"),
        (["-k", name, "-w", "dd", "--append", "x" * 2100], "--append"),
    ]
    for args, named in cases:
        p = kb(home, "run", *args, "--disk-size", too_big, "--accel", "tcg")
        expect(p.returncode == 2 and one_line(p) and named in p.stderr,
               f"run {' '.join(a[:20] for a in args)!r}: exit 2 naming {named}: {p.returncode} {p.stderr.strip()[:200]!r}")
    p = kb(home, "show", "1", "--cell", "c000", "--log", "bogus")
    expect(p.returncode == 2 and one_line(p) and "bogus" in p.stderr,
           f"show --log bogus is a usage error: {p.returncode} {p.stderr.strip()!r}")

    # run and a database: a 0-byte file is not made a database, and a
    # damaged one is reported with its first problem alone. (--timeout 10:
    # a kbench that would run anyway gives up soon.)
    db = os.path.join(home, "results.db")
    open(db, "w").close()
    p = kb(home, "run", "-k", name, "-w", "dd", "--timeout", "10", "--accel", "tcg", timeout=600)
    expect(p.returncode == 1 and "empty, not a kbench results database" in p.stderr and os.path.getsize(db) == 0,
           f"run refuses a 0-byte results.db and leaves it empty: {p.returncode} {p.stderr.strip()[-200:]!r} "
           f"{os.path.getsize(db)} bytes")
    os.remove(db)
    fill(db)
    kb(home, "show")        # migrated to the current schema by kbench
    damage(db)
    p = kb(home, "run", "-k", name, "-w", "dd", "--timeout", "10", "--accel", "tcg", timeout=600)
    line = p.stderr.strip()
    expect(p.returncode == 1 and "\n" not in line and "first:" in line and "?" not in line.split("first:")[-1],
           f"run names the first problem of a damaged database alone: {line[-300:]!r}")
    os.remove(db)

    # kernel remove under a run's lock.
    with open(os.path.join(home, "lock"), "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.truncate(0)
        f.write(f"{os.getpid()} run {int(time.time())}\n")
        f.flush()
        p = kb(home, "kernel", "remove", name)
        expect(p.returncode == 1 and one_line(p) and f"pid {os.getpid()}" in p.stderr
               and os.path.isdir(os.path.join(home, "kernels", kid)),
               f"kernel remove under a run's lock is refused naming the holder: {p.returncode} {p.stderr.strip()!r}")
    p = kb(home, "kernel", "remove", name)
    expect(p.returncode == 0 and not os.path.exists(os.path.join(home, "kernels", kid)),
           f"kernel remove once the lock is free: {p.returncode} {p.stderr.strip()!r}")


def main():
    with tempfile.TemporaryDirectory(prefix="kbench-cli-hostile-", dir=os.environ.get("KBENCH_TEST_TMP", "/var/tmp")) as d:
        os.chmod(d, 0o711)
        for part in (publish_site, special_files, databases, store_creation, vmstat, markdown_and_bidi, with_kernel):
            print(f"-- {part.__name__}")
            part(d)
    if FAILED:
        sys.exit(f"{len(FAILED)} check(s) failed")


main()
