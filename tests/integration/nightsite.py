#!/usr/bin/env python3
"""The site over nights, end to end: three nights of `kbench nightly` on
real kernels and what the published site says of them.

The kernels are tiny ones of Debian's linux-source-6.1
(tests/integration/plants.py's, built into $KBENCH_PLANTS_CACHE): the base
as the baseline, and a plant that sleeps 200 ms in every fsync unless
vm.vfs_cache_pressure is set off its default
(bench/plants/sleep-fsync-sysctl.patch, its release renamed "-fsync-sleep"):
a regression with a sysctl that works around it.

Night 1: a directory source holds the baseline alone: nothing new, nothing
measured, no regression. Night 2: the plant is dropped in: measured beside
the baseline in one run and compared within it, its write phase waits
about 0.2 s longer: a new regression (guest.write.wait_s). Night 3: a
second source without a name, whose overrides set the sysctl, gets the
plant: measured again beside the baseline with the sysctl, under its own
name, it no longer waits longer, so the regression is fixed.

After each night the site (the night's publish_dir) is checked: feed.xml
parses (xml.etree) and carries RFC 4287's required elements, its entries
say new on night 2 and fixed on night 3, newest first, with ids that stay
the same from one publish to the next; the index shows the states and
announces the feed; every page has its data file beside it, which parses,
and the numbers of the index's regressions are those of the comparison's
data file and of its page. Publishing again writes nothing.

n = 5 a side, dd:size=64M: 20 cells of the tiny kernel."""
import json
import math
import os
import re
import shutil
import xml.etree.ElementTree as ET

