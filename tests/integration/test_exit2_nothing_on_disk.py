"""Every command takes its inputs in the same order - parse, load and check every input file
and every output path, then open the session - so that bad input gets exit 2, one line naming
the file (file:line:column for YAML) or the flag, and leaves nothing on disk: no results
directory, no output file. Checked under mpirun for coll, run and pairs with a broken topology,
an output path in a folder that does not exist, and one that is a folder; buffers past the
host's memory; and usage errors found after the session opened (coll -d fp16 on the host
backend). The refusals that need no peer - every command's bad flags, files and outputs - are
held in process by tests/unit/test_refusals.c."""
import os
import re

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
WORKLOAD = os.path.join(ROOT, "workloads", "bert-large-dp.yaml")
TOPOLOGY = os.path.join(ROOT, "topologies", "localhost.yaml")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def check_case(label, np, args, results, named):
    if np:
        rc, out, err, _ = mpirun(np, args + ["--results-dir", results])
    else:
        rc, out, err, _ = scalecheck1(args)
    expect(rc == 2, f"{label}: exit {rc}, expected 2\n{err[-800:]}")
    expect(re.search(named, err), f"{label}: the error does not name {named!r}:\n{err[-800:]}")
    left = run_dirs(results)
    expect(left == [], f"{label}: left on disk: {left}")


def check_results_dirs(wd, commands):
    """A --results-dir that cannot take a run directory is bad usage, found before anything
    runs (it was exit 3, after the backend had opened): a file, a folder under a file, a file
    system that takes no new folder."""
    afile = write(os.path.join(wd, "a-file"), "x")
    bad = [(afile, "is not a folder"), (os.path.join(afile, "sub"), "Not a directory"),
           ("/proc/scalecheck-results", "cannot make a folder in /proc")]
    for name, args in commands:
        for path, named in bad:
            rc, out, err, _ = mpirun(2, args + ["--results-dir", path])
            expect(rc == 2 and "--results-dir: " in err and named in err,
                   f"{name} --results-dir {path}: exit {rc}\n{err[-600:]}")
            expect("backend auto" not in out, f"{name}: the backend opened before the check")
    rc, out, err, _ = scalecheck1(["judge", "--topology", TOPOLOGY, "--results-dir", afile, afile])
    expect(rc == 2 and "--results-dir: " in err, f"judge --results-dir a file: exit {rc}\n{err}")
    expect(open(afile).read() == "x" and not [f for f in os.listdir(wd) if "probe" in f],
           "the check left something behind")


