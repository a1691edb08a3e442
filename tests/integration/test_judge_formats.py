"""`judge` reads every layout of nccl-tests and OSU output users paste (tests/data/formats: with
and without header lines, redop or root columns, launcher tags, indentation, NCCL 1's
milliseconds, old all_gather's algbw), says what it read each as, and reads the same figures from
each; what is not one of them is refused naming the line. Each file's rows are held to one
reference (nccl-tests-2.13.txt): the same sizes, in and out of place, the same times."""
import os

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
DATA = os.path.join(ROOT, "tests", "data", "formats")
DGX = os.path.join(ROOT, "topologies", "dgx-a100.yaml")

# file, collective, what "read as" must say, rows
READ = [
    ("nccl-tests-2.13.txt", "allreduce", ["header", "rows with redop", "a root column", "device lines"], 12),
    ("rows-only.txt", "allreduce", ["no header (rows alone)", "a root column", "no device lines"], 12),
    ("nccl-tests-2.0-noroot.txt", "allreduce", ["header", "no root column", "device lines"], 12),
    ("all-gather-noredop.txt", "allgather", ["rows without redop", "no root column"], 12),
    ("tagged-openmpi.txt", "allreduce", ["launcher tags taken off", "device lines"], 12),
    ("tagged-hydra.txt", "allreduce", ["launcher tags taken off"], 12),
    ("tagged-srun.txt", "allreduce", ["launcher tags taken off"], 12),
    ("indented.txt", "allreduce", ["header", "a root column"], 12),
    ("nccl1-ms.txt", "allreduce", ["times in ms (NCCL 1)"], 4),
    ("osu_bw.txt", "sendrecv", ["OSU micro-benchmarks text (OSU MPI Bandwidth Test v7.3)"], 3),
]
REFUSED = [
    ("misread.txt", "allreduce", "misread.txt:19: a time of 99.31 and an algbw of 173.79 GB/s do not agree"),
    # the same run twice in one file: its second table is refused at its first row
    ("two-runs.txt", "allreduce", "two-runs.txt:42: 1024 B again after 1073741824 B (float sum root -1): "
                                  "a second run in the file, as its second 'Collective test starting' line "
                                  "(26) says"),
    # a line that is neither a row nor a log line between the header and the rows
    ("garbage.txt", "allreduce", "garbage.txt:16: '<<<<<<<' inside the table is neither a row nor a log line"),
    ("osu_mbw_mr.txt", "sendrecv", "osu_mbw_mr.txt:4: OSU MPI Multiple Bandwidth / Message Rate Test v7.3 "
                                   "is not judged"),
]


def judge(wd, name, collective, flags=None):
    """judge on one sample: --collective, --gpus 8 --nodes 1 unless flags are given."""
    out = os.path.join(wd, name + ".json")
    given = ["--collective", collective, "--gpus", "8", "--nodes", "1"] if flags is None else flags
    rc, stdout, err, _ = scalecheck1(["judge", "--topology", DGX, *given, "--results-dir",
                                      os.path.join(wd, "r"), "--json", out, os.path.join(DATA, name)])
    return rc, stdout, err, load_json(out) if os.path.exists(out) else None


def said_alone(wd):
    """What a file says for itself, no flags: the footer ('Collective test concluded') names the
    collective; a device list cut short counts its ranks from the highest, asks for --nodes, and
    the flags win over what it lists."""
    rc, stdout, err, doc = judge(wd, "footer-only.txt", None, [])
    expect(rc in (0, 1) and doc is not None and doc["results"][0]["collective"] == "allreduce" and
           doc["ranks"] == 8, f"footer-only: exit {rc}\n{err[-400:]}")
    rc, _, err, doc = judge(wd, "cut-list.txt", None, ["--collective", "allreduce"])
    expect(rc == 2 and doc is None and "cut-list.txt: its device list is cut short (ranks up to 15, "
           "not every line): give --nodes" in err, f"cut list: exit {rc}\n{err[-400:]}")
    rc, stdout, err, doc = judge(wd, "cut-list.txt", None, ["--collective", "allreduce", "--nodes", "2"])
    expect(rc in (0, 1) and doc["ranks"] == 16 and doc["nhosts"] == 2 and
           "a device list cut short" in stdout, f"cut list, --nodes 2: exit {rc}, {doc and doc['ranks']}")
    rc, _, err, doc = judge(wd, "cut-list.txt", None, ["--collective", "allreduce", "--gpus", "8",
                                                       "--nodes", "1"])
    expect(rc in (0, 1) and doc["ranks"] == 8 and doc["nhosts"] == 1,
           f"cut list, --gpus 8 --nodes 1: exit {rc}, {doc and (doc['ranks'], doc['nhosts'])}")
    print("footer-only.txt: the footer names allreduce; cut-list.txt: 16 ranks from 'Rank 15', "
          "--nodes asked for, the flags win")


def rows_of(doc):
    return {(r["size_bytes"], r["in_place"]): r for r in doc["results"]}


def test():
    wd = workdir("judge-formats")
    _, _, _, ref = judge(wd, "nccl-tests-2.13.txt", "allreduce")
    expect(ref is not None, "the reference file was not read")
    reference = rows_of(ref)
    for name, collective, said, nrows in READ:
        rc, stdout, err, doc = judge(wd, name, collective)
        line = next((l for l in stdout.splitlines() if l.startswith("# ") and ": read as " in l), "")
        expect(rc in (0, 1) and doc is not None, f"{name}: exit {rc}\n{err[-600:]}")
        for words in said:
            expect(words in line, f"{name}: 'read as' does not say {words!r}: {line!r}")
        rows = rows_of(doc)
        expect(len(doc["results"]) == nrows, f"{name}: {len(doc['results'])} rows, expected {nrows}")
        expect(doc["options"].get("read_as") and doc["options"]["read_as"] in line,
               f"{name}: result.json keeps how it was read: {doc['options'].get('read_as')!r}")
        if nrows == 12 and collective == "allreduce":  # the same figures as the reference
            for key, r in rows.items():
                want = reference[key]
                expect(abs(r["time_us"] - want["time_us"]) <= 1e-6 * want["time_us"] and
                       r["busbw_GBps"] == want["busbw_GBps"], f"{name} {key}: {r} against {want}")
        for r in doc["results"]:  # every time in us and its algbw size / time, whatever the file said
            expect(abs(r["algbw_GBps"] - r["size_bytes"] / r["time_us"] / 1e3) <=
                   0.01 + 0.02 * r["algbw_GBps"], f"{name}: algbw is not size / time: {r}")
        print(f"{name}: {line.split('read as ', 1)[1][:110]}")
    ms = rows_of(judge(wd, "nccl1-ms.txt", "allreduce")[3])
    expect(abs(ms[(10000000, False)]["time_us"] - 67.0) < 0.01,
           f"NCCL 1's 0.067 ms is 67 us: {ms[(10000000, False)]['time_us']}")
    said_alone(wd)
    for name, collective, message in REFUSED:
        before = run_dirs(os.path.join(wd, "r"))
        rc, _, err, doc = judge(wd, name, collective)
        expect(rc == 2 and message in err, f"{name}: exit {rc}, expected 2 with {message!r}\n{err[-600:]}")
        expect(doc is None and run_dirs(os.path.join(wd, "r")) == before,
               f"{name}: a refused file left a run directory or --json behind")
        print(f"{name}: refused, exit 2, nothing on disk")


main(test)