from kbtest import expect, kb, temp_store

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CACHE = os.environ.get("KBENCH_PLANTS_CACHE", "/var/cache/kbench-plants")
REPEATS = 5
ATOM = "{http://www.w3.org/2005/Atom}"
RFC3339 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")
UUID5 = re.compile(r"^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def number_text(v):
    """report/text.c's text_format_num."""
    a = abs(v)
    if a >= 1e9:
        return f"{v:.4g}"
    if a >= 1000 or v == math.floor(v):
        return f"{v:.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    # three significant digits in plain decimals, at most nine
    return f"{v:.{min(2 - math.floor(math.log10(a)), 9)}f}"


def value_text(v, unit):
    """report/text.c's text_format_value: seconds scaled to µs, ms or s
    with three significant digits, other units as text_format_num."""
    if unit != "s":
        return number_text(v) + (" " + unit if unit else "")
    a = abs(v)
    k, u = (1e6, "µs") if 0 < a < 1e-3 else (1e3, "ms") if 0 < a < 1 else (1, "s")
    x = v * k
    d = 0 if x == 0 else max(0, min(2 - math.floor(math.log10(abs(x))), 9))
    return f"{x:.{d}f} {u}"


def change_text(m):
    """A judged metric's change as the pages print it: a percentage, or for
    an amount (a metric with a floor) the difference in its unit."""
    if m.get("floor"):
        return ("-" if m["diff"] < 0 else "+") + value_text(abs(m["diff"]), m["unit"])
    return f"{m['change_pct']:+.1f}%"


def build(name, patch=None):
    """A tiny kernel of the plants' cache, as tests/integration/plants.py builds them."""
    argv = ["kernel", "build", "/usr/src/linux-source-6.1.tar.xz", "--config", "tinyconfig",
            "--fragment", os.path.join(TOP, "tools", "tiny-kernel.config"),
            "--fragment", os.path.join(TOP, "bench", "plants", "plants.config"), "--name", name, "--json"]
    if patch:
        argv += ["--patch", os.path.join(TOP, "bench", "plants", patch)]
    os.makedirs(CACHE, mode=0o711, exist_ok=True)
    p = kb(CACHE, *argv, timeout=3600, check=False)
    if p.returncode != 0 and "is already taken" in p.stderr:
        kb(CACHE, "kernel", "remove", name)
        p = kb(CACHE, *argv, timeout=3600, check=False)
    expect(p.returncode == 0, f"kbench kernel build {name}: {p.stderr.strip()[-600:]}")
    return json.loads(p.stdout)


def config(path, sources, site, baseline):
    cfg = {"sources": sources, "baseline": baseline, "workloads": ["dd:size=64M"], "repeats": REPEATS,
           "deadline": "1h", "publish_dir": site}
    with open(path, "w") as f:
        json.dump(cfg, f)
    return path


def drop(kernel, into):
    os.makedirs(into, exist_ok=True)
    dst = os.path.join(into, "vmlinuz-" + kernel["release"])
    shutil.copyfile(kernel["image"], dst)
    # the dir source leaves a file modified in the last seconds for the next night
    os.utime(dst, (os.path.getmtime(dst) - 120,) * 2)


def feed(site):
    """The feed's entries (newest first) after checking RFC 4287's required elements."""
    root = ET.parse(os.path.join(site, "feed.xml")).getroot()
    expect(root.tag == ATOM + "feed", f"feed.xml is an Atom feed ({root.tag})")
    for name in ("id", "title", "updated"):
        el = root.find(ATOM + name)
        expect(el is not None and (el.text or "").strip(), f"the feed has its {name}")
    expect(RFC3339.match(root.find(ATOM + "updated").text), "the feed's updated is an RFC 3339 date")
    expect(root.find(ATOM + "author/" + ATOM + "name") is not None, "the feed has an author name")
    entries = []
    for e in root.findall(ATOM + "entry"):
        eid, title, updated = (e.find(ATOM + n) for n in ("id", "title", "updated"))
        links = [x for x in e.findall(ATOM + "link") if x.get("rel", "alternate") == "alternate"]
        expect(eid is not None and UUID5.match(eid.text or ""), f"entry id is a name-based UUID: {eid.text!r}")
        expect(title is not None and title.text, "entry has a title")
        expect(updated is not None and RFC3339.match(updated.text or ""), "entry updated is an RFC 3339 date")
        expect(links and os.path.exists(os.path.join(site, links[0].get("href"))),
               f"entry links a page of the site: {[x.get('href') for x in links]}")
        cat = e.find(ATOM + "category")
        entries.append({"id": eid.text, "title": title.text, "state": cat.get("term") if cat is not None else None,
                        "href": links[0].get("href")})
    expect(len({x["id"] for x in entries}) == len(entries), "entry ids are unique")
    return entries


def data_files(site):
    """Every page has its data file beside it, and each parses."""
    pages = [f for f in os.listdir(site) if f.endswith(".html")]
    for p in pages:
        with open(os.path.join(site, p[:-5] + ".json")) as f:
            d = json.load(f)
        if d.get("page") != p:
            expect(False, f"{p[:-5]}.json names its page ({d.get('page')!r})")
    print(f"ok: {len(pages)} pages, each with its data file")


def states(site):
    """The index's regression states, newest first, as {metric: [state, ...]}, each checked against its
    comparison's data file and page and shown on the index."""
    with open(os.path.join(site, "index.json")) as f:
        idx = json.load(f)
    with open(os.path.join(site, "index.html")) as f:
        html = f.read()
    expect('<link rel="alternate" type="application/atom+xml" title="kbench regressions" href="feed.xml"/>' in html,
           "the index announces the feed")
    out = {}
    for ev in idx["regressions"]:
        with open(os.path.join(site, ev["page"][:-5] + ".json")) as f:
            cmp = json.load(f)
        with open(os.path.join(site, ev["page"])) as f:
            page = f.read()
        m = [m for g in cmp["compare"]["groups"] for m in g["metrics"] if m["name"] == ev["metric"]][0]
        expect(abs(m["change_pct"] - ev["change_pct"]) < 1e-6 and m["verdict"] == ev["verdict"],
               f"the index's {ev['state']} {ev['metric']} carries its comparison's numbers ({ev['change_pct']:.2f} %)")
        shown = change_text(m)
        expect(shown in page and shown in html, f"the page and the index show the change {shown}")
        out.setdefault(ev["metric"], []).append(ev["state"])
    for state in {s for v in out.values() for s in v}:
        expect(f'state {"ok" if state == "fixed" else "bad"}">{state}<' in html, f"the index shows the state {state}")
    return out


def main():
    base, plant = build("6.1-base"), build("6.1-fsync-sleep", "sleep-fsync-sysctl.patch")
    name = plant["release"]
    with temp_store("kb-nightsite-") as home:
        plain, workaround, site = (os.path.join(home, d) for d in ("drop", "drop-sysctl", "site"))
        drop(base, plain)
        cfg = config(os.path.join(home, "night1.json"), [{"type": "dir", "path": plain}], site, base["release"])
        p = kb(home, "nightly", cfg, check=False)
        expect(p.returncode == 0 and "nothing new to measure" in p.stdout,
               f"night 1, the baseline alone, measures nothing and exits 0 ({p.returncode}: {p.stderr[-1500:]})")
        expect(not os.path.exists(os.path.join(site, "feed.xml")) or feed(site) == [],
               "night 1: no regression in the feed")

        drop(plant, plain)
        cfg = config(os.path.join(home, "night2.json"),
                     [{"type": "dir", "path": plain},
                      {"type": "dir", "path": workaround,
                       "overrides": {"sysctls": {"vm.vfs_cache_pressure": 101}}}], site, base["release"])
        p = kb(home, "nightly", cfg, check=False)
        expect(p.returncode == 4 and re.search(rf"^{re.escape(name)}: guest\.write\.wait_s \+", p.stdout, re.M),
               f"night 2 finds the plant's waiting worse ({p.returncode}: {p.stdout[-800:]})")
        night2 = feed(site)
        new2 = {m: v for m, v in states(site).items() if v == ["new"]}
        expect("guest.write.wait_s" in new2 and all(e["state"] == "new" for e in night2) and
               len(night2) == len(new2), f"night 2: the feed and the index say new ({[e['title'] for e in night2]})")
        expect(all(any(e["title"].startswith(f"new regression: {name} {m} ") for e in night2) for m in new2),
               f"each new regression has its entry: {sorted(new2)}")
        print("new on night 2:", sorted(new2))

        drop(plant, workaround)
        p = kb(home, "nightly", cfg, check=False)
        expect(p.returncode == 0 and f"nightly: measured {base['release']}, {name}" in p.stdout,
               f"night 3 measures the plant again beside the baseline, with the sysctl, and finds nothing worse "
               f"({p.returncode}: {p.stdout[-800:]})")
        night3 = feed(site)
        after = states(site)
        fixed = sorted(m for m in new2 if after.get(m) == ["fixed", "new"])
        expect("guest.write.wait_s" in fixed, f"night 3: the waiting regression of night 2 is fixed on the index "
                                              f"({after})")
        for m in fixed:
            mine = [e for e in night3 if e["title"].startswith((f"fixed: {name} {m} ", f"new regression: {name} {m} "))]
            expect([e["state"] for e in mine] == ["fixed", "new"], f"the feed says {m} fixed, then new")
            expect(mine[1]["id"] in {e["id"] for e in night2}, f"the night 2 entry of {m} keeps its id")
        print("fixed on night 3:", fixed)
        data_files(site)
        with open(os.path.join(site, "feed.xml"), "rb") as f:
            before = f.read()
        out = kb(home, "publish", "-o", site).stdout
        expect(re.search(r"publish: 0 pages written, \d+ unchanged$", out, re.M), f"publishing again: {out!r}")
        with open(os.path.join(site, "feed.xml"), "rb") as f:
            expect(f.read() == before, "the feed's bytes stay")


main()
