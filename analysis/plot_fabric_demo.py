#!/usr/bin/env python3
"""Plots fabric-demo.json: utilisation per plane and tier direction.

Usage: plot_fabric_demo.py RESULTS_DIR   (reads fabric-demo.json, writes utilisation.png)
Fails loudly if the file lacks the fields fabric-demo writes.
"""
import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

DIRECTIONS = ["host_to_leaf", "leaf_to_spine", "spine_to_leaf", "leaf_to_host"]


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    out = Path(argv[1])
    path = out / "fabric-demo.json"
    try:
        doc = json.loads(path.read_text())
        planes = doc["fabric"]["planes"]
        util = [[p[d]["utilisation"] for d in DIRECTIONS] for p in planes]
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"{path}: not a fabric-demo result ({e!r})")

    fig, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(DIRECTIONS)
    for i, d in enumerate(DIRECTIONS):
        xs = [p + (i - (len(DIRECTIONS) - 1) / 2) * width for p in range(len(util))]
        ax.bar(xs, [u[i] for u in util], width, label=d.replace("_", " "))
    ax.axhline(doc["load"], color="black", linestyle="--", linewidth=1, label="offered load")
    ax.set_xticks(range(len(util)))
    ax.set_xticklabels([f"plane {p}" for p in range(len(util))])
    ax.set_ylim(0, 1.3)
    ax.set_ylabel("link utilisation (line bytes / capacity)")
    drops = sum(doc["fabric"]["dropped_packets"].values())
    ax.set_title(
        f"{doc['topology']}: permutation at load {doc['load']}, spray {doc['spray']}, "
        f"loss {doc['loss']}\n{doc['goodput_gbps']:.0f} Gb/s delivered, "
        f"{doc['fabric']['ecn_marked_packets']} ECN marks, {drops} drops",
        fontsize=9,
    )
    ax.legend(fontsize=8, ncol=5, loc="upper center")
    fig.tight_layout()
    fig.savefig(out / "utilisation.png", dpi=120)
    print(f"wrote {out / 'utilisation.png'}")


if __name__ == "__main__":
    main(sys.argv)
