#!/usr/bin/env python3
"""The documents name the options kbench has, and no other.

- docs/kbench.1 lists, per verb (a `.SS "kbench VERB ..."` under VERBS),
  every option that `kbench VERB --help-all` prints (the option tables of
  settings/ and cli/ drive it), and none that it does not: each option is
  a `.TP` whose header starts with the option in bold, followed by its
  value exactly when the option takes one. A section holding
  the comment `.\\" options: +VERB` takes VERB's options too (bisect takes
  run's). Its GLOBAL OPTIONS are those of `kbench --help`.
- docs/reference.md shows each verb's `--help` as a checked example
  (tests/docs/examples.py compares the text).
- Every kbench command line in README.md, docs/*.md and the man page's
  EXAMPLES (code blocks, a console block's `$` lines, and `inline` code)
  names a verb kbench has and only options that verb takes.
- The schema version the documents name ("schema versions 1 to N" in the
  man page and the reference, docs/schema.md's title) is results/db.h's
  DB_SCHEMA_VERSION.
- README.md's two commands are its first code block: the main job
  (`tools/quickstart.sh`, an executable of the repository) and the test
  command that .ci/run runs, character for character.
- Every relative link of README.md and docs/*.md names a file of the
  repository (never one beside it, such as ../shared/) and, with
  #anchor, a heading of that file.

Boots no guest. Usage: options.py KBENCH SOURCE_ROOT"""
import os
import re
import subprocess
import sys
import tempfile

KBENCH, ROOT = sys.argv[1], os.path.abspath(sys.argv[2])
MAN = os.path.join(ROOT, "docs", "kbench.1")
REFERENCE = os.path.join(ROOT, "docs", "reference.md")
COMMAND_DOCS = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs"))
                                      if f.endswith(".md"))
GLOBAL_WITH_VALUE = ("--store", "--db", "--connect")
# Text that starts with "kbench" and is no command: the site manifest's first
# line, the agent's vmstat column groups (docs/vmstat.md).
NOT_COMMANDS = {"kbench site v1", "kbench vm disk"}
failures = []


def kb(home, *args):
    return subprocess.run([KBENCH, "--store", home, *args], capture_output=True, encoding="utf-8", timeout=60)


def verbs(home):
    """Every verb of kbench --help, kernel's commands as "kernel CMD"."""
    out = kb(home, "--help").stdout
    names = re.findall(r"^  ([a-z]+) ", out.split("Verbs:\n", 1)[1].split("\n\n", 1)[0], re.M)
    cmds = re.findall(r"^  ([a-z]+) ", kb(home, "kernel", "--help").stdout.split("Commands:\n", 1)[1], re.M)
    if len(names) < 9 or len(cmds) < 4:
        sys.exit(f"FAIL: kbench --help lists too few verbs to check ({names}, kernel: {cmds})")
    return [v for v in names if v != "kernel"] + [f"kernel {c}" for c in cmds]


def help_options(text, valued=None):
    """The options of GOption's help text, long and short ("--kernel", "-k"),
    without its Help Options group (-h, --help, --help-all, --help-run).
    OUT: valued, when given, gains the long options that take a value
    ("--mem=SIZE")."""
    opts, group = set(), ""
    for line in text.split("\n"):
        if line and not line.startswith(" "):
            group = line
            continue
        m = re.match(r"^  (?:-(\w), )?(--[a-z0-9][a-z0-9-]*)(=?)", line)
        if m and group != "Help Options:":
            opts.add(m.group(2))
            if m.group(1):
                opts.add("-" + m.group(1))
            if m.group(3) and valued is not None:
                valued.add(m.group(2))
    return opts


def global_options(home):
    text = kb(home, "--help").stdout.split("Global options:\n", 1)[1].split("\n\n", 1)[0]
    return set(re.findall(r"^  (--[a-z-]+)", text, re.M))


def roff_text(line):
    """A man page line as it reads: no font escapes, '\\-' as '-'."""
    line = re.sub(r"\\f[BIRP]", "", line)
    return line.replace("\\-", "-").replace("\\(mu", "x").replace("\\(+-", "+-").replace('\\"', '"')


def option_tokens(text):
    return set(re.findall(r"(?<![\w-])(--?[a-zA-Z][a-zA-Z0-9-]*)", text))


