#!/usr/bin/python3
"""Sweep driver: runs an experiment over a grid of --set overrides.

    analysis/sweep.py experiments/loss-sweep.sweep.json [--jobs N] [--out DIR]

A sweep file names an experiment, a grid (every combination of the listed
values of each dotted path), optional named variants (each a set of
overrides, e.g. a transport with its attributes) and seeds:

    {"name": "loss-sweep",
     "experiment": "loss-point.json",
     "grid": {"loss.rate": [0, 0.01]},
     "variants": [{"label": "MetaRoCE", "set": {"transport.type": "metaroce"}}],
     "seeds": [1]}

Each point runs `metaroce-run` in its own directory OUT/points/<key>, where
<key> hashes the runner binary and model library, the experiment file's
content and the point's overrides: a point whose results.json exists is not run again (the sweep is
resumable; a changed experiment file or a rebuilt runner gets new keys). Points run in parallel (--jobs,
default: the number of CPUs). --load LIB has every run load a shared library
first (a transport or workload of one's own, docs/adding-a-transport.md); the
library's bytes are part of the keys. At the end OUT/summary.csv has one row per
point: its parameters and the main summary fields; the table is printed.

With --backend slurm the points not done yet run as one Slurm job array
instead (analysis/sweep_slurm.py, docs/slurm.md): same keys, same per-point
folders, same summary.csv. `--status` reports on (and collects) a sweep
submitted with --no-wait; `--resubmit-failed` resubmits only its failed tasks.
"""
import argparse
import concurrent.futures
import csv
import hashlib
import itertools
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep_slurm  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUMMARY_FIELDS = [
    "goodput_gbps", "offered_line_rate_gbps", "normalized_goodput",
    "retransmitted_packets", "ecn_marked_packets", "pfc_pause_frames",
    "completed_messages", "incomplete_messages", "collective_completion_us",
    "bus_bandwidth_gbps", "packet_hops", "events", "wall_seconds",
]


def load_sweep(path):
    with open(path) as f:
        sweep = json.load(f)
    for key in ("name", "experiment"):
        if key not in sweep:
            sys.exit(f"{path}: /{key}: expected a value, got nothing")
    base = os.path.dirname(os.path.abspath(path))
    exp = os.path.join(base, sweep["experiment"])
    if not os.path.exists(exp):
        sys.exit(f"{path}: /experiment: expected an experiment file, got {sweep['experiment']!r}")
    sweep["experiment_path"] = exp
    sweep.setdefault("grid", {})
    sweep.setdefault("variants", [{"label": "default", "set": {}}])
    sweep.setdefault("seeds", [None])
    return sweep


def points(sweep):
    keys = sorted(sweep["grid"])
    for values in itertools.product(*(sweep["grid"][k] for k in keys)):
        for variant in sweep["variants"]:
            for seed in sweep["seeds"]:
                sets = dict(zip(keys, values))
                sets.update(variant.get("set", {}))
                if seed is not None:
                    sets["seed"] = seed
                yield {"variant": variant["label"], "grid": dict(zip(keys, values)),
                       "seed": seed, "set": sets}


def file_digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def point_key(experiment_text, sets, runner_digest):
    h = hashlib.sha256()
    h.update(runner_digest.encode())
    h.update(experiment_text.encode())
    h.update(json.dumps(sets, sort_keys=True).encode())
    return h.hexdigest()[:16]


