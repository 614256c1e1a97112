#!/usr/bin/python3
"""metaroce-bench: the fixed benchmark scenarios, one JSON line each.

    analysis/bench.py [--only N] [--scheduler TYPE] [--repeat R]

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

--repeat R runs each scenario R times in a row and prints the run with the
median wall time, plus every run's packet_hops_per_s (and the bare event
rates' medians): on a shared host one run can be 30 % off. The runs must
agree on events and packet_hops (the simulation is deterministic); a
mismatch is an error.
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


def summarize(runs):
    """The run with the median wall time, with every run's hop rate; the
    runs must have simulated the same thing (same events and hops)."""
    first = runs[0]
    for r in runs[1:]:
        if (r["events"], r["packet_hops"]) != (first["events"], first["packet_hops"]):
            raise RuntimeError(
                f"{first['scenario']}: runs differ in events or packet_hops "
                f"({first['events']}/{first['packet_hops']} vs {r['events']}/{r['packet_hops']}): "
                "the simulation should be deterministic")
    if len(runs) == 1:
        return first
    ordered = sorted(runs, key=lambda r: r["wall_seconds"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen["runs"] = len(runs)
    chosen["packet_hops_per_s_all"] = [r["packet_hops_per_s"] for r in runs]
    return chosen


def median(values):
    v = sorted(values)
    return v[(len(v) - 1) // 2]


def calibrate(scheduler, repeat=1):
    def rate(*args):
        cmd = [os.path.join(BUILD, "metaroce-event-bench"), *args]
        rates = []
        for _ in range(repeat):
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            rates.append(json.loads(out.strip().splitlines()[-1])["events_per_s"])
        return round(median(rates))

    r = {"scenario": "bare-events"}
    for sched in dict.fromkeys(["ns3::MapScheduler", scheduler]):
        r[f"events_per_s[{sched}]"] = rate(f"--scheduler={sched}")
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", type=int, action="append",
                    help="scenario number (0-4, 0: bare events), repeatable")
    ap.add_argument("--scheduler", default="ns3::TimingWheelScheduler",
                    help="ns-3 scheduler TypeId for every scenario (default: the runner's)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per scenario; the median one is printed (default 1)")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error(f"--repeat: expected a positive number of runs, got {args.repeat}")
    if not args.only or 0 in args.only:
        print(json.dumps(calibrate(args.scheduler, args.repeat)), flush=True)
    for i, (name, exp) in enumerate(SCENARIOS, 1):
        if args.only and i not in args.only:
            continue
        runs = [run(i, name, exp, args.scheduler) for _ in range(args.repeat)]
        print(json.dumps(summarize(runs)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
