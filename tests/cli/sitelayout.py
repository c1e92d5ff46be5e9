#!/usr/bin/env python3
"""The published site read on a phone and on a wide screen: the golden
store (tests/golden/store.sql, as tests/cli/golden.py loads it) published,
and every page loaded in headless Chromium at 400 px and at 1400 px wide.
No figure, table or .scroll box may be wider than its box (scroll
sideways or be clipped), no page wider than the screen, and no chart
drawn narrower than its viewBox (its 12-unit labels would be below
12 px). Screenshots of the index, the comparison, a run, a cell and a
kernel page at both widths go to the artifacts directory (second
argument). Then what a kernel developer reads there: the kernel page
headlines what compare judges of these cells (under TCG with an
unthrottled disk, not dd's rates), times in µs/ms/s, the host's bytes in
the guest's MiB, and no chart value "0.000". Boots no guest; needs
chromium (tools/setup.sh installs it).
Usage: sitelayout.py KBENCH [ARTIFACTS]"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from browser import layout_overflows, screenshot  # noqa: E402
from golden import load_store  # noqa: E402
from kbtest import expect, kb, temp_store  # noqa: E402

ART = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else "site-layout-artifacts")
WIDTHS = (400, 1400)


def read(site, page):
    with open(os.path.join(site, page), encoding="utf-8") as f:
        return f.read()


def reader_checks(site):
    """Units and what comes first, on the golden store's pages."""
    kernel = read(site, "kernel-6.1.0-47-amd64.html")
    other = kernel.find("<details><summary>Other metrics (")
    head = kernel[:other]
    expect(other > 0 and ">guest.<wbr>write.<wbr>wait_<wbr>s</th>" in head and "dd.<wbr>read_" not in head
           and ">dd.<wbr>read_<wbr>MBps</th>" in kernel[other:],
           "the kernel page headlines the judged measures, dd's rates (paced by TCG) folded below")
    cell = read(site, "cell-1-c000.html")
    expect(cell.find("<svg ") < cell.find("<h2>Judged metrics</h2>") < cell.find("<summary>Other metrics ("),
           "the cell page: charts, then the judged metrics, then the rest")
    expect(re.search(r">guest\.<wbr>write\.<wbr>wait_<wbr>s</td><td[^>]*>[\d.]+ (µs|ms)</td>", cell),
           "a cell's wait in µs or ms")
    mib = re.search(r">host\.<wbr>disk_<wbr>written_<wbr>MB</td><td[^>]*>([\d.]+) MiB<", cell)
    expect(mib and re.search(r">vmstat\.<wbr>disk_<wbr>written_<wbr>MiB</td><td[^>]*>[\d.]+ MiB<", cell),
           f"the host's and the guest's bytes written both in MiB ({mib and mib.group(1)})")
    zero = [p for p in os.listdir(site) if p.endswith(".html") and ">0.000<" in read(site, p)]
    expect(not zero, f"no chart or table shows a figure as 0.000 ({zero[:3]})")


def main():
    os.makedirs(ART, exist_ok=True)
    with temp_store("kbench-sitelayout-") as home:
        load_store(home)
        site = os.path.join(home, "site")
        kb(home, "publish", "-o", site)
        reader_checks(site)
        pages = sorted(f for f in os.listdir(site) if f.endswith(".html"))
        kinds = {kind: next((p for p in pages if p.startswith(kind)), None)
                 for kind in ("index", "compare-", "run-", "cell-", "kernel-")}
        expect(all(kinds.values()), f"the golden site has every kind of page ({kinds})")
        profile = os.path.join(home, "chromium-profile")
        for width in WIDTHS:
            found = layout_overflows(profile, [os.path.join(site, p) for p in pages], width, home)
            expect(sorted(found) == pages, f"{width} px: all {len(pages)} pages measured")
            for page in pages:
                bad, boxes, charts = found[page]
                expect(not bad, f"{width} px: {page}: {boxes} boxes and {charts} charts fit"
                                + ("" if not bad else ":\n  " + "\n  ".join(bad[:12])))
            for kind, page in kinds.items():
                shot = os.path.join(ART, f"{kind.rstrip('-')}-{width}.png")
                screenshot(profile, os.path.join(site, page), shot, width)
                expect(os.path.getsize(shot) > 10000, f"{width} px: {page} screenshot {shot}")


if __name__ == "__main__":
    main()