def man_sections():
    """{"GLOBAL": options, VERB: options, ...} from the man page's .TP headers,
    with each VERB's "+VERB" inheritances; and the man page's lines."""
    with open(MAN, encoding="utf-8") as f:
        lines = f.read().split("\n")
    sections, valued, inherits, section, current = {}, {}, {}, None, None
    for i, line in enumerate(lines):
        if line.startswith(".SH "):
            section = line[4:].strip().strip('"')
            current = "GLOBAL" if section == "GLOBAL OPTIONS" else None
            if current:
                sections.setdefault(current, set())
            continue
        if section == "VERBS" and line.startswith(".SS "):
            words = roff_text(line[4:]).strip('"').split()
            if words[:1] != ["kbench"]:
                failures.append(f"kbench.1:{i + 1}: a verb's section starts 'kbench VERB': {line}")
                current = None
                continue
            verb = []
            for w in words[1:]:
                if not re.fullmatch(r"[a-z]+", w):
                    break
                verb.append(w)
            current = " ".join(verb)
            sections.setdefault(current, set())
            continue
        m = re.match(r'^\.\\" options: \+([a-z ]+)$', line)
        if m and current:
            inherits.setdefault(current, []).append(m.group(1).strip())
            continue
        if current and line == ".TP" and i + 1 < len(lines):
            head = roff_text(lines[i + 1])
            if head.lstrip().startswith("-"):
                tokens = option_tokens(head.split("  ")[0])
                sections[current] |= tokens
                # What follows the option names ("--mem SIZE") is its value.
                rest = re.sub(r"(?<![\w-])--?[a-zA-Z][a-zA-Z0-9-]*", "", head).replace(",", "").strip()
                if rest:
                    valued.setdefault(current, set()).update(t for t in tokens if t.startswith("--"))
    for verb, parents in inherits.items():
        for p in parents:
            sections[verb] |= sections.get(p, set())
            valued.setdefault(verb, set()).update(valued.get(p, set()))
    return sections, valued


def check_man(home, verb_list):
    sections, man_valued = man_sections()
    want_global = global_options(home)
    got = sections.get("GLOBAL", set())
    if got != want_global:
        failures.append(f"kbench.1 GLOBAL OPTIONS: missing {sorted(want_global - got)}, "
                        f"not in kbench --help {sorted(got - want_global)}")
    for verb in verb_list:
        want_valued = set()
        want = help_options(kb(home, *verb.split(), "--help-all").stdout, want_valued)
        if verb not in sections:
            failures.append(f"kbench.1 has no section .SS \"kbench {verb} ...\" under VERBS")
            continue
        got, got_valued = sections[verb], man_valued.get(verb, set())
        if got != want:
            failures.append(f"kbench.1, kbench {verb}: missing {sorted(want - got)}; "
                            f"not in 'kbench {verb} --help-all': {sorted(got - want)}")
        elif got_valued != want_valued:
            failures.append(f"kbench.1, kbench {verb}: shown with a value but taking none "
                            f"{sorted(got_valued - want_valued)}; taking a value but shown without "
                            f"{sorted(want_valued - got_valued)}")
        else:
            print(f"ok: kbench.1 lists the {len(want)} options of kbench {verb}")
    extra = set(sections) - set(verb_list) - {"GLOBAL"}
    if extra:
        failures.append(f"kbench.1 has sections for verbs kbench does not have: {sorted(extra)}")


def check_reference(verb_list):
    with open(REFERENCE, encoding="utf-8") as f:
        text = f.read()
    for verb in verb_list:
        if f"<!-- example: kbench {verb} --help -->" not in text:
            failures.append(f"docs/reference.md does not show 'kbench {verb} --help' (an example marker)")
    print(f"ok: docs/reference.md shows the --help of the {len(verb_list)} verbs")


def command_lines():
    """(where, command text) of every kbench command in the documents."""
    found = []
    for rel in COMMAND_DOCS:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            lines = f.read().split("\n")
        fence, joined, start = None, "", 0
        for n, line in enumerate(lines, 1):
            if line.startswith("```"):
                fence = None if fence is not None else line[3:].strip()
                continue
            if fence is not None:
                s = line.strip()
                # In a console block only the "$ " lines are commands; the rest is output.
                if fence == "console" and not joined:
                    if not s.startswith("$ "):
                        continue
                    s = s[2:]
                if joined:
                    joined += " " + s
                elif s.startswith("kbench ") or re.match(r"^\S*build/cli/kbench ", s):
                    joined, start = s, n
                else:
                    continue
                if joined.endswith("\\"):
                    joined = joined[:-1]
                    continue
                found.append((f"{rel}:{start}", joined.split("  #")[0].split(" # ")[0]))
                joined = ""
            else:
                for m in re.finditer(r"`(kbench [^`]+)`", line):
                    if m.group(1) not in NOT_COMMANDS:
                        found.append((f"{rel}:{n}", m.group(1)))
    with open(MAN, encoding="utf-8") as f:
        in_ex = False
        for n, line in enumerate(f.read().split("\n"), 1):
            if line.startswith(".EX"):
                in_ex = True
            elif line.startswith(".EE"):
                in_ex = False
            elif in_ex and roff_text(line).strip().startswith("kbench "):
                found.append((f"kbench.1:{n}", roff_text(line).strip().split(" # ")[0]))
    return found


