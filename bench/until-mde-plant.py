#!/usr/bin/env python3
"""The power --until-mde states at its stopping point, on a planted case.

For an amount the rule stops when the difference a verdict would call
with 80 % power is at most twice the floor (decide/seqrule.h;
bench/seqrule-sim amounts simulates it). Here the plant is that
difference: bench/plants/sleep-fsync-100.patch sleeps 100 ms in every
fsync, which adds about 0.1 s (twice guest.write.wait_s's floor of
0.05 s) to dd's write phase. Each repeat is one run of the base and the
plant, interleaved, that chooses its own repeats (--until-mde, a pilot of
4), then compare's verdict on the run. Per repeat: the rounds the rule
ran, the write phase's waiting MDE it stated at the stop (at most 0.1 s
when it stopped on "enough"), the difference measured and the verdict.
Over the repeats, the share called worse is the planted counterpart of
the simulation's "2 floors" row.

    bench/until-mde-plant.py [--store DIR] [--repeats 5] [--budget-cells 40]"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plants  # noqa: E402

PLANT = ("6.1-sleep-fsync-100", "sleep-fsync-100.patch")
METRIC = "guest.write.wait_s"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbench", default=os.path.join(plants.TOP, "build", "cli", "kbench"))
    ap.add_argument("--store", default=os.environ.get("KBENCH_PLANTS_STORE", "/var/tmp/kbench-plants"))
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--budget-cells", type=int, default=40)
    ap.add_argument("--json")
    args = ap.parse_args()
    plants.build(args.kbench, args.store, "6.1-base", None)
    plants.build(args.kbench, args.store, *PLANT)
    rows = []
    for i in range(args.repeats):
        out, secs = plants.run(args.kbench, args.store, ["6.1-base", PLANT[0]], 4, plants.DD,
                               ["--until-mde", "5%", "--budget-cells", str(args.budget_cells)],
                               f"until-mde-plant-{int(time.time())}-{i}")
        rid = out["run"]["id"]
        run = json.loads(plants.run_kbench(args.kbench, args.store, "show", "--json", str(rid)).stdout)["run"]
        outcome = run["settings"].get("until_mde_outcome") or {}
        if isinstance(outcome, str):
            outcome = json.loads(outcome)
        cmp = plants.compare(args.kbench, args.store, f"run:{rid}:6.1-base", f"run:{rid}:{PLANT[0]}")
        m = plants.metric(cmp, METRIC)
        stated = (outcome.get("mde") or {}).get(METRIC)
        rows.append({"run": rid, "answer": outcome.get("answer"), "rounds": outcome.get("rounds"),
                     "stated_mde_s": stated, "mde_abs": m and m.get("mde_abs"), "diff": m and m.get("diff"),
                     "verdict": m and m["verdict"], "seconds": secs})
    print(f"| run | stop | rounds | {METRIC} MDE stated at the stop | difference | verdict |")
    print("|---|---|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['run']} | {r['answer']} | {r['rounds']} | {r['stated_mde_s']:.3g} s | {r['diff']:+.3g} s | "
              f"{r['verdict']} |")
    worse = sum(r["verdict"] == "worse" for r in rows)
    print(f"called worse: {worse} of {len(rows)}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
