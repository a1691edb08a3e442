"""A battery of bad input over every subcommand, every option and every kind of input: each
case made from what --help lists (an option's metavar says what it takes), run, and held to the
contract - exit 2, one line on stderr naming the flag (or the file, with its line for YAML), and
nothing on disk: no run directory, no output file. Over 1,000 cases; a run takes a sample
(SC_BATTERY_CASES, default 300; SC_BATTERY_CASES=all for every one) drawn with a seed it prints
(SC_BATTERY_SEED repeats a draw)."""
import concurrent.futures
import os
import random
import re
import shutil
import stat
import subprocess
import tempfile

from sclib import *

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NCCL_TEXT = os.path.join(ROOT, "tests", "data", "formats", "nccl-tests-2.13.txt")

# What each command needs besides the bad option, so that only that option is wrong; the
# positional inputs last.
BASE = {
    "coll": ([], []),
    "run": (["-W", "bert-large-dp"], []),
    "pairs": (["--per", "rank"], []),
    "soak": (["--duration", "10s"], []),
    "calibrate": (["-Y", "localhost", "--output", "calibrated.yaml"], []),
    "model": (["-Y", "dgx-a100", "-W", "bert-large-dp"], []),
    "compute": ([], []),
    "telemetry": ([], []),
    "judge": (["-Y", "dgx-a100", "--collective", "allreduce"], [NCCL_TEXT]),
    "compare": (["--predict", "-W", "bert-large-dp", "--gpus", "8"],
                [os.path.join(ROOT, "topologies", "dgx-a100.yaml")]),
    "health": ([], []),
    "preflight": ([], []),
    "detect": ([], []),
    "plan": (["-W", "bert-large-dp"], []),
}
WITH_RESULTS = set()  # the commands that take --results-dir
OUTPUTS = {"json", "csv", "metrics", "output", "pick", "nccl-json", "junit", "trace"}
NUMERIC = {"N", "SECONDS", "SIZE", "F", "US", "PCT", "G", "C", "RANK", "N|auto", "0|1", "0-3",
           "K,K,...", "N,N,...", "S,S,...", "DUR", "1", "0"}
BAD_NUMBERS = ["x", "", "1e999", "nan", "-", "12abc", "0x", "--"]
BAD_SIZES = ["x", "", "1Q", "-1", "1e999", "12abc"]


def options(cmd):
    """(short, long, metavar) of each option --help lists."""
    rc, out, err, _ = scalecheck1([cmd, "--help"])
    expect(rc == 0, f"{cmd} --help: exit {rc}")
    found = []
    for line in out.splitlines():
        m = re.match(r"^\s+(?:-(\w), )?--([a-z0-9-]+)(?: (\S+))?", line)
        if m:
            found.append(m.groups())
    return found


def cases_of(cmd, wd):
    """The bad-input cases of one command: (name, args, what the message must name)."""
    base, positional = BASE[cmd]
    cases = [(f"{cmd} unknown option", base + ["--no-such-option"] + positional, "--no-such-option"),
             (f"{cmd} unknown short", base + ["-%"] + positional, "-%")]
    for short, long, metavar in options(cmd):
        if long in ("help", "results-dir", "name") or metavar is None:
            continue
        flag = "--" + long
        names = [flag] + (["-" + short] if short else [])
        cases.append((f"{cmd} {flag} without its value", base + positional + [flag], flag))
        if metavar == "SIZE":
            values = BAD_SIZES
        elif metavar in NUMERIC:
            values = BAD_NUMBERS
        elif "|" in metavar or metavar in ("TYPE", "OP", "KIND", "HOW"):
            values = ["bogus", "", "ALL_CAPS_NOPE"]
        elif metavar == "FILE" and long in OUTPUTS:
            fifo = os.path.join(wd, "fifo")
            values = [os.path.join(wd, "no-such-dir", "out"), wd, "",
                      os.path.join(wd, "x" * 300), fifo, "/proc/version/x"]
        elif metavar == "FILE":
            values = [os.path.join(wd, "no-such-file.yaml"), wd, os.path.join(wd, "empty.yaml"),
                      os.path.join(wd, "garbage.yaml"), os.path.join(wd, "malformed.yaml"), ""]
        else:
            continue
        for v in values:
            for name in names[:1] if v else names:
                cases.append((f"{cmd} {name} {v[:40]!r}", base + [name, v] + positional,
                              (flag, name, v if v else flag)))
    return cases


