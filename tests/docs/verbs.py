#!/usr/bin/env python3
"""docs/architecture.md's table of verbs and what each needs is the verb
tables' own: cli/main.c's verbs[] and cli/cli_kernel.c's subcommands[].

Each row of the table names one or more verbs (`kernel add`, or `show`,
`compare`, `publish` in one row) and, in words, the CLI_* needs of their
rows: store (CLI_STORE), "(created" after it (CLI_CREATE), lock, kernel
store, signals, database or "database (created)" (CLI_DB, CLI_DB_CREATE),
hosts, or nothing (0). A verb in the code without a row, a row naming a
verb the code lacks, or needs that differ fail. doctor's row says it opens
each part in turn (its needs are 0: cli_setup_only does the opening).

Boots no guest. Usage: verbs.py SOURCE_ROOT"""
import os
import re
import sys

WORDS = {  # the table's words for each need, in the order a row gives them
    "CLI_STORE": "store", "CLI_CREATE": "created", "CLI_LOCK": "lock", "CLI_KSTORE": "kernel store",
    "CLI_SIGNALS": "signals", "CLI_DB": "database", "CLI_DB_CREATE": "database created", "CLI_HOSTS": "hosts",
}


def code_verbs(root):
    """{verb: set of CLI_* flags} from the two verb tables."""
    verbs = {}
    main = open(os.path.join(root, "cli", "main.c"), encoding="utf-8").read()
    table = main[main.index("} verbs[] = {") - 200:]
    table = table[:table.index("};")]
    for name, needs in re.findall(r'\{\s*"([a-z]+)",\s*cli_\w+,\s*([^,"]+),', table):
        if name != "kernel":  # its subcommands are the rows
            verbs[name] = set(re.findall(r"CLI_\w+", needs))
    kernel = open(os.path.join(root, "cli", "cli_kernel.c"), encoding="utf-8").read()
    table = kernel[kernel.index("} subcommands[] = {"):]
    table = table[:table.index("};")]
    for name, needs in re.findall(r'\{\s*"([a-z]+)",\s*kernel_\w+,\s*([^,"]+),', table):
        verbs["kernel " + name] = set(re.findall(r"CLI_\w+", needs))
    return verbs


def doc_rows(root):
    """[(verbs, needs text)] from architecture.md's | verb | needs | locks | table."""
    text = open(os.path.join(root, "docs", "architecture.md"), encoding="utf-8").read()
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith("| verb | needs |"):
            inside = True
            continue
        if inside and not line.startswith("|"):
            break
        if inside and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows.append((re.findall(r"`([a-z ]+)`", cells[0]), cells[1]))
    return rows


def doc_needs(text):
    """The set of CLI_* flags a row's words name."""
    if "cli_setup_only" in text or text == "nothing":
        return set()
    flags = set()
    for part in re.split(r",\s*(?![^()]*\))", text):
        part = part.strip()
        base = re.sub(r"\s*\(.*\)$", "", part)
        created = "(created" in part
        if base == "database":
            flags.add("CLI_DB_CREATE" if created else "CLI_DB")
            continue
        flag = {"store": "CLI_STORE", "lock": "CLI_LOCK", "kernel store": "CLI_KSTORE", "signals": "CLI_SIGNALS",
                "hosts": "CLI_HOSTS"}.get(base)
        if flag is None:
            raise SystemExit(f"FAIL: docs/architecture.md: the needs '{part}' are not words of the verb table")
        flags.add(flag)
        if created:
            flags.add("CLI_CREATE")
    return flags


def normal(flags):
    """A store that is created is a store: CLI_CREATE implies CLI_STORE."""
    return flags - {"CLI_STORE"} if "CLI_CREATE" in flags else flags


def main():
    root = sys.argv[1]
    verbs, failed = code_verbs(root), []
    if len(verbs) < 10:
        raise SystemExit(f"FAIL: read {len(verbs)} verbs from cli/main.c and cli/cli_kernel.c: the tables moved?")
    seen = set()
    for names, needs in doc_rows(root):
        want = doc_needs(needs)
        for n in names:
            seen.add(n)
            if n not in verbs:
                failed.append(f"docs/architecture.md names a verb '{n}' the code does not have")
            elif normal(verbs[n]) != normal(want):
                failed.append(f"{n}: the code needs {sorted(verbs[n])}, docs/architecture.md says "
                              f"{sorted(want)} ('{needs}')")
    for n in sorted(set(verbs) - seen):
        failed.append(f"{n}: a verb of the code without a row in docs/architecture.md's verb table")
    for f in failed:
        print("FAIL:", f)
    if failed:
        sys.exit(1)
    print(f"ok: docs/architecture.md's verb table matches the code's {len(verbs)} verbs and their needs")


if __name__ == "__main__":
    main()
