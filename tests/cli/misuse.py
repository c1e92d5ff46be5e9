#!/usr/bin/env python3
"""kbench misused, without a guest: each case ends within 20 s, by no
signal, with its documented exit status and one line on stderr, touching
nothing outside its store. A fio job file that is a FIFO, /dev/zero, a
1 GiB file, missing or binary is refused by run, bisect and nightly
--dry-run alike, before any store is opened, never read; compare does not
pass a kernel whose cells failed (exit 5, said in the answer line), nor
does the site's index; a write to a full stdout is an error for every
verb; a workload spec is a usage error whatever --store says; show,
compare and publish stay fast at 20 000 metric names a cell and the site
small; doctor names damaged and unnamed kernels; --version stands alone;
the store's own site keeps a file kbench did not write; and the messages
that misled say what is wrong: a manifest with a NUL or CRLF, a new name
for a stored kernel, an ELF without a PVH note, a full disk under kernel
add (in a tmpfs of its own, as root), an integer out of range in the
database, a NUL in a nightly configuration, bisect's --pilot, a test:///
URI's missing file, a base_url that is no http(s) URL.
Every check runs (a failure does not end the test), so one run lists
everything that does not hold.
Usage: misuse.py KBENCH"""
import json
import os
import resource
import shutil
import sqlite3
import struct
import subprocess
import sys
import tempfile
import time

KBENCH = sys.argv[1]
FAILED = []
LIMIT_S = 20
# The verbs at 20 000 names a cell: a guard against a cost that grows
# faster than the names (quadratic publish would take over 80 s on an idle
# host), not a figure; bench/bench-names measures the growth. Twice an idle
# host's time, so that a busy CI host does not fail it.
NAMES_LIMIT_S = 60
GOLDEN_SQL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "store.sql")
PAIR = ["run:1:6.1.0-47-amd64", "run:1:6.1.0-57-amd64"]