def validate_cases(wd):
    """validate over every kind of bad file."""
    out = []
    for f in ("empty.yaml", "garbage.yaml", "malformed.yaml", "no-such-file.yaml", "."):
        out.append((f"validate {f}", [os.path.join(wd, f) if f != "." else wd], f if f != "." else wd))
    return out


def files(wd):
    with open(os.path.join(wd, "empty.yaml"), "w"):
        pass
    with open(os.path.join(wd, "garbage.yaml"), "wb") as f:
        f.write(bytes(range(256)) * 4)
    with open(os.path.join(wd, "malformed.yaml"), "w") as f:
        f.write("name: x\ngpus: [1, 2\n  nodes: {\n")
    fifo = os.path.join(wd, "fifo")
    if not os.path.exists(fifo):
        os.mkfifo(fifo)


def run_case(case, wd):
    """One case run and held to the contract; what broke it, or None."""
    name, args, named = case
    cmd = name.split()[0]
    tag = re.sub(r"[^a-z0-9]+", "-", name.lower())[:60] + f"-{abs(hash(name)) % 10**8}"
    results = os.path.join(wd, "r", tag)
    extra = ["--results-dir", results] if cmd in WITH_RESULTS else []
    # Open MPI's session directory of its own, outside wd: a job that ends removes the shared
    # one while a singleton starting beside it makes its own inside it, and that MPI_Init aborts
    # (exit 1; open-mpi/ompi issue 3818) - 3 of 300 cases beside the suite once
    session = tempfile.mkdtemp(prefix="ompi-", dir=os.path.dirname(wd))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_orte_tmpdir_base=session)
    before = set(os.listdir(wd))
    try:
        proc = subprocess.run([SCALECHECK, cmd] + extra + args, capture_output=True, text=True,
                              env=env, timeout=60, cwd=wd)
    except subprocess.TimeoutExpired:
        return f"{name}: no answer in 60 s (a hang)"
    finally:
        shutil.rmtree(session, ignore_errors=True)
    err = proc.stderr.strip()
    lines = [l for l in err.splitlines() if l.startswith("scalecheck")]
    wanted = named if isinstance(named, tuple) else (named,)
    problems = []
    if proc.returncode != 2:
        problems.append(f"exit {proc.returncode}, not 2")
    if not lines or not any(w and w in lines[0] for w in wanted):
        problems.append(f"the message names none of {wanted}: {err[-300:]!r}")
    if os.path.exists(results) and os.listdir(results):
        problems.append(f"left {os.listdir(results)} in the results directory")
    left = set(os.listdir(wd)) - before - {"r"}
    if left:
        problems.append(f"left {sorted(left)} beside the inputs")
    return f"{name}: " + "; ".join(problems) if problems else None


def test():
    global WITH_RESULTS
    wd = workdir("battery")
    files(wd)
    WITH_RESULTS = {c for c in BASE if any(o[1] == "results-dir" for o in options(c))}
    cases = []
    for cmd in BASE:
        cases += cases_of(cmd, wd)
    cases += validate_cases(wd)
    expect(len(cases) >= 1000, f"the battery has {len(cases)} cases, fewer than 1,000")
    seed = int(os.environ.get("SC_BATTERY_SEED", random.randrange(1 << 30)))
    want = os.environ.get("SC_BATTERY_CASES", "300")
    rng = random.Random(seed)
    sample = cases if want == "all" else rng.sample(cases, min(int(want), len(cases)))
    print(f"battery: {len(cases)} cases, {len(sample)} run (SC_BATTERY_SEED={seed} repeats "
          f"this draw; SC_BATTERY_CASES=all runs every one)")
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        failed = [f for f in pool.map(lambda c: run_case(c, wd), sample) if f]
    expect(not failed, f"{len(failed)} of {len(sample)} cases broke the contract "
           f"(SC_BATTERY_SEED={seed}):\n" + "\n".join(failed[:40]))
    print(f"battery: {len(sample)} cases, each exit 2 with its flag named and nothing on disk")


main(test)
