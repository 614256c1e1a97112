"""The sweep driver's Slurm backend without a cluster: parsing of squeue/sacct
output, the config file's checks, the job script, the command line's checks
(run by ctest through pytest, with the other analysis tests).
test_slurm_cluster.py runs it against a real Slurm.
"""
import json
import os
import subprocess
import sys
import types

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "analysis"))
import sweep_slurm  # noqa: E402

PY = sys.executable


def test_array_task_fields():
    assert sweep_slurm.task_ids("7") == [7]
    assert sweep_slurm.task_ids("[0-3,7]") == [0, 1, 2, 3, 7]
    assert sweep_slurm.task_ids("[2-4%1]") == [2, 3, 4]
    assert sweep_slurm.task_ids("N/A") == []


def test_squeue_and_sacct_output():
    q = sweep_slurm.parse_squeue("12|0|RUNNING|None\n12|[1-2]|PENDING|JobHeldUser\n"
                                 "12|3|CANCELLED|None\n")
    assert q[("12", 0)] == ("RUNNING", "None")
    assert q[("12", 2)] == ("PENDING", "JobHeldUser")
    assert q[("12", 3)][0] == "CANCELLED"
    a = sweep_slurm.parse_sacct("12_0|COMPLETED|0:0\n12_1|CANCELLED by 0|0:15\n"
                                "12_[2-3]|PENDING|0:0\n13|FAILED|1:0\n")
    assert a[("12", 1)] == ("CANCELLED", "0:15")
    assert a[("12", 3)][0] == "PENDING"
    assert ("13", 0) not in a  # not an array task


def fake_args(**kw):
    base = {k: None for k in ("slurm_config", "partition", "time", "mem", "cpus_per_task",
                              "account", "sbatch_arg", "array_limit", "max_array_size",
                              "shared_root", "poll")}
    base.update(kw)
    return types.SimpleNamespace(**base)


def test_config_file_and_overrides(tmp_path):
    cfg = tmp_path / "slurm.json"
    cfg.write_text(json.dumps({"partition": "long", "time": "01:00:00", "mem": "2G",
                               "sbatch_args": ["--qos=low"], "poll_seconds": 30}))
    s = sweep_slurm.settings(fake_args(slurm_config=str(cfg), partition="short",
                                       sbatch_arg=["--nice=10"]))
    assert s["partition"] == "short"  # the command line wins
    assert s["time"] == "01:00:00" and s["mem"] == "2G" and s["cpus_per_task"] == 1
    assert s["sbatch_args"] == ["--qos=low", "--nice=10"]
    assert s["poll_seconds"] == 30 and s["shared_root"] == ROOT


@pytest.mark.parametrize("doc, message", [
    ({"partiton": "x"}, "/partiton: unknown key; expected one of partition"),
    ({"cpus_per_task": "2"}, "/cpus_per_task: expected an integer, got \"2\""),
    ({"sbatch_args": "--qos=x"}, "/sbatch_args: expected a list of strings"),
    ([1], "expected a JSON object"),
])
def test_config_file_errors_name_the_key(tmp_path, doc, message):
    cfg = tmp_path / "slurm.json"
    cfg.write_text(json.dumps(doc))
    with pytest.raises(SystemExit) as e:
        sweep_slurm.settings(fake_args(slurm_config=str(cfg)))
    assert str(cfg) in str(e.value) and message in str(e.value)


