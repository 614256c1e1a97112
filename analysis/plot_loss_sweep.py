#!/usr/bin/python3
"""Plots a loss sweep (analysis/sweep.py's summary.csv) into loss_sweep.png.

    analysis/plot_loss_sweep.py results/loss-sweep

Left: normalized goodput (goodput / offered line rate) against the random
loss rate, one line per transport variant. Right: the same relative to each
variant's goodput without loss ("throughput retained"), where the published
claim (~86 % retained at 1 % loss) is drawn as a reference mark, with the
analytic curves of ideal selective repeat (1 - p) and go-back-N
((1-p)/(1-p+Wp), W = 30 packets: 100 Gb/s x ~10 us RTT) for orientation.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    series = {}
    for r in rows:
        series.setdefault(r["variant"], []).append(
            (float(r["loss.rate"]), float(r["normalized_goodput"])))
    for v in series:
        series[v].sort()
    return series


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot_loss_sweep.py RESULTS_DIR (with summary.csv)")
    out = sys.argv[1]
    series = load(os.path.join(out, "summary.csv"))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    markers = ["o", "s", "^", "D", "v"]
    for i, (variant, pts) in enumerate(series.items()):
        xs = [100 * p for p, _ in pts]
        ys = [g for _, g in pts]
        ax1.plot(xs, ys, marker=markers[i % len(markers)], label=variant)
        base = dict(pts).get(0.0)
        if base:
            ax2.plot(xs, [y / base for y in ys], marker=markers[i % len(markers)], label=variant)
    grid = [0, 0.1, 0.5, 1, 2, 5, 10]
    ps = [x / 100 for x in grid]
    ax2.plot(grid, [1 - p for p in ps], ":", color="grey", label="ideal selective repeat, 1-p")
    w = 30
    ax2.plot(grid, [(1 - p) / (1 - p + w * p) for p in ps], "--", color="grey",
             label="go-back-N analytic, W=30")
    ax2.plot([1], [0.86], marker="*", markersize=16, color="red", linestyle="none",
             label="published: ~86 % at 1 % loss")
    for ax in (ax1, ax2):
        ax.set_xscale("symlog", linthresh=0.1)
        ax.set_xticks(grid)
        ax.set_xticklabels([f"{g:g}" for g in grid])
        ax.set_xlabel("random loss rate (%), each packet, end to end")
        ax.set_ylim(0, 1.05)
        ax.grid(True, alpha=0.3)
    ax1.set_ylabel("normalized goodput (goodput / line rate)")
    ax2.set_ylabel("throughput retained (vs. no loss)")
    ax1.set_title("Goodput vs loss")
    ax2.set_title("Relative to each transport without loss")
    ax1.legend(fontsize=8, loc="lower left")
    ax2.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    path = os.path.join(out, "loss_sweep.png")
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