def check_commands(home, verb_list):
    known = {v: help_options(kb(home, *v.split(), "--help-all").stdout) for v in verb_list}
    glob_opts = global_options(home) | {"--help", "-h", "--version"}
    checked = 0
    for where, cmd in command_lines():
        words = cmd.replace("[", " ").replace("]", " ").replace("|", " ").split()[1:]
        verb, opts, i = None, [], 0
        while i < len(words):
            w = words[i]
            name = w.split("=")[0]
            if name in GLOBAL_WITH_VALUE:
                i += 1 if "=" in w else 2
                continue
            if verb is None and not w.startswith("-"):
                verb = w
                if w == "kernel" and i + 1 < len(words) and not words[i + 1].startswith("-"):
                    verb = "kernel " + words[i + 1]
                    i += 1
            elif name.startswith("-"):
                opts.extend(option_tokens(name.rstrip(").,;:")))
            i += 1
        if verb == "help":
            # "kbench help VERB": the verb named must be one.
            rest = [w for w in words if not w.startswith("-") and w != "help"]
            if rest and rest[0] not in known and rest[0] not in ("VERB", "kernel"):
                failures.append(f"{where}: '{cmd}': kbench help names no verb '{rest[0]}'")
            checked += 1
            continue
        if verb is None or not re.fullmatch(r"[a-z]+( [a-z]+)?", verb):
            # "kbench --help", "kbench <TAB>", "kbench VERB --help": no verb of its own to check.
            bad = [o for o in opts if o not in glob_opts and not o.startswith("--complete")]
            if bad:
                failures.append(f"{where}: '{cmd}': {bad} are no global options")
            continue
        if verb not in known:
            if verb == "kernel":
                continue        # "kbench kernel" alone names the command group
            failures.append(f"{where}: '{cmd}': kbench has no verb '{verb}'")
            continue
        allowed = known[verb] | glob_opts | {"--help-all", "--help-run"}
        bad = [o for o in opts if o not in allowed and not o.startswith("--complete")]
        if bad:
            failures.append(f"{where}: '{cmd}': kbench {verb} has no option {', '.join(sorted(set(bad)))}")
        checked += 1
    if checked < 20:
        failures.append(f"only {checked} kbench command lines found in the documents: is the scan broken?")
    print(f"ok: {checked} kbench command lines in the documents checked against the verbs' options")


def check_schema_version():
    with open(os.path.join(ROOT, "results", "db.h"), encoding="utf-8") as f:
        version = int(re.search(r"#define DB_SCHEMA_VERSION (\d+)", f.read()).group(1))
    for rel in ("docs/kbench.1", "docs/reference.md"):
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            text = re.sub(r"\s+", " ", roff_text(f.read()))
        named = [int(n) for n in re.findall(r"schema versions 1 to (\d+)", text)]
        if not named:
            failures.append(f"{rel} does not say which schema versions kbench reads ('schema versions 1 to N')")
        elif any(n != version for n in named):
            failures.append(f"{rel} says schema versions 1 to {named}; the code's is {version} (results/db.h)")
        else:
            print(f"ok: {rel} names schema versions 1 to {version}")
    with open(os.path.join(ROOT, "docs", "schema.md"), encoding="utf-8") as f:
        title = re.match(r"# .*\(schema version (\d+)\)", f.readline())
    if not title or int(title.group(1)) != version:
        failures.append(f"docs/schema.md's title does not say '(schema version {version})' (results/db.h)")


def slugs(path):
    """The anchors of a markdown file's headings, as GitHub makes them."""
    seen, out = {}, set()
    fence = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("```"):
                fence = not fence
            if fence or not line.startswith("#"):
                continue
            text = line.lstrip("#").strip().lower()
            slug = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def check_links():
    docs = [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    n = 0
    for path in docs:
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if "../shared" in text:
            failures.append(f"{rel} points outside the repository (../shared)")
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue        # http:, mailto:
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            where = f"{rel}: ({target})"
            if not dest.startswith(ROOT + os.sep) or not os.path.exists(dest):
                failures.append(f"{where}: no such file in the repository")
                continue
            if anchor and dest.endswith(".md") and anchor not in slugs(dest):
                failures.append(f"{where}: {os.path.relpath(dest, ROOT)} has no heading #{anchor}")
                continue
            n += 1
    print(f"ok: {n} relative links of the documents lead to files and headings of the repository")


def check_readme_commands():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    block = readme.split("```sh\n", 1)[1].split("```", 1)[0].split("\n")
    cmds = [line.split("  #")[0].strip() for line in block if line.strip()]
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = [line.strip() for line in f if line.startswith("bash tools/setup.sh")]
    if len(cmds) != 2 or len(ci) != 1:
        failures.append(f"README.md's first code block holds the two commands ({cmds}), .ci/run one of them ({ci})")
        return
    if cmds[1] != ci[0]:
        failures.append(f"README.md's test command '{cmds[1]}' is not the one .ci/run runs: '{ci[0]}'")
    script = cmds[0].split("&&")[-1].strip().split()[0]
    if not cmds[0].startswith("bash tools/setup.sh && ") or not os.access(os.path.join(ROOT, script), os.X_OK):
        failures.append(f"README.md's main job '{cmds[0]}' is not tools/setup.sh and then an executable of the tree")
        return
    print(f"ok: README.md's commands are '{cmds[0]}' and .ci/run's '{ci[0]}'")


def main():
    with tempfile.TemporaryDirectory(prefix="kbench-docopts-") as home:
        verb_list = verbs(home)
        check_man(home, verb_list)
        check_reference(verb_list)
        check_commands(home, verb_list)
    check_schema_version()
    check_links()
    check_readme_commands()
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
