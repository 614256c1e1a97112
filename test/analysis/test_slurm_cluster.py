"""The sweep driver's Slurm backend against a real single-node Slurm (ctest:
analysis-slurm).

The fixture starts munged, slurmctld and slurmd on localhost from files it
writes into a fresh directory: its own munge key and socket, a minimal
slurm.conf on free ports (no cgroups: proctrack/linuxproc, task/none; no
accounting database, so no sacct), state and logs. The test runs a 4-point
sweep through `sweep.py --backend slurm`, checks it against the local
backend's run of the same sweep (same keys, same numbers, same time series),
cancels one array task and breaks one point on purpose, checks both are
reported failed with their logs, resubmits them alone, and checks they then
succeed. The daemons it started are always stopped (and their jobs
cancelled), pass or fail.

Needs root (the daemons run jobs as root) and Debian's slurm-wlm and munge
(tools/test.sh installs them when root). Without them it skips, saying why;
with METAROCE_REQUIRE_SLURM=1 (CI) it fails instead.
"""
import csv
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.environ.get("METAROCE_RUNNER", os.path.join(ROOT, "build", "examples", "metaroce-run"))
PY = sys.executable
SWEEP_PY = os.path.join(ROOT, "analysis", "sweep.py")
DAEMONS = ["munged", "slurmctld", "slurmd"]
CLIENTS = ["sbatch", "squeue", "scancel", "scontrol", "sinfo"]
# Fields that measure the machine, not the simulation (docs/results-format.md).
WALL_CLOCK = {"wall_seconds", "events_per_second", "peak_rss_mb", "bytes_per_connection"}


def not_possible(why):
    if os.environ.get("METAROCE_REQUIRE_SLURM") == "1":
        pytest.fail(f"METAROCE_REQUIRE_SLURM=1 but {why}")
    pytest.skip(why)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def missing_programs():
    return [p for p in DAEMONS + CLIENTS if shutil.which(p) is None]


class Cluster:
    """munged + slurmctld + slurmd in the foreground, children of this process."""

    def __init__(self, base):
        self.base = base
        self.conf = os.path.join(base, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.procs = []
        self.node = socket.gethostname().split(".")[0]

    def log_tails(self):
        text = []
        for name in sorted(os.listdir(self.base)):
            if name.endswith((".log", ".out")):
                with open(os.path.join(self.base, name), errors="replace") as f:
                    lines = f.read().splitlines()[-15:]
                text.append(f"--- {name}\n" + "\n".join(lines))
        return "\n".join(text)

    def spawn(self, name, argv):
        out = open(os.path.join(self.base, f"{name}.out"), "w")
        self.procs.append((name, subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                                  env=self.env, start_new_session=True)))

    def start(self):
        b = self.base
        for d in ("state", "spool"):
            os.makedirs(os.path.join(b, d))
        key = os.path.join(b, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        sock = os.path.join(b, "munge.sock")
        self.spawn("munged", ["munged", "--foreground", f"--socket={sock}", f"--key-file={key}",
                              f"--pid-file={b}/munged.pid", f"--log-file={b}/munged.log",
                              f"--seed-file={b}/munged.seed"])
        if not wait_for(lambda: os.path.exists(sock), 10):
            return "munged did not create its socket"
        cpus = os.cpu_count() or 1
        with open(self.conf, "w") as f:
            f.write(f"""# Written by test_slurm_cluster.py: one node, this host, no cgroups, no accounting.
ClusterName=metaroce-test
SlurmctldHost={self.node}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={b}/state
SlurmdSpoolDir={b}/spool
SlurmctldPidFile={b}/slurmctld.pid
SlurmdPidFile={b}/slurmd.pid
SlurmctldLogFile={b}/slurmctld.log
SlurmdLogFile={b}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
ReturnToService=2
MinJobAge=300
KillWait=5
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=1000 State=UNKNOWN
# Not the default partition: a job lands there only if the backend passes --partition.
PartitionName=metaroce-test Nodes={self.node} MaxTime=INFINITE State=UP
""")
        self.spawn("slurmctld", ["slurmctld", "-D", "-f", self.conf])
        self.spawn("slurmd", ["slurmd", "-D", "-f", self.conf, "-N", self.node])

        def idle():
            p = subprocess.run(["sinfo", "--noheader", "--Node", "--format=%T"], env=self.env,
                               capture_output=True, text=True)
            return p.returncode == 0 and p.stdout.strip() == "idle"
        if not wait_for(idle, 30):
            return "the node did not come up idle within 30 s"
        return None

    def run(self, *argv):
        return subprocess.run(list(argv), env=self.env, capture_output=True, text=True,
                              timeout=60)

    def stop(self):
        if any(name == "slurmctld" and p.poll() is None for name, p in self.procs):
            self.run("scancel", "--partition=metaroce-test")
            wait_for(lambda: not self.run("squeue", "--noheader").stdout.strip(), 15)
        # slurmd, slurmctld, then munged: each the process this fixture started.
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(15)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(5)


def wait_for(predicate, seconds):
    end = time.time() + seconds
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.2)
    return False


