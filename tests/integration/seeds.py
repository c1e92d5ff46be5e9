#!/usr/bin/env python3
"""Integration test of the seed experiment of 2002 (Kropelin), scaled down:
an FTP upload into ext3 data=ordered on a slow disk with 160 MiB of RAM,
the link limited to a rate (libcurl's upload limit). What must hold at any
host speed: the rate limit is an upper bound the transfer never beats by
more than a tenth, so the upload takes at least size/rate seconds, which is
what guarantees the upload window at least 10 vmstat samples (size/rate is
12 s here; on a fast host the rate limit, not the host, sets the length);
the cell's plain vmstat.* describe the upload, and the upload and the sync
have their own vmstat.upload.* and vmstat.sync.*. The agent samples every
0.5 s (--vmstat-interval): the rows must come that often, and the window
rule takes half of that interval. Needs the 6.1.0-47 .deb in
$KBENCH_DEBS (tools/setup.sh)."""
import json

from kbtest import debs, expect, kb, temp_store

SIZE = 48 << 20
RATE = 4 << 20          # bytes/s: "4M" is 4 MiB/s
DISK_MBPS = 8
INTERVAL = 0.5


def main():
    found = debs("linux-image-6.1.0-47-amd64-unsigned_*.deb", 1)
    expect(SIZE / RATE >= 10, f"size/rate = {SIZE / RATE:.1f} s >= 10 s: the window is set by the limit")
    with temp_store("kbench-it-seeds-") as home:
        name = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)["name"]
        p = kb(home, "run", "-k", name, "-w", "ftp:size=48M,rate=4M", "--disk-mbps", str(DISK_MBPS),
               "--mem", "160", "--cpus", "2", "--fs", "ext3", "--mount-opts", "data=ordered",
               "--vmstat-interval", str(INTERVAL), "--json")
        run = json.loads(p.stdout)
        cells = run["cells"]
        expect(len(cells) == 1 and cells[0]["state"] == "ok",
               f"one cell, ok: {[(c['state'], c.get('detail')) for c in cells]}")
        cell = json.loads(kb(home, "show", str(run["run"]["id"]), "--cell", "c000", "--json").stdout)
        m = {k: v.get("value") for k, v in cell["metrics"].items()}

        mbps = m.get("ftp.MBps")
        expect(mbps is not None and mbps * 1e6 <= RATE * 1.1,
               f"ftp.MBps {mbps} MB/s <= the limit {RATE / 1e6:.3f} MB/s x 1.1")
        expect(m["ftp.upload_s"] >= SIZE / RATE / 1.1,
               f"ftp.upload_s {m['ftp.upload_s']:.2f} s >= size/rate / 1.1 = {SIZE / RATE / 1.1:.2f} s")
        limit = [p["value"] for p in cell["timeline"] if p["kind"] == "ftp.rate_limit"]
        expect(limit and all(v == RATE for v in limit), f"the timeline shows the limit: {limit[:3]}")

        expect(m.get("vmstat.upload.samples", 0) >= 10,
               f"vmstat.upload.samples {m.get('vmstat.upload.samples')} >= 10")
        # Stall seconds are rows x interval: a multiple of the interval, never more than the upload.
        st = m.get("vmstat.upload.stall_total_s")
        expect(st is not None and abs(st / INTERVAL - round(st / INTERVAL)) < 1e-9 and st <= m["ftp.upload_s"] + 1,
               f"vmstat.upload.stall_total_s {st} s: whole rows of {INTERVAL} s within the upload")
        expect(m.get("vmstat.samples") == m.get("vmstat.upload.samples"),
               f"the cell's vmstat.samples ({m.get('vmstat.samples')}) are the upload's")
        for k in ("vmstat.stall_longest_s", "vmstat.upload.stall_longest_s", "vmstat.upload.bo_mean",
                  "vmstat.sync.samples"):
            expect(k in cell["metrics"], f"{k} stored: {m.get(k)}")
        rows = [r for r in cell["vmstat"] if not r["first"]]
        gaps = sorted(b["t_guest"] - a["t_guest"] for a, b in zip(rows, rows[1:]))
        median = gaps[len(gaps) // 2]
        expect(abs(median - INTERVAL) < 0.1, f"rows every {median:.3f} s (guest clock) at --vmstat-interval {INTERVAL}")
        # The upload window by the rule "a row arriving at t describes the
        # interval before it": rows whose interval is at least half inside.
        pts = [p["t"] for p in cell["timeline"] if p["kind"] == "ftp.bytes"]
        inside = [r for r in rows if pts[0] + INTERVAL / 2 <= r["t_host"] <= pts[-1] + INTERVAL / 2]
        expect(m["vmstat.upload.samples"] == len(inside),
               f"vmstat.upload.samples = the {len(inside)} rows mostly inside the upload")
    print("1 passed, 0 failed")


main()
