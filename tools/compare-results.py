#!/usr/bin/python3
"""Compares two folders written by tools/run-experiments.sh: every
results.json field by field (sweep points matched by their row in
summary.csv) and every CSV byte for byte. Fields that measure the machine
rather than the model (wall clock, peak memory, the heap measurements
bytes_per_*) and the checkout's path are left out. Prints each difference
and a count; exits 1 if a result differs.

    tools/compare-results.py BEFORE AFTER
"""
import csv
import glob
import json
import os
import sys

MACHINE = {"wall_seconds", "events_per_second", "peak_rss_mb", "bytes_per_connection",
           "bytes_per_bidirectional_connection", "git_revision", "experiment_file"}


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in MACHINE}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


def pairs(a, b):
    for d in sorted(os.listdir(a)):
        summary = os.path.join(a, d, "summary.csv")
        if os.path.exists(summary):
            with open(summary) as f:
                ra = list(csv.DictReader(f))
            with open(os.path.join(b, d, "summary.csv")) as f:
                rb = list(csv.DictReader(f))
            if len(ra) != len(rb):
                sys.exit(f"{d}: {len(ra)} points against {len(rb)}")
            for x, y in zip(ra, rb):
                yield (os.path.join(a, d, "points", x["key"]), os.path.join(b, d, "points", y["key"]),
                       f"{d} {x['variant']} seed {x['seed']} #{ra.index(x)}")
        else:
            yield os.path.join(a, d), os.path.join(b, d), d


def diff(name, path, u, v, out):
    if isinstance(u, dict) and isinstance(v, dict):
        for k in sorted(set(u) | set(v)):
            diff(name, f"{path}/{k}", u.get(k), v.get(k), out)
    elif u != v:
        out.append(f"{name}: {path}: {str(u)[:60]} -> {str(v)[:60]}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = sys.argv[1:]
    runs = differ = 0
    for pa, pb, name in pairs(a, b):
        runs += 1
        found = []
        with open(os.path.join(pa, "results.json")) as f:
            x = strip(json.load(f))
        with open(os.path.join(pb, "results.json")) as f:
            y = strip(json.load(f))
        diff(name, "", x, y, found)
        for f in sorted(glob.glob(os.path.join(pa, "*.csv"))):
            g = os.path.join(pb, os.path.basename(f))
            if not os.path.exists(g) or open(f, "rb").read() != open(g, "rb").read():
                found.append(f"{name}: {os.path.basename(f)} differs")
        differ += bool(found)
        for line in found:
            print(line)
    print(f"{runs} runs compared, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
