#!/usr/bin/env python3
"""End-to-end test of `kbench publish`: publish a store holding real runs
(dd and ftp cells of two kernels), open the index, a run, a comparison, a
bisection and a dd and an ftp cell page in headless Chromium, and check
that each page renders its tables and SVG charts, makes no network
request, shows hostile text from the database as text, and that the
shaded stall runs and halts count what the cells' metrics say. The
comparison shows each judged metric's samples and history; every page has
its data file beside it, which parses; the index announces feed.xml,
which parses as XML with the hostile text escaped. Publishing again must
write 0 pages.
At phone width (400 px) no figure, table or .scroll box of the index, the
run, the comparison, the bisection, a cell and a kernel page is wider than
its box, and no chart is drawn below its viewBox's width (browser.py).
Screenshots (1400 px wide, and the index, the run and the comparison at
phone width, 400 px) are kept in the artifacts directory (second
argument).

Data: with $KBENCH_PUBLISH_STORE set, a copy of that store (e.g. one made
by `kbench run` earlier); otherwise the test makes its own: both Debian
kernels of $KBENCH_DEBS, -w dd:size=32M -w ftp:size=32M, n = 2, 160 MiB,
ext3 data=ordered, tagged with the hostile text. Either way hostile text is
then planted in the copy's database (a run tag, a console log line, a
night of kbench nightly comparing the run's two kernels and a bisection
over the run, both naming hostile text).
Needs chromium (tools/setup.sh installs it)."""
import json
import os
import re
import shutil
import sqlite3
import sys
import xml.etree.ElementTree as ET

from browser import chromium, layout_overflows
from kbtest import debs, expect, kb, temp_store

ART = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "publish-artifacts")
HOSTILE = "<img src=x onerror=alert(1)>"
HOSTILE_DOM = "&lt;img src=x onerror=alert(1)&gt;"
def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    expect(head[:8] == b"\x89PNG\r\n\x1a\n", f"{os.path.basename(path)} is a PNG")
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


def make_data(home):
    found = debs("linux-image-6.1.0-*-amd64-unsigned_*.deb", 2)
    names = [json.loads(kb(home, "kernel", "add", "--json", d).stdout)["name"] for d in found]
    args = ["run", "--tag", HOSTILE, "-n", "2", "--mem", "160", "--fs", "ext3", "--mount-opts", "data=ordered",
            "-w", "dd:size=32M", "-w", "ftp:size=32M"]
    for n in names:
        args += ["-k", n]
    # A failed cell is part of what the site shows; only a run that stored nothing fails here.
    kb(home, *args, check=False, timeout=3000)


def plant_hostile(db_path):
    """Hostile text where kbench does not restrict it: a run tag and a line of
    a cell's console log, straight into the store's database."""
    con = sqlite3.connect(db_path)
    last = con.execute("SELECT max(id) FROM runs").fetchone()[0]
    con.execute("UPDATE runs SET tag = ? WHERE id = ?", (HOSTILE, last))
    cell = con.execute("SELECT min(c.id) FROM cells c JOIN logs l ON l.cell_id = c.id "
                       "WHERE c.run_id = ? AND l.stream = 'console'", (last,)).fetchone()[0]
    con.execute("UPDATE logs SET text = CAST(text || ? AS BLOB) WHERE cell_id = ? AND stream = 'console'",
                ("\n" + HOSTILE + "</pre><script>alert(2)</script>\n", cell))
    names = []
    for (name,) in con.execute("SELECT k.name FROM cells c JOIN kernels k ON k.id = c.kernel_id WHERE c.run_id = ? "
                               "ORDER BY c.id", (last,)):
        if name not in names:
            names.append(name)
    night = con.execute("INSERT INTO nights(started_at, baseline, alpha, noise) VALUES (1764600000, ?, 0.05, 0.02)",
                        (names[0],)).lastrowid
    con.execute("INSERT INTO night_compares VALUES (?, 0, ?, ?, ?)",
                (night, HOSTILE, f"run:{last}:{names[0]}", f"run:{last}:{names[-1]}"))
    bis = con.execute("INSERT INTO bisections(started_at, finished_at, status, workload, metric, source, good, bad, "
                      "settings_json, outcome, first_bad, summary_json) VALUES (1764700000, 1764700600, 'done', "
                      "'dd', 'dd.write_MBps', 'kernels', ?, ?, '{}', 'first-bad', ?, "
                      "'{\"confirmed\": true, \"change\": -0.1}')", (names[0], HOSTILE, HOSTILE)).lastrowid
    for step, role, cand, means in ((0, "ends", names[0], (100, 90, 90)), (1, "confirm", HOSTILE, (100, 90, None))):
        con.execute("INSERT INTO bisect_steps(bisection_id, step, role, candidate, run_ids, rounds, vs_good, decision, "
                    "mean_good, mean_cand, mean_bad, note) VALUES (?, ?, ?, ?, ?, 2, 'different', 'bad', ?, ?, ?, ?)",
                    (bis, step, role, cand, f"[{last}]", *means, HOSTILE))
    con.commit()
    con.close()
    return last, bis


