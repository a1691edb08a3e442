"""Bad flags: each gets a message naming the flag, exit code 2, and nothing half-run (no
results directory is created)."""
import concurrent.futures
import os

from sclib import *

WD = workdir("badflags")
CASES = [
    (["-b", "12X"], "-b: '12X' has an unknown suffix"),
    (["-e", "abc"], "-e: 'abc' is not a size"),
    (["-b", "1M", "-e", "1K"], "-b: minimum size 1048576 is larger than the maximum (-e) 1024"),
    (["-f", "1"], "-f: 1 is out of range"),
    (["-f", "2", "-i", "1K"], "-f and -i: give one way to step"),
    (["-i", "0"], "-i: the step must be at least 1 byte"),
    (["-n", "0"], "-n: '0' is not an iteration count"),
    (["-n", "many"], "-n: 'many' is not an iteration count"),
    (["-w", "-1"], "-w: -1 is out of range"),
    (["-c", "x"], "-c: 'x' is not an integer"),
    (["-o", "xor"], "-o: unknown reduction 'xor' (valid: sum, prod, min, max, avg, all)"),
    (["-d", "float16x"], "-d: unknown data type 'float16x'"),
    (["-r", "5"], "-r: root 5 does not exist with 2 ranks"),
    (["-a", "7"], "-a: unknown way to combine rank times '7'"),
    (["--collective", "allreduc"], "--collective: unknown collective 'allreduc'"),
    (["--collective", "allreduce,,allgather"], "--collective: 'allreduce,,allgather' is not a list"),
    (["--collective", "allgather,bcast"], "--collective: unknown collective 'bcast'"),
    (["-d", "float,"], "-d: 'float,' is not a list of names"),
    (["-o", "sum,xor"], "-o: unknown reduction 'xor'"),
    (["--backend", "verbs"], "--backend: unknown backend 'verbs' (built in: "),
    (["--timeout", "-3"], "--timeout: -3 is out of range"),
    (["--deadline", "-1"], "--deadline: -1 is out of range"),
    (["--deadline", "soon"], "--deadline: "),
    (["--target-ci", "0"], "--target-ci: 0 is out of range"),
    (["--json"], "--json: missing value (FILE)"),
    (["--json", "--csv", "x.csv"], "--json: missing value (FILE)"),
    (["--bogus"], "--bogus: unknown option (see --help)"),
    # a misspelt flag, name or command: the nearest suggested, as the YAML loader does
    (["--colective", "allreduce"], "--colective: unknown option (did you mean --collective?"),
    (["--collective", "alreduce"], "unknown collective 'alreduce' (did you mean 'allreduce'?"),
    (["-o", "summ"], "unknown reduction 'summ' (did you mean 'sum'?"),
    (["--topology", "dgx-a10"], "dgx-a10: cannot open (no such file, nor a shipped topology; "
                                "did you mean 'dgx-a100'?)"),
    (["-q", "1"], "-q: unknown option"),
    (["-x", "1"], "-x: NCCL's device API and CTA policies are not measured"),
    (["stray"], "unexpected argument 'stray'"),
    (["--name", "a/b"], "--name: not a name: 1-63 letters"),
]


def run_case(numbered):
    """One case in a results folder of its own: the run that made a directory is the one named."""
    i, (args, message) = numbered
    base = os.path.join(WD, f"results-{i}")
    return args, message, base, mpirun(2, ["coll", "--results-dir", base] + args, timeout=60)


def test():
    # mpirun takes 1-2 s to wind a failed job down, so the cases run four at a time.
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(run_case, enumerate(CASES)))
    for args, message, base, (rc, out, err, _) in outcomes:
        expect(rc == 2, f"{args}: exit {rc}, expected 2\n{err[-1000:]}")
        expect(message in err, f"{args}: expected '{message}' in stderr, got:\n{err[-1000:]}")
        expect(err.count("scalecheck coll:") == 1, f"{args}: the message should appear once:\n{err}")
        expect(not os.path.exists(base), f"{args}: a results directory was created")
    rc, out, err, _ = mpirun(1, ["nosuchcommand"], timeout=60)
    expect(rc == 2 and "unknown command 'nosuchcommand' (try scalecheck --help)" in err,
           f"unknown command: {rc} {err}")
    rc, out, err, _ = mpirun(1, ["colll"], timeout=60)
    expect(rc == 2 and "unknown command 'colll' (did you mean 'coll'?)" in err,
           f"misspelt command: {rc} {err}")


main(test)
