"""Slurm backend of the sweep driver (analysis/sweep.py --backend slurm).

    analysis/sweep.py SWEEP.json --backend slurm [--slurm-config FILE] [--partition P]
        [--time T] [--mem M] [--cpus-per-task N] [--account A] [--sbatch-arg ARG]...
        [--array-limit N] [--shared-root DIR] [--poll S] [--no-wait]
    analysis/sweep.py SWEEP.json --backend slurm --status [--wait]
    analysis/sweep.py SWEEP.json --backend slurm --resubmit-failed

The points of the sweep that are not done yet (no OUT/points/<key>/results.json,
the same keys as the local backend) and not already queued become one job
array: OUT/slurm/job-<n>.sh, submitted with `sbatch --array`, one task per
point. Each task runs `metaroce-run` exactly as the local backend does, with
--out OUT/points/<key>, so results land in the same per-point folders; the
task's output goes to OUT/slurm/logs/<jobid>_<task>.log and, once the runner
returns, its exit code to OUT/slurm/exit/<jobid>_<task>. OUT/slurm/state.json
records which task ran which point last.

A point is done when its results.json exists; failed when its last task wrote
a non-zero exit code, or left the queue without results (cancelled, timed
out, killed, out of memory; `squeue` shows why for a few minutes after, and
`sacct` later where the cluster keeps accounting: it is used when it works,
never required); running or pending while `squeue` lists its task so.

This assumes OUT, the runner (and the model library beside it) and the
experiment and fabric files are on a filesystem the compute nodes share with
the submitting host. Paths under this repository are rewritten to
--shared-root (default: the repository's own absolute path, i.e. the same path
everywhere); any other path must be the same on the nodes. docs/slurm.md has
the details and the config file's keys.
"""
import datetime
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Config file keys (JSON object) and the command-line option of each.
CONFIG_KEYS = {
    "partition": ("--partition", str),
    "time": ("--time", str),
    "mem": ("--mem", str),
    "cpus_per_task": ("--cpus-per-task", int),
    "account": ("--account", str),
    "sbatch_args": ("--sbatch-arg", list),
    "array_limit": ("--array-limit", int),
    "max_array_size": ("--max-array-size", int),
    "shared_root": ("--shared-root", str),
    "poll_seconds": ("--poll", float),
}
DEFAULTS = {"cpus_per_task": 1, "sbatch_args": [], "max_array_size": 1000,
            "poll_seconds": 10.0, "shared_root": ROOT}
PENDING_STATES = {"PENDING", "REQUEUED", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD",
                  "CONFIGURING"}
RUNNING_STATES = {"RUNNING", "COMPLETING", "SUSPENDED", "STOPPED", "RESIZING", "SIGNALING",
                  "STAGE_OUT"}
# A task that exited 0 but whose results.json is not visible yet (a shared
# filesystem's attribute cache) counts as running for this long.
VISIBILITY_GRACE_S = 60
SCHEMA = "metaroce-sweep-slurm/1"


class SlurmError(Exception):
    pass


def add_arguments(ap):
    g = ap.add_argument_group("Slurm backend (--backend slurm; docs/slurm.md)")
    g.add_argument("--slurm-config", metavar="FILE",
                   help="JSON file with partition, time, mem, cpus_per_task, account, "
                        "sbatch_args, array_limit, max_array_size, shared_root, poll_seconds; "
                        "command-line options override it")
    g.add_argument("--partition", help="sbatch --partition")
    g.add_argument("--time", help="sbatch --time, per task (e.g. 00:30:00)")
    g.add_argument("--mem", help="sbatch --mem, per task (e.g. 2G)")
    g.add_argument("--cpus-per-task", type=int, help="sbatch --cpus-per-task (default 1: the "
                   "runner is single-threaded)")
    g.add_argument("--account", help="sbatch --account")
    g.add_argument("--sbatch-arg", action="append", metavar="ARG",
                   help="one more sbatch option, written as '--sbatch-arg=--qos=long' "
                        "(repeatable)")
    g.add_argument("--array-limit", type=int, metavar="N",
                   help="at most N tasks of the array run at once (sbatch --array=...%%N)")
    g.add_argument("--max-array-size", type=int, metavar="N",
                   help="split into several arrays of at most N tasks (default 1000, under "
                        "Slurm's default MaxArraySize of 1001)")
    g.add_argument("--shared-root", metavar="DIR",
                   help="this repository's path on the compute nodes (default: its path here)")
    g.add_argument("--poll", type=float, metavar="SECONDS",
                   help="seconds between squeue queries while waiting (default 10)")
    g.add_argument("--no-wait", action="store_true",
                   help="submit and return at once; --status reports later")
    g.add_argument("--status", action="store_true",
                   help="report done/running/pending/failed points of a submitted sweep, list "
                        "failed tasks with their logs, collect finished points into "
                        "summary.csv; submits nothing. Exit code 0: all done, 1: some failed, "
                        "3: some still queued or running")
    g.add_argument("--wait", action="store_true",
                   help="with --status: follow until no task is queued or running")
    g.add_argument("--resubmit-failed", action="store_true",
                   help="submit only the points whose last task failed, then wait (unless "
                        "--no-wait)")


