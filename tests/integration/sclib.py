"""Helpers shared by the integration tests: run scalecheck under mpirun, read what it wrote,
and fail with a message that says what was expected and what came out."""
import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

SCALECHECK = os.environ.get("SCALECHECK", "scalecheck")
TMP_ROOT = os.environ.get("SC_TEST_TMP", tempfile.gettempdir())

DTYPES = ["int8", "uint8", "int32", "uint32", "int64", "uint64", "float", "double"]
OPS = ["sum", "prod", "min", "max", "avg"]


class Failure(Exception):
    pass


def expect(cond, msg):
    if not cond:
        raise Failure(msg)


def workdir(name):
    os.makedirs(TMP_ROOT, exist_ok=True)
    return tempfile.mkdtemp(prefix=name + "-", dir=TMP_ROOT)


# The MPI the build uses (tests/CMakeLists.txt sets it): each has its own launcher flags.
MPI = os.environ.get("SC_MPI", "openmpi")


def launcher(np, bind="none"):
    """The command that starts np local ranks, oversubscribed, with this MPI's own flags (Open
    MPI's mpirun; MPICH's hydra mpiexec through launch/mpirun.sh, which keeps hydra from killing
    the ranks that still have a fault to report, and gives the README's exit codes)."""
    if MPI == "mpich":  # through the launcher, which ends a faulty job as the README says
        return [os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "launch",
                             "mpirun.sh"), "--mpi", "mpich", "-np", str(np), "--"]
    return ["mpirun", "-np", str(np), "--oversubscribe", "--bind-to", bind]


def mpirun(np, args, env=None, timeout=240, bind="none", cpus=None):
    """Runs scalecheck on np local ranks; returns (exit code, stdout, stderr, seconds). bind:
    "core" for runs that hold this host to its calibration (one rank per core, as the
    acceptance run: unbound, the kernel may leave two spinning ranks on one core). cpus: a
    taskset list the whole job is confined to (a host that lost cores: "0")."""
    full_env = dict(os.environ)
    full_env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                     "OMPI_MCA_rmaps_base_oversubscribe": "1"})
    if np == 1:
        # Open MPI's mpirun waits odls_base_sigkill_timeout (1 s) after a rank ends non-zero, for
        # the other ranks to end on SIGTERM before it kills them: a job of one has none, and a
        # refusal test's run took 2.3 s instead of 0.3
        full_env["OMPI_MCA_odls_base_sigkill_timeout"] = "0"
    if env:
        full_env.update(env)
    cmd = launcher(np, bind) + [SCALECHECK] + args
    if cpus is not None:
        cmd = ["taskset", "-c", cpus] + cmd
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=full_env, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start


def mpirun_from_output(np, args, env=None, timeout=240):
    """As mpirun, with the seconds from the job's first line of output (MPI is up, the session
    open) to its end as a fifth value: what a bound on how a run ends should hold, without
    mpirun's start-up, which a loaded machine stretches."""
    full_env = dict(os.environ)
    full_env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    full_env.update(env or {})
    cmd = launcher(np) + [SCALECHECK] + args
    start = time.monotonic()
    first = []
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=full_env)
    chunks = {"out": [], "err": []}

    def drain(stream, key):
        for line in stream:
            if not first:
                first.append(time.monotonic())
            chunks[key].append(line)

    readers = [threading.Thread(target=drain, args=(proc.stdout, "out")),
               threading.Thread(target=drain, args=(proc.stderr, "err"))]
    for r in readers:
        r.start()
    try:
        rc = proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
        for r in readers:
            r.join()
    end = time.monotonic()
    return (rc, "".join(chunks["out"]), "".join(chunks["err"]), end - start,
            end - (first[0] if first else start))


