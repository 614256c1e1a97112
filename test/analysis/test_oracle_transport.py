"""A third transport added with only its own files (test/oracle/): the ideal
"oracle" transport, loaded by metaroce-run --load, runs every workload, the
all-to-all experiment and the loss sweep. Its figures follow from its one
rule (a message occupies its sender's NIC, all planes together, for its
serialisation time in whole nanoseconds rounded up; receivers never limit),
so each run is checked against that formula.

METAROCE_RUNNER names metaroce-run, METAROCE_ORACLE the oracle's library.
"""
import json
import math
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER = os.environ.get("METAROCE_RUNNER", os.path.join(ROOT, "build", "examples", "metaroce-run"))
ORACLE = os.environ.get("METAROCE_ORACLE",
                        os.path.join(ROOT, "build", "test", "oracle", "libmetaroce-oracle.so"))
TYPE = "transport.type=ns3::OracleTransport"


def serialisation_ns(nbytes, gbps):
    return math.ceil(nbytes * 8 / gbps)


def run(tmp_path, experiment, *sets):
    out = tmp_path / "out"
    cmd = [RUNNER, os.path.join(ROOT, "experiments", experiment), f"--load={ORACLE}",
           "--set", TYPE, "--quiet", "--out", str(out)]
    for s in sets:
        cmd += ["--set", s]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    with open(out / "results.json") as f:
        return json.load(f)


def test_all_to_all_experiment_completes_in_63_serialisation_times(tmp_path):
    # 64 hosts x 4 planes of 100 Gb/s: each host writes 63 x 64 KiB back to back.
    r = run(tmp_path, "all-to-all.json")
    s = r["summary"]
    assert r["provenance"]["transport"] == "ns3::OracleTransport"
    assert s["completed_messages"] == 64 * 63
    assert s["collective_completion_us"] == 63 * serialisation_ns(65536, 400) / 1e3
    assert s["retransmitted_packets"] == 0 and s["packet_hops"] == 0


def test_every_workload_runs_at_the_oracle_rate(tmp_path):
    # tiny-permutation: 4 hosts x 2 planes (200 Gb/s NICs), 256 KiB writes, 200 us.
    per_msg = serialisation_ns(262144, 200)
    for workload, sets, senders, receivers in [
            ("permutation", [], 4, 4),
            ("bulk", ["workload.flows=[[0,3],[1,2]]"], 2, 2),
            # No receiver limit: two senders into one host deliver twice its rate.
            ("incast", ["workload.senders=2", "workload.receiver=3"], 2, 1)]:
        d = tmp_path / workload
        d.mkdir()
        s = run(d, "tiny-permutation.json", f"workload.type={workload}", *sets)["summary"]
        # Delivered bytes grow at the line rate of every sender for the whole run.
        assert abs(s["goodput_gbps"] - senders * 262144 * 8 / per_msg) < 1e-3, workload
        assert s["offered_line_rate_gbps"] == 200 * min(senders, receivers), workload
        assert s["completed_messages"] == senders * (200000 // per_msg), workload
    d = tmp_path / "all_reduce"
    d.mkdir()
    # Ring all-reduce of 1 MiB on 4 ranks in 8 slices: 2 (n - 1) steps of
    # 8 slices of 1 MiB / 4 / 8, each sent once its predecessor arrived.
    s = run(d, "tiny-permutation.json", "workload.type=all_reduce",
            "workload.message_bytes=1048576", "stop=workload_done")["summary"]
    assert s["collective_completion_us"] == 2 * 3 * 8 * serialisation_ns(32768, 200) / 1e3
    d = tmp_path / "all_to_all"
    d.mkdir()
    s = run(d, "tiny-permutation.json", "workload.type=all_to_all",
            "workload.message_bytes=65536", "stop=workload_done")["summary"]
    assert s["collective_completion_us"] == 3 * serialisation_ns(65536, 200) / 1e3


def test_loss_sweep_runs_and_loss_changes_nothing(tmp_path):
    # The loss sweep's reference point with the oracle as its one variant:
    # it sends nothing on the fabric, so loss has no effect, and each host
    # writes at its line rate (a permutation: no receiver gets two flows).
    sweep = {"name": "oracle-loss", "experiment": os.path.join(ROOT, "experiments",
                                                               "loss-point.json"),
             "grid": {"loss.rate": [0, 0.01, 0.1]},
             "variants": [{"label": "oracle", "set": {"transport.type": "ns3::OracleTransport"}}],
             "seeds": [1]}
    path = tmp_path / "oracle.sweep.json"
    path.write_text(json.dumps(sweep))
    out = tmp_path / "sweep"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "analysis", "sweep.py"), str(path),
                           "--out", str(out), "--runner", RUNNER, "--load", ORACLE, "--jobs", "2"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    rows = (out / "summary.csv").read_text().splitlines()[1:]
    assert len(rows) == 3
    goodputs = {row.split(",")[4] for row in rows}
    assert len(goodputs) == 1  # identical at every loss rate
    per_msg = serialisation_ns(1 << 20, 400)
    assert abs(float(goodputs.pop()) - 64 * (1 << 20) * 8 / per_msg) < 1e-2