def options_given(args):
    """The Slurm-only options present on the command line (for the local backend's check)."""
    names = ["slurm_config", "partition", "time", "mem", "cpus_per_task", "account",
             "sbatch_arg", "array_limit", "max_array_size", "shared_root", "poll"]
    given = ["--" + n.replace("_", "-") for n in names if getattr(args, n) is not None]
    given += ["--" + n.replace("_", "-") for n in ("no_wait", "status", "wait", "resubmit_failed")
              if getattr(args, n)]
    return given


def load_config(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        sys.exit(f"{path}: cannot read the Slurm config: {e.strerror}")
    except json.JSONDecodeError as e:
        sys.exit(f"{path}: not JSON: {e}")
    if not isinstance(doc, dict):
        sys.exit(f"{path}: expected a JSON object of Slurm settings, got {type(doc).__name__}")
    for key, value in doc.items():
        if key not in CONFIG_KEYS:
            sys.exit(f"{path}: /{key}: unknown key; expected one of {', '.join(CONFIG_KEYS)}")
        kind = CONFIG_KEYS[key][1]
        ok = (isinstance(value, kind) and not isinstance(value, bool)) or \
            (kind is float and isinstance(value, int) and not isinstance(value, bool))
        if kind is list:
            ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if not ok:
            want = {str: "a string", int: "an integer", float: "a number",
                    list: "a list of strings"}[kind]
            sys.exit(f"{path}: /{key}: expected {want}, got {json.dumps(value)}")
    return doc


def settings(args):
    """Defaults, then the config file, then the command line."""
    s = dict(DEFAULTS)
    if args.slurm_config:
        s.update(load_config(args.slurm_config))
    cli = {"partition": args.partition, "time": args.time, "mem": args.mem,
           "cpus_per_task": args.cpus_per_task, "account": args.account,
           "array_limit": args.array_limit, "max_array_size": args.max_array_size,
           "shared_root": args.shared_root, "poll_seconds": args.poll}
    s.update({k: v for k, v in cli.items() if v is not None})
    if args.sbatch_arg:
        s["sbatch_args"] = list(s["sbatch_args"]) + args.sbatch_arg
    for key in ("cpus_per_task", "array_limit", "max_array_size"):
        if s.get(key) is not None and s[key] < 1:
            sys.exit(f"sweep: {CONFIG_KEYS[key][0]}: expected at least 1, got {s[key]}")
    if s["poll_seconds"] <= 0:
        sys.exit(f"sweep: --poll: expected a positive number of seconds, got {s['poll_seconds']}")
    if not os.path.isabs(s["shared_root"]):
        sys.exit(f"sweep: --shared-root: expected an absolute path, got {s['shared_root']!r}")
    s["shared_root"] = s["shared_root"].rstrip("/") or "/"
    return s


# --- paths and state -------------------------------------------------------

class Layout:
    def __init__(self, out):
        self.out = out
        self.dir = os.path.join(out, "slurm")
        self.logs = os.path.join(self.dir, "logs")
        self.exits = os.path.join(self.dir, "exit")
        self.state = os.path.join(self.dir, "state.json")

    def log(self, job, task):
        return os.path.join(self.logs, f"{job}_{task}.log")

    def exit_file(self, job, task):
        return os.path.join(self.exits, f"{job}_{task}")


def load_state(layout):
    if not os.path.exists(layout.state):
        return {"schema": SCHEMA, "submissions": []}
    with open(layout.state) as f:
        state = json.load(f)
    if state.get("schema") != SCHEMA:
        sys.exit(f"{layout.state}: /schema: expected {SCHEMA!r}, got {state.get('schema')!r}")
    return state


def save_state(layout, state):
    tmp = layout.state + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f, indent=1)
        f.write("\n")
    os.replace(tmp, layout.state)


