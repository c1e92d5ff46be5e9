#!/usr/bin/env python3
"""Integration test of the FTP ingest (issue 5): import a real Debian kernel,
upload 32 MiB with libcurl into vsftpd in the guest (ext3 data=ordered,
160 MB of RAM, as in the seed post), and check what was stored: the cell is
ok, the ftp.* and vmstat.* metrics exist, the ftp.bytes timeline keeps its
10 Hz schedule, is monotonic and ends at exactly the file size, and the metrics agree with the
timeline and the vmstat rows they were computed from (upload time = span of
the timeline, setup time ends at its first byte, halts recomputed from it,
vmstat.samples = the rows inside the upload window), and the host's block
statistics of the disk: read once a second over the workload, they saw at
least the file written. Needs the 6.1.0-47 .deb in $KBENCH_DEBS (tools/setup.sh)."""
import json

from kbtest import debs, expect, expect_vmstat_per_second, kb, temp_store

SIZE = 32 << 20

def halts(points, min_s=1.0):
    """Flat runs of the timeline that begin and end with an increase (as
    ftp_halts: the run before the first byte and after the last do not count)."""
    found, start = [], 0
    for i in range(1, len(points)):
        if points[i][1] == points[start][1]:
            continue
        if start > 0 and points[i - 1][0] - points[start][0] >= min_s:
            found.append(points[i - 1][0] - points[start][0])
        start = i
    return found


