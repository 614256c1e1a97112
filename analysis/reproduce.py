#!/usr/bin/python3
"""Runs every published-claim experiment, plots each figure and writes
docs/REPRODUCTION.md: each claim, our number, the scenario and the figure.

    analysis/reproduce.py [--jobs N] [--results DIR] [--report PATH]
    analysis/reproduce.py --backend slurm [--slurm-config FILE] [--no-wait] [...]

Sweeps are resumable (analysis/sweep.py): a second run only redoes what
changed. Figures go next to each sweep's results under --results (default
results/); the report links them.

With --backend slurm every sweep is submitted first (one job array each, so
they run side by side on the cluster), then followed; the report is written
when all are done. With --no-wait it returns after submitting; the same
command without --no-wait later waits for what is left and writes the report
(docs/slurm.md).
"""
import argparse
import csv
import datetime
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import plot_figures  # noqa: E402

SWEEPS = ["loss-sweep", "plane-scaling", "plane-failure", "incast", "all-reduce", "all-to-all"]


def sweep_command(name, results):
    return [sys.executable, os.path.join(HERE, "sweep.py"),
            os.path.join(ROOT, "experiments", f"{name}.sweep.json"),
            "--out", os.path.join(results, name)]


def run_sweep(name, results, jobs):
    t0 = time.time()
    subprocess.run(sweep_command(name, results) + ["--jobs", str(jobs)], check=True)
    return time.time() - t0


def run_on_slurm(results, slurm_args, no_wait):
    """Submits every sweep, then (unless no_wait) follows each; returns the simulation
    time of each sweep summed over its points (the runner's wall_seconds), or None."""
    for name in SWEEPS:
        subprocess.run(sweep_command(name, results) + slurm_args + ["--no-wait"], check=True)
    if no_wait:
        print("submitted; run the same command without --no-wait to wait for the sweeps and "
              "write the report")
        return None
    failed = []
    for name in SWEEPS:
        proc = subprocess.run(sweep_command(name, results) + slurm_args + ["--status", "--wait"])
        if proc.returncode != 0:
            failed.append(name)
    if failed:
        sys.exit(f"reproduce: sweeps with failed or missing points: {', '.join(failed)} (their "
                 "failed tasks and logs are listed above; rerun this command to resubmit them)")
    times = {}
    for name in SWEEPS:
        with open(os.path.join(results, name, "summary.csv")) as f:
            times[name] = sum(float(r["wall_seconds"] or 0) for r in csv.DictReader(f))
    return times


def loss_numbers(out):
    with open(os.path.join(out, "summary.csv")) as f:
        rows = list(csv.DictReader(f))
    table = {}
    for r in rows:
        table[(r["variant"], float(r["loss.rate"]))] = float(r["normalized_goodput"])
    return table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=None,
                    help="parallel runs of the local backend (default: the number of CPUs)")
    ap.add_argument("--results", default=os.path.join(ROOT, "results"))
    ap.add_argument("--report", default=os.path.join(ROOT, "docs", "REPRODUCTION.md"))
    ap.add_argument("--backend", choices=["local", "slurm"], default="local",
                    help="run the sweeps as local processes (default) or as Slurm job arrays")
    ap.add_argument("--slurm-config", metavar="FILE",
                    help="the Slurm backend's settings (analysis/sweep.py, docs/slurm.md)")
    ap.add_argument("--no-wait", action="store_true",
                    help="with --backend slurm: submit every sweep and return")
    args = ap.parse_args()
    if args.backend == "slurm":
        if args.jobs is not None:
            ap.error("--jobs applies to the local backend (the Slurm config's array_limit caps "
                     "tasks running at once)")
        slurm_args = ["--backend", "slurm"] + (
            ["--slurm-config", args.slurm_config] if args.slurm_config else [])
        times = run_on_slurm(args.results, slurm_args, args.no_wait)
        if times is None:
            return
        where = "summed over the points, run as Slurm job arrays"
    else:
        if args.slurm_config or args.no_wait:
            ap.error("--slurm-config and --no-wait apply to --backend slurm only")
        times = {}
        for name in SWEEPS:
            times[name] = run_sweep(name, args.results, args.jobs or os.cpu_count() or 1)
        where = f"on {os.cpu_count()} cores"
    r = args.results
    subprocess.run([sys.executable, os.path.join(HERE, "plot_loss_sweep.py"),
                    os.path.join(r, "loss-sweep")], check=True)
    loss = loss_numbers(os.path.join(r, "loss-sweep"))
    scaling = plot_figures.plane_scaling(os.path.join(r, "plane-scaling"))
    failure = plot_figures.plane_failure(os.path.join(r, "plane-failure"))
    incast = plot_figures.incast(os.path.join(r, "incast"))
    coll = plot_figures.collectives(os.path.join(r, "all-reduce"), os.path.join(r, "all-to-all"))
    write_report(args.report, r, loss, scaling, failure, incast, coll, times, where)
    print(f"wrote {args.report}; total {sum(times.values()):.0f} s of sweeps")


