#!/usr/bin/env python3
"""bash completion as a user gets it: `meson install` puts cli/kbench.bash
where bash-completion's loader finds it (`complete -p kbench` answers once
the loader ran, as on the first <TAB>), and completing `kbench run -k <TAB>`
lists the store's kernels; tags, run ids, cell keys, log streams, metric
names, workload names and keys, verbs and options come from the store and
from kbench's own option tables. For every verb, the options completion
offers are exactly those its --help-all lists, and after one that takes a
value it offers no option. Boots no guest; needs a Debian kernel .deb in
$KBENCH_DEBS (tools/setup.sh) and bash-completion.

Arguments: kbench, the meson build directory, the completion script."""
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from kbtest import KBENCH, debs, expect, kb, temp_store  # noqa: E402

BUILD, SCRIPT, SCHEMA = sys.argv[2], sys.argv[3], sys.argv[4]
LOADER = "/usr/share/bash-completion/bash_completion"


def words_of(line):
    """COMP_WORDS as readline splits line: at blanks, and each of '=' and ':'
    a word of its own (both are in COMP_WORDBREAKS)."""
    out = []
    for w in line.split(" "):
        parts = [p for p in re.split(r"([=:])", w) if p != ""]
        out.extend(parts or [""])
    return out


def complete(share, line):
    """COMPREPLY for the cursor at the end of line, with the completion the
    loader finds under share/bash-completion/completions."""
    words = words_of(line)
    script = f"""
source {LOADER}
__load_completion kbench || exit 3
COMP_WORDBREAKS=$' \\t\\n"\\'><=;|&(:'
COMP_LINE=$KB_LINE
COMP_POINT=${{#COMP_LINE}}
mapfile -t -d '' COMP_WORDS < <(printf '%s' "$KB_WORDS" | tr '\\001' '\\000')
COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))
_kbench kbench "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    env = dict(os.environ, XDG_DATA_DIRS=share, PATH=os.path.dirname(KBENCH) + ":" + os.environ["PATH"],
               KB_LINE=line, KB_WORDS="".join(w + "\x01" for w in words))
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=60)
    expect(p.returncode == 0, f"completing {line!r} ran: {p.returncode} {p.stderr}")
    return [w for w in p.stdout.split("\n") if w]


def main():
    expect(os.path.exists(LOADER), f"bash-completion is installed ({LOADER}; tools/setup.sh)")
    found = debs("linux-image-6.1.0-57-amd64-unsigned_*.deb", 1)
    with temp_store("kbench-cli-completion-") as home, tempfile.TemporaryDirectory() as dest:
        p = subprocess.run(["meson", "install", "-C", BUILD, "--no-rebuild", "--quiet", "--destdir", dest],
                           capture_output=True, text=True, timeout=120)
        expect(p.returncode == 0, f"meson install --destdir works: {p.stderr}")
        installed = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs
                     if d.endswith("bash-completion/completions")]
        expect(len(installed) == 1 and installed[0].endswith("/kbench"),
               f"meson installs one completion, named kbench: {installed}")
        with open(installed[0]) as a, open(SCRIPT) as b:
            expect(a.read() == b.read(), "the installed completion is cli/kbench.bash")
        share = os.path.dirname(os.path.dirname(os.path.dirname(installed[0])))

        env = dict(os.environ, XDG_DATA_DIRS=share)
        p = subprocess.run(["bash", "-c", f"source {LOADER}; complete -p kbench; __load_completion kbench && "
                            "complete -p kbench"], capture_output=True, text=True, env=env, timeout=60)
        expect(p.stdout.strip() == "complete -F _kbench kbench",
               f"complete -p kbench after the loader ran: {p.stdout!r} {p.stderr!r}")

        name = kb(home, "kernel", "add", "-q", found[0]).stdout.split()[1]
        # A kbench database (results/schema.sql, version 1, which kbench
        # migrates when it opens it): no verb but run creates one.
        db = os.path.join(home, "results.db")
        with sqlite3.connect(db) as c:
            with open(SCHEMA, encoding="utf-8") as f:
                c.executescript(f.read())
            c.execute("PRAGMA user_version = 1")
        c.close()
        kb(home, "show", check=False)
        with sqlite3.connect(db) as c:
            for tag in ("base", "nightly 2026-12-01T08:00", "a:b", "evil\nforged", None):
                c.execute("INSERT INTO runs (tag, settings_json, started_at, status) VALUES (?, '{}', 1, "
                          "'complete')", (tag,))
        tags = kb(home, "show", "--tags").stdout.split("\n")
        expect(tags == ["base", "nightly 2026-12-01T08:00", "a:b", ""],
               f"show --tags lists each tag once, a line each, leaving out one with a newline: {tags}")
        expect(kb(home, "show", "--tags", "1", check=False).returncode == 2, "show --tags RUN is a usage error")

        g = f"kbench --store {home} "
        got = complete(share, g + "run -k ")
        expect(got == [name], f"kbench run -k <TAB> lists the store's kernels: {got}")
        got = complete(share, g + "kernel remove ")
        expect(got == [name], f"kbench kernel remove <TAB> lists them too: {got}")
        got = complete(share, g + "")
        expect({"kernel", "run", "show", "compare", "publish", "nightly", "doctor"} <= set(got),
               f"the verbs: {got}")
        got = complete(share, g + "kernel ")
        expect(got == ["add", "build", "list", "remove"], f"kernel's commands: {got}")
        got = complete(share, g + "kernel build --pa")
        expect(got == ["--patch"], f"kernel build's options: {got}")
        # bisect takes run's options (its --help-run group) beside its own.
        got = complete(share, g + "bisect --me")
        expect(set(got) == {"--mem", "--metric"}, f"bisect's options, its own and run's: {got}")
        got = complete(share, g + "bisect --max")
        expect(set(got) == {"--max-rounds", "--max-contention"}, f"bisect's --max-rounds and run's: {got}")
        got = complete(share, g + "bisect -w dd:")
        expect(sorted(got) == ["bs=", "size="], f"bisect -w takes run's workload keys: {got}")
        got = complete(share, g + "bisect --kernels 6.1")
        expect(got == [name + ","], f"bisect --kernels: a kernel name, ready for the next: {got}")
        got = complete(share, g + f"bisect --kernels {name},6")
        expect(got == [f"{name},{name},"], f"bisect --kernels: the name after the last comma: {got}")
        got = complete(share, g + "run --re")
        expect(set(got) == {"--repeat", "--resume", "--retries"}, f"run's options from its --help: {got}")
        got = complete(share, g + "compare --a")
        expect(set(got) == {"--alpha", "--all-runs", "--across-runs", "--all"}, f"compare's options: {got}")
        got = complete(share, g + "run -w dd")
        expect(got == ["dd:"], f"a workload name, ready for its keys: {got}")
        got = complete(share, g + "run -w d")
        expect(set(got) == {"dd:", "dbench:"} or set(got) == {"dd", "dbench"},
               f"every registered workload is offered: {got}")
        got = complete(share, g + "run -w dd:")
        expect(sorted(got) == ["bs=", "size="], f"dd's keys: {got}")
        got = complete(share, g + "run -w dd:size=1G,b")
        expect(got == ["1G,bs="], f"the next key after a comma (what follows the last '='): {got}")
        got = complete(share, g + "run --tag ")
        expect(got == ["base", "a:b"], f"--tag offers the store's tags that make one word: {got}")
        got = complete(share, g + "compare tag:")
        expect(set(got) == {"base", "a:b"}, f"compare's tag: selectors (a tag with a blank is left out): {got}")
        got = complete(share, g + "compare 6.1")
        expect(got == [name], f"compare's kernel selectors: {got}")

        # Every verb's options, from its --help-all, against completion's.
        out = kb(home, "--help").stdout
        verbs = re.findall(r"^  ([a-z]+) ", out.split("Verbs:\n", 1)[1].split("\n\n", 1)[0], re.M)
        subs = re.findall(r"^  ([a-z]+) ", kb(home, "kernel", "--help").stdout.split("Commands:\n", 1)[1], re.M)
        expect(len(verbs) >= 9 and subs, f"the verbs and kernel's commands: {verbs} {subs}")
        for verb in [v for v in verbs if v != "kernel"] + [f"kernel {c}" for c in subs]:
            helped, valued = set(), set()
            for line in kb(home, *verb.split(), "--help-all").stdout.split("\n"):
                m = re.match(r"^  (?:(-\w), )?(--[a-z][a-z0-9-]*)(=\S+)?", line)
                if m:
                    helped.update(x for x in m.groups()[:2] if x)
                    if m.group(3):
                        valued.add(m.group(2))
            got = complete(share, g + verb + " -")
            expect(set(got) == helped, f"{verb}: completion offers the options of --help-all: only in help "
                   f"{sorted(helped - set(got))}, only in completion {sorted(set(got) - helped)}")
            for opt in sorted(valued):
                got = complete(share, g + f"{verb} {opt} ")
                expect(not any(w.startswith("-") for w in got),
                       f"{verb} {opt} takes a value: no option is offered for it: {got}")
        expect({"--until-mde", "--budget-cells", "--budget-time", "--slots"} <= set(complete(share, g + "run --")),
               "run's newer options are offered")

        # What the store holds: run ids, a run's cells, a cell's logs,
        # the metric names stored.
        with sqlite3.connect(db) as c:
            c.execute("INSERT INTO kernels (id, name, added_at) VALUES (?, ?, 1)", ("a" * 64, name))
            for key, attempt in (("c000", 1), ("c001", 1), ("c001", 2)):
                c.execute("INSERT INTO cells (run_id, cell_key, kernel_id, workload, iteration, attempt, state) "
                          "VALUES (1, ?, ?, 'dd', 0, ?, 'ok')", (key, "a" * 64, attempt))
            cid = c.execute("SELECT id FROM cells WHERE cell_key = 'c000'").fetchone()[0]
            for stream in ("console", "data"):
                c.execute("INSERT INTO logs VALUES (?, ?, x'00')", (cid, stream))
            for metric in ("dd.write_MBps", "dd.read_MBps"):
                c.execute("INSERT INTO metrics VALUES (?, ?, 1, 'MB/s', NULL)", (cid, metric))
        c.close()
        ids = [str(i) for i in range(5, 0, -1)]
        got = complete(share, g + "show ")
        expect(got == ids + ["last"], f"show <TAB>: the run ids, newest first, and last: {got}")
        got = complete(share, g + "show 1 ")
        expect(got == [], f"show RUN <TAB>: nothing more: {got}")
        got = complete(share, g + "compare run:")
        expect(got == ids, f"compare run:<TAB>: the run ids: {got}")
        got = complete(share, g + "run --resume ")
        expect(got == ids + ["last"] or got == ids, f"run --resume <TAB>: the run ids: {got}")
        got = complete(share, g + "show 1 --cell ")
        expect(got == ["c000", "c001"], f"show RUN --cell <TAB>: the run's cell keys, each once: {got}")
        got = complete(share, g + "show 1 -c c000 --log ")
        expect(sorted(got) == ["console", "data", "vmstat"], f"--log <TAB>: the cell's logs and vmstat: {got}")
        got = complete(share, g + "compare --metric dd.")
        expect(sorted(got) == ["dd.read_MBps", "dd.write_MBps"], f"--metric <TAB>: the stored metric names: {got}")
        got = complete(share, g + "run --fs ext")
        expect("ext4" in got, f"--fs <TAB>: the host's mkfs.FS: {got}")


if __name__ == "__main__":
    main()
