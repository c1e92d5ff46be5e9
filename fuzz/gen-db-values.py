#!/usr/bin/env python3
"""fuzz/gen-db-values.py: result stores damaged at the value level, by the
thousand, against the verbs that read them.

A store is a file anyone can edit: a NULL where the schema says NOT NULL
(after the schema was rewritten), a number near DBL_MAX or an infinity,
text where a number belongs, a long or binary text, a blob. This script
starts from a real store (tests/golden/store.sql, runs of real kernels, its
logs cut short so that a store stays small), changes 1 to 4 random values
in random columns of random rows of random tables of the real schema, and
runs `kbench show`, `show RUN`, `show RUN --cell KEY`, `compare` and
`publish` on each copy with a 20 s limit. It asserts what a damaged store
may cause: exit 0 or 1, never a signal, never a hang, and an error of one
line. A failing store is kept (--keep DIR) with a note of what was
changed, to become a seed of fuzz/corpus/db-values/ once fixed.

--corpus DIR writes seeds instead: the small base store and mutated copies
(fuzz/fuzz-db-values.c replays them in the 'fuzz' suite).

Usage: gen-db-values.py KBENCH [--count N] [--seed S] [--jobs J]
                        [--keep DIR] [--corpus DIR --seeds N]
Exit 0 when every store was handled as it may be, 1 otherwise."""
import argparse
import concurrent.futures
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "..", "tests", "golden", "store.sql")
LOG_CUT = 2048          # bytes of each stored log kept in the base store
TIMEOUT = 20

# Values a hand edit or another writer can leave; each is tried in any column.
VALUES = [
    None, 0, -1, 1, 2 ** 63 - 1, -2 ** 63, 1.7e308, -1.7e308, 5e-324, float("inf"), float("-inf"),
    "", "abc", "12abc", "1e999", "-1e999", "nan", "x" * 100000, "\x1b[31mred\x1b]0;title\x07", "\u202eevil",
    "a\nb", "../../etc/passwd", "%s%s%n", "ok", "dd", "c000", "running",
    b"\x00\xff\xfe", b"", bytes(range(256)), b"\xc3", "\ud7ff\ue000",
]


# The damage the hostile-user probe found (each crashed or hung a verb
# once): written as named seeds of the corpus, beside the random ones.
TARGETED = {
    "null-workload": ("cells", "UPDATE cells SET workload = NULL WHERE id = 1"),
    "null-state": ("cells", "UPDATE cells SET state = NULL WHERE id = 1"),
    "null-cell-key": ("cells", "UPDATE cells SET cell_key = NULL WHERE id = 1"),
    "null-kernel-name": ("kernels", "UPDATE kernels SET name = NULL WHERE rowid = 1"),
    "null-metric-name": ("metrics", "UPDATE metrics SET name = NULL WHERE rowid = 1"),
    "null-timeline-kind": ("timeline", "UPDATE timeline SET kind = NULL WHERE rowid = 1"),
    "huge-vmstat-time": (None, "UPDATE vmstat SET t_host = -1.7e308 WHERE cell_id = 1 AND seq % 2 = 0"),
    "huge-negative-mark": (None, "UPDATE marks SET t_guest = -1.7e308"),
}


# What the verbs read most, chosen more often than the rest: a table by its
# weight (1 for any other), a NULL a quarter of the time (the schema's NOT
# NULL is what a rewrite drops first).
TABLE_WEIGHT = {"cells": 6, "runs": 3, "kernels": 3, "metrics": 4, "vmstat": 3, "marks": 3, "timeline": 3, "logs": 2}
NULL_SHARE = 0.25


def make_base(path):
    """The golden store, migrated by this kbench, its logs cut to LOG_CUT
    bytes, vacuumed: the start of every damaged copy."""
    db = sqlite3.connect(path)
    with open(GOLDEN, encoding="utf-8") as f:
        db.executescript(f.read())
    db.commit()
    db.close()


def finish_base(path):
    db = sqlite3.connect(path)
    db.execute("UPDATE logs SET text = substr(text, 1, ?)", (LOG_CUT,))
    db.commit()
    db.execute("VACUUM")
    db.close()


def shrink(path):
    """A seed small enough to commit: runs 1 and 2, four cells of run 1 (two
    kernels, so that publish compares them), 12 vmstat rows a cell, logs of
    200 bytes, 512-byte pages."""
    db = sqlite3.connect(path)
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("DELETE FROM runs WHERE id > 2")
    db.execute("DELETE FROM cells WHERE run_id = 1 AND cell_key > 'c003'")
    db.execute("UPDATE logs SET text = substr(text, 1, 200)")
    db.execute("DELETE FROM vmstat WHERE seq > 12")
    db.commit()
    db.execute("PRAGMA journal_mode = DELETE")
    db.execute("PRAGMA page_size = 512")
    db.execute("VACUUM")
    db.close()


def tables(db):
    return [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                     "AND name NOT LIKE 'sqlite_%'")]


def loosen(db, table):
    """table without its constraints (CREATE TABLE AS keeps none), as a
    rewritten schema leaves it; its rows get rowids."""
    db.executescript(f'PRAGMA foreign_keys = OFF; CREATE TABLE "loose_{table}" AS SELECT * FROM "{table}"; '
                     f'DROP TABLE "{table}"; ALTER TABLE "loose_{table}" RENAME TO "{table}";')


