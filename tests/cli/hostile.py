#!/usr/bin/env python3
"""What a careless or hostile user gets from the verbs that boot no guest:
publish writes only into a kbench site and removes only what it wrote; a
FIFO, socket or device given as a file is refused without blocking; kernel
remove respects the store's lock; one rule decides what a kbench database
is; run refuses a kernel or workload given twice, an empty tag and an
--append the kernel would cut; usage errors exit 2; markdown carries no
markup from the store; vmstat bounds its options; bidirectional controls
are masked; a mistyped store is not created; a damaged database is
reported with one problem per line; kernel build and bisect wait on no
file they are given; a foreign or damaged database is refused untouched,
with its own error; the store's lock and a site's manifest are never
followed through a link; a kernel add of a non-kernel copies nothing; names
never shadow ids; damaged kernels are listed and removable; options are
given once, never empty, in UTF-8; long paths keep their reason; a store
with values its schema forbids ends every reader in one line, and charts
of times near DBL_MAX end; <store>/site as a link is checked as -o is,
publishes into one site take turns, a manifest entry that is no page is
dropped; text of the store reaches no terminal raw; --keys stands alone;
long values are cut; non-UTF-8 paths show their bytes; a dry night does
not sleep.
Every check runs (a failure does not end the test), so one run lists
everything that does not hold.
Usage: hostile.py KBENCH SCHEMA_SQL; needs a Debian kernel .deb in
$KBENCH_DEBS (tools/setup.sh)."""
import fcntl
import glob
import json
import os
import shutil
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


def kb(home, *args, timeout=60, db=None, stdin=None, pre=None):
    pre = pre if pre is not None else ["--store", home] + (["--db", db] if db else [])
    try:
        return subprocess.run([KBENCH, *pre, *args], capture_output=True, text=True, timeout=timeout,
                              stdin=stdin if stdin is not None else subprocess.DEVNULL, errors="replace")
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -999, "", "timed out")


def snapshot(path):
    """A file's bytes, to see that kbench left it exactly as it was."""
    with open(path, "rb") as f:
        return f.read()


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


GOLDEN_SQL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "store.sql")


def golden_store(home):
    """A store holding tests/golden/store.sql: real runs, with vmstat rows,
    marks and timeline points."""
    os.makedirs(home, exist_ok=True)
    with open(GOLDEN_SQL, encoding="utf-8") as f, sqlite3.connect(os.path.join(home, "results.db")) as db:
        db.executescript(f.read())
    kb(home, "show")        # migrates it to this build's schema (marks from the logs)
    return home


def loosen(db_path, *edits, tables=()):
    """Apply SQL edits to a database after copying each of tables into one
    without constraints (CREATE TABLE AS keeps none), as a hand-rewritten
    schema leaves it: a NULL can then stand where schema.sql says NOT NULL."""
    db = sqlite3.connect(db_path)
    db.execute("PRAGMA foreign_keys = OFF")
    for t in tables:
        db.executescript(f"CREATE TABLE loose AS SELECT * FROM {t}; DROP TABLE {t}; ALTER TABLE loose RENAME TO {t};")
    for e in edits:
        db.execute(e)
    db.commit()
    db.close()


def no_signal(p):
    return p.returncode >= 0 and p.returncode != -999