@pytest.fixture(scope="module")
def cluster():
    if os.geteuid() != 0:
        not_possible("the Slurm test needs root to start munged, slurmctld and slurmd "
                     "(run it as root, as .ci/run does)")
    if missing_programs():
        subprocess.run(["bash", os.path.join(ROOT, "tools", "deps.sh"), "--optional",
                        "slurm-wlm", "munge"], capture_output=True)
    missing = missing_programs()
    if missing:
        not_possible(f"Slurm could not be installed ({', '.join(missing)} missing; "
                     "apt-get install slurm-wlm munge)")
    # Under /tmp, not $TMPDIR: munged wants every directory above its socket
    # open to all, and a socket path is limited to 107 bytes.
    base = tempfile.mkdtemp(prefix="metaroce-slurm-", dir="/tmp")
    os.chmod(base, 0o755)
    c = Cluster(base)
    try:
        why = c.start()
        if why:
            tails = c.log_tails()
            c.stop()
            not_possible(f"Slurm could not be started: {why}\n{tails}")
        yield c
        if os.environ.get("METAROCE_SLURM_DEBUG"):
            print(c.log_tails())
    finally:
        c.stop()
        shutil.rmtree(base, ignore_errors=True)


def sweep_file(d):
    sweep = {
        "name": "pytest-slurm",
        "experiment": os.path.join(ROOT, "experiments", "tiny-permutation.json"),
        "grid": {"loss.rate": [0, 0.01]},
        "variants": [{"label": "MetaRoCE", "set": {"transport.type": "metaroce"}},
                     {"label": "RoCEv2 go-back-N", "set": {"transport.type": "rocev2"}}],
        "seeds": [3],
    }
    path = os.path.join(d, "s.sweep.json")
    with open(path, "w") as f:
        json.dump(sweep, f)
    return path


def summary(out):
    with open(os.path.join(out, "summary.csv")) as f:
        return {r["key"]: r for r in csv.DictReader(f)}


def without_wall_clock(row):
    return {k: v for k, v in row.items() if k not in WALL_CLOCK}