def main():
    found = debs("linux-image-6.1.0-47-amd64-unsigned_*.deb", 1)
    with temp_store("kbench-it-ftp-") as home:
        name = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)["name"]
        p = kb(home, "run", "-k", name, "-w", "ftp:size=32M", "--mem", "160", "--fs", "ext3",
               "--mount-opts", "data=ordered", "--json")
        run = json.loads(p.stdout)
        cells = run["cells"]
        expect(len(cells) == 1 and cells[0]["state"] == "ok",
               f"one cell, ok: {[(c['state'], c.get('detail')) for c in cells]}")
        cell = json.loads(kb(home, "show", str(run["run"]["id"]), "--cell", "c000", "--json").stdout)
        m = {k: v.get("value") for k, v in cell["metrics"].items()}

        for k in ("ftp.ingest_s", "ftp.upload_s", "ftp.MBps"):
            expect(m.get(k) is not None and m[k] > 0, f"{k} = {m.get(k)}")
        for k in ("ftp.sync_s", "ftp.halt_count", "ftp.halt_longest_s", "ftp.halt_total_s",
                  "vmstat.samples", "vmstat.stall_count", "vmstat.stall_longest_s",
                  "vmstat.stall_total_s", "vmstat.stall_fraction"):
            expect(m.get(k) is not None and m[k] >= 0, f"{k} = {m.get(k)}")
        expect(m["ftp.ingest_s"] >= m["ftp.upload_s"] + m["ftp.sync_s"] - 1e-3,
               f"ingest {m['ftp.ingest_s']:.3f} s >= upload {m['ftp.upload_s']:.3f} s + sync {m['ftp.sync_s']:.3f} s")

        pts = [(p["t"], p["value"]) for p in cell["timeline"] if p["kind"] == "ftp.bytes"]
        expect(all(b[0] >= a[0] and b[1] >= a[1] for a, b in zip(pts, pts[1:])),
               "the timeline is monotonic in time and bytes")
        expect(pts[0][1] == 0 and pts[-1][1] == SIZE,
               f"the timeline runs from 0 to the file size: {pts[0][1]:.0f} .. {pts[-1][1]:.0f} of {SIZE}")
        # A point every 100 ms over the upload, however long it took: never
        # more than the schedule allows, never a long hole in it.
        span = pts[-1][0] - pts[0][0]
        gaps = [b[0] - a[0] for a, b in zip(pts, pts[1:])]
        expect(len(pts) <= span / 0.1 + 3, f"{len(pts)} timeline points over {span:.3f} s: at most 10 Hz")
        expect(max(gaps) <= 1.5 and span / (len(pts) - 1) <= 0.3,
               f"{len(pts)} timeline points over {span:.3f} s: largest gap {max(gaps):.3f} s, "
               f"mean {span / (len(pts) - 1):.3f} s (10 Hz schedule)")
        expect(abs(span - m["ftp.upload_s"]) < 1e-3,
               f"ftp.upload_s {m['ftp.upload_s']:.4f} s = span of the timeline {span:.4f} s")
        # MBps is over the data phase: after login/PASV/STOR, covering every point that saw bytes move.
        data_s = SIZE / 1e6 / m["ftp.MBps"]
        moved = next(p[0] for p in pts if p[1] > 0)
        expect(pts[-1][0] - moved - 1e-3 <= data_s <= m["ftp.upload_s"],
               f"ftp.MBps {m['ftp.MBps']:.2f} MB/s: data phase {data_s:.3f} s within "
               f"[{pts[-1][0] - moved:.3f}, {m['ftp.upload_s']:.3f}] s")
        # setup_s runs from the start of the host phase, before the first FTP
        # command, to the first point with bytes.
        setup = m.get("ftp.setup_s")
        expect(setup is not None and setup >= 0 and moved - setup <= pts[0][0] + 1e-6,
               f"ftp.setup_s {setup} s ends at the first byte ({moved:.3f} s) and starts "
               f"before the first command ({pts[0][0]:.3f} s)")
        h = halts(pts)
        expect(m["ftp.halt_count"] == len(h) and abs(m["ftp.halt_total_s"] - sum(h)) < 1e-6,
               f"halts recomputed from the timeline: {len(h)}, {sum(h):.3f} s")

        rows = [r for r in cell["vmstat"] if not r["first"]]
        expect_vmstat_per_second(cell)
        # A row arriving at t describes the second before it: the window takes
        # the rows whose second is at least half inside the upload.
        inside = [r for r in rows if pts[0][0] + 0.5 <= r["t_host"] <= pts[-1][0] + 0.5]
        expect(m["vmstat.samples"] == len(inside),
               f"vmstat.samples {m['vmstat.samples']:.0f} = rows whose second is mostly inside the upload {len(inside)}")
        stalled = sum(1 for r in inside if r["bo"] is not None and r["bo"] <= 100)
        expect(abs(m["vmstat.stall_fraction"] - (stalled / len(inside) if inside else 0)) < 1e-9,
               f"vmstat.stall_fraction {m['vmstat.stall_fraction']:.3f} = {stalled}/{len(inside)} rows with bo <= 100")

        # The host's view of the same disk: libvirt's block statistics, read
        # once a second from the go to the done, wrote what the guest
        # synced (the file, plus ext3's metadata and journal on top).
        hb = cell["host_block"]
        expect(len(hb) >= 2, f"{len(hb)} host block readings")
        gaps = [b["t_host"] - a["t_host"] for a, b in zip(hb, hb[1:])]
        span = hb[-1]["t_host"] - hb[0]["t_host"]
        expect(max(gaps) <= 1.5 and abs(len(hb) - 1 - span) <= 2,
               f"{len(hb)} host block readings over {span:.2f} s: largest gap {max(gaps):.2f} s (one a second)")
        expect(abs(span - cell["workload_s"]) <= 1.0,
               f"the readings span the workload window: {span:.2f} s against workload_s {cell['workload_s']:.2f} s")
        written = hb[-1]["wr_bytes"] - hb[0]["wr_bytes"]
        expect(SIZE <= written <= SIZE * 1.25 + (4 << 20),
               f"host wrote {written} bytes over the cell for a {SIZE}-byte upload")
        expect(abs(m["host.disk_written_MB"] - written / 1e6) < 1e-6,
               f"host.disk_written_MB {m['host.disk_written_MB']:.3f} = the readings' {written / 1e6:.3f} MB")
        expect(abs(m["host.disk_write_MBps"] - written / 1e6 / span) < 1e-6,
               f"host.disk_write_MBps {m['host.disk_write_MBps']:.3f} over the readings' span")
        side = json.loads(kb(home, "show", str(run["run"]["id"]), "--cell", "c000", "--log", "vmstat",
                             "--json").stdout)
        expect(side["summary"] is not None and side["summary"]["compared"] >= span - 3,
               f"vmstat seconds compared with the host: {side['summary'] and side['summary']['compared']}")
        expect(abs(m["host.write_disagree_s"] - side["summary"]["disagree_s"]) < 1e-9,
               f"host.write_disagree_s {m['host.write_disagree_s']} = the side-by-side view's")

        out = kb(home, "show", str(run["run"]["id"]), "--cell", "c000", "--log", "output").stdout
        expect(f"ftp-size {SIZE}" in out and f"ftp-expected {SIZE}" in out,
               "the guest saw the whole file on disk")
    print("1 passed, 0 failed")


main()
