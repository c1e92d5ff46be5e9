#!/usr/bin/env python3
"""report/check-includes.py: the floor rule of docs/design.md, checked.

Each folder may include project headers only from the floors below it:

    cli -> nightly -> bisect -> run -> cell -> host -> workloads, guest, kernels -> common
                 \-> web -> report -> results -> common
           run -> store -> results
    plugin -> common
    host, report, web -> settings -> common

The orchestrating floors (host, cell, run, nightly, cli) may use the read
side (report, results) and the data floors; store/ only results/.
settings/ (what a run setting is: the option table, the guest's shape)
lies under the read side, so report/ and web/ read stored settings
through the same table that wrote them, and under host/, which takes the
guest's shape whole. report/
and web/ learn what a metric means from the public metric tables of
workloads/workload.h, the one workloads/ header they may include; the
report/ tests may include any workloads/ header (they run the parsers to
check the registry), the host/ tests report/'s metric registry, and the
cell/ tests web/ (a cell stored and read back as the site draws it).
Nothing includes cli/. fuzz/, bench/ and tests/ sit above everything.

Inside web/ the modules have floors of their own (WEB_LAYERS), so the
site's model cannot again call into the pass that renders it: the leaves
(page frame, output, charts, the test fixture, the regression state rule)
use no other web/ module; the model (what the pages read) only the
leaves; the shared page pieces and what is derived from the model over
time (history) the model; the page renderers, the feed and the data files
those; the publishing pass (site) sits on top. A web/ file may include a web/ header of its own module or of a
lower layer; every web/ file must be in the table, so a new one is placed
on purpose. web/test-*.c sit above the folder.

The folders are those on disk, not this table's: every top-level folder
that holds C sources (at any depth) must be a floor of BASE or one of
ABOVE, and every floor must be named in docs/design.md's floor table, so a
new folder is placed on purpose and documented, never skipped. Prints
every upward include, unknown folder and undocumented floor, and exits 1
if there is one.
Usage: check-includes.py SOURCE_ROOT"""
import os
import re
import sys

BASE = {
    "common": {"common"},
    "settings": {"common", "settings"},
    "kernels": {"common", "kernels"},
    "guest": {"common", "guest"},
    "plugin": {"common", "plugin"},
    "workloads": {"common", "workloads"},
    "results": {"common", "results"},
    "report": {"common", "settings", "results", "report"},
    "web": {"common", "settings", "results", "report", "web"},
    "store": {"common", "results", "store"},
    "host": {"common", "settings", "guest", "workloads", "host"},
}
BASE["cell"] = BASE["host"] | {"kernels", "results", "report", "cell"}
BASE["run"] = BASE["cell"] | {"store", "run"}
BASE["bisect"] = BASE["run"] | {"bisect"}
BASE["nightly"] = BASE["bisect"] | {"web", "nightly"}
BASE["cli"] = BASE["nightly"] | {"cli"}
ABOVE = {"fuzz", "bench", "tests"}     # above every floor: may include anything
PUBLIC = {"workloads/workload.h"}       # allowed in report/ and web/ beyond BASE
# test-*.c may use these folders too
TEST_EXTRA = {"report": {"workloads"}, "host": {"report"}, "cell": {"web"}}

# web/ modules by layer, lowest first (see the docstring).
WEB_LAYERS = [
    {"page", "output", "charts", "sitefixture", "regstate"},
    {"model"},
    {"sitehtml", "history"},
    {"pages"},
    {"indexpage", "runpage", "cellpage", "kernelpage", "comparepage", "bisectpage", "feed", "sitejson"},
    {"site"},
]
WEB_LAYER = {mod: i for i, mods in enumerate(WEB_LAYERS) for mod in mods}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def allowed(folder, filename, header):
    top = header.split("/", 1)[0] if "/" in header else folder
    if top in BASE[folder]:
        return True
    if folder in ("report", "web") and header in PUBLIC:
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
        return "is not placed in WEB_LAYERS of report/check-includes.py"
    if dep not in WEB_LAYER:
        return f"includes \"{header}\", not placed in WEB_LAYERS"
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


def documented_floors(root):
    """The folders that docs/design.md's floor table names in its first
    column ("run/", "workloads/, guest/, kernels/" at a line's start)."""
    with open(os.path.join(root, "docs", "design.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.find("## Floors and the include rule")
    parts = text[start:].split("```") if start >= 0 else []
    block = parts[1] if len(parts) > 2 else ""
    heads = re.findall(r"^((?:[a-z]+/(?:, )?)+)", block, re.M)
    return {name for head in heads for name in re.findall(r"([a-z]+)/", head)}


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
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = []
    checked = 0
    folders = source_folders(root)
    for folder in folders:
        if folder not in BASE and folder not in ABOVE:
            bad.append(f"{folder}/: a folder of C sources that the floor rule does not know: add it to BASE in "
                       f"report/check-includes.py and to docs/design.md's floor table")
    documented = documented_floors(root)
    for folder in sorted(BASE):
        if folder not in documented:
            bad.append(f"{folder}/: a floor missing from docs/design.md's floor table")
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