def expect(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILED.append(what)


def kb(home, *args, stdout=None, cwd=None, limit=LIMIT_S):
    """kbench on store home, killed after limit seconds; stdout=a file
    object (/dev/full) or None to capture it."""
    t0 = time.monotonic()
    try:
        # A width no answer line reaches: compare's lines are checked whole.
        p = subprocess.run([KBENCH, "--store", home, *args], stdin=subprocess.DEVNULL, timeout=limit,
                           stdout=stdout if stdout is not None else subprocess.PIPE, stderr=subprocess.PIPE,
                           cwd=cwd, env=dict(os.environ, COLUMNS="1000"))
        out = p.stdout.decode("utf-8", "replace") if p.stdout is not None else ""
        return subprocess.CompletedProcess(args, p.returncode, out, p.stderr.decode("utf-8", "replace")), \
            time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(args, -999, "", "timed out"), limit


def one_line(p):
    s = p.stderr.strip()
    return bool(s) and "\n" not in s


def says(p, code, *words):
    """Exit status code, by no signal, one line on stderr holding words."""
    return p.returncode == code and one_line(p) and all(w in p.stderr for w in words)


def show(p):
    return f"{p.returncode} {p.stderr.strip()[-240:]!r}"


def golden_store(home):
    os.makedirs(home, exist_ok=True)
    with open(GOLDEN_SQL, encoding="utf-8") as f, sqlite3.connect(os.path.join(home, "results.db")) as db:
        db.executescript(f.read())
    kb(home, "show")        # migrated to this build's schema
    return home


def elf(pvh=True, release="6.1.0-fake"):
    """A tiny ELF vmlinux: a PT_NOTE segment (a GNU note, and Xen's
    PHYS32_ENTRY note when pvh) and a linux_banner, as
    kernels/test-fixtures.h builds it."""
    b = bytearray(64 + 56)
    b[0:7] = b"\x7fELF\x02\x01\x01"
    struct.pack_into("<HHI", b, 16, 2, 62, 1)
    struct.pack_into("<QQ", b, 24, 0x1000000, 64)
    struct.pack_into("<HHH", b, 52, 64, 56, 1)
    notes = len(b)
    b += struct.pack("<III", 4, 20, 3) + b"GNU\0" + bytes(20)
    if pvh:
        b += struct.pack("<III", 4, 4, 18) + b"Xen\0" + struct.pack("<I", 0x1000850)
    struct.pack_into("<I", b, 64, 4)
    struct.pack_into("<Q", b, 64 + 8, notes)
    struct.pack_into("<QQ", b, 64 + 32, len(b) - notes, len(b) - notes)
    b += b"Linux version %s\0Linux version " + release.encode() + b" (kbench@test) #1 SMP\0"
    b += bytes((i * 7) & 0xff for i in range(4096))
    return bytes(b)


def write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def kernel_store(d, name):
    """A store holding one PVH kernel, 6.1.0-fake, from a made-up ELF."""
    home = os.path.join(d, name)
    img = write(os.path.join(d, name + "-vmlinux"), elf())
    p, _ = kb(home, "kernel", "add", "-q", img)
    expect(p.returncode == 0, f"{name}: kernel add of a PVH ELF: {show(p)}")
    return home, img


def special_files(d):
    fifo = os.path.join(d, "job.fifo")
    os.mkfifo(fifo)
    huge = os.path.join(d, "huge.fio")
    with open(huge, "wb") as f:
        f.truncate(1 << 30)
    binary = write(os.path.join(d, "bin.fio"), b"[r]\nrw=read\0\xff\n")
    return {"a FIFO": fifo, "a character device": "/dev/zero", "larger than 64 KiB": huge,
            "byte 11 is not text": binary, "No such file or directory": os.path.join(d, "missing.fio")}


def children_peak_mib():
    """The largest resident size of any child waited for so far, MiB: a
    1 GiB file read whole shows as a kbench of more than 1 GiB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10


def job_files(d):
    """A job file that is no job file: refused by run, bisect and nightly
    --dry-run alike, exit 2, at once; a 1 GiB file is never read (no kbench
    grows past 512 MiB); no store is made or locked."""
    home, _ = kernel_store(d, "jobs")
    nosuch = os.path.join(d, "jobs-nosuch")
    drop = os.path.join(d, "jobs-drop")
    os.makedirs(drop)
    for what, path in special_files(d).items():
        spec = f"fio:job={path}"
        for store in (home, nosuch):
            p, took = kb(store, "run", "-k", "6.1.0-fake", "-w", spec)
            expect(says(p, 2, "key 'job'", what) and took < 5,
                   f"run -w fio:job= {what} ({os.path.basename(store)}): exit 2 at once: {show(p)} {took:.1f} s")
            p, took = kb(store, "bisect", "--metric", "guest.write.kernel_Minsn", "--kernels", "a,b", "-w", spec)
            expect(says(p, 2, "key 'job'", what) and took < 5,
                   f"bisect -w fio:job= {what} ({os.path.basename(store)}): exit 2 at once: {show(p)}")
        cfg = write(os.path.join(d, "jobs-night.json"),
                    json.dumps({"sources": [{"type": "dir", "path": drop}], "baseline": "6.1.0-fake",
                                "workloads": ["dd", spec]}))
        p, took = kb(home, "nightly", "--dry-run", cfg)
        expect(says(p, 2, "workloads[1]", "key 'job'", what) and not p.stdout,
               f"nightly --dry-run with a job file {what}: exit 2, no plan: {show(p)}")
    expect(children_peak_mib() < 512, f"no job file was read whole: the largest kbench held {children_peak_mib()} MiB")
    expect(not os.path.exists(nosuch), "no store was made by a refused job file")
    p, _ = kb(home, "doctor")
    expect("FAIL  lock" not in p.stdout, "the store's lock is free after them")


def usage_before_store(d):
    nosuch = os.path.join(d, "usage-nosuch")
    for spec, word in (("nosuch", "unknown workload 'nosuch'"), ("dd:bogus=1", "unknown key 'bogus'"),
                       ("fio:runtime=0", "key 'runtime'")):
        p, _ = kb(nosuch, "run", "-k", "x", "-w", spec)
        expect(says(p, 2, word), f"--store /no/such run -w {spec}: a usage error, not 'no store': {show(p)}")
        p, _ = kb(nosuch, "bisect", "--metric", "guest.write.kernel_Minsn", "--kernels", "a,b", "-w", spec)
        expect(says(p, 2, word), f"--store /no/such bisect -w {spec}: a usage error: {show(p)}")
    expect(not os.path.exists(nosuch), "and no store is made")


def fail_cells(db, where):
    with sqlite3.connect(db) as c:
        c.execute(f"UPDATE cells SET state = 'hang' WHERE {where}")


def failed_compare(d):
    """Every B cell hung: exit 5 and the answer line says so, in text,
    markdown and JSON; one hung B cell of three is past the margin too;
    the site's index marks the pair."""
    home = golden_store(os.path.join(d, "failed"))
    b57 = "run_id = 1 AND kernel_id = (SELECT id FROM kernels WHERE name = '6.1.0-57-amd64')"
    p, _ = kb(home, "compare", *PAIR)
    expect(p.returncode == 0, f"the golden store compares with exit 0 first: {show(p)}")
    fail_cells(os.path.join(home, "results.db"), b57)
    p, _ = kb(home, "compare", *PAIR)
    expect(p.returncode == 5 and "dd:size=32M,bs=1M: B has no ok cell (B: 0 of 3 cells ok: 3 hang)" in p.stdout
           and "(exit status 5)" in p.stdout, f"compare with every B cell hung: exit 5, said: {show(p)}")
    p, _ = kb(home, "compare", "--format", "markdown", *PAIR)
    expect(p.returncode == 5 and "B has no ok cell" in p.stdout, f"... in markdown too: {p.returncode}")
    p, _ = kb(home, "compare", "--json", *PAIR)
    try:
        j = json.loads(p.stdout)
    except ValueError:
        j = {}
    expect(p.returncode == 5 and j.get("exit_status") == 5 and j.get("failed_groups") == 2,
           f"... and in JSON: {p.returncode} {j.get('exit_status')} {j.get('failed_groups')}")
    p, _ = kb(home, "publish", "-o", os.path.join(d, "failed-site"))
    index = open(os.path.join(d, "failed-site", "index.html"), encoding="utf-8").read() if p.returncode == 0 else ""
    expect("B has no ok cell" in index and 'class="pair worse"' in index,
           f"the site's index says the pair's cells failed: {show(p)}")
    # A/B swapped: A has no ok cell.
    p, _ = kb(home, "compare", PAIR[1], PAIR[0])
    expect(p.returncode == 5 and "A has no ok cell" in p.stdout, f"A without an ok cell: exit 5: {show(p)}")
    # One hung cell of three on B: past the 10-point margin.
    home2 = golden_store(os.path.join(d, "failed-one"))
    fail_cells(os.path.join(home2, "results.db"), "id = (SELECT min(id) FROM cells WHERE " + b57 + ")")
    p, _ = kb(home2, "compare", *PAIR)
    expect(p.returncode == 5 and "B's cells failed more often than A's (A: 3 of 3 cells ok; B: 2 of 3 cells ok: "
           "1 hang)" in p.stdout, f"one B cell of three hung: exit 5, said: {show(p)}")


def full_stdout(d):
    """A write to a full stdout is one line and exit 1, for every verb."""
    home, img = kernel_store(d, "full")
    golden_store(home)
    drop = os.path.join(d, "full-drop")
    os.makedirs(drop)
    cfg = write(os.path.join(d, "full-night.json"), json.dumps(
        {"sources": [{"type": "dir", "path": drop}], "baseline": "6.1.0-fake", "workloads": ["dd"]}))
    vm = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "vmstat", "seed-2002-stalls.txt")
    cases = [["kernel", "list"], ["kernel", "list", "--json"], ["kernel", "add", "-q", "--json", img],
             ["workloads"], ["workloads", "--packages"], ["doctor"], ["doctor", "--json"],
             ["nightly", "--dry-run", cfg], ["nightly", "--keys"], ["show"], ["show", "1"], ["show", "--tags"],
             ["show", "--json", "1"], ["show", "1", "--cell", "c000", "--log", "console"],
             ["compare", *PAIR], ["compare", "--json", *PAIR], ["publish", "-o", os.path.join(d, "full-site")],
             ["vmstat", vm], ["vmstat", "--json", vm], ["--version"], ["--help"], ["run", "--help"],
             ["help", "compare"], ["metrics"], ["compare", "--format", "csv", *PAIR],
             ["kernel", "add", "--name", "gone", img], ["kernel", "remove", "gone"]]
    with open("/dev/full", "w") as full:
        for args in cases:
            if args[:2] == ["kernel", "add"] and "gone" in args:
                kb(home, *args)          # the name to remove, added with stdout kept
                continue
            p, _ = kb(home, *args, stdout=full)
            expect(says(p, 1, "cannot write the output"),
                   f"{' '.join(a if len(a) < 40 else '...' for a in args)} >/dev/full: exit 1, one line: {show(p)}")