def rel(path, report):
    # Figures are copied next to the report (docs/figures/), so the report's
    # links work in the repository, where results/ is not committed.
    figures = os.path.join(os.path.dirname(report), "figures")
    os.makedirs(figures, exist_ok=True)
    name = os.path.basename(path)
    shutil.copyfile(path, os.path.join(figures, name))
    return os.path.join("figures", name)


def write_report(path, r, loss, scaling, failure, incast, coll, times, where):
    L = []
    L.append("# Reproduction of the published MetaRoCE results\n")
    L.append(f"Generated by `analysis/reproduce.py` on {datetime.date.today().isoformat()} "
             f"({sum(times.values()):.0f} s of simulation {where}). Every number "
             "below is read from the sweeps' `summary.csv` and per-point `results.json`; the "
             "scenarios are the files in `experiments/`. Model assumptions are in "
             "`docs/metaroce-model.md` and `docs/rocev2-model.md`. To run the sweeps on a Slurm "
             "cluster: `analysis/reproduce.py --backend slurm` ([`slurm.md`](slurm.md)).\n")
    L.append("## 1. Loss sweep (`experiments/loss-sweep.sweep.json`)\n")
    L.append("Claim: ~86 % of throughput retained at 1 % loss, useful bandwidth at 10 %, RoCEv2 "
             "collapsing. Scenario: `experiments/loss-point.json` (64 hosts, 4 planes, random "
             "permutation of 1 MiB writes, loss at the NICs so each packet and ACK is lost with "
             "probability p end to end, 500 us).\n")
    variants = list(dict.fromkeys(v for v, _ in loss))
    rates = sorted(set(p for _, p in loss))
    L.append("| loss | " + " | ".join(variants) + " |")
    L.append("|---|" + "---|" * len(variants))
    for p in rates:
        L.append(f"| {100 * p:g} % | " + " | ".join(
            f"{loss.get((v, p), float('nan')):.3f}" for v in variants) + " |")
    m0, m1, m10 = (loss.get(("MetaRoCE", p)) for p in (0.0, 0.01, 0.1))
    if m0 and m1 and m10:
        L.append(f"\nOurs: MetaRoCE keeps {100 * m1 / m0:.1f} % of its loss-free goodput at 1 % "
                 f"loss and {100 * m10 / m0:.1f} % at 10 % (published: ~86 % at 1 %). The model "
                 "retransmits exactly the lost packets and does not shrink windows on loss, so it "
                 "tracks ideal selective repeat (1 - p); the published 14 points are not lost to "
                 "any mechanism this model has. No parameter is calibrated to the 86 % figure. "
                 "Its absolute goodput without loss is set by the rate hints' 0.95 target "
                 "utilisation, the 4,186-byte frame's 97.3 % payload share and ECMP collisions of "
                 "the permutation.\n")
    r0 = loss.get(("RoCEv2 go-back-N", 0.0))
    if r0:
        L.append(f"RoCEv2's loss-free goodput ({r0:.3f}) is held down before any loss by ECMP "
                 "collisions of its single-path queue pairs (one per plane) and by DCQCN's slow "
                 "recovery with the paper's constants at 100 Gb/s (R_AI = 40 Mb/s per 55 us "
                 "timer, 10 MB byte counter); under loss, go-back-N resends the whole window per "
                 "loss and every lost retransmission or NAK waits for the 1 ms timeout. PFC "
                 "changes nothing here: random loss is not congestion, and this permutation "
                 "never crosses XOFF. Both are attributes (`ns3::Dcqcn::*`, "
                 "`ns3::RoceV2Connection::TimeoutExponent`) for users who want a tuned baseline.\n")
    L.append(f"![loss sweep]({rel(os.path.join(r, 'loss-sweep', 'loss_sweep.png'), path)})\n")
    L.append("## 2. Plane scaling (`experiments/plane-scaling.sweep.json`)\n")
    L.append("Claim: throughput scales linearly with planes (4 and 8 validated, 4,000 connections). "
             "Scenario: all-to-all of 256 KiB per pair among 64 hosts (4,032 transfers), 1/2/4/8 "
             "planes of 100 Gb/s.\n")
    L.append("| planes | " + " | ".join(sorted(scaling)) + " |")
    L.append("|---|" + "---|" * len(scaling))
    for n in (1, 2, 4, 8):
        L.append(f"| {n} | " + " | ".join(f"{scaling[v].get(n, float('nan')):.2f} Tb/s"
                                         for v in sorted(scaling)) + " |")
    if "MetaRoCE" in scaling and scaling["MetaRoCE"].get(1):
        s = scaling["MetaRoCE"]
        L.append(f"\nOurs: MetaRoCE's 8-plane throughput is {s.get(8, 0) / s[1]:.2f} x its "
                 "1-plane throughput (linear would be 8 x); the shortfall is the fixed start-up "
                 "of a 256 KiB collective, a larger share of a shorter run.\n")
    L.append(f"![plane scaling]({rel(os.path.join(r, 'plane-scaling', 'plane_scaling.png'), path)})\n")
    L.append("## 3. Plane failure (`experiments/plane-failure.sweep.json`)\n")
    L.append("Claim: traffic redistributes over the surviving planes with no application or "
             "operator action. Scenario: 64-host permutation (1 MiB writes), plane 1 fails at "
             "300 us and returns at 700 us.\n")
    L.append("| planes | transport | before (Tb/s) | during | after return |")
    L.append("|---|---|---|---|---|")
    for (planes, v), (b, d, a) in sorted(failure.items()):
        L.append(f"| {planes} | {v} | {b:.1f} | {d:.1f} | {a:.1f} |")
    L.append(f"\n![plane failure]({rel(os.path.join(r, 'plane-failure', 'plane_failure.png'), path)})\n")
    L.append("## 4. Incast (`experiments/incast.sweep.json`)\n")
    L.append("Claim: incast resolves in one or two RTTs. Scenario: hosts 1..N write 1 MiB "
             "messages to host 0 on the 4-plane fabric. Metric: first time after which every "
             "sender's 10 us throughput stays within 25 % of the senders' mean, in RTTs of 10 us "
             "(— = not within the 400 us run).\n")
    L.append("| N | " + " | ".join(sorted(set(v for v, _ in incast))) + " |")
    L.append("|---|" + "---|" * len(set(v for v, _ in incast)))
    for n in sorted(set(n for _, n in incast)):
        L.append(f"| {n} | " + " | ".join(
            (f"{incast[(v, n)]:.0f}" if incast.get((v, n)) is not None else "—")
            for v in sorted(set(v for v, _ in incast))) + " |")
    L.append("\nThe rate hints themselves converge within two RTTs of the first ACK (conformance "
             "test `N-to-1 incast`); what takes longer here is draining the queue the first "
             "window built (each sender starts with 16 paths x 8 packets) at the 5 % of the port "
             "the 0.95 hint target leaves free.\n")
    L.append(f"![incast]({rel(os.path.join(r, 'incast', 'incast.png'), path)})\n")
    L.append("## 5. Collectives (`experiments/all-reduce.sweep.json`, `all-to-all.sweep.json`)\n")
    L.append("Claim: higher throughput and lower completion times than RoCEv2 on all-reduce and "
             "all-to-all, at every scale tested. Scenario: 64 ranks on the 4-plane fabric.\n")
    L.append("| collective | transport | size | completion (us) | bus bandwidth (Gb/s) |")
    L.append("|---|---|---|---|---|")
    for (title, v, s), (t, b) in sorted(coll.items()):
        L.append(f"| {title} | {v} | {s // 1024} KiB | {t:.0f} | {b:.1f} |")
    L.append(f"\n![collectives]({rel(os.path.join(r, 'all-reduce', 'collectives.png'), path)})\n")
    L.append("## Run times\n")
    if "Slurm" in where:
        L.append("Each sweep's points' `wall_seconds`, summed (they ran as Slurm array tasks):\n")
    for k, t in times.items():
        L.append(f"- {k}: {t:.0f} s")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