def test():
    wd = workdir("exit2")
    global NCCL_LOG
    NCCL_LOG = write(os.path.join(wd, "ar.log"),
                     "# Collective test starting: all_reduce_perf\n"
                     "#  Rank  0 Group  0 Pid   1 on h1 device  0 [0000:07:00] NVIDIA A100\n"
                     "#  Rank  1 Group  0 Pid   2 on h1 device  1 [0000:08:00] NVIDIA A100\n"
                     "#       size         count      type   redop    root     time   algbw   "
                     "busbw #wrong     time   algbw   busbw #wrong\n"
                     "     1048576        262144     float     sum      -1    50.00   20.97   "
                     "20.97      0    50.00   20.97   20.97      0\n")
    bad_topo = write(os.path.join(wd, "bad-topo.yaml"), "name: x\ngpus_per_node: [1, 2\n")
    missing = os.path.join(wd, "no-such-folder", "out.json")
    folder = os.path.join(wd, "a-folder")
    os.makedirs(folder)
    results = os.path.join(wd, "results")
    later_json, later_prom = os.path.join(wd, "later.json"), os.path.join(wd, "later.prom")
    coll = ["coll", "-b", "8", "-e", "64", "-n", "2", "-w", "0"]
    run = ["run", "--workload", WORKLOAD, "--scales", "1", "-n", "1", "-w", "0",
           "--bytes-scale", "0.001", "--compute-scale", "0.001", "--telemetry", "0"]
    pairs = ["pairs", "--size", "4K", "--per", "rank"]
    cases = [
        ("coll --json missing folder", 2, coll + ["--json", missing], "--json"),
        ("coll -d fp16 on the host backend", 2, coll + ["-d", "fp16", "--backend", "mpi"], "-d"),
        ("run --csv is a folder", 2, run + ["--csv", folder], "--csv"),
        ("run --trace missing folder", 2, run + ["--trace", missing], "--trace"),
        ("pairs broken topology", 2, pairs + ["--topology", bad_topo], r"bad-topo\.yaml:\d+:\d+: "),
        ("pairs --json missing folder", 2, pairs + ["--json", missing], "--json"),
        ("pairs --csv is a folder", 2, pairs + ["--csv", folder], "--csv"),
        # nothing to measure is not a PASS
        ("pairs --size 0", 2, ["pairs", "--per", "rank", "--size", "0"], "--size: '0'"),
        ("pairs on one host, per node", 2, ["pairs", "--size", "4K"], "1 host: a pair needs two"),
        # more memory than the host has: refused with the figures before anything is allocated
        ("coll -b 4G -e 8G", 2, ["coll", "-b", "4G", "-e", "8G", "-c", "0"],
         r"-e: the buffers need 16\.0 GiB a rank, 32\.0 GiB for the 2 ranks of host .* more "
         r"than 90 % of the [0-9.]+ [GM]iB it has available \((MemAvailable|cgroup memory\.max)\)"),
        ("coll -e 1T", 2, ["coll", "-e", "1T"], r"-e: the buffers need 2048\.0 GiB a rank"),
        # found after the session opened: no --json, no --metrics written either
        ("coll -e 1T --json --metrics", 2, ["coll", "-e", "1T", "--json", later_json,
                                             "--metrics", later_prom],
         r"-e: the buffers need 2048\.0 GiB a rank"),
        ("run --sweep-max 1T", 2, run + ["--sweep-max", "1T"],
         r"--sweep-max: the buffers need 2048\.0 GiB a rank"),
        ("health --size 1T", 2, ["health", "--size", "1T", "--topology", TOPOLOGY],
         r"--size: the buffers need 2048\.0 GiB a rank"),
        ("pairs --size 1T", 2, ["pairs", "--per", "rank", "--size", "1T"],
         r"--size: the buffers need 2048\.0 GiB a rank"),
    ]
    for label, np, args, named in cases:
        check_case(label, np, args, results, named)
    # refused once the session is open (the backend decides): not even the folders made for a
    # --results-dir that did not exist are left
    fresh = os.path.join(wd, "fresh", "results")
    for label, args, named in (("coll -G 2 on the host backend", coll + ["-G", "2"], "-G: "),
                               ("coll -R 1 on the host backend", coll + ["-R", "1"], "-R 1: "),
                               ("coll -e 1T", ["coll", "-e", "1T"], "-e: "),
                               ("run --sweep-max 1T", run + ["--sweep-max", "1T"], "--sweep-max: "),
                               ("health --size 1T", ["health", "--size", "1T"], "--size: "),
                               ("pairs --size 1T", pairs + ["--size", "1T"], "--size: ")):
        check_case(label, 2, args + ["--backend", "mpi"], fresh, named)
        expect(not os.path.exists(os.path.join(wd, "fresh")),
               f"{label}: left the folders made for --results-dir")
    # a selection that measures nothing is not a pass: at 3 ranks no size up to 16 B gives
    # reduce-scatter one double per rank (an empty table once ended with exit 0)
    check_case("coll measuring nothing", 3, ["coll", "--collective", "reducescatter", "-d",
                                             "double", "-b", "8", "-e", "16", "--backend", "mpi"],
               fresh, "-b/-e: nothing measured: no size from 8 to 16 B")
    expect(not os.path.exists(os.path.join(wd, "fresh")), "nothing measured: left its folder")
    # coll's and run's: in process (tests/unit/test_refusals.c); pairs needs two ranks to get there
    check_results_dirs(wd, [("pairs", pairs + ["--per", "rank"])])
    # Commands without a results directory: exit 2 and no output file.
    # the commands without a results directory, and the refusals above that need no peer, are
    # held in process by tests/unit/test_refusals.c (the quick loop's), each in microseconds
    single = [
        ("model broken topology", ["model", "--topology", bad_topo], r"bad-topo\.yaml:\d+:\d+: "),
        ("judge --collective against the file", ["judge", "--topology", "dgx-a100",
                                                 "--collective", "broadcast", NCCL_LOG],
         "--collective broadcast: .* says it measured allreduce"),
    ]
    for label, args, named in single:
        check_case(label, 0, args + (["--results-dir", results] if args[0] == "judge" else []),
                   results, named)
    expect(not os.path.exists(missing), "an output file was written into a missing folder")
    expect(not os.path.exists(later_json) and not os.path.exists(later_prom),
           "a usage error found after the session opened wrote --json or --metrics")
    expect(os.listdir(folder) == [], f"something was written into {folder}")
    # and --help where it was refused
    for cmd in ("validate", "detect", "report", "version"):
        rc, out, err, _ = scalecheck1([cmd, "--help"])
        expect(rc == 0 and "--help" in out, f"{cmd} --help: exit {rc}\n{out}{err}")
    print(f"{len(cases) + len(single)} bad inputs: exit 2, named, nothing on disk")


main(test)