def last_attempts(state):
    """Point key -> (job id, array task index) of the last task that ran it."""
    attempts = {}
    for sub in state["submissions"]:
        for index, key in enumerate(sub["tasks"]):
            attempts[key] = (sub["job_id"], index)
    return attempts


def on_nodes(path, shared_root):
    """The path as the compute nodes see it: the repository's root mapped to shared_root."""
    path = os.path.abspath(path)
    if path == ROOT:
        return shared_root
    if path.startswith(ROOT + os.sep):
        return os.path.join(shared_root, os.path.relpath(path, ROOT))
    return path


def library_dir(runner):
    for d in (os.path.dirname(runner), os.path.dirname(os.path.dirname(runner))):
        if os.path.exists(os.path.join(d, "libns3-metaroce.so")):
            return d
    return None


# --- Slurm commands ----------------------------------------------------------

def command(argv, timeout=120):
    exe = shutil.which(argv[0])
    if exe is None:
        raise SlurmError(f"{argv[0]} not found on PATH: the Slurm backend runs where Slurm's "
                         "client commands are (a login node; Debian: apt-get install "
                         "slurm-client)")
    try:
        return subprocess.run([exe] + argv[1:], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SlurmError(f"{' '.join(argv[:3])} ...: no answer in {timeout} s (is slurmctld "
                         "reachable?)")


def task_ids(field):
    """Array task indices in an squeue/sacct field: '3', '[0-3,7]', '[0-9%2]'."""
    field = field.strip()
    if field.isdigit():
        return [int(field)]
    m = re.fullmatch(r"\[([0-9,\-]+)(?:%\d+)?\]", field)
    if not m:
        return []
    ids = []
    for part in m.group(1).split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            ids.extend(range(int(a), int(b) + 1))
        elif part:
            ids.append(int(part))
    return ids


def parse_squeue(text):
    """Lines 'ARRAYJOB|TASK|STATE|REASON' -> {(job, task): (state, reason)}."""
    tasks = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) < 3:
            continue
        job, task, st = parts[0], parts[1], parts[2].split()[0] if parts[2].strip() else ""
        reason = parts[3] if len(parts) > 3 else ""
        for t in task_ids(task):
            tasks[(job, t)] = (st, reason)
    return tasks


def parse_sacct(text):
    """Lines 'JOB_TASK|STATE|EXITCODE' (sacct -n -P -X) -> {(job, task): (state, exitcode)}."""
    tasks = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) < 3 or "_" not in parts[0]:
            continue
        job, task = parts[0].split("_", 1)
        st = parts[1].split()[0] if parts[1].strip() else ""
        for t in task_ids(task):
            tasks[(job, t)] = (st, parts[2])
    return tasks


def squeue(job_ids):
    """What squeue knows of these jobs' array tasks (including ones ended in the last
    MinJobAge seconds). Raises SlurmError when squeue itself fails."""
    if not job_ids:
        return {}
    proc = command(["squeue", "--noheader", "--array", "--states=all",
                    "--jobs=" + ",".join(sorted(job_ids, key=int)),
                    "--format=%F|%K|%T|%r"])
    if proc.returncode != 0:
        # One job id that slurmctld has forgotten makes squeue fail.
        if "Invalid job id" in proc.stderr:
            return {}
        raise SlurmError(f"squeue failed ({proc.returncode}): {proc.stderr.strip()}")
    return parse_squeue(proc.stdout)


_sacct_works = [None]


def sacct(job_ids):
    """sacct's view where the cluster keeps accounting; {} where it does not."""
    if not job_ids or _sacct_works[0] is False or shutil.which("sacct") is None:
        return {}
    try:
        proc = command(["sacct", "--noheader", "--parsable2", "--allocations",
                        "--jobs=" + ",".join(sorted(job_ids, key=int)),
                        "--format=JobID,State,ExitCode"], timeout=60)
    except SlurmError:
        return {}
    _sacct_works[0] = proc.returncode == 0
    return parse_sacct(proc.stdout) if proc.returncode == 0 else {}


# --- point states ----------------------------------------------------------