def page_checks(profile, site, name, tables, svgs, hostile):
    """Open one page; check tables, charts, hostile text, requests; screenshot it."""
    url = "file://" + os.path.join(site, name)
    dom, reqs = chromium(profile, url, "--dump-dom")
    expect(dom.count("<table") >= tables, f"{name}: {dom.count('<table')} tables rendered (>= {tables})")
    n_svg = len(re.findall(r"<svg\b", dom))
    expect(n_svg >= svgs, f"{name}: {n_svg} SVG charts rendered (>= {svgs})")
    if svgs:
        drawn = len(re.findall(r"<svg\b(?:(?!</svg>).)*?<(?:path|rect)\b", dom, re.S))
        expect(drawn >= svgs, f"{name}: {drawn} charts have lines or bars")
    expect(not re.search(r"<img\b|<script\b", dom), f"{name}: no <img> or <script> element in the DOM")
    if hostile:
        expect(HOSTILE_DOM in dom, f"{name}: the hostile text shows as text")
    expect(not reqs, f"{name}: no network request ({reqs[:3]})")
    with open(os.path.join(site, name), encoding="utf-8") as f:
        src = f.read()
    ext = re.findall(r"""(?:src|href)\s*=\s*["']?\s*(?:[a-z][a-z0-9+.-]*:|//)""", src, re.I)
    expect(not ext, f"{name}: no src/href with a scheme in the source ({ext[:3]})")
    shot = os.path.join(ART, name.replace(".html", ".png"))
    chromium(profile, url, f"--screenshot={shot}", "--window-size=1400,2000")
    w, h = png_size(shot)
    expect(w == 1400 and os.path.getsize(shot) > 20000, f"{name}: screenshot {w}x{h}, {os.path.getsize(shot)} bytes")
    return dom


