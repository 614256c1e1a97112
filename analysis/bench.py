#!/usr/bin/python3
"""metaroce-bench: the fixed benchmark scenarios, one JSON line each.

    analysis/bench.py [--only N] [--scheduler TYPE]

1. fabric saturated with test traffic, no transport, 64 hosts x 8 planes
   (build/examples/metaroce-fabric-bench, 200 us);
2. MetaRoCE all-to-all, 64 hosts x 8 planes, 4,032 connections, 1 MiB per
   pair, 1 ms (experiments/bench/all-to-all-metaroce.json);
3. the same on RoCEv2 (go-back-N, DCQCN) over the PFC fabric
   (experiments/bench/all-to-all-rocev2.json);
4. one loss-sweep point, MetaRoCE at 1 % loss (experiments/bench/loss-point-metaroce.json).

Scenario 0, printed first, is the yardstick: bare ns-3 events per second
(build/examples/metaroce-event-bench, 10,000 events pending) with ns-3's
default MapScheduler and with the scheduler the scenarios use. Divide a
scenario's events_per_s by it to compare machines or noisy runs.

Each line has scenario, sim_seconds, wall_seconds, events, packet_hops,
packet_hops_per_s, events_per_hop, peak_rss_mb, connections and, for the
transports, bytes_per_connection. Figures of merit, never pass/fail: the
machine is noisy; compare ratios within one run (docs/performance.md).
Each scenario runs in its own process, so peak memory is its own.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build", "examples")
SCENARIOS = [
    ("fabric-saturated-64h-8p", None),
    ("metaroce-all-to-all-64h-8p", "all-to-all-metaroce.json"),
    ("rocev2-pfc-dcqcn-all-to-all-64h-8p", "all-to-all-rocev2.json"),
    ("metaroce-loss-point-1pct", "loss-point-metaroce.json"),
]


def run(index, name, experiment, scheduler):
    if experiment is None:
        cmd = [os.path.join(BUILD, "metaroce-fabric-bench")]
        if scheduler:
            cmd.append(f"--scheduler={scheduler}")
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        r["scenario"] = name
        r["connections"] = 0
        return r
    with tempfile.TemporaryDirectory() as d:
        cmd = [os.path.join(BUILD, "metaroce-run"), os.path.join(ROOT, "experiments", "bench",
                                                                   experiment),
               "--quiet", "--out", d]
        if scheduler:
            cmd += ["--set", f"scheduler={scheduler}"]
        subprocess.run(cmd, capture_output=True, text=True, check=True)
        with open(os.path.join(d, "results.json")) as f:
            s = json.load(f)["summary"]
    return {
        "scenario": name,
        "sim_seconds": s["simulated_us"] / 1e6,
        "wall_seconds": s["wall_seconds"],
        "events": s["events"],
        "packet_hops": s["packet_hops"],
        "packet_hops_per_s": round(s["packet_hops"] / s["wall_seconds"]),
        "events_per_hop": round(s["events"] / max(1, s["packet_hops"]), 3),
        "peak_rss_mb": s["peak_rss_mb"],
        "connections": s["connections"],
        "bytes_per_connection": s["bytes_per_connection"],
        "goodput_gbps": s["goodput_gbps"],
    }


def calibrate(scheduler):
    r = {"scenario": "bare-events"}
    for sched in dict.fromkeys(["ns3::MapScheduler", scheduler]):
        cmd = [os.path.join(BUILD, "metaroce-event-bench"), f"--scheduler={sched}"]
        out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
        b = json.loads(out.strip().splitlines()[-1])
        r[f"events_per_s[{sched}]"] = round(b["events_per_s"])
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", type=int, action="append",
                    help="scenario number (0-4, 0: bare events), repeatable")
    ap.add_argument("--scheduler", default="ns3::TimingWheelScheduler",
                    help="ns-3 scheduler TypeId for every scenario (default: the runner's)")
    args = ap.parse_args()
    if not args.only or 0 in args.only:
        print(json.dumps(calibrate(args.scheduler)), flush=True)
    for i, (name, exp) in enumerate(SCENARIOS, 1):
        if args.only and i not in args.only:
            continue
        print(json.dumps(run(i, name, exp, args.scheduler)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