def last_log_line(path):
    try:
        with open(path, errors="replace") as f:
            lines = [ln.strip() for ln in f.read()[-4000:].splitlines() if ln.strip()]
    except OSError:
        return None
    lines = [ln for ln in lines if not ln.startswith("metaroce: ")]
    return lines[-1][:300] if lines else None


def classify(rows, state, layout):
    """Each point's state: (state, detail) with state one of done, running, pending,
    failed, unsubmitted. Raises SlurmError when squeue fails."""
    attempts = last_attempts(state)
    open_points = [p for p in rows if not is_done(p) and p["key"] in attempts]
    queue = squeue({attempts[p["key"]][0] for p in open_points})
    missing = {attempts[p["key"]][0] for p in open_points if attempts[p["key"]] not in queue}
    acct = sacct(missing)
    result = {}
    for p in rows:
        key = p["key"]
        # After the queue: a task that ends between the two is seen done, not lost.
        if is_done(p):
            result[key] = ("done", "")
            continue
        if key not in attempts:
            result[key] = ("unsubmitted", "")
            continue
        job, task = attempts[key]
        name = f"{job}_{task}"
        code, age = read_exit(layout.exit_file(job, task))
        q = queue.get((job, task))
        # The queue first: a requeued task (preemption, node failure) runs again.
        if q and q[0] in PENDING_STATES:
            result[key] = ("pending", f"task {name} pending ({q[1]})")
        elif q and q[0] in RUNNING_STATES:
            result[key] = ("running", f"task {name} {q[0].lower()}")
        elif code is not None and code != 0:
            result[key] = ("failed", f"task {name}: metaroce-run exit code {code}")
        elif code == 0:
            if age < VISIBILITY_GRACE_S:
                result[key] = ("running", f"task {name} finishing")
            else:
                result[key] = ("failed", f"task {name} exited 0 but "
                               f"{os.path.join(p['dir'], 'results.json')} is not there: is "
                               "--out on a filesystem the compute nodes share?")
        else:
            st = q[0] if q else acct.get((job, task), (None,))[0]
            if st:
                result[key] = ("failed", f"task {name} {st} without an exit code")
            else:
                result[key] = ("failed", f"task {name} left the queue without an exit code "
                               "(cancelled, timed out, killed, out of memory, or the job "
                               "script could not start)")
    return result


def is_done(p):
    return os.path.exists(os.path.join(p["dir"], "results.json"))


def read_exit(path):
    try:
        with open(path) as f:
            text = f.read().strip()
        age = time.time() - os.path.getmtime(path)
    except OSError:
        return None, 0
    try:
        return int(text), age
    except ValueError:
        return 1, age


def counts(states):
    c = {"done": 0, "running": 0, "pending": 0, "failed": 0, "unsubmitted": 0}
    for st, _ in states.values():
        c[st] += 1
    return c


def describe(p):
    seed = f" seed {p['seed']}" if p.get("seed") is not None else ""
    return f"{p['variant']} {p['grid']}{seed}"


# --- submission ----------------------------------------------------------------

def job_script(sweep, todo, s, layout, runner):
    root = s["shared_root"]
    lines = [
        "#!/bin/bash",
        f"# Sweep {sweep['name']!r}: {len(todo)} point(s), one array task each; written by",
        "# analysis/sweep.py --backend slurm. Task i runs point i of the table below with",
        "# metaroce-run, into OUT/points/<key>, and records the runner's exit code.",
        f"#SBATCH --job-name={re.sub(r'[^A-Za-z0-9_.-]', '_', 'metaroce-' + sweep['name'])}",
        f"#SBATCH --output={on_nodes(layout.logs, root)}/%A_%a.log",
        f"#SBATCH --chdir={root}",
        f"#SBATCH --cpus-per-task={s['cpus_per_task']}",
    ]
    for key, flag in (("partition", "--partition"), ("time", "--time"), ("mem", "--mem"),
                      ("account", "--account")):
        if s.get(key):
            lines.append(f"#SBATCH {flag}={s[key]}")
    for extra in s["sbatch_args"]:
        lines.append(f"#SBATCH {extra}")
    lines += ["set -u", f"root={shlex.quote(root)}",
              f"runner={shlex.quote(on_nodes(runner, root))}",
              f"experiment={shlex.quote(on_nodes(sweep['experiment_path'], root))}",
              f"points={shlex.quote(on_nodes(os.path.join(layout.out, 'points'), root))}",
              f"exits={shlex.quote(on_nodes(layout.exits, root))}"]
    lib = library_dir(runner)
    if lib and root != ROOT:
        lines.append(f"export LD_LIBRARY_PATH={shlex.quote(on_nodes(lib, root))}"
                     "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")
    lines.append('case "${SLURM_ARRAY_TASK_ID:-}" in')
    for i, p in enumerate(todo):
        sets = []
        for k, v in sorted(p["set"].items()):
            sets += ["--set", shlex.quote(f"{k}={json.dumps(v)}")]
        lines.append(f"  {i}) key={p['key']}; sets=({' '.join(sets)}) ;;")
    lines += [
        "  *) echo \"metaroce: no point for array task '${SLURM_ARRAY_TASK_ID:-}'\" >&2; exit 2 ;;",
        "esac",
        'task="${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"',
        'rm -f "$exits/$task"  # a requeued task\'s earlier attempt',
        'echo "metaroce: task $task, point $key, on $(hostname) at $(date -Is)"',
        "# Fabric files named relative to the repository resolve from here too.",
        'cd "$root" || exit 1',
        '"$runner" "$experiment" --quiet --out "$points/$key" "${sets[@]}"',
        "rc=$?",
        'echo "$rc" > "$exits/$task.tmp" && mv -f "$exits/$task.tmp" "$exits/$task"',
        'echo "metaroce: task $task exit code $rc at $(date -Is)"',
        'exit "$rc"',
    ]
    return "\n".join(lines) + "\n"


