#!/usr/bin/env python3
"""Integration test of --disk-bus: import one real Debian kernel (6.1.0-47)
and run one dd cell (32 MiB, with a swap disk beside the disk under test)
on each bus, ide, ahci, virtio-blk and virtio-scsi. Every cell must end ok
with the host's block
statistics of the disk under test read on every bus, and the drivers the
guest reported bound to that disk (its params' disk_driver) those of the
bus: ata_piix, ahci, virtio_blk, virtio_scsi under sd. Then compare must
not pair the IDE run with the virtio-blk one, and pairs them when
--ignore-setting disk_bus asks. Needs the 6.1.0-47 .deb in $KBENCH_DEBS
(tools/setup.sh fetches it)."""
import json
import os
import sqlite3

from kbtest import debs, expect, kb, temp_store

# The bus, and the drivers from the disk up the guest must have bound.
BUSES = {
    "ide": "sd ata_piix",
    "ahci": "sd ahci",
    "virtio-blk": "virtio_blk virtio-pci",
    "virtio-scsi": "sd virtio_scsi virtio-pci",
}


def main():
    found = debs("linux-image-6.1.0-47-amd64-unsigned_*.deb", 1)
    runs = {}
    with temp_store("kbench-it-diskbus-") as home:
        name = json.loads(kb(home, "kernel", "add", "--json", found[0]).stdout)["name"]
        for bus in BUSES:
            p = kb(home, "run", "-k", name, "-w", "dd:size=32M", "-n", "1", "--swap", "64M",
                   "--disk-bus", bus, "--tag", bus, "--json")
            run = json.loads(p.stdout)
            runs[bus] = run["run"]["id"]
            c = run["cells"][0]
            expect(len(run["cells"]) == 1 and c["state"] == "ok",
                   f"{bus}: cell {c['key']} ok ({c.get('detail')}), {c['total_s']:.1f} s")
        db = sqlite3.connect(os.path.join(home, "results.db"))
        for bus, drivers in BUSES.items():
            (params,), = db.execute("SELECT params_json FROM cells WHERE run_id = ?", (runs[bus],))
            params = json.loads(params)
            expect(params.get("disk_bus") == bus and params.get("disk_driver") == drivers,
                   f"{bus}: the guest bound the disk under test to {params.get('disk_driver')!r} ({drivers!r})")
            (n, wr), = db.execute("SELECT count(*), max(h.wr_bytes) FROM host_block h JOIN cells c "
                                  "ON h.cell_id = c.id WHERE c.run_id = ?", (runs[bus],))
            expect(n >= 2 and wr >= 32 << 20,
                   f"{bus}: the host read the disk's block statistics ({n} readings, {wr} bytes written)")
        db.close()
        p = kb(home, "compare", "tag:ide", "tag:virtio-blk", check=False)
        expect("only A:" in p.stdout and "only B:" in p.stdout and "disk_bus" in p.stdout
               and "paired across" not in p.stdout,
               "compare does not pair IDE with virtio-blk: both listed as on one side only, by disk_bus")
        p = kb(home, "compare", "tag:ide", "tag:virtio-blk", "--ignore-setting", "disk_bus")
        expect("paired across differing settings: disk_bus" in p.stdout and "1 paired group" in p.stdout,
               "--ignore-setting disk_bus pairs them on purpose")
    print("1 passed, 0 failed")


main()