def fake_ib_sysfs(root, state="4: ACTIVE", rate="200 Gb/sec (4X HDR)"):
    """A sysfs tree under root with one InfiniBand port, mlx5_0/1, as the kernel lays it out
    (SCALECHECK_SYSFS_ROOT points scalecheck at it); returns root."""
    port = os.path.join(root, "class", "infiniband", "mlx5_0", "ports", "1")
    os.makedirs(port)
    for name, text in (("state", state), ("rate", rate), ("link_layer", "InfiniBand"),
                       (os.path.join("..", "..", "fw_ver"), "28.39.1002")):
        with open(os.path.join(port, name), "w") as f:
            f.write(text + "\n")
    return root


def scalecheck1(args, env=None, timeout=60):
    """Runs scalecheck as one process without mpirun (an MPI singleton): for the commands that
    need no peers (validate, model, report, version), and ~2 s faster per failing call."""
    full_env = dict(os.environ)
    full_env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    if env:
        full_env.update(env)
    start = time.monotonic()
    proc = subprocess.run([SCALECHECK] + args, capture_output=True, text=True, env=full_env,
                          timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr, time.monotonic() - start


def run_dirs(base):
    if not os.path.isdir(base):
        return []
    return sorted(os.path.join(base, d) for d in os.listdir(base))


def rank_pid(base, rank):
    """The pid of world rank `rank` of the job writing into base (its --results-dir)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            if not cmd or not cmd[0].endswith(b"scalecheck") or base.encode() not in cmd:
                continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                env_vars = f.read().split(b"\0")  # Open MPI's name for the rank, then hydra's
                if any(f"{name}={rank}".encode() in env_vars
                       for name in ("OMPI_COMM_WORLD_RANK", "PMI_RANK")):
                    return int(pid)
        except OSError:
            continue
    return None


def loose_topology(wd, base="localhost", tolerance=0.98, fail_tolerance=None):
    """A shipped topology held in a wide band, written to wd/loose.yaml: a healthy host PASSes
    beside the rest of the suite on two cores. The steadiness band is widened too: a neighbour's
    burst can stall one iteration 80x its median (CI saw it) and would FAIL the run's tail."""
    shipped = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "topologies")
    path = os.path.join(wd, "loose.yaml")
    extra = f"  fail_tolerance: {fail_tolerance}\n" if fail_tolerance is not None else ""
    with open(path, "w") as f:
        f.write(f"name: loose\nextends: {os.path.join(shipped, base + '.yaml')}\n"
                f"expect:\n  tolerance: {tolerance}\n{extra}"
                "  steadiness_tolerance: 0.99\n  steadiness_fail_tolerance: 0.999\n")
    return path


def load_json(path):
    with open(path) as f:
        return json.load(f)


def load_result(path):
    """A result.json as its readers see it: while the run runs (or after it was killed) the rows
    are in the journal it names, a line each (a torn last line left out)."""
    doc = load_json(path)
    name = doc.get("journal")
    if name and not doc.get("results"):
        rows = []
        try:
            with open(os.path.join(os.path.dirname(path), name)) as f:
                rows = [json.loads(line) for line in f if line.endswith("\n")]
        except OSError:
            pass
        doc["results"] = rows
    return doc


def load_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def end_within(proc, seconds):
    """Waits for proc (started in a session of its own) to end within seconds of now: (exit
    code, stderr, seconds it took); past them its whole group is killed and the test fails."""
    start_t = time.monotonic()
    try:
        out, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise Failure(f"no end {seconds} s after the fault\n{err[-800:]}")
    return proc.returncode, err, time.monotonic() - start_t


def needs(*tools, root=False, why=""):
    """A test whose degraded half needs root or a tool skips whole (exit 77, ctest's SKIP) with
    the reason, rather than pass on its healthy half alone."""
    import shutil
    missing = [t for t in tools if shutil.which(t) is None]
    if root and os.geteuid() != 0:
        missing.append("root")
    if missing:
        print(f"SKIP: needs {', '.join(missing)}{': ' + why if why else ''}")
        sys.exit(77)


def main(test):
    try:
        test()
    except Failure as e:
        print("FAIL:", e)
        sys.exit(1)
    print("PASS")