def submit(sweep, todo, s, layout, state, runner):
    os.makedirs(layout.logs, exist_ok=True)
    os.makedirs(layout.exits, exist_ok=True)
    size = s["max_array_size"]
    for start in range(0, len(todo), size):
        chunk = todo[start:start + size]
        n = len(state["submissions"]) + 1
        script = os.path.join(layout.dir, f"job-{n}.sh")
        with open(script, "w") as f:
            f.write(job_script(sweep, chunk, s, layout, runner))
        os.chmod(script, 0o755)
        spec = f"0-{len(chunk) - 1}" + (f"%{s['array_limit']}" if s.get("array_limit") else "")
        proc = command(["sbatch", "--parsable", f"--array={spec}", script])
        if proc.returncode != 0:
            raise SlurmError(f"sbatch {script} failed ({proc.returncode}): "
                             f"{proc.stderr.strip() or proc.stdout.strip()}")
        job = proc.stdout.strip().splitlines()[-1].split(";")[0] if proc.stdout.strip() else ""
        if not job.isdigit():
            raise SlurmError(f"sbatch {script}: expected a job id, got {proc.stdout.strip()!r}")
        state["submissions"].append({
            "job_id": job, "script": script, "tasks": [p["key"] for p in chunk],
            "submitted": datetime.datetime.now().isoformat(timespec="seconds")})
        save_state(layout, state)
        print(f"  submitted job array {job} ({len(chunk)} task(s)): {script}; logs "
              f"{layout.logs}/{job}_<task>.log", flush=True)


# --- following and reporting ---------------------------------------------------

def follow(rows, state, layout, poll, tracked=None):
    """Waits until none of the points is pending or running; prints each point of
    `tracked` (default: those queued at the start) as it ends, and the counts when
    they change. Returns the last states."""
    t0 = time.time()
    by_key = {p["key"]: p for p in rows}
    order = {p["key"]: i for i, p in enumerate(rows)}
    last, last_counts, ended = {}, None, 0
    while True:
        try:
            states = classify(rows, state, layout)
        except SlurmError as e:
            print(f"  {e}; retrying in {poll:g} s", flush=True)
            time.sleep(poll)
            continue
        if tracked is None:
            tracked = {k for k, (st, _) in states.items() if st in ("pending", "running")}
        for k in sorted(tracked, key=order.get):
            st, detail = states[k]
            if st in ("done", "failed") and last.get(k) != st:
                ended += 1
                p = by_key[k]
                text = "done" if st == "done" else f"FAILED {detail}"
                print(f"  [{ended}/{len(tracked)}] {p['variant']} {p['grid']}: {text}", flush=True)
        last = {k: st for k, (st, _) in states.items()}
        c = counts(states)
        if c != last_counts:
            print(f"  slurm: {c['done']} done, {c['running']} running, {c['pending']} pending, "
                  f"{c['failed']} failed of {len(rows)} ({time.time() - t0:.0f} s)", flush=True)
            last_counts = c
        if c["running"] == 0 and c["pending"] == 0:
            return states
        time.sleep(poll)