def test_job_script_maps_the_repository_to_the_shared_root(tmp_path):
    out = os.path.join(ROOT, "results", "x")
    s = sweep_slurm.settings(fake_args(shared_root="/cluster/metaroce", partition="p",
                                       time="0:10:00", array_limit=4,
                                       sbatch_arg=["--qos=low"]))
    sweep = {"name": "x y", "experiment_path": os.path.join(ROOT, "experiments", "e.json")}
    todo = [{"key": "k0", "set": {"loss.rate": 0.01, "transport.type": "rocev2"}},
            {"key": "k1", "set": {"fabric": "topologies/a b.json"}}]
    runner = os.path.join(ROOT, "build", "examples", "metaroce-run")
    text = sweep_slurm.job_script(sweep, todo, s, sweep_slurm.Layout(out), runner)
    assert "#SBATCH --job-name=metaroce-x_y" in text
    assert "#SBATCH --output=/cluster/metaroce/results/x/slurm/logs/%A_%a.log" in text
    assert "#SBATCH --partition=p\n#SBATCH --time=0:10:00\n" in text
    assert "#SBATCH --qos=low" in text and "#SBATCH --cpus-per-task=1" in text
    assert "runner=/cluster/metaroce/build/examples/metaroce-run" in text
    assert "experiment=/cluster/metaroce/experiments/e.json" in text
    assert "points=/cluster/metaroce/results/x/points" in text
    assert "  0) key=k0; sets=(--set loss.rate=0.01 --set 'transport.type=\"rocev2\"') ;;" in text
    assert "  1) key=k1; sets=(--set 'fabric=\"topologies/a b.json\"') ;;" in text
    assert ROOT + "/" not in text  # nothing left pointing at this machine's path
    # bash accepts it
    script = tmp_path / "job.sh"
    script.write_text(text)
    assert subprocess.run(["bash", "-n", str(script)]).returncode == 0


def test_classify_uses_squeue_then_sacct(tmp_path, monkeypatch):
    layout = sweep_slurm.Layout(str(tmp_path))
    os.makedirs(layout.exits)
    rows = [{"key": k, "dir": str(tmp_path / "points" / k), "variant": "v", "grid": {},
             "seed": 1} for k in ("a", "b", "c", "d", "e", "f")]
    os.makedirs(rows[0]["dir"])
    (tmp_path / "points" / "a" / "results.json").write_text("{}")
    (tmp_path / "slurm" / "exit" / "5_4").write_text("2\n")
    state = {"submissions": [{"job_id": "5", "tasks": ["a", "b", "c", "d", "e"]}]}
    calls = []

    def fake_command(argv, timeout=120):
        calls.append(argv[0])
        out = {"squeue": "5|1|RUNNING|None\n5|2|PENDING|Priority\n",
               "sacct": "5_3|TIMEOUT|0:0\n"}[argv[0]]
        return subprocess.CompletedProcess(argv, 0, out, "")

    monkeypatch.setattr(sweep_slurm, "command", fake_command)
    monkeypatch.setattr(sweep_slurm.shutil, "which", lambda name: "/usr/bin/" + name)
    monkeypatch.setattr(sweep_slurm, "_sacct_works", [None])
    st = sweep_slurm.classify(rows, state, layout)
    assert st["a"][0] == "done"
    assert st["b"][0] == "running"
    assert st["c"] == ("pending", "task 5_2 pending (Priority)")
    assert st["d"] == ("failed", "task 5_3 TIMEOUT without an exit code")
    assert st["e"] == ("failed", "task 5_4: metaroce-run exit code 2")
    assert st["f"][0] == "unsubmitted"
    assert calls == ["squeue", "sacct"]


def run_sweep(tmp_path, *extra, env=None):
    sweep = {"name": "cli", "experiment": os.path.join(ROOT, "experiments",
                                                       "tiny-permutation.json"),
             "grid": {"loss.rate": [0]}}
    path = tmp_path / "s.sweep.json"
    path.write_text(json.dumps(sweep))
    runner = tmp_path / "fake-runner"  # only hashed: nothing runs
    runner.write_text("#!/bin/sh\nexit 1\n")
    return subprocess.run([PY, os.path.join(ROOT, "analysis", "sweep.py"), str(path), "--out",
                           str(tmp_path / "out"), "--runner", str(runner)] + list(extra),
                          capture_output=True, text=True, env=env)


def test_slurm_options_need_the_slurm_backend(tmp_path):
    proc = run_sweep(tmp_path, "--partition", "x")
    assert proc.returncode == 2 and "--partition applies to --backend slurm only" in proc.stderr
    proc = run_sweep(tmp_path, "--backend", "slurm", "--jobs", "2")
    assert proc.returncode == 2 and "--jobs applies to the local backend" in proc.stderr
    proc = run_sweep(tmp_path, "--backend", "slurm", "--wait")
    assert proc.returncode == 2 and "--wait goes with --status" in proc.stderr


def test_slurm_backend_without_slurm_says_so(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))  # no sbatch there
    proc = run_sweep(tmp_path, "--backend", "slurm", env=env)
    assert proc.returncode == 1
    assert "sbatch not found on PATH" in proc.stderr, proc.stderr
