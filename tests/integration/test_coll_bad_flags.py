"""Bad flags under mpirun: each gets a message naming the flag, once (rank 0 speaks), exit code 2,
and nothing half-run (no results directory is created). The flags that need no peer - every
other bad value of coll's - are held in process by tests/unit/test_refusals.c."""
import concurrent.futures
import os

from sclib import *

WD = workdir("badflags")
CASES = [
    (["-r", "5"], "-r: root 5 does not exist with 2 ranks"),
    (["--json", "--csv", "x.csv"], "--json: missing value (FILE)"),
    (["--bogus"], "--bogus: unknown option (see --help)"),
    (["--topology", "dgx-a10"], "dgx-a10: cannot open (no such file, nor a shipped topology; "
                                "did you mean 'dgx-a100'?)"),
    # NCCL's choices swept: names checked, the backend and a topology refused by name
    (["--proto", "LL,fast"], "--proto: 'fast' is not one of LL, LL128, Simple, all"),
    (["--algo", "ring,tree", "--backend", "mpi"],
     "--algo/--proto lists: NCCL_ALGO and NCCL_PROTO are NCCL's and RCCL's (backend mpi)"),
    (["--algo", "all", "--topology", "localhost"],
     "--algo/--proto lists: a sweep of NCCL's choices is not held to --topology"),
    # traffic that collides: the kinds by name, those a launch cannot run, what it is not held to
    (["--concurrent", "tp,pp"], "--concurrent: 'pp' is not one of tp, dp, a2a, all"),
    (["--concurrent", "dp"], "--concurrent dp: one TP group, no DP across groups on 2 ranks"),
    (["--concurrent", "tp"], "--concurrent: fewer than two kinds of traffic can run on 2 ranks"),
    (["--concurrent", "all", "--tp", "3"], "--tp 3: does not divide the 2 ranks"),
    (["--tp", "2"], "--tp: only with --concurrent"),
    (["--concurrent", "all", "--topology", "localhost"],
     "--concurrent: not with --topology (each kind is held to itself alone)"),
    # a bound read before the options are (the start's) that the parser then refuses: inf
    (["--timeout", "1e999"], "--timeout:"),
    (["--timeout", "0", "--deadline", "nan"], "--deadline:"),
    (["pairs", "--background", "incast"], "--background: 'incast' is not alltoall"),
    (["pairs", "--background", "alltoall", "--per", "rank"],
     "--background: with --per node (the other ranks of each host make the load)"),
]


def run_case(numbered):
    """One case in a results folder of its own: the run that made a directory is the one named."""
    i, (args, message) = numbered
    base = os.path.join(WD, f"results-{i}")
    command = ["coll"] if args[0] != "pairs" else []  # a case names pairs, or is coll's
    return args, message, base, mpirun(2, command + args + ["--results-dir", base], timeout=60)


def test():
    # mpirun takes 1-2 s to wind a failed job down, so the cases run four at a time.
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(run_case, enumerate(CASES)))
    for args, message, base, (rc, out, err, _) in outcomes:
        expect(rc == 2, f"{args}: exit {rc}, expected 2\n{err[-1000:]}")
        expect(message in err, f"{args}: expected '{message}' in stderr, got:\n{err[-1000:]}")
        said = f"scalecheck {'pairs' if args[0] == 'pairs' else 'coll'}:"
        expect(err.count(said) == 1, f"{args}: the message should appear once:\n{err}")
        expect(not os.path.exists(base), f"{args}: a results directory was created")
    rc, out, err, _ = mpirun(1, ["nosuchcommand"], timeout=60)
    expect(rc == 2 and "unknown command 'nosuchcommand' (try scalecheck --help)" in err,
           f"unknown command: {rc} {err}")
    rc, out, err, _ = mpirun(1, ["colll"], timeout=60)
    expect(rc == 2 and "unknown command 'colll' (did you mean 'coll'?)" in err,
           f"misspelt command: {rc} {err}")


main(test)
