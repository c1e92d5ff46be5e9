#!/usr/bin/env python3
"""tools/check-includes.py: the include rule of docs/architecture.md, checked.

The rule is read from docs/architecture.md itself, from the tables that
follow its "<!-- check-includes: NAME -->" markers, so the map and the
check cannot disagree:

  floors   each folder and the folders it may include (besides its own);
           "everything" marks the folders above every floor (fuzz/, bench/,
           tests/)
  headers  single headers a folder may include beyond its row
  tests    folders a folder's test-*.c may include beyond its row
  web      web/'s modules by layer, lowest first: a web/ file may include
           a web/ header of its own module or of a lower layer, and every
           web/ file must be placed

Every include of every top-level folder holding C sources (at any depth)
is checked; a folder the floors table does not name fails too, so a new
folder is placed on purpose and documented. Prints every upward include
and unknown folder or module, and exits 1 if there is one.
Usage: check-includes.py SOURCE_ROOT"""
import os
import re
import sys

MAP = os.path.join("docs", "architecture.md")
FOLDER = re.compile(r"`([a-z]+)/`")
HEADER = re.compile(r"`([a-z]+/[A-Za-z0-9_.-]+\.h)`")
MODULE = re.compile(r"`([a-z]+)`")


def tables(text):
    """{NAME: [(first cell, second cell), ...]} for every table after a
    check-includes marker (its header and rule rows left out)."""
    found = {}
    for m in re.finditer(r"<!-- check-includes: ([a-z]+) -->\n((?:\|.*\|\n?)+)", text):
        rows = []
        for line in m.group(2).strip().splitlines()[2:]:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 2:
                rows.append((cells[0], cells[1]))
        found[m.group(1)] = rows
    return found


def load_rule(root):
    """BASE (folder: the folders it may include, its own among them),
    ABOVE, PUBLIC (folder: headers), TEST_EXTRA (folder: folders) and
    WEB_LAYER (module: layer) from docs/architecture.md."""
    with open(os.path.join(root, MAP), encoding="utf-8") as f:
        t = tables(f.read())
    base, above = {}, set()
    for first, second in t.get("floors", []):
        for folder in FOLDER.findall(first):
            if second == "everything":
                above.add(folder)
            else:
                base[folder] = set(FOLDER.findall(second)) | {folder}
    public = {f: set(HEADER.findall(h)) for first, h in t.get("headers", []) for f in FOLDER.findall(first)}
    tests = {f: set(FOLDER.findall(x)) for first, x in t.get("tests", []) for f in FOLDER.findall(first)}
    web = {mod: int(layer) for layer, mods in t.get("web", []) for mod in MODULE.findall(mods)}
    return base, above, public, tests, web


BASE, ABOVE, PUBLIC, TEST_EXTRA, WEB_LAYER = {}, set(), {}, {}, {}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def allowed(folder, filename, header):
    top = header.split("/", 1)[0] if "/" in header else folder
    if top in BASE[folder]:
        return True
    if header in PUBLIC.get(folder, ()):
        return True
    if filename.startswith("test-") and top in TEST_EXTRA.get(folder, ()):
        return True
    return False


def web_allowed(filename, header):
    """None when the include is fine, else why not."""
    if filename.startswith("test-"):
        return None
    mod = filename.rsplit(".", 1)[0]
    dep = os.path.basename(header).rsplit(".", 1)[0]
    if mod not in WEB_LAYER:
        return f"is not placed in {MAP}'s table of web/'s modules"
    if dep not in WEB_LAYER:
        return f"includes \"{header}\", not placed in {MAP}'s table of web/'s modules"
    if dep != mod and WEB_LAYER[dep] >= WEB_LAYER[mod]:
        return f"includes \"{header}\", not below it in web/"
    return None


def is_build_dir(path):
    """A meson build directory inside the source tree (generated C)."""
    return any(os.path.exists(os.path.join(path, f)) for f in ("build.ninja", "meson-private"))


def source_folders(root):
    """Top-level folders holding .c or .h files at any depth, with those
    files (paths relative to the folder), skipping hidden and build
    directories."""
    found = {}
    for top in sorted(os.listdir(root)):
        path = os.path.join(root, top)
        if top.startswith(".") or not os.path.isdir(path) or is_build_dir(path):
            continue
        files = []
        for d, dirs, names in os.walk(path):
            dirs[:] = sorted(x for x in dirs if not x.startswith(".") and not is_build_dir(os.path.join(d, x)))
            files += [os.path.relpath(os.path.join(d, n), path) for n in sorted(names) if n.endswith((".c", ".h"))]
        if files:
            found[top] = files
    return found


def check_file(folder, rel, text):
    """The number of includes checked and the upward ones' messages."""
    name = os.path.basename(rel)
    msgs = []
    headers = INCLUDE.findall(text)
    for header in headers:
        if not allowed(folder, name, header):
            msgs.append(f"{folder}/{rel}: includes \"{header}\", above its floor")
        elif folder == "web" and header.startswith("web/"):
            why = web_allowed(name, header)
            if why:
                msgs.append(f"web/{rel}: {why}")
    return len(headers), msgs


def main():
    global BASE, ABOVE, PUBLIC, TEST_EXTRA, WEB_LAYER
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = []
    checked = 0
    BASE, ABOVE, PUBLIC, TEST_EXTRA, WEB_LAYER = load_rule(root)
    if not BASE or not WEB_LAYER:
        print(f"{MAP}: no floors or web/ tables after check-includes markers")
        return 1
    folders = source_folders(root)
    for folder in folders:
        if folder not in BASE and folder not in ABOVE:
            bad.append(f"{folder}/: a folder of C sources that {MAP}'s floors table does not place")
    for folder in sorted(set(folders) & set(BASE)):
        for rel in folders[folder]:
            with open(os.path.join(root, folder, rel), encoding="utf-8", errors="replace") as f:
                n, msgs = check_file(folder, rel, f.read())
            checked += n
            bad += msgs
    for line in bad:
        print(line)
    print(f"{checked} project includes checked in {len(folders)} folders, {len(bad)} problems")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