def many_names(d):
    """20 000 distinct metric names in each of 8 cells: show, compare and
    publish end within NAMES_LIMIT_S each, and no file of the site is over 8 MB."""
    home = os.path.join(d, "names")
    os.makedirs(home)
    db = sqlite3.connect(os.path.join(home, "results.db"))
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "results", "schema.sql")) as f:
        db.executescript(f.read())
    db.execute("PRAGMA user_version = 1")
    db.execute("INSERT INTO kernels (id, name, added_at) VALUES ('kaaa', 'kA', 1), ('kbbb', 'kB', 1)")
    db.execute("INSERT INTO runs (id, tag, settings_json, started_at, status) VALUES (1, 'names', ?, 1, 'complete')",
               (json.dumps({"repeats": 4, "mem_mb": 256, "cpus": 1}),))
    params = json.dumps({"workload": "dd:size=,bs=1M", "mem_mb": 256, "cpus": 1})
    for c in range(8):
        db.execute("INSERT INTO cells (id, run_id, cell_key, kernel_id, workload, params_json, iteration, state) "
                   "VALUES (?, 1, ?, ?, 'dd', ?, ?, 'ok')", (c + 1, f"c{c:03d}", "kbbb" if c % 2 else "kaaa",
                                                               params, c // 2))
        db.executemany("INSERT INTO metrics (cell_id, name, value, unit) VALUES (?, ?, ?, 'blocks/s')",
                       [(c + 1, f"vmstat.m{i:05d}_mean", 100 + (i * 7919 + c) % 97) for i in range(20000)])
    db.commit()
    db.close()
    kb(home, "show")
    site = os.path.join(d, "names-site")
    for args in (["show", "1"], ["compare", "run:1:kA", "run:1:kB"], ["publish", "-o", site]):
        p, took = kb(home, *args, limit=NAMES_LIMIT_S)
        expect(p.returncode == 0 and took < NAMES_LIMIT_S,
               f"{args[0]} at 20 000 names a cell: {p.returncode}, {took:.1f} s")
    sizes = [os.path.getsize(os.path.join(site, f)) for f in os.listdir(site)] if os.path.isdir(site) else [0]
    expect(max(sizes) <= 8 << 20 and sum(sizes) <= 40 << 20,
           f"the site is bounded: largest file {max(sizes) >> 10} KiB, all {sum(sizes) >> 20} MiB")


def doctor_kernels(d):
    home, img = kernel_store(d, "doc")
    kdir = os.path.join(home, "kernels")
    os.symlink("../" + "0" * 64, os.path.join(kdir, "names", "X"))
    p, _ = kb(home, "doctor")
    expect(p.returncode == 1 and any(l.startswith("FAIL  damaged") and " X (" in l for l in p.stdout.splitlines()),
           f"doctor fails a dangling kernels/names/X: {p.returncode} {p.stdout[-300:]!r}")
    os.remove(os.path.join(kdir, "names", "X"))
    os.remove(os.path.join(kdir, "names", "6.1.0-fake"))
    p, _ = kb(home, "doctor")
    expect(any(l.startswith("warn  unnamed") for l in p.stdout.splitlines()),
           f"doctor warns of an image without a name: {p.stdout[-300:]!r}")


def version(d):
    for args in (["--version", "--bogus"], ["--version", "extra"]):
        p, _ = kb(os.path.join(d, "nostore"), *args)
        expect(says(p, 2, "--version") and not p.stdout, f"kbench {' '.join(args)}: exit 2: {show(p)}")


def store_site(d):
    """<store>/site, its manifest without index.html: a foreign index.html,
    then a link there, is refused and left as it was."""
    home = golden_store(os.path.join(d, "site"))
    p, _ = kb(home, "publish")
    site = os.path.join(home, "site")
    manifest = os.path.join(site, ".kbench-site")
    expect(p.returncode == 0 and os.path.exists(manifest), f"the store's site is published: {show(p)}")
    lines = [l for l in open(manifest).read().splitlines() if l != "index.html"]
    write(manifest, "\n".join(lines) + "\n")
    index = os.path.join(site, "index.html")
    write(index, "theirs\n")
    p, _ = kb(home, "publish")
    expect(says(p, 1, "index.html", "kbench did not write it") and open(index).read() == "theirs\n",
           f"a foreign index.html in the store's site is left: {show(p)}")
    os.remove(index)
    target = write(os.path.join(d, "site-target"), "theirs\n")
    os.symlink(target, index)
    p, _ = kb(home, "publish")
    expect(p.returncode == 1 and os.path.islink(index) and open(target).read() == "theirs\n",
           f"a link there is left, its target too: {show(p)}")


def messages(d):
    home = golden_store(os.path.join(d, "msg"))
    kb(home, "publish")
    manifest = os.path.join(home, "site", ".kbench-site")
    good = open(manifest, "rb").read()
    for name, data, word in (("a NUL", good[:20] + b"\0" + good[20:], "a NUL byte"),
                             ("CRLF", good.replace(b"\n", b"\r\n"), "CRLF line ends")):
        write(manifest, data)
        p, _ = kb(home, "publish")
        expect(says(p, 1, word, "--force"), f"a manifest with {name} says so: {show(p)}")
    write(manifest, good)

    khome, img = kernel_store(d, "msg-k")
    p, _ = kb(khome, "kernel", "add", "--name=new", img)
    expect(p.returncode == 0 and "already in the store as 6.1.0-fake (" in p.stderr
           and "named it new too" in p.stderr, f"a new name for a stored image is said as made: {show(p)}")
    nopvh = write(os.path.join(d, "nopvh"), elf(False, "6.1.0-nopvh"))
    p, _ = kb(khome, "kernel", "add", "-q", nopvh)
    listed, _ = kb(khome, "kernel", "list")
    expect(says(p, 1, "without a PVH note", "bzImage") and "6.1.0-nopvh" not in listed.stdout,
           f"an ELF without a PVH note is refused at the import: {show(p)}")

    if os.geteuid() == 0 and shutil.which("unshare"):
        tfs = os.path.join(d, "tmpfs")
        os.makedirs(tfs)
        # 8 KiB: the image fits, its kernel.json does not.
        p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                            'mount -t tmpfs -o size=8k tmpfs "$1" && exec "$2" --store "$1/store" kernel add -q "$3"',
                            "sh", tfs, KBENCH, img], capture_output=True, text=True, timeout=LIMIT_S)
        last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        expect(p.returncode == 1 and "No space left on device" in last,
               f"a full disk under kernel add says why: {p.returncode} {last!r}")
    else:
        print("skip a full disk under kernel add: needs root and unshare for a tmpfs of its own")

    bad = golden_store(os.path.join(d, "msg-attempt"))
    with sqlite3.connect(os.path.join(bad, "results.db")) as c:
        c.execute("UPDATE cells SET attempt = 99999999999999 WHERE id = 1")
    p, _ = kb(bad, "show", "1")
    expect(says(p, 1, "cells.attempt is out of range") and "finite" not in p.stderr,
           f"an attempt out of range is said so: {show(p)}")

    drop = os.path.join(d, "msg-drop")
    os.makedirs(drop)
    base = {"sources": [{"type": "dir", "path": drop}], "baseline": "6.1.0-fake", "workloads": ["dd"]}
    cfg = write(os.path.join(d, "nul.json"), json.dumps(base).replace(drop, drop + "\\u0000"))
    p, _ = kb(khome, "nightly", "--dry-run", cfg)
    expect(says(p, 2, "NUL") and "JSON_ALLOW_NUL" not in p.stderr, f"a NUL in a configuration: {show(p)}")
    for url in ("javascript:alert(1)", "http://a b", "https://"):
        cfg = write(os.path.join(d, "url.json"), json.dumps(dict(base, base_url=url)))
        p, _ = kb(khome, "nightly", "--dry-run", cfg)
        expect(says(p, 2, "base_url"), f"base_url {url!r} is refused: {show(p)}")

    p, _ = kb(khome, "bisect", "--metric", "guest.write.kernel_Minsn", "--kernels", "a,b", "-w", "dd", "--pilot=0")
    expect(says(p, 2, "--pilot 0") and "--target" not in p.stderr, f"bisect --pilot=0 names it alone: {show(p)}")

    p, _ = kb(home, "--connect", "test:///nonexistent/path.xml", "doctor")
    expect(p.returncode == 1 and "I/O warning" not in p.stderr and not p.stderr.strip()
           and "/nonexistent/path.xml: No such file or directory" in p.stdout,
           f"doctor --connect test:///nonexistent: its line, no libxml2 warning: {p.stderr.strip()!r}")


def main():
    with tempfile.TemporaryDirectory(prefix="kbench-cli-misuse-", dir=os.environ.get("KBENCH_TEST_TMP", "/var/tmp")) as d:
        os.chmod(d, 0o711)
        for part in (job_files, usage_before_store, failed_compare, full_stdout, many_names, doctor_kernels, version,
                     store_site, messages):
            print(f"-- {part.__name__}")
            part(d)
    if FAILED:
        sys.exit(f"{len(FAILED)} check(s) failed")


main()