def stored_values(d):
    """Values no kbench writes, from a hand-edited store: show, compare and
    publish end (20 s), by no signal, with one line naming the table's
    column and the row, exit 1; a time near DBL_MAX is drawn, not spun on."""
    base = golden_store(os.path.join(d, "values-base"))
    sel = ["compare", "run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64"]
    # Charts: times near DBL_MAX of both signs (the x of a mark was NaN and
    # publish spun at 100 % CPU).
    for what, edit in (("vmstat.t_guest", "UPDATE vmstat SET t_guest = 1.7e308 WHERE cell_id = 1"),
                       ("marks.t_guest", "UPDATE marks SET t_guest = -1.7e308"),
                       ("vmstat.t_host", "UPDATE vmstat SET t_host = -1.7e308 WHERE cell_id = 1 AND seq % 2 = 0")):
        home = os.path.join(d, "values-" + what)
        shutil.copytree(base, home)
        loosen(os.path.join(home, "results.db"), edit)
        p = kb(home, "publish", "-o", os.path.join(home, "site"), timeout=20)
        expect(p.returncode == 0, f"publish draws {what} near DBL_MAX within 20 s: {p.returncode} {p.stderr.strip()[-200:]!r}")
    # NULLs where the schema says NOT NULL.
    cases = (
        ("cells", "UPDATE cells SET workload = NULL WHERE id = 1", "cells.workload is NULL in cell 1"),
        ("cells", "UPDATE cells SET state = NULL WHERE id = 1", "cells.state is NULL in cell 1"),
        ("cells", "UPDATE cells SET cell_key = NULL WHERE id = 1", "cells.cell_key is NULL in cell 1"),
        ("kernels", "UPDATE kernels SET name = NULL WHERE name = '6.1.0-57-amd64'", "kernels.name is NULL in cell "),
        ("metrics", "UPDATE metrics SET name = NULL WHERE cell_id = 1 AND name = 'dd.write_MBps'",
         "metrics.name is NULL in a metric of cell 1"),
        ("timeline", "UPDATE timeline SET kind = NULL WHERE cell_id = 1", "timeline.kind is NULL in a timeline point of cell 1"),
        ("runs", "UPDATE runs SET started_at = 9e999 WHERE id = 1", "runs.started_at is not a finite number in run 1"),
    )
    for table, edit, says in cases:
        home = os.path.join(d, "values-" + edit.split()[3])
        shutil.rmtree(home, ignore_errors=True)
        shutil.copytree(base, home)
        loosen(os.path.join(home, "results.db"), edit, tables=(table,))
        said = False
        for args in (["show", "1"], ["show", "1", "--cell", "c000"], sel, ["publish", "-o", os.path.join(home, "site")]):
            p = kb(home, *args, timeout=20)
            expect(no_signal(p) and p.returncode in (0, 1) and (p.returncode == 0 or one_line(p)),
                   f"{edit}: {' '.join(args[:2])} ends in one line, by no signal: {p.returncode} {p.stderr.strip()[-200:]!r}")
            said = said or (p.returncode == 1 and says in p.stderr)
        expect(said, f"{edit}: the error names the table's column and the row ({says!r})")