def run_point(runner, experiment, outdir, sets, loads=()):
    cmd = [runner, experiment, "--quiet", "--out", outdir] + [f"--load={lib}" for lib in loads]
    for k, v in sorted(sets.items()):
        cmd += ["--set", f"{k}={json.dumps(v)}"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return f"failed ({proc.returncode}): {proc.stderr.strip()}"
    return None


def runner_digest_of(runner, loads=()):
    # The runner's bytes and the model library's are part of each key: a
    # rebuilt model reruns every point instead of reusing results it would no
    # longer produce.
    if not os.path.isfile(runner):
        sys.exit(f"sweep: runner {runner!r} not found (build it with tools/build.sh, "
                 "or name it with --runner)")
    digest = file_digest(runner)
    for d in (os.path.dirname(runner), os.path.dirname(os.path.dirname(runner))):
        lib = os.path.join(d, "libns3-metaroce.so")
        if os.path.exists(lib):
            digest += file_digest(lib)
            break
    for lib in loads:
        # A library the runner loads (a transport of one's own) is part of the model.
        if not os.path.isfile(lib):
            sys.exit(f"sweep: --load {lib!r}: no such file")
        digest += file_digest(lib)
    return digest


def sweep_rows(sweep, out, runner, loads=()):
    """Every point of the sweep with its key and folder (OUT/points/<key>)."""
    with open(sweep["experiment_path"]) as f:
        experiment_text = f.read()
    runner_digest = runner_digest_of(runner, loads)
    rows = []
    for p in points(sweep):
        key = point_key(experiment_text, p["set"], runner_digest)
        p["key"] = key
        p["dir"] = os.path.join(out, "points", key)
        rows.append(p)
    return rows


def is_done(p):
    return os.path.exists(os.path.join(p["dir"], "results.json"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweep")
    ap.add_argument("--jobs", type=int, default=None,
                    help="parallel processes of the local backend (default: the number of CPUs)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--runner", default=os.path.join(ROOT, "build", "examples", "metaroce-run"))
    ap.add_argument("--load", action="append", default=[], metavar="LIB",
                    help="a shared library every run loads (metaroce-run --load): e.g. a "
                         "transport of your own; repeatable; local backend only")
    ap.add_argument("--backend", choices=["local", "slurm"], default="local",
                    help="where the points run: local processes (default) or a Slurm job array")
    sweep_slurm.add_arguments(ap)
    args = ap.parse_args()
    if args.backend == "local":
        used = sweep_slurm.options_given(args)
        if used:
            ap.error(f"{used[0]} applies to --backend slurm only")
    elif args.load:
        ap.error("--load applies to the local backend")
    elif args.jobs is not None:
        ap.error("--jobs applies to the local backend; with Slurm, --array-limit caps the "
                 "tasks running at once")

    sweep = load_sweep(args.sweep)
    out = os.path.abspath(args.out or os.path.join(ROOT, "results", sweep["name"]))
    os.makedirs(os.path.join(out, "points"), exist_ok=True)
    args.load = [os.path.abspath(lib) for lib in args.load]
    rows = sweep_rows(sweep, out, args.runner, args.load)
    if args.backend == "slurm":
        sys.exit(sweep_slurm.main(args, ap, sweep, out, rows,
                                  collect=lambda: write_summary(out, sweep, rows)))
    sys.exit(run_local(args, sweep, out, rows))


def run_local(args, sweep, out, rows):
    jobs = args.jobs or os.cpu_count() or 1
    todo = [p for p in rows if not is_done(p)]
    print(f"{sweep['name']}: {len(rows)} points, {len(rows) - len(todo)} already done, "
          f"running {len(todo)} on {jobs} processes", flush=True)
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_point, args.runner, sweep["experiment_path"], p["dir"],
                               p["set"], args.load): p for p in todo}
        for n, fut in enumerate(concurrent.futures.as_completed(futures), 1):
            p = futures[fut]
            err = fut.result()
            status = "FAILED " + err if err else "done"
            print(f"  [{n}/{len(todo)}] {p['variant']} {p['grid']}: {status}", flush=True)
            if err:
                failures.append(p)

    write_summary(out, sweep, rows)
    if failures:
        return f"{len(failures)} point(s) failed"
    return 0


def write_summary(out, sweep, rows):
    """OUT/summary.csv: one row per finished point (both backends); prints the table."""
    grid_keys = sorted(sweep["grid"])
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["key", "variant", "seed"] + grid_keys + SUMMARY_FIELDS + ["dropped_packets"])
        for p in rows:
            res = os.path.join(p["dir"], "results.json")
            if not os.path.exists(res):
                continue
            with open(res) as rf:
                s = json.load(rf)["summary"]
            drops = sum(s.get("dropped_packets", {}).values())
            w.writerow([p["key"], p["variant"], p["seed"] if p["seed"] is not None else ""]
                       + [p["grid"][k] for k in grid_keys]
                       + [s.get(k, "") for k in SUMMARY_FIELDS] + [drops])
    print_table(os.path.join(out, "summary.csv"), grid_keys)


def print_table(path, grid_keys):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    if len(grid_keys) != 1:
        for r in rows:
            print(r["variant"], {k: r[k] for k in grid_keys}, r["normalized_goodput"])
        return
    g = grid_keys[0]
    def order(x):
        try:
            return (0, float(x), "")
        except ValueError:
            return (1, 0.0, x)

    values = sorted(set(r[g] for r in rows), key=order)
    print(f"\nnormalized goodput by {g}")
    print(f"{g:>12} " + " ".join(f"{v:>14}" for v in variants))
    for x in values:
        cells = []
        for v in variants:
            match = [r for r in rows if r["variant"] == v and r[g] == x]
            cells.append(f"{float(match[0]['normalized_goodput']):14.3f}" if match else f"{'':>14}")
        print(f"{x:>12} " + " ".join(cells))


if __name__ == "__main__":
    main()