def main():
    os.makedirs(ART, exist_ok=True)
    with temp_store("kbench-it-publish-") as home:
        src = os.environ.get("KBENCH_PUBLISH_STORE")
        if src:
            shutil.copy2(os.path.join(src, "results.db"), os.path.join(home, "results.db"))
        else:
            make_data(home)
        kb(home, "show")     # a copied store of an older schema gains the tables planted into
        run_id, bis = plant_hostile(os.path.join(home, "results.db"))
        site = os.path.join(home, "site")
        profile = os.path.join(home, "chromium-profile")

        # The detector can fail: a page with an external image is caught.
        bad = os.path.join(home, "bad.html")
        with open(bad, "w") as f:
            f.write('<p>x</p><img src="http://example.invalid/x.png">')
        _, reqs = chromium(profile, "file://" + bad, "--dump-dom")
        expect(any("example.invalid" in r for r in reqs), "the request detector sees a planted external image")

        out = kb(home, "publish").stdout
        m = re.search(r"publish: (\d+) pages? written, (\d+) unchanged", out)
        expect(m and int(m.group(1)) > 5 and m.group(2) == "0", f"first publish: {out.splitlines()[0]}")

        index = page_checks(profile, site, "index.html", 2, 0, True)
        expect(re.search(r'<link rel="alternate" type="application/atom\+xml" title="kbench regressions" '
                         r'href="feed.xml"/?>', index), "the index announces the feed")
        with open(os.path.join(site, "feed.xml"), encoding="utf-8") as f:
            feed = f.read()
        root = ET.fromstring(feed)
        expect(root.tag == "{http://www.w3.org/2005/Atom}feed" and "<img" not in feed,
               "feed.xml parses as an Atom feed, nothing of the database as markup")
        pages = [f for f in os.listdir(site) if f.endswith(".html")]
        for name in pages:
            with open(os.path.join(site, name[:-5] + ".json"), encoding="utf-8") as f:
                data = json.load(f)
            if data.get("page") != name:
                expect(False, f"{name[:-5]}.json names its page")
        expect(pages, f"each of the {len(pages)} pages has its data file beside it, which parses")
        expect(f'href="bisect-{bis}.html"' in index, "the index links the bisection's page")
        dom = page_checks(profile, site, f"bisect-{bis}.html", 2, 1, True)
        expect("First bad:" in dom and f'href="run-{run_id}.html"' in dom,
               "the bisection's page gives the answer and links its steps' runs")
        run = f"run-{run_id}.html"
        expect(f'href="{run}"' in index, f"the index links {run}")
        run_dom = page_checks(profile, site, run, 4, 2, True)
        compares = sorted(set(re.findall(r'href="(compare-[^"]+\.html)"', run_dom)))
        # Each kernel with the upstream version its .deb was built from.
        for d in debs("linux-image-6.1.0-*-amd64-unsigned_*.deb", 2):
            up = re.search(r"_(\d+\.\d+\.\d+)-[^_]*_amd64\.deb$", d).group(1)
            expect(f"(upstream {up})" in run_dom, f"the run page names upstream {up}")
        expect(compares, f"the run page links a comparison: {compares}")
        cmp_dom = page_checks(profile, site, compares[0], 2, 4, True)
        expect("p (t)" in cmp_dom and "mde" in cmp_dom and "n for 5%" in cmp_dom,
               "the comparison table has p-values and the minimum detectable effect")
        judged = len(re.findall(r"<title>[^<]*: samples</title>", cmp_dom))
        histories = len(re.findall(r"<title>[^<]*: history</title>", cmp_dom))
        expect(judged > 0 and histories <= judged,
               f"each judged metric's samples are drawn ({judged}), its history where there is one ({histories})")
        rows = cmp_dom.count('<g class="forest-row">')
        expect(rows >= judged and cmp_dom.find('class="forest-row"') < cmp_dom.find('<table class="cmp">'),
               f"the summary chart comes first, a row per judged metric ({rows})")
        expect(re.search(r"<h2>Latest verdicts</h2>", index) and index.find("<h2") == index.find("<h2>Latest"),
               "the index opens with the latest verdicts")
        expect("kbench nightly of" in cmp_dom, "the night's comparison says which night made it")
        coloured = len(re.findall(r'class="(?:num )?(?:worse|better)"', cmp_dom))
        verdicts = len(re.findall(r'<td[^>]* class="(?:worse|better)">(?:worse|better)</td>', cmp_dom))
        expect(coloured >= verdicts and (verdicts > 0) == (coloured > 0),
               f"colour only where a verdict exists ({verdicts} verdicts, {coloured} coloured cells)")
        # phone width
        for name, page in (("compare", compares[0]), ("index", "index.html"), ("run", run)):
            shot = os.path.join(ART, f"{name}-phone.png")
            chromium(profile, "file://" + os.path.join(site, page), f"--screenshot={shot}",
                     "--window-size=400,2000")
            expect(png_size(shot)[0] == 400, f"{name} screenshot at phone width")
        shutil.copy2(os.path.join(ART, compares[0].replace(".html", ".png")), os.path.join(ART, "compare.png"))

        cells = re.findall(r'<a href="(cell-[^"]+\.html)">[^<]*</a></td><td[^>]*><a href="kernel-[^"]*">[^<]*</a></td>'
                           r'<td[^>]*>(dd|ftp)</td>', run_dom)
        for workload in ("dd", "ftp"):
            pages = [c for c, w in cells if w == workload]
            expect(pages, f"the run has a {workload} cell page")
            dom = page_checks(profile, site, pages[0], 1, 4 if workload == "dd" else 5,
                              workload == "dd" and HOSTILE_DOM in open(os.path.join(site, pages[0])).read())
            key = re.search(r"cell-\d+-(.+)\.html", pages[0]).group(1)
            shown = json.loads(kb(home, "show", str(run_id), "--cell", key, "--json").stdout)
            metrics = {k: v.get("value") for k, v in shown["metrics"].items()}
            stalls = int(re.search(r"(\d+) writeout stall runs? shaded", dom).group(1))
            expect(stalls == metrics.get("vmstat.stall_count"),
                   f"{pages[0]}: {stalls} stall runs shaded = vmstat.stall_count {metrics.get('vmstat.stall_count')}")
            if workload == "ftp":
                halts = int(re.search(r"(\d+) halts? of at least 1 s shaded", dom).group(1))
                expect(halts == metrics.get("ftp.halt_count"),
                       f"{pages[0]}: {halts} halts shaded = ftp.halt_count {metrics.get('ftp.halt_count')}")
        hostile_cell = [c for c, _ in cells if HOSTILE_DOM in open(os.path.join(site, c)).read()]
        expect(hostile_cell, "the planted console line is on its cell's page, escaped")

        # A phone: nothing of these pages wider than its box, no chart text below 12 px.
        kernels = sorted(f for f in os.listdir(site) if f.startswith("kernel-") and f.endswith(".html"))
        shown = ["index.html", run, compares[0], f"bisect-{bis}.html", *(c for c, _ in cells[:2]), *kernels[:1]]
        shown += [c for c, w in cells if w == "ftp"][:1]
        found = layout_overflows(profile, [os.path.join(site, p) for p in shown], 400, home)
        for page in shown:
            bad, boxes, charts = found.get(page, (["not measured"], 0, 0))
            expect(not bad, f"400 px: {page}: {boxes} boxes and {charts} charts fit"
                            + ("" if not bad else ":\n  " + "\n  ".join(bad[:12])))

        out = kb(home, "publish").stdout
        expect(re.search(r"publish: 0 pages written, \d+ unchanged$", out, re.M),
               f"publishing again: {out.splitlines()[0]}")


if __name__ == "__main__":
    main()