def site_dirs(d):
    """Which directory publish writes into, and how: <store>/site as a link
    to someone's directory is checked as the same directory given by -o
    is; concurrent publishes into one site take turns; a manifest entry that
    is not a page (a directory, "../x") is dropped with a note, never
    followed; a --compare that names nothing leaves no directory behind."""
    home = golden_store(os.path.join(d, "sites"))
    theirs = os.path.join(d, "theirs")
    os.makedirs(theirs)
    with open(os.path.join(theirs, "index.html"), "w") as f:
        f.write("their index\n")
    os.symlink(theirs, os.path.join(home, "site"))
    for args in (["publish"], ["publish", "-o", os.path.join(home, "site")]):
        p = kb(home, *args, timeout=20)
        expect(p.returncode == 1 and one_line(p) and "not a kbench site" in p.stderr,
               f"{' '.join(args)} refuses <store>/site linked to someone's directory: {p.returncode} {p.stderr.strip()!r}")
    expect(snapshot(os.path.join(theirs, "index.html")) == b"their index\n" and os.listdir(theirs) == ["index.html"],
           "their directory is left as it was")
    os.remove(os.path.join(home, "site"))
    p = kb(home, "publish", timeout=60)
    expect(p.returncode == 0, f"the store's own site/ is written: {p.returncode} {p.stderr.strip()!r}")
    p = kb(home, "publish", "-o", os.path.join(home, "site"), timeout=60)
    expect(p.returncode == 0, f"... and the same directory given by -o too: {p.returncode} {p.stderr.strip()!r}")

    # Four publishes at once into one new directory: all succeed.
    shared = os.path.join(d, "shared-site")
    procs = [subprocess.Popen([KBENCH, "--store", home, "publish", "-o", shared], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    results = []
    for pr in procs:
        try:
            _, err = pr.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            pr.kill()
            _, err = pr.communicate()
        results.append((pr.returncode, err.strip()))
    expect(all(rc == 0 for rc, _ in results), f"four concurrent publishes into one site all succeed: {results!r}")

    # A directory named in the manifest.
    site = os.path.join(home, "site")
    os.makedirs(os.path.join(site, "sub"))
    with open(os.path.join(site, "sub", "keep"), "w") as f:
        f.write("keep\n")
    with open(os.path.join(site, ".kbench-site"), "a") as f:
        f.write("sub\n../theirs/index.html\n")
    for n in (1, 2):
        p = kb(home, "publish", timeout=60)
        expect(p.returncode == 0 and os.path.exists(os.path.join(site, "sub", "keep")),
               f"publish {n} with a directory in the manifest succeeds and leaves it: {p.returncode} {p.stderr.strip()!r}")
        if n == 1:
            expect(one_line(p) and "note" in p.stderr and "'sub' (a directory)" in p.stderr,
                   f"... with a one-line note naming the entry: {p.stderr.strip()!r}")
    with open(os.path.join(site, ".kbench-site")) as f:
        entries = f.read().splitlines()
    expect("sub" not in entries and not any("/" in e for e in entries), f"the manifest is rewritten without them")
    expect(snapshot(os.path.join(theirs, "index.html")) == b"their index\n", "an entry with '..' is never followed")

    # A --compare no store could answer: no directory is left behind.
    new = os.path.join(d, "new-site", "deeper")
    p = kb(home, "publish", "-o", new, "--compare", "nosuch:alsonot", timeout=20)
    expect(p.returncode == 1 and one_line(p) and not os.path.exists(os.path.join(d, "new-site")),
           f"publish -o NEW --compare <nothing> makes no NEW: {p.returncode} {p.stderr.strip()!r}")


def small_refusals(d):
    """Usage errors exit 2 in one line (--keys with anything else); a long
    value is quoted cut; a path that is not UTF-8 is shown by its bytes; a
    FIFO given to kernel add makes no store; a dry night does not wait on
    its dir sources."""
    home = golden_store(os.path.join(d, "small"))
    for args in (["nightly", "--keys", "extra"], ["nightly", "cfg", "--keys", "--dry-run"],
                 ["nightly", "--keys", "--json"]):
        p = kb(home, *args, timeout=20)
        expect(p.returncode == 2 and one_line(p) and not p.stdout,
               f"{' '.join(args)} is a usage error in one line: {p.returncode} {p.stderr.strip()[:200]!r}")
    big = "x" * 130000     # near the kernel's limit for one argument (128 KiB)
    for args in (["show", "1", "--cell", big], ["compare", "-w", big, "run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64"]):
        p = kb(home, *args, timeout=20)
        expect(p.returncode == 1 and one_line(p) and len(p.stderr) < 300,
               f"{args[0]} with a 130 kB value quotes at most 64 bytes of it: {p.returncode} {len(p.stderr)} bytes")
    # Paths that are not UTF-8: their bytes, escaped, not U+FFFD.
    raw = os.fsencode(d) + b"/not\xffutf8"
    for pre in ([b"--store", raw], [b"--store", os.fsencode(home), b"--db", raw]):
        p = subprocess.run([os.fsencode(KBENCH), *pre, b"show"], capture_output=True, timeout=20)
        expect(p.returncode == 1 and b"not\\xffutf8" in p.stderr and "\ufffd".encode() not in p.stderr,
               f"{pre[-2].decode()} of a non-UTF-8 path is shown by its bytes: {p.returncode} {p.stderr!r}")
    with open(raw, "w") as f:
        f.write("a file, not a directory\n")
    p = subprocess.run([os.fsencode(KBENCH), b"--store", os.fsencode(home), b"publish", b"-o", raw],
                       capture_output=True, timeout=20)
    expect(p.returncode == 1 and b"not\\xffutf8" in p.stderr, f"-o of a non-UTF-8 path is shown by its bytes: {p.stderr!r}")
    # kernel add of a FIFO: refused before a store is made.
    fifo = os.path.join(d, "small-fifo")
    os.mkfifo(fifo)
    fresh = os.path.join(d, "small-fresh-store")
    p = kb(fresh, "kernel", "add", fifo, timeout=20)
    expect(p.returncode == 1 and one_line(p) and not os.path.exists(fresh),
           f"kernel add FIFO makes no store: {p.returncode} {p.stderr.strip()!r} {os.path.exists(fresh)}")
    # A dry night over 40 dir sources, each with a settled image-like file.
    srcs = []
    for i in range(40):
        sd = os.path.join(d, "small-src", f"s{i:02d}")
        os.makedirs(sd)
        img = os.path.join(sd, "vmlinuz-x")
        head = bytearray(0x208)
        head[0x202:0x206] = b"HdrS"
        with open(img, "wb") as f:
            f.write(head)
        os.utime(img, (time.time() - 3600, time.time() - 3600))
        srcs.append({"type": "dir", "path": sd})
    cfg = os.path.join(d, "small-night.json")
    with open(cfg, "w") as f:
        json.dump({"sources": srcs, "baseline": "6.1.0-47-amd64", "workloads": ["dd"]}, f)
    t0 = time.monotonic()
    p = kb(home, "nightly", "--dry-run", cfg, timeout=60)
    took = time.monotonic() - t0
    expect(no_signal(p) and took < 4, f"a dry night over 40 dir sources does not sleep on them: {took:.1f} s "
           f"{p.returncode} {p.stderr.strip()[-200:]!r}")


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


def build_inputs(d):
    """kernel build and bisect look at the files they are given before
    anything else, without waiting on them, and make no store first."""
    fifo = os.path.join(d, "build-fifo")
    os.mkfifo(fifo)
    tree = os.path.join(d, "tree")
    os.makedirs(tree)
    nosuch = os.path.join(d, "build-store")
    for opt, path, what in (("--config", fifo, "a FIFO"), ("--fragment", fifo, "a FIFO"), ("--patch", fifo, "a FIFO"),
                            ("--config", "/dev/zero", "a character device")):
        p = kb(nosuch, "kernel", "build", tree, opt, path, timeout=10)
        expect(p.returncode == 1 and one_line(p) and what in p.stderr and opt in p.stderr
               and not os.path.exists(nosuch),
               f"kernel build {opt} {path} is refused at once, creating nothing: {p.returncode} {p.stderr.strip()!r}")
    p = kb(nosuch, "bisect", "--metric", "guest.write.kernel_Minsn", "-w", "dd", "--git", tree, "--good", "a",
           "--bad", "b", "--config", fifo, timeout=10)
    expect(p.returncode == 1 and one_line(p) and "a FIFO" in p.stderr and not os.path.exists(nosuch),
           f"bisect --config FIFO is refused at once, creating nothing: {p.returncode} {p.stderr.strip()!r}")
    # A relative tarball path: tar runs elsewhere, so it is made absolute.
    src = os.path.join(d, "src")
    os.makedirs(os.path.join(src, "linux-x"))
    with open(os.path.join(src, "linux-x", "Kconfig"), "w") as f:
        f.write("# not a real tree\n")
    subprocess.run(["tar", "-C", src, "-cf", os.path.join(src, "linux-x.tar"), "linux-x"], check=True)
    home = os.path.join(d, "build-rel")
    p = subprocess.run([KBENCH, "--store", home, "kernel", "build", "linux-x.tar", "--config", "tinyconfig"], cwd=src,
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    unpacked = glob.glob(os.path.join(home, "build", "src", "*", "Kconfig"))
    last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    expect(p.returncode == 1 and "configuring failed" in last and unpacked,
           f"kernel build of a relative tarball unpacks it (then fails to configure a fake tree): "
           f"{p.returncode} {p.stderr.strip()[-200:]!r}")


def foreign_databases(d):
    """One rule for what a kbench database is, for every verb: versions
    outside 1..current, and tables without kbench's columns, are refused
    and the file keeps its bytes."""
    home = os.path.join(d, "foreign")
    os.makedirs(home)
    db = os.path.join(home, "results.db")
    c = sqlite3.connect(db)
    c.execute("CREATE TABLE mine (x)")
    c.execute("PRAGMA user_version = -1")
    c.commit()
    c.close()
    before = snapshot(db)
    for verb in (["show"], ["compare", "a", "b"], ["publish", "-o", os.path.join(d, "fsite")], ["doctor"]):
        p = kb(home, *verb)
        out = p.stderr + p.stdout
        expect(p.returncode == 1 and "not a kbench results database" in out and "schema version -1" in out
               and snapshot(db) == before,
               f"{verb[0]}: user_version -1 is refused, the file untouched: {p.returncode} {out.strip()[-200:]!r}")
    os.remove(db)
    fill(db)
    c = sqlite3.connect(db)
    c.execute("PRAGMA user_version = -5")
    c.commit()
    c.close()
    before = snapshot(db)
    p = kb(home, "show")
    expect(p.returncode == 1 and "schema version -5" in p.stderr and "migrating" not in p.stderr
           and snapshot(db) == before, f"a kbench store set to -5 is refused as such: {p.stderr.strip()!r}")
    # kbench's table names with other columns.
    os.remove(db)
    fill(db)
    kb(home, "show")
    c = sqlite3.connect(db)
    c.execute("ALTER TABLE cells RENAME COLUMN workload TO job")
    c.commit()
    c.close()
    for verb in (["show"], ["doctor"]):
        p = kb(home, *verb)
        out = p.stderr + p.stdout
        expect(p.returncode == 1 and "table 'cells' has no column 'workload'" in out,
               f"{verb[0]}: a table without kbench's columns is no kbench database: {out.strip()[-200:]!r}")
    # A damaged database: compare says what SQLite says, as show does.
    os.remove(db)
    fill(db)
    kb(home, "show")
    damage(db)
    show = kb(home, "show", "1")
    p = kb(home, "compare", "run:1", "run:2")
    expect(p.returncode == 1 and one_line(p) and "has no runs of its own" not in p.stderr
           and ("malformed" in p.stderr or "fails PRAGMA quick_check" in p.stderr),
           f"compare on a damaged database gives SQLite's error (show: {show.stderr.strip()[-80:]!r}): "
           f"{p.returncode} {p.stderr.strip()[-200:]!r}")


def links(d):
    """A link planted as the store's lock or as a site's manifest is not
    followed: its target keeps its bytes."""
    home = os.path.join(d, "linked")
    os.makedirs(os.path.join(home, "kernels", "names"))
    victim = os.path.join(d, "victim")
    with open(victim, "w") as f:
        f.write("precious\n")
    os.symlink(victim, os.path.join(home, "lock"))
    p = kb(home, "kernel", "remove", "nosuch")
    expect(p.returncode == 1 and one_line(p) and "lock" in p.stderr and "symbolic link" in p.stderr
           and open(victim).read() == "precious\n",
           f"a lock that is a link is refused, its target intact: {p.returncode} {p.stderr.strip()!r}")
    pub = os.path.join(d, "linkpub")
    os.makedirs(pub)
    fill(os.path.join(pub, "results.db"))
    site = os.path.join(d, "linksite")
    os.makedirs(site)
    mine = os.path.join(site, "index.html")
    with open(mine, "w") as f:
        f.write("mine\n")
    elsewhere = os.path.join(d, "my-manifest")
    with open(elsewhere, "w") as f:
        f.write("kbench site v1\nindex.html\n")
    os.symlink(elsewhere, os.path.join(site, ".kbench-site"))
    p = kb(pub, "publish", "-o", site)
    expect(p.returncode == 1 and one_line(p) and ".kbench-site" in p.stderr and "symbolic link" in p.stderr
           and open(mine).read() == "mine\n" and open(elsewhere).read() == "kbench site v1\nindex.html\n",
           f"a manifest that is a link is not trusted: {p.returncode} {p.stderr.strip()!r}")


def options(d):
    """Rules every verb's options share, and the global ones: a value is
    never empty, a one-value option is given once, a text value is UTF-8
    (and UTF-8 is text whatever the locale), a bad value is quoted cut."""
    home = os.path.join(d, "opts")
    os.makedirs(home)
    fill(os.path.join(home, "results.db"))
    kb(home, "show")
    nosuch = os.path.join(d, "no", "such3")
    cases = [
        (["--store", "", "show"], "--store"),
        (["--db", "", "show"], "--db"),
        (["--connect", "", "doctor"], "--connect"),
        (["--store"], "--store needs a DIR"),
        (["--store", home, "--store", home, "show"], "given twice"),
    ]
    for args, named in cases:
        p = kb(home, *args, pre=[])
        expect(p.returncode == 2 and one_line(p) and named in p.stderr,
               f"kbench {' '.join(args)!r}: exit 2 naming {named}: {p.returncode} {p.stderr.strip()!r}")
    verb_cases = [
        (["show", "1", "--cell", ""], "--cell"),
        (["show", "1", "-c", "c000", "-c", "c001"], "--cell given twice"),
        (["show", "1", "--cell", "c000", "--cell=c001"], "--cell given twice"),
        (["compare", "run:1", "run:2", "--ignore-setting", ""], "--ignore-setting"),
        (["compare", "run:1", "run:2", "--ignore-setting", ",,"], "--ignore-setting"),
        (["compare", "run:1", "run:2", "-w", ""], "--workload"),
        (["publish", "--compare", "a:b:c:d:e:f"], "--compare"),
        (["publish", "--compare", "x" * 100000], "--compare"),
        (["kernel", "remove", ""], "not a kernel name"),
        (["kernel", "remove", "../names/x"], "not a kernel name"),
        (["kernel", "add", "--name", "é", "/dev/null"], "--name"),
        (["vmstat", "--bo-threshold", "-1", "/dev/null"], "--bo-threshold"),
    ]
    for args, named in verb_cases:
        p = kb(home, *args)
        expect(p.returncode == 2 and one_line(p) and named in p.stderr and len(p.stderr) < 600,
               f"kbench {' '.join(a[:20] for a in args)!r}: exit 2 naming {named}: {p.returncode} "
               f"{p.stderr.strip()[:200]!r}")
    # Not UTF-8: the option is named, not "Invalid byte sequence".
    p = subprocess.run([KBENCH.encode(), b"--store", home.encode(), b"compare", b"run:1", b"run:2", b"--metric",
                        b"caf\xe9"], capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    err = p.stderr.decode("utf-8", "replace")
    expect(p.returncode == 2 and "--metric" in err and "Invalid byte sequence" not in err,
           f"a value that is not UTF-8 is refused naming its option: {p.returncode} {err.strip()!r}")
    # UTF-8 is text, whatever LANG says.
    for lang in ("C", "C.UTF-8"):
        p = subprocess.run([KBENCH, "--store", home, "compare", "run:1", "run:2", "--metric", "café"],
                           capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                           env=dict(os.environ, LANG=lang, LC_ALL=lang))
        expect("Invalid byte sequence" not in p.stderr and "--metric 'café' matches no metric" in p.stderr,
               f"LANG={lang}: --metric café is taken as text: {p.returncode} {p.stderr.strip()!r}")
    # A usage error creates no store.
    p = kb(nosuch, "run", "-w", "dd")
    expect(p.returncode == 2 and "no kernel given" in p.stderr and "creating" not in p.stderr
           and not os.path.exists(nosuch), f"run's usage error creates no store: {p.returncode} {p.stderr.strip()!r}")
    p = kb(nosuch, "run", "-k", "x", "-w", "dd")
    expect(p.returncode == 1 and "no kbench store" in p.stderr and not os.path.exists(nosuch),
           f"run makes no store: it boots kernels of one: {p.returncode} {p.stderr.strip()!r}")
    p = kb(nosuch, "bisect", "--metric", "guest.write.kernel_Minsn", "-w", "dd", "--kernels", "x,y")
    expect(p.returncode == 1 and "no kbench store" in p.stderr and not os.path.exists(nosuch),
           f"bisect --kernels makes no store: {p.returncode} {p.stderr.strip()!r}")
    # vmstat's rows: no counter is negative or past 2^53.
    rows = os.path.join(d, "neg.txt")
    with open(rows, "w") as f:
        f.write("r b swpd free buff cache si so bi bo in cs us sy id wa st\n"
                "1 0 0 10 20 30 0 0 5 700 100 200 1 2 97 0 0\n"
                "1 0 0 10 20 30 0 0 -7 700 100 200 1 2 97 0 0\n"
                "1 0 0 10 20 30 0 0 5 -8 100 200 1 2 97 0 0\n"
                "1 0 0 10 20 30 0 0 5 100000000000000000000000 100 200 1 2 97 0 0\n")
    p = kb(home, "vmstat", "--json", rows)
    try:
        j = json.loads(p.stdout)
    except ValueError:
        j = {}
    expect(p.returncode == 0 and j.get("rejected") == 3 and len(j.get("samples", [])) == 1
           and j.get("stalls", {}).get("count") == 0,
           f"vmstat rejects rows with negative or impossible counters: {p.returncode} "
           f"{ {k: j.get(k) for k in ('rejected', 'stalls')} } {p.stderr.strip()!r}")
    # Control characters of -o are masked in the site line.
    out = os.path.join(d, "nl\ndir")
    p = kb(home, "publish", "-o", out)
    expect(p.returncode == 0 and "site: " in p.stdout and "nl\ndir" not in p.stdout and "nl?dir" in p.stdout,
           f"publish masks a newline of -o in its site line: {p.returncode} {p.stdout!r}")


def long_paths(d):
    """A path of thousands of bytes is cut in its middle: the reason stays."""
    home = os.path.join(d, "longp")
    os.makedirs(home)
    fill(os.path.join(home, "results.db"))
    kb(home, "show")
    long = "/" + "x" * 5000
    for args, pre in ((["publish", "-o", long], None), (["show"], ["--store", long]), (["show"], ["--db", long]),
                      (["vmstat", long], None), (["kernel", "add", long], None)):
        p = kb(home, *args, pre=(pre + (["--store", home] if pre[0] != "--store" else [])) if pre else None)
        expect(p.returncode != 0 and one_line(p) and "too long" in p.stderr and len(p.stderr) < 1100,
               f"{' '.join(pre or args[:1])} with a 5000-byte path keeps its reason: {p.returncode} "
               f"{len(p.stderr)} bytes, ends {p.stderr.strip()[-60:]!r}")


def nightly_config(d):
    """The night refuses what run refuses; a failed source is exit 1, dry
    or not."""
    home = os.path.join(d, "night")
    drop = os.path.join(d, "night-drop")
    os.makedirs(home)
    os.makedirs(drop)
    base = {"sources": [{"type": "dir", "path": drop}], "baseline": "6.1.0-57-amd64", "workloads": ["dd"]}
    for extra, named in (({"workloads": ["dd", "dd:bs=1M"]}, "same workload"),
                         ({"sources": base["sources"] * 2}, "same source")):
        cfg = os.path.join(d, "night.json")
        with open(cfg, "w") as f:
            json.dump(dict(base, **extra), f)
        p = kb(home, "nightly", "--dry-run", cfg)
        expect(p.returncode == 2 and named in p.stderr, f"nightly refuses the {named} twice: {p.returncode} "
               f"{p.stderr.strip()!r}")


def store_creation(d):
    nosuch = os.path.join(d, "no", "such")
    for verb in (["kernel", "list"], ["kernel", "remove", "x"], ["doctor"], ["show"], ["compare", "a", "b"],
                 ["publish"]):
        p = kb(nosuch, *verb)
        expect(p.returncode != 0 and not os.path.exists(nosuch) and nosuch in (p.stderr + p.stdout),
               f"{' '.join(verb)} on a missing store fails naming it and creates nothing: {p.returncode} "
               f"{(p.stderr + p.stdout).strip()[-160:]!r}")
    # kernel add looks at its file first: a missing one (or a FIFO) makes no store.
    p = kb(nosuch, "kernel", "add", os.path.join(d, "no-such-file"))
    expect(p.returncode == 1 and one_line(p) and "no-such-file" in p.stderr and not os.path.exists(nosuch),
           f"kernel add of a missing file creates no store: {p.returncode} {p.stderr.strip()!r}")
    found = sorted(glob.glob(os.path.join(DEBS, "linux-image-6.1.0-57-amd64-unsigned_*.deb")))
    if found:
        p = kb(nosuch, "kernel", "add", "-q", found[0], timeout=300)
        expect(p.returncode == 0 and os.path.isdir(nosuch) and f"creating the store {nosuch}" in p.stderr,
               f"kernel add of a kernel may create the store, and says so: {p.stderr.strip()!r}")


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
    expect(p.returncode in (0, 4) and "\ndd.<script>alert(1)</script>" in out,
           f"markdown keeps a metric name literal in its table's code block: {p.returncode} {p.stderr.strip()!r}")
    # Outside code spans and blocks nothing from the store is raw markup,
    # and no backtick from the store can end one.
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

    # Text of the store reaches the terminal only in the safe form: a
    # release in kernel.json with CSI, OSC, a right-to-left override and a
    # newline; a name in names/ with CSI, shown by a kernel add of the image.
    meta = os.path.join(home, "kernels", kid, "kernel.json")
    good_meta = snapshot(meta)
    j = json.loads(good_meta)
    j["release"] = "\x1b[31mRED\x1b]0;owned\x07" + RLO + "x\nforged line"
    with open(meta, "w") as f:
        json.dump(j, f)
    evil = "\x1b[31mEVIL" + RLO
    os.symlink(kid, os.path.join(home, "kernels", "names", evil))
    for args in (["kernel", "list"], ["kernel", "add", found[0]]):
        p = subprocess.run([KBENCH, "--store", home, *args], capture_output=True, timeout=300)
        out = p.stdout + p.stderr
        expect(p.returncode == 0 and b"\x1b" not in out and b"\x07" not in out and RLO.encode() not in out
               and b"\nforged line" not in out,
               f"{' '.join(args)} prints no terminal control from the store: {p.returncode} {out[-300:]!r}")
    with open(meta, "wb") as f:
        f.write(good_meta)
    os.remove(os.path.join(home, "kernels", "names", evil))

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

    # A name never shadows an id prefix.
    p = kb(home, "kernel", "add", "--name", kid[:8], found[0])
    expect(p.returncode == 2 and one_line(p) and "--name" in p.stderr and "kernel id" in p.stderr,
           f"a name that reads as an id prefix is refused: {p.returncode} {p.stderr.strip()!r}")
    # A non-kernel is refused before a byte is copied: a 2 GB sparse file
    # leaves no staging directory (and takes no time).
    sparse = os.path.join(d, "sparse.img")
    with open(sparse, "wb") as f:
        f.truncate(2 << 30)
    t0 = time.monotonic()
    p = kb(home, "kernel", "add", sparse)
    expect(p.returncode == 1 and "not a kernel image" in p.stderr and time.monotonic() - t0 < 5
           and not glob.glob(os.path.join(home, "kernels", ".tmp-add-*")),
           f"kernel add of a 2 GB non-kernel copies nothing: {p.returncode} {p.stderr.strip()!r}")
    os.remove(sparse)
    # A failed source makes a dry night exit 1, as a real one.
    drop = os.path.join(d, "kdrop")
    os.makedirs(drop)
    junk = os.path.join(drop, "linux-image-junk_1_amd64.deb")
    with open(found[0], "rb") as f, open(junk, "wb") as out:
        out.write(f.read(64 << 10))        # a package cut short: found, then not importable
    os.utime(junk, (time.time() - 3600, time.time() - 3600))
    cfg = os.path.join(d, "kdry.json")
    with open(cfg, "w") as f:
        json.dump({"sources": [{"type": "dir", "path": drop}], "baseline": name, "workloads": ["dd"]}, f)
    p = kb(home, "nightly", "--dry-run", cfg)
    expect(p.returncode == 1 and "junk" in p.stderr, f"nightly --dry-run with a failed import exits 1: "
           f"{p.returncode} {p.stderr.strip()[-200:]!r}")
    # A damaged kernel is listed as such, and removable.
    p = kb(home, "kernel", "add", "--name", "spare", found[0])
    meta = os.path.join(home, "kernels", kid, "kernel.json")
    good_meta = snapshot(meta)
    with open(meta, "w") as f:
        f.write("{ not json")
    os.symlink("../" + "0" * 64, os.path.join(home, "kernels", "names", "dangling"))
    p = kb(home, "kernel", "list")
    expect(p.returncode == 0 and "DAMAGED" in p.stdout and "dangling" in p.stdout and "spare" in p.stdout,
           f"kernel list shows damaged kernels: {p.returncode} {p.stdout!r} {p.stderr.strip()!r}")
    p = kb(home, "kernel", "list", "--json")
    try:
        listed = json.loads(p.stdout)
    except ValueError:
        listed = []
    expect(sum(1 for k in listed if k.get("damaged")) == 3, f"kernel list --json marks them: {p.stdout[:300]!r}")
    p = kb(home, "kernel", "remove", "dangling")
    expect(p.returncode == 0 and not os.path.lexists(os.path.join(home, "kernels", "names", "dangling")),
           f"a dangling name is removable: {p.returncode} {p.stderr.strip()!r}")
    p = kb(home, "kernel", "remove", "spare")
    expect(p.returncode == 0, f"a kernel with a damaged kernel.json is removable: {p.returncode} {p.stderr.strip()!r}")
    with open(meta, "wb") as f:
        f.write(good_meta)
    extra = [os.path.join(home, "kernels", "names", f"n{i:02d}-" + "k" * 120) for i in range(40)]
    for link in extra:
        os.symlink("../" + kid, link)
    p = kb(home, "kernel", "remove", "nosuch")
    expect(p.returncode == 1 and one_line(p) and len(p.stderr) < 800 and "41 in all" in p.stderr,
           f"the names an unknown kernel's error lists are few, each cut, and counted: {len(p.stderr)} bytes "
           f"{p.stderr.strip()[-120:]!r}")
    for link in extra:
        os.remove(link)

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
        for part in (publish_site, stored_values, site_dirs, small_refusals, special_files, databases, foreign_databases, links, options, long_paths,
                     build_inputs, nightly_config, store_creation, vmstat, markdown_and_bidi, with_kernel):
            print(f"-- {part.__name__}")
            part(d)
    if FAILED:
        sys.exit(f"{len(FAILED)} check(s) failed")


main()