def has_rowid(db, table):
    try:
        db.execute(f'SELECT rowid FROM "{table}" LIMIT 1').fetchall()
        return True
    except sqlite3.OperationalError:
        return False


def mutate(db, rng):
    """Change one value in a random column of a random row. Returns what
    was done, for the note, or None when the table has no rows."""
    names = tables(db)
    table = rng.choices(names, [TABLE_WEIGHT.get(t, 1) for t in names])[0]
    cols = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
    n = db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    if not n or not cols:
        return None
    col = rng.choice(cols)
    value = None if rng.random() < NULL_SHARE else rng.choice(VALUES)
    if isinstance(value, float) and value != value:
        value = None
    for attempt in (0, 1):
        if not has_rowid(db, table):
            loosen(db, table)
        row = db.execute(f'SELECT rowid FROM "{table}" LIMIT 1 OFFSET ?', (rng.randrange(n),)).fetchone()[0]
        try:
            db.execute("PRAGMA ignore_check_constraints = ON")
            db.execute(f'UPDATE "{table}" SET "{col}" = ? WHERE rowid = ?', (value, row))
            return f"{table}.{col} of rowid {row} = {value!r:.60}"
        except sqlite3.DatabaseError:
            if attempt:
                return None
            loosen(db, table)         # a NOT NULL, UNIQUE or key refused it: drop the constraints
    return None


def damage(src, dst, rng, count):
    shutil.copy(src, dst)
    db = sqlite3.connect(dst)
    done = [m for m in (mutate(db, rng) for _ in range(count)) if m]
    db.commit()
    db.close()
    return done


def check(kbench, home, args):
    """One verb on a damaged store: None when it behaved, else why not."""
    try:
        p = subprocess.run([kbench, "--store", home, *args], capture_output=True, timeout=TIMEOUT,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return "hang (20 s)"
    if p.returncode < 0:
        return f"signal {-p.returncode}"
    if p.returncode not in (0, 1):
        return f"exit {p.returncode}"
    err = p.stderr.strip()
    lines = [l for l in err.split(b"\n") if l and not l.startswith(b"kbench: publish: note:")]
    if p.returncode == 1 and len(lines) != 1:
        return f"{len(lines)} lines of error: {err[:200]!r}"
    return None


def one(kbench, base, workdir, i, seed, keep):
    rng = random.Random(seed * 1000003 + i)
    home = os.path.join(workdir, f"s{i}")
    os.makedirs(home)
    done = damage(base, os.path.join(home, "results.db"), rng, rng.randint(1, 4))
    verbs = [["show"], ["show", "1"], ["show", "1", "--cell", "c000"], ["show", "1", "--cell", "c000", "--log", "vmstat"], ["show", "1", "--cell", "c000", "--log", "console"],
             ["compare", "run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64"], ["compare", "run:2", "run:3"],
             ["publish", "-o", os.path.join(home, "site")]]
    bad = []
    for v in verbs:
        why = check(kbench, home, v)
        if why:
            bad.append((" ".join(x for x in v[:3] if not x.startswith("/")), why))
    if bad and keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(os.path.join(home, "results.db"), os.path.join(keep, f"seed{seed}-{i}.db"))
        with open(os.path.join(keep, f"seed{seed}-{i}.txt"), "w") as f:
            json.dump({"changed": done, "failed": bad}, f, indent=1)
    shutil.rmtree(home)
    return bad, done


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kbench")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--keep", help="directory for the stores that failed")
    ap.add_argument("--corpus", help="write seeds into this directory instead of running")
    ap.add_argument("--seeds", type=int, default=24)
    a = ap.parse_args()
    kbench = os.path.abspath(a.kbench)
    with tempfile.TemporaryDirectory(prefix="kbench-db-values-") as work:
        base_home = os.path.join(work, "base")
        os.makedirs(base_home)
        base = os.path.join(base_home, "results.db")
        make_base(base)
        subprocess.run([kbench, "--store", base_home, "show"], capture_output=True, check=True)   # migrate
        finish_base(base)
        if a.corpus:
            os.makedirs(a.corpus, exist_ok=True)
            shrink(base)
            shutil.copy(base, os.path.join(a.corpus, "base.db"))
            for name, (table, edit) in TARGETED.items():
                seed = os.path.join(a.corpus, f"{name}.db")
                shutil.copy(base, seed)
                db = sqlite3.connect(seed)
                if table:
                    loosen(db, table)
                db.execute(edit)
                db.commit()
                db.execute("VACUUM")
                db.close()
            rng = random.Random(a.seed)
            for i in range(a.seeds):
                damage(base, os.path.join(a.corpus, f"values-{a.seed}-{i:03d}.db"), rng, rng.randint(1, 4))
            return 0
        counts = {"stores": 0, "ok": 0, "failed": 0}
        kinds = {}
        with concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs) as ex:
            futs = [ex.submit(one, kbench, base, work, i, a.seed, a.keep) for i in range(a.count)]
            for f in concurrent.futures.as_completed(futs):
                bad, _ = f.result()
                counts["stores"] += 1
                counts["failed" if bad else "ok"] += 1
                for verb, why in bad:
                    key = f"{verb}: {why.split(':')[0]}"
                    kinds[key] = kinds.get(key, 0) + 1
                if counts["stores"] % 200 == 0:
                    print(f"{counts['stores']} stores, {counts['failed']} failed", flush=True)
        print(json.dumps({"counts": counts, "failures": kinds}, indent=1))
        return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
