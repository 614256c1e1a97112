#!/usr/bin/python3
"""Plots the published-claim figures from sweep results (analysis/sweep.py).

    analysis/plot_figures.py plane-scaling results/plane-scaling
    analysis/plot_figures.py plane-failure results/plane-failure
    analysis/plot_figures.py incast        results/incast
    analysis/plot_figures.py collectives   results/all-reduce results/all-to-all

Each writes one PNG into the (first) results directory and prints the
numbers it drew; `figure_numbers(...)` returns them for the reproduction
report.
"""
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MARKERS = ["o", "s", "^", "D"]


def rows(out):
    with open(os.path.join(out, "summary.csv")) as f:
        return list(csv.DictReader(f))


def point_dir(out, key):
    return os.path.join(out, "points", key)


def series_csv(out, key, name):
    with open(os.path.join(point_dir(out, key), name)) as f:
        return list(csv.DictReader(f))


def planes_of(fabric):
    return int(fabric.split("-")[-1].split("p")[0])


def plane_scaling(out):
    data = {}
    for r in rows(out):
        data.setdefault(r["variant"], []).append(
            (planes_of(r["fabric"]), float(r["goodput_gbps"]) / 1000))
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for i, (v, pts) in enumerate(sorted(data.items())):
        pts.sort()
        ax.plot([p for p, _ in pts], [g for _, g in pts], marker=MARKERS[i], label=v)
        one = dict(pts).get(1)
        if one and i == 0:
            ax.plot([1, 8], [one, 8 * one], ":", color="grey", label=f"linear from 1 plane ({v})")
    ax.set_xscale("log", base=2)
    ax.set_xticks([1, 2, 4, 8])
    ax.set_xticklabels(["1", "2", "4", "8"])
    ax.set_xlabel("planes (100 Gb/s per plane port)")
    ax.set_ylabel("aggregate all-to-all throughput (Tb/s)")
    ax.set_title("All-to-all, 64 hosts, 4,032 transfers")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "plane_scaling.png"), dpi=120)
    return {v: dict(sorted(p)) for v, p in data.items()}


def plane_failure(out):
    result = {}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=False)
    for r in rows(out):
        planes = planes_of(r["fabric"])
        ax = axes[0 if planes == 4 else 1]
        totals = {}
        for s in series_csv(out, r["key"], "throughput.csv"):
            t = float(s["time_us"])
            totals[t] = totals.get(t, 0) + float(s["gbps"]) / 1000
        ts = sorted(totals)
        ax.plot(ts, [totals[t] for t in ts], label=r["variant"])
        before = [totals[t] for t in ts if 200 <= t <= 300]
        during = [totals[t] for t in ts if 400 <= t <= 700]
        after = [totals[t] for t in ts if 900 <= t <= 1000]
        mean = lambda xs: sum(xs) / len(xs) if xs else 0  # noqa: E731
        result[(planes, r["variant"])] = (mean(before), mean(during), mean(after))
        ax.set_title(f"{planes} planes: plane 1 fails at 300 us, back at 700 us")
    for ax in axes:
        ax.axvspan(300, 700, color="red", alpha=0.08)
        ax.set_xlabel("time (us)")
        ax.set_ylabel("throughput sent by all hosts (Tb/s)")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "plane_failure.png"), dpi=120)
    return result


def incast(out):
    result = {}
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    rtt_us = 10.0
    for i, r in enumerate(rows(out)):
        n = int(r["workload.senders"])
        per = {}
        for s in series_csv(out, r["key"], "connections.csv"):
            if s["peer"] == "0":
                per.setdefault(float(s["time_us"]), []).append(float(s["gbps"]))
        ts = sorted(per)
        conv = None
        for k, t in enumerate(ts):
            ok = True
            for t2 in ts[k:]:
                xs = per[t2]
                mean = sum(xs) / len(xs)
                if mean <= 0 or any(abs(x - mean) > 0.25 * mean for x in xs):
                    ok = False
                    break
            if ok:
                conv = t
                break
        result[(r["variant"], n)] = conv / rtt_us if conv is not None else None
        q = {}
        for s in series_csv(out, r["key"], "queues.csv"):
            t = float(s["time_us"])
            q[t] = max(q.get(t, 0), int(s["max_queue_bytes"]) / 1024)
        qt = sorted(q)
        style = "-" if r["variant"] == "MetaRoCE" else "--"
        ax2.plot(qt, [q[t] for t in qt], style, label=f"{r['variant']}, N={n}")
    variants = sorted(set(v for v, _ in result))
    for i, v in enumerate(variants):
        pts = sorted((n, c) for (vv, n), c in result.items() if vv == v)
        ax1.plot([n for n, _ in pts], [c if c is not None else float("nan") for _, c in pts],
                 marker=MARKERS[i], label=v)
    ax1.axhspan(1, 2, color="green", alpha=0.1, label="published: 1-2 RTTs")
    ax1.set_xscale("log", base=2)
    ax1.set_xlabel("incast senders N")
    ax1.set_ylabel("time until every sender within 25 % of the mean (RTTs of 10 us)")
    ax1.set_title("Convergence to the fair share")
    ax2.set_xlabel("time (us)")
    ax2.set_ylabel("largest switch egress queue (KiB)")
    ax2.set_title("Queue depth")
    for ax in (ax1, ax2):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "incast.png"), dpi=120)
    return result


def collectives(ar_out, a2a_out):
    result = {}
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, out, key, title in ((axes[0], ar_out, "workload.bytes", "Ring all-reduce, 64 ranks"),
                                (axes[1], a2a_out, "workload.message_bytes",
                                 "All-to-all, 64 ranks")):
        data = {}
        for r in rows(out):
            data.setdefault(r["variant"], []).append(
                (int(r[key]), float(r["collective_completion_us"]), float(r["bus_bandwidth_gbps"])))
        for i, (v, pts) in enumerate(sorted(data.items())):
            pts.sort()
            ax.plot([s / 1024 for s, _, _ in pts], [b for _, _, b in pts], marker=MARKERS[i],
                    label=v)
            for s, t, b in pts:
                result[(title, v, s)] = (t, b)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("size (KiB)" + (" per destination" if "all-to-all" in title.lower() else ""))
        ax.set_ylabel("bus bandwidth (Gb/s per rank)")
        ax.set_title(title)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(ar_out, "collectives.png"), dpi=120)
    return result


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    fig, dirs = sys.argv[1], sys.argv[2:]
    fn = {"plane-scaling": plane_scaling, "plane-failure": plane_failure, "incast": incast,
          "collectives": collectives}.get(fig)
    if not fn:
        sys.exit(f"unknown figure {fig!r}")
    numbers = fn(*dirs)
    for k, v in sorted(numbers.items(), key=str):
        print(k, v)


if __name__ == "__main__":
    main()
