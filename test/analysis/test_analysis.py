"""The analysis scripts on real runner output (run by ctest through pytest).

METAROCE_RUNNER names the built metaroce-run binary.
"""
import csv
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.environ.get("METAROCE_RUNNER", os.path.join(ROOT, "build", "examples", "metaroce-run"))
PY = sys.executable


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("sweep")
    sweep = {
        "name": "pytest-sweep",
        "experiment": os.path.join(ROOT, "experiments", "tiny-permutation.json"),
        "grid": {"loss.rate": [0, 0.01]},
        "variants": [{"label": "MetaRoCE", "set": {"transport.type": "metaroce"}},
                     {"label": "RoCEv2 go-back-N", "set": {"transport.type": "rocev2"}}],
        "seeds": [1],
    }
    path = d / "s.sweep.json"
    path.write_text(json.dumps(sweep))
    out = d / "out"
    proc = subprocess.run([PY, os.path.join(ROOT, "analysis", "sweep.py"), str(path), "--out",
                           str(out), "--runner", RUNNER, "--jobs", "2"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return path, out, proc.stdout


def test_sweep_runs_every_point_and_tabulates(sweep_dir):
    _, out, stdout = sweep_dir
    with open(out / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    # 2 loss rates x 2 variants
    assert len(rows) == 4
    assert {r["variant"] for r in rows} == {"MetaRoCE", "RoCEv2 go-back-N"}
    for r in rows:
        assert 0 < float(r["normalized_goodput"]) <= 1
        res = json.load(open(out / "points" / r["key"] / "results.json"))
        assert res["schema"] == "metaroce-results/1"
        assert res["config"]["loss"]["rate"] == float(r["loss.rate"])
    assert "normalized goodput by loss.rate" in stdout


def test_sweep_is_resumable(sweep_dir):
    path, out, _ = sweep_dir
    proc = subprocess.run([PY, os.path.join(ROOT, "analysis", "sweep.py"), str(path), "--out",
                           str(out), "--runner", RUNNER], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "4 points, 4 already done, running 0" in proc.stdout


def test_loss_plot_is_written(sweep_dir):
    _, out, _ = sweep_dir
    proc = subprocess.run([PY, os.path.join(ROOT, "analysis", "plot_loss_sweep.py"), str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    png = out / "loss_sweep.png"
    assert png.exists() and png.stat().st_size > 10000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_runner_rejects_a_bad_experiment_with_the_path(tmp_path):
    bad = json.load(open(os.path.join(ROOT, "experiments", "tiny-permutation.json")))
    bad["loss"]["rate"] = 2
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(bad))
    out = tmp_path / "out"
    proc = subprocess.run([RUNNER, str(p), "--out", str(out)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert str(p) in proc.stderr and "/loss/rate" in proc.stderr
    assert not out.exists()  # nothing half-written


def test_bench_repeat_prints_the_median_run_and_refuses_differing_runs():
    # bench.py --repeat: on a shared host one run can be 30 % off, so the
    # printed figures are those of the run with the median wall time (the
    # 2nd fastest of 3 here, 0.5 s), with every run's hop rate listed; runs
    # that simulated different things (events or hops) are an error.
    sys.path.insert(0, os.path.join(ROOT, "analysis"))
    import bench  # noqa: E402

    def r(wall, hops=1000, events=1200):
        return {"scenario": "s", "wall_seconds": wall, "events": events, "packet_hops": hops,
                "packet_hops_per_s": round(hops / wall)}

    one = bench.summarize([r(0.5)])
    assert one == r(0.5)  # a single run is printed as it is
    chosen = bench.summarize([r(0.9), r(0.4), r(0.5)])
    assert chosen["wall_seconds"] == 0.5
    assert chosen["runs"] == 3
    assert chosen["packet_hops_per_s_all"] == [1111, 2500, 2000]
    with pytest.raises(RuntimeError, match="deterministic"):
        bench.summarize([r(0.5), r(0.6, events=1201)])
    assert bench.median([3, 1, 2]) == 2
    assert bench.median([4, 1, 3, 2]) == 2  # even counts: the lower middle
