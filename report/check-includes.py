#!/usr/bin/env python3
"""report/check-includes.py: the floor rule of docs/design.md, checked.

Each folder may include project headers only from the floors below it:

    cli -> nightly -> bisect -> run -> cell -> host -> workloads, guest, kernels -> common
                 \-> web -> report -> results -> common
           run -> store -> results
    plugin -> common

The orchestrating floors (host, cell, run, nightly, cli) may use the read
side (report, results) and the data floors; store/ only results/. report/
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
on purpose. web/test-*.c sit above the folder. Prints every upward include
and exits 1 if there is one.
Usage: check-includes.py SOURCE_ROOT"""
import os
import re
import sys

BASE = {
    "common": {"common"},
    "kernels": {"common", "kernels"},
    "guest": {"common", "guest"},
    "plugin": {"common", "plugin"},
    "workloads": {"common", "workloads"},
    "results": {"common", "results"},
    "report": {"common", "results", "report"},
    "web": {"common", "results", "report", "web"},
    "store": {"common", "results", "store"},
    "host": {"common", "guest", "workloads", "host"},
}
BASE["cell"] = BASE["host"] | {"kernels", "results", "report", "cell"}
BASE["run"] = BASE["cell"] | {"store", "run"}
BASE["bisect"] = BASE["run"] | {"bisect"}
BASE["nightly"] = BASE["bisect"] | {"web", "nightly"}
BASE["cli"] = BASE["nightly"] | {"cli"}
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


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    bad = 0
    checked = 0
    for folder in sorted(BASE):
        path = os.path.join(root, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(path, name), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for header in INCLUDE.findall(text):
                checked += 1
                if not allowed(folder, name, header):
                    print(f"{folder}/{name}: includes \"{header}\", above its floor")
                    bad += 1
                elif folder == "web" and header.startswith("web/"):
                    why = web_allowed(name, header)
                    if why:
                        print(f"web/{name}: {why}")
                        bad += 1
    print(f"{checked} project includes checked, {bad} upward")
    return 1 if bad or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