def registry():
    """The collectives the binary registers, those that take a reduction, each one's busbw factor
    (a formula of the ranks n) and those whose size is the whole buffer: from `scalecheck
    version`, so that the tests follow the one list (harness/util/sc_coll_id.h). The factors'
    values are held to docs/REFERENCE.md §1 by tests/unit/test_busbw.c."""
    rc, out, err, _ = scalecheck1(["version"])
    lines = dict(l.split(":", 1) for l in out.splitlines() if ":" in l)
    if rc != 0 or "collectives" not in lines or "busbw factors" not in lines:
        raise RuntimeError(f"scalecheck version: exit {rc}: {out} {err}")
    factors = dict(item.split("=", 1) for item in lines["busbw factors"].split())
    return (lines["collectives"].split(), set(lines["reductions"].split()), factors,
            set(lines["size is total"].split()))


def runs(version_text):
    """{backend: [collectives its table runs]} from `scalecheck version`'s "NAME runs:" lines (the
    GPU path's only where its module loaded): a collective a backend lacks is not expected of it."""
    out = {}
    for line in version_text.splitlines():
        head, _, rest = line.partition(" runs:")
        if rest or line.endswith(" runs:"):
            out[head] = rest.split()
    return out


COLLECTIVES, REDUCTIONS, FACTORS, SIZE_IS_TOTAL = registry()


# docs/REFERENCE.md §1: busbw = algbw * factor(n), the factor as the registry writes it.
def busbw_factor(collective, n):
    formula = FACTORS[collective]
    if formula.endswith("(n-1)/n"):
        k = formula[: -len("(n-1)/n")]
        return (float(k) if k else 1.0) * (n - 1) / n
    return float(formula)


def check_trace(path, ranks, tracks):
    """A `run --trace` file held to the Trace Event Format as its documentation gives it (the
    JSON object form; no viewer installs here without the network): a traceEvents list; complete
    events ("X") with a name, microsecond ts and dur >= 0, an integer pid and tid; metadata ("M")
    naming each process and each thread used; on each thread spans that nest or follow, never
    cross. ranks: the pids expected; tracks: the thread names each must have. Returns the
    complete events."""
    doc = load_json(path)
    expect(isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list),
           f"{path}: not the JSON object form")
    events = doc["traceEvents"]
    spans = [e for e in events if e.get("ph") == "X"]
    meta = [e for e in events if e.get("ph") == "M"]
    expect(len(spans) + len(meta) == len(events), f"{path}: phases {set(e.get('ph') for e in events)}")
    for e in spans:
        expect(isinstance(e.get("name"), str) and e["name"] and isinstance(e.get("pid"), int)
               and isinstance(e.get("tid"), int) and isinstance(e.get("ts"), (int, float))
               and isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0
               and isinstance(e.get("args", {}).get("bytes"), (int, float)),
               f"{path}: a malformed complete event {e}")
    procs = {e["pid"]: e["args"]["name"] for e in meta if e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in meta if e["name"] == "thread_name"}
    expect(sorted(procs) == sorted(ranks), f"{path}: processes {sorted(procs)}, expected {ranks}")
    for pid in ranks:
        mine = sorted(n for (p, _), n in threads.items() if p == pid)
        expect(mine == sorted(tracks), f"{path}: rank {pid}'s tracks {mine}, expected {tracks}")
    used = {(e["pid"], e["tid"]) for e in spans}
    expect(used <= set(threads), f"{path}: spans on unnamed threads {used - set(threads)}")
    by_thread = {}
    for e in spans:
        by_thread.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
    for key, v in by_thread.items():
        v.sort()
        for (a0, a1), (b0, b1) in zip(v, v[1:]):
            expect(b0 >= a1 - 0.01 or b1 <= a1 + 0.01,
                   f"{path}: spans cross on {key}: {(a0, a1)} and {(b0, b1)}")
    return spans
