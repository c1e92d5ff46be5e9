"""What the site's tests ask of headless Chromium: run it on a page (its
DOM, its network requests, a screenshot) and measure the layout of pages
at a given width. The pages carry a Content-Security-Policy that forbids
script, so the layout is measured from outside: a probe page of our own
loads each page in an iframe of that width (file:// pages may read each
other under --allow-file-access-from-files), measures it in a script once
it has loaded, and writes what it found into its own DOM, which
--dump-dom prints. Needs chromium (tools/setup.sh installs it)."""
import html
import json
import os
import re
import shutil
import subprocess
import sys

# Requests the browser makes on its own (time, updates, accounts), whatever
# the page: not the page's doing.
BROWSER_HOSTS = re.compile(r"^https?://([^/]*\.)?(google\.com|googleapis\.com|gvt1\.com|gstatic\.com|"
                           r"googleusercontent\.com|chrome\.com)(:\d+)?/")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND", "--enable-logging=stderr", "--v=1",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--no-first-run", "--disable-extensions",
]


def chromium(profile, url, *extra, timeout=120):
    """Run chromium on url; returns (stdout, the page's network requests)."""
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        sys.exit("FAIL: chromium is not installed (tools/setup.sh installs it)")
    p = subprocess.run([exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url],
                       capture_output=True, text=True, timeout=timeout)
    reqs = []
    for line in p.stderr.splitlines():
        m = re.search(r"NotifyBeforeURLRequest: (\S+)", line)
        if m and not BROWSER_HOSTS.match(m.group(1)):
            reqs.append(m.group(1))
    return p.stdout, reqs


def screenshot(profile, path, shot, width, height=3000):
    """The top height px of the page at path, width px wide, as a PNG at shot."""
    chromium(profile, "file://" + path, f"--screenshot={shot}", f"--window-size={width},{height}")


# Every <details> opened first (a reader opens them), then each figure,
# table and .scroll box that is shown: its content wider than its box (it
# scrolls or clips), or the box itself past its parent's content box; the
# page wider than the frame; and a chart drawn narrower than its viewBox,
# whose 12-unit labels would then be below 12 px.
PROBE = """<!DOCTYPE html><html><body><div id="frames"></div><pre id="out">pending</pre><script>
const pages = %(pages)s, width = %(width)d, res = [];
let left = pages.length;
function what(e, i) {
  return e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined ? '.' + e.className : '')
    + '#' + i + (e.querySelector('title, th') ? ' (' + e.querySelector('title, th').textContent.slice(0, 40) + ')' : '');
}
function measure(name, doc) {
  const bad = [], de = doc.documentElement;
  let boxes = 0, charts = 0;
  doc.querySelectorAll('details').forEach(d => { d.open = true; });
  if (de.scrollWidth > de.clientWidth + 1) bad.push(`the page: ${de.scrollWidth} px wide in ${de.clientWidth}`);
  doc.querySelectorAll('figure, table, .scroll').forEach((e, i) => {
    if (!e.getClientRects().length) return;
    boxes++;
    const p = e.parentElement, pr = p.getBoundingClientRect().right - parseFloat(getComputedStyle(p).paddingRight);
    const r = e.getBoundingClientRect();
    if (e.scrollWidth > e.clientWidth + 1) bad.push(`${what(e, i)}: content ${e.scrollWidth} px in ${e.clientWidth}`);
    else if (r.right > pr + 1) bad.push(`${what(e, i)}: ${Math.round(r.width)} px, ${Math.round(r.right - pr)} px past its box`);
  });
  doc.querySelectorAll('svg.chart').forEach((e, i) => {
    if (!e.getClientRects().length) return;
    charts++;
    const vb = e.viewBox.baseVal.width, w = e.getBoundingClientRect().width;
    if (w < vb - 0.5) bad.push(`${what(e, i)}: drawn ${Math.round(w)} px wide, its viewBox ${vb}: text below 12 px`);
  });
  res.push({page: name, bad: bad, boxes: boxes, charts: charts});
}
for (const p of pages) {
  const f = document.createElement('iframe');
  f.style.width = width + 'px';
  f.style.height = '900px';
  f.onload = () => {
    try { measure(p, f.contentDocument); } catch (err) { res.push({page: p, bad: ['not measured: ' + err]}); }
    if (--left === 0) document.getElementById('out').textContent = JSON.stringify(res);
  };
  f.src = p;
  document.getElementById('frames').appendChild(f);
}
</script></body></html>
"""


def layout_overflows(profile, pages, width, probe_dir):
    """Load pages (paths) at width px in headless Chromium; returns
    {page: (problems, boxes measured, charts shown)}."""
    probe = os.path.join(probe_dir, f"probe-{width}.html")
    with open(probe, "w", encoding="utf-8") as f:
        f.write(PROBE % {"pages": json.dumps(["file://" + os.path.abspath(p) for p in pages]), "width": width})
    dom, _ = chromium(profile, "file://" + probe, "--allow-file-access-from-files", "--virtual-time-budget=20000",
                      "--dump-dom", "--window-size=1500,1000", timeout=300)
    m = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    if not m or m.group(1) == "pending":
        sys.exit(f"FAIL: the layout probe at {width} px did not finish ({dom[-300:]!r})")
    text = html.unescape(m.group(1))
    return {os.path.basename(r["page"]): (r["bad"], r.get("boxes", 0), r.get("charts", 0)) for r in json.loads(text)}