def test_sweep_on_slurm_matches_local_and_failed_tasks_resubmit(cluster, tmp_path):
    sweep = sweep_file(tmp_path)
    local, remote = str(tmp_path / "local"), str(tmp_path / "slurm")
    proc = subprocess.run([PY, SWEEP_PY, sweep, "--out", local, "--runner", RUNNER,
                           "--jobs", "2"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    expected = summary(local)
    assert len(expected) == 4
    keys = list(expected)  # the sweep's point order

    config = tmp_path / "slurm.json"
    config.write_text(json.dumps({"partition": "metaroce-test", "time": "00:05:00",
                                  "mem": "100M", "cpus_per_task": 1, "poll_seconds": 0.5}))
    base = [PY, SWEEP_PY, sweep, "--out", remote, "--runner", RUNNER, "--backend", "slurm",
            "--slurm-config", str(config)]

    def sweep_py(*extra):
        return subprocess.run(base + list(extra), capture_output=True, text=True,
                              env=cluster.env, timeout=120)

    # One point made to fail: a file where its results folder goes.
    broken = keys[1]
    os.makedirs(os.path.join(remote, "points"))
    open(os.path.join(remote, "points", broken), "w").close()

    # Submitted held, so that one task can be cancelled before it starts.
    proc = sweep_py("--sbatch-arg=--hold", "--no-wait")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "4 points, 0 already done, 0 queued or running, submitting 4" in proc.stdout
    assert "--status" in proc.stdout
    with open(os.path.join(remote, "slurm", "state.json")) as f:
        state = json.load(f)
    job = state["submissions"][0]["job_id"]
    tasks = state["submissions"][0]["tasks"]
    assert sorted(tasks) == sorted(keys)
    script = open(state["submissions"][0]["script"]).read()
    for line in ("#SBATCH --partition=metaroce-test", "#SBATCH --time=00:05:00",
                 "#SBATCH --mem=100M", "#SBATCH --cpus-per-task=1", "#SBATCH --hold"):
        assert line in script

    proc = sweep_py("--status")
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "4 points: 0 done, 0 running, 4 pending, 0 failed" in proc.stdout
    assert "JobHeldUser 4" in proc.stdout

    cancelled = keys[2]
    task = tasks.index(cancelled)
    assert cluster.run("scancel", f"{job}_{task}").returncode == 0
    assert cluster.run("scontrol", "release", job).returncode == 0

    proc = sweep_py("--status", "--wait")
    report = proc.stdout
    assert proc.returncode == 1, report + proc.stderr
    assert "2 point(s) failed" in proc.stderr
    assert "4 points: 2 done, 0 running, 0 pending, 2 failed" in report
    log = os.path.join(remote, "slurm", "logs", f"{job}_{task}.log")
    assert re.search(rf"task {job}_{task} left the queue without an exit code.*; log "
                     rf"{re.escape(log)} \(not written: the task never started\)", report), report
    log = os.path.join(remote, "slurm", "logs", f"{job}_{tasks.index(broken)}.log")
    assert f"metaroce-run exit code 1; log {log}: metaroce-run: filesystem error" in report, report
    assert "Not a directory" in open(log).read()
    assert "--resubmit-failed" in report
    assert set(summary(remote)) == set(keys) - {broken, cancelled}

    # Resubmitted alone: one array of exactly the two failed points.
    os.remove(os.path.join(remote, "points", broken))
    proc = sweep_py("--resubmit-failed")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 already done, 0 queued or running, resubmitting the failed 2" in proc.stdout
    assert "4 points: 4 done, 0 running, 0 pending, 0 failed" in proc.stdout
    with open(os.path.join(remote, "slurm", "state.json")) as f:
        state = json.load(f)
    assert len(state["submissions"]) == 2
    assert sorted(state["submissions"][1]["tasks"]) == sorted([broken, cancelled])

    # Same keys, same numbers as the local run; the same per-point files.
    got = summary(remote)
    assert set(got) == set(expected)
    for key in keys:
        assert without_wall_clock(got[key]) == without_wall_clock(expected[key])
        a = json.load(open(os.path.join(local, "points", key, "results.json")))
        b = json.load(open(os.path.join(remote, "points", key, "results.json")))
        assert {k: v for k, v in a["summary"].items() if k not in WALL_CLOCK} == \
            {k: v for k, v in b["summary"].items() if k not in WALL_CLOCK}
        assert a["config"] == b["config"]
        for name in a["files"].values():
            assert open(os.path.join(local, "points", key, name)).read() == \
                open(os.path.join(remote, "points", key, name)).read(), name

    # Nothing left to do; the plot reads the Slurm results as it reads local ones.
    proc = sweep_py()
    assert proc.returncode == 0 and "4 already done, 0 queued or running, submitting 0" in \
        proc.stdout, proc.stdout + proc.stderr
    proc = subprocess.run([PY, os.path.join(ROOT, "analysis", "plot_loss_sweep.py"), remote],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