def again(args, out, *extra):
    """The command line that finds this sweep's points again, with `extra`."""
    argv = [sys.argv[0], args.sweep, "--backend", "slurm", "--out", out]
    if os.path.abspath(args.runner) != os.path.join(ROOT, "build", "examples", "metaroce-run"):
        argv += ["--runner", args.runner]
    if args.slurm_config:
        argv += ["--slurm-config", args.slurm_config]
    return " ".join(shlex.quote(a) for a in argv + list(extra))


def report(sweep, rows, states, layout, args):
    c = counts(states)
    print(f"{sweep['name']} on Slurm: {len(rows)} points: {c['done']} done, {c['running']} "
          f"running, {c['pending']} pending, {c['failed']} failed"
          + (f", {c['unsubmitted']} not submitted" if c["unsubmitted"] else ""))
    pending = {}
    for st, detail in states.values():
        if st == "pending":
            reason = detail[detail.find("(") + 1:-1] if "(" in detail else "?"
            pending[reason] = pending.get(reason, 0) + 1
    if pending:
        print("pending, by Slurm's reason: " + ", ".join(
            f"{r} {n}" for r, n in sorted(pending.items(), key=lambda x: -x[1])))
    attempts = last_attempts(load_state(layout))
    failed = [p for p in rows if states[p["key"]][0] == "failed"]
    if failed:
        print(f"failed points ({len(failed)}), each with its array task's log:")
        for p in failed:
            job, task = attempts[p["key"]]
            log = layout.log(job, task)
            if os.path.exists(log):
                last = last_log_line(log)
                where = f"log {log}" + (f": {last}" if last else "")
            else:
                where = f"log {log} (not written: the task never started)"
            print(f"  {describe(p)}: {states[p['key']][1]}; {where}")
        print("resubmit them alone with: " + again(args, layout.out, "--resubmit-failed")
              + " (and the same Slurm options)")
    if c["unsubmitted"]:
        print(f"{c['unsubmitted']} point(s) never submitted (new points, or a rebuilt runner or "
              "changed experiment file gave new keys): run the sweep again to submit them")
    return c


def main(args, ap, sweep, out, rows, collect):
    """The Slurm backend; `collect()` writes summary.csv and prints the table.
    Returns the process exit status."""
    if args.status and args.resubmit_failed:
        ap.error("--status and --resubmit-failed exclude each other")
    if args.wait and not args.status:
        ap.error("--wait goes with --status (submitting waits unless --no-wait)")
    if args.no_wait and args.status:
        ap.error("--no-wait goes with submitting, not --status")
    s = settings(args)
    layout = Layout(out)
    os.makedirs(layout.dir, exist_ok=True)
    state = load_state(layout)
    try:
        if args.status:
            states = follow(rows, state, layout, s["poll_seconds"]) if args.wait else \
                classify(rows, state, layout)
        else:
            states = classify(rows, state, layout)
            c = counts(states)
            if args.resubmit_failed:
                todo = [p for p in rows if states[p["key"]][0] == "failed"]
                what = "resubmitting the failed"
            else:
                todo = [p for p in rows if states[p["key"]][0] in ("failed", "unsubmitted")]
                what = "submitting"
            print(f"{sweep['name']}: {len(rows)} points, {c['done']} already done, "
                  f"{c['running'] + c['pending']} queued or running, {what} {len(todo)} as a "
                  "Slurm job array", flush=True)
            tracked = {p["key"] for p in todo} | {
                k for k, (st, _) in states.items() if st in ("pending", "running")}
            if todo:
                submit(sweep, todo, s, layout, state, args.runner)
            if args.no_wait:
                print("not waiting; ask later with: " + again(args, out, "--status"))
                return 0
            states = follow(rows, state, layout, s["poll_seconds"], tracked)
    except SlurmError as e:
        return f"sweep: {e}"
    except KeyboardInterrupt:
        print("\nstopped waiting; the jobs go on. Ask later with --status.")
        return 130
    c = report(sweep, rows, states, layout, args)
    collect()
    if c["running"] or c["pending"]:
        print(f"{c['running'] + c['pending']} point(s) still queued or running")
        return 3
    if c["failed"]:
        return f"{c['failed']} point(s) failed"
    if c["unsubmitted"]:
        return f"{c['unsubmitted']} point(s) not submitted"
    return 0
