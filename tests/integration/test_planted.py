"""Planted input, as an attacker or a careless user leaves it: special files and links at an
output's name, links under the names a run's files take, a results folder that is somebody
else's link, every name of a second taken, data that reaches gnuplot and HTML. Each case plants
the input, runs the command, and checks what the planted thing points at is untouched and the
outcome is the one the README names.

usage: test_planted.py outputs|results|report|compare"""
import glob
import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import time

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
COLL = ["coll", "-b", "8", "-e", "1K", "-n", "2", "-w", "1", "--telemetry", "0"]
RUN = ["run", "--workload", os.path.join(ROOT, "workloads", "bert-large-dp.yaml"), "--scales",
       "1", "--bytes-scale", "0.01", "--compute-scale", "0.01", "-n", "2", "-w", "1",
       "--telemetry", "0", "--topology", os.path.join(ROOT, "topologies", "localhost.yaml")]
NOBODY = pwd.getpwnam("nobody").pw_uid


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def foreign_link(target, at):
    """A symbolic link at `at` to target, owned by another user (nobody): what a planted one
    in a shared folder is."""
    os.symlink(target, at)
    os.lchown(at, NOBODY, -1)


def coll(wd, extra, want, what):
    rc, out, err, _ = scalecheck1(COLL + ["--results-dir", os.path.join(wd, "res")] + extra,
                                  timeout=60)
    expect(rc == want, f"{what}: exit {rc}, want {want}\n{err[-600:]}")
    return out, err


def outputs(wd):
    expect(stat.S_ISCHR(os.stat("/dev/full").st_mode), "this machine's /dev/full is not a device")
    # a device: written to as it is (ENOSPC from /dev/full), never turned into a file
    _, err = coll(wd, ["--json", "/dev/full"], 3, "--json /dev/full")
    expect("/dev/full" in err and "No space left" in err, f"--json /dev/full: {err[-400:]}")
    expect(stat.S_ISCHR(os.stat("/dev/full").st_mode), "/dev/full is no longer a device")
    # the user's own link to a device or pipe: /dev/stdout takes the JSON
    out, _ = coll(wd, ["--json", "/dev/stdout"], 0, "--json /dev/stdout")
    expect('"tool": "scalecheck"' in out, f"--json /dev/stdout: no JSON on stdout:\n{out[-400:]}")
    # a FIFO nobody reads: refused before anything runs (exit 2, issue 45), not waited on
    fifo = os.path.join(wd, "fifo")
    os.mkfifo(fifo)
    start = time.monotonic()
    _, err = coll(wd, ["--json", fifo], 2, "--json FIFO")
    expect("a FIFO with no reader" in err and time.monotonic() - start < 30,
           f"--json FIFO: {err[-400:]}")
    expect(stat.S_ISFIFO(os.stat(fifo).st_mode), "the FIFO was replaced")
    # a link planted by another user: replaced by the file, its target untouched
    victim = write(os.path.join(wd, "victim"), "keep\n")
    planted = os.path.join(wd, "planted.json")
    foreign_link(victim, planted)
    coll(wd, ["--json", planted], 0, "--json over a planted link")
    expect(read(victim) == "keep\n", "a planted link's target was overwritten")
    expect(not os.path.islink(planted) and '"tool"' in read(planted),
           "the planted link was not replaced by the JSON")
    # the user's own link to a file: the file gets the JSON, the link stays
    mine = os.path.join(wd, "mine.json")
    target = write(os.path.join(wd, "target.json"), "old\n")
    os.symlink(target, mine)
    coll(wd, ["--json", mine, "--csv", os.path.join(wd, "out.csv")], 0, "--json via own link")
    expect(os.path.islink(mine) and '"tool"' in read(target), "own link not followed")
    # the temporary's old predictable name (PATH.tmpPID), planted for the pids to come
    victim2 = write(os.path.join(wd, "victim2"), "keep\n")
    out_json = os.path.join(wd, "next.json")
    with open("/proc/sys/kernel/ns_last_pid") as f:
        last = int(f.read())
    for pid in range(last, last + 300):
        os.symlink(victim2, f"{out_json}.tmp{pid}")
    coll(wd, ["--json", out_json], 0, "--json beside planted temporaries")
    expect(read(victim2) == "keep\n", "a planted temporary's target was overwritten")
    left = [n for n in os.listdir(wd) if n.startswith(".next.json.")]
    expect(left == [], f"temporaries left behind: {left}")


def results(wd):
    # a results folder that is somebody else's link: bad usage, nothing written through it
    elsewhere = os.path.join(wd, "elsewhere")
    os.mkdir(elsewhere)
    base = os.path.join(wd, "shared")
    foreign_link(elsewhere, base)
    rc, _, err, _ = scalecheck1(COLL + ["--results-dir", base])
    expect(rc == 2 and "symbolic link owned by uid" in err and "--results-dir" in err,
           f"foreign results link: exit {rc}\n{err[-400:]}")
    expect(os.listdir(elsewhere) == [], f"written through the link: {os.listdir(elsewhere)}")
    rc, _, err, _ = scalecheck1(COLL + ["--results-dir", os.path.join(base, "sub")])
    expect(rc == 2 and "symbolic link owned by uid" in err, f"under a foreign link: exit {rc}")
    # a name too long for the run's own files: refused, nothing made
    long_base = os.path.join(wd, *(["d" * 200] * 22))
    rc, _, err, _ = scalecheck1(COLL + ["--results-dir", long_base])
    expect(rc == 2 and "characters, at most" in err, f"4400-character base: exit {rc}\n{err}")
    expect(not os.path.exists(os.path.join(wd, "d" * 200)), "a long base left folders")
    # every name of the coming seconds taken: exit 3 naming it, never a taken folder reused
    full = os.path.join(wd, "full")
    os.mkdir(full)
    now = time.time()
    for second in range(0, 4):
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(now + second))
        os.mkdir(os.path.join(full, f"{stamp}-coll-allreduce"))
        for attempt in range(2, 1000):
            os.mkdir(os.path.join(full, f"{stamp}-coll-allreduce-{attempt}"))
    before = sum(len(os.listdir(os.path.join(full, d))) for d in os.listdir(full))
    rc, _, err, _ = scalecheck1(COLL + ["--results-dir", full])
    expect(rc == 3 and "all 999 names" in err, f"all names taken: exit {rc}\n{err[-400:]}")
    after = sum(len(os.listdir(os.path.join(full, d))) for d in os.listdir(full))
    expect(after == before, "a file was written into a taken run folder")
    # no HOME and no other say: a clear error, not a shared /tmp/.local (an installed copy: the
    # build tree's binary keeps results/ where it runs)
    copy = os.path.join(wd, "bin", "scalecheck")
    os.makedirs(os.path.dirname(copy))
    shutil.copy(SCALECHECK, copy)
    env = {k: v for k, v in os.environ.items()
           if k not in ("HOME", "XDG_DATA_HOME", "SCALECHECK_RESULTS")}
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    proc = subprocess.run([copy] + COLL, capture_output=True, text=True, env=env, timeout=60,
                          cwd=wd)
    expect(proc.returncode == 2 and "HOME is not set" in proc.stderr,
           f"no HOME: exit {proc.returncode}\n{proc.stderr[-400:]}")


def one_run(wd):
    rc, _, err, _ = scalecheck1(RUN + ["--results-dir", os.path.join(wd, "res")])
    expect(rc in (0, 1), f"run: exit {rc}\n{err[-400:]}")
    return run_dirs(os.path.join(wd, "res"))[0]


def rewrite(path, **fields):
    doc = load_json(path)
    doc.update(fields)
    with open(path, "w") as f:
        json.dump(doc, f)
    return doc


def report(wd):
    run = one_run(wd)
    evil = "<script>alert('x')</script>\" onload='y"
    doc = rewrite(os.path.join(run, "result.json"), topology=evil, workload=evil)
    if doc.get("checks"):
        doc["checks"][0]["note"] = evil
        rewrite(os.path.join(run, "result.json"), checks=doc["checks"])
    # links planted under the names report writes, by another user
    victims = {}
    for name in ("speedup.dat", "speedup.svg", "gnuplot.err", "report.html", "summary.json"):
        os.remove(os.path.join(run, name)) if os.path.exists(os.path.join(run, name)) else None
        victims[name] = write(os.path.join(wd, "victim-" + name), "keep\n")
        foreign_link(victims[name], os.path.join(run, name))
    rc, _, err, _ = scalecheck1(["report", run])
    expect(rc in (0, 1), f"report: exit {rc}\n{err[-400:]}")
    for name, victim in victims.items():
        expect(read(victim) == "keep\n", f"report wrote through a planted {name}")
    html = read(os.path.join(run, "report.html"))
    expect("<script>" not in html and "onload='" not in html,
           "report.html holds the planted markup unescaped")
    expect("&lt;script&gt;alert(&#39;x&#39;)" in html, "the planted text is not shown escaped")
    expect(not [n for n in os.listdir(run) if n.startswith(".plots-")], "a plot stage was left")


def compare(wd):
    run = one_run(wd)
    # short enough to survive the system name's length; gnuplot runs in the output folder
    rewrite(os.path.join(run, "result.json"), topology="b`touch PW`'\"\nset x")
    out_dir = os.path.join(wd, "cmp")
    marker = os.path.join(out_dir, "PW")
    rc, _, err, _ = scalecheck1(["compare", "-o", out_dir, "-W", "bert-large-dp", run, "dgx-a100"])
    expect(rc in (0, 1), f"compare: exit {rc}\n{err[-400:]}")
    expect(not os.path.exists(marker), "a backquote in a run's topology ran a shell command")
    if shutil.which("gnuplot"):
        svg = read(os.path.join(out_dir, "efficiency.svg"))
        expect("touch" in svg, "the planted title is not drawn as text")


def refused(args, named, what):
    """A planted input: exit 2, the message naming file:line and the field, nothing rendered."""
    rc, out, err, _ = scalecheck1(args)
    expect(rc == 2, f"{what}: exit {rc}, want 2\n{out[-300:]}\n{err[-400:]}")
    expect(re.search(named, err), f"{what}: the error does not name {named!r}:\n{err[-400:]}")


def line_of(path, needle):
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if needle in line:
                return n
    raise Failure(f"{needle!r} not in {path}")


def planted_result(run, what, named, edit):
    """run's result.json edited by edit(doc), then `report run` refused naming `named`."""
    path = os.path.join(run, "result.json")
    keep = read(path)
    doc = json.loads(keep)
    edit(doc)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    for name in ("report.html", "summary.json"):
        if os.path.exists(os.path.join(run, name)):
            os.remove(os.path.join(run, name))
    refused(["report", run], named, what)
    expect(not os.path.exists(os.path.join(run, "report.html")), f"{what}: a report was rendered")
    write(path, keep)


def nccl_log(path, rows, header=True):
    out = ["# Collective test starting: all_reduce_perf", "#  Rank  0 Group  0 Pid   1 on "
           "h1 device  0 [0000:07:00] NVIDIA A100-SXM4-80GB", "#  Rank  1 Group  0 Pid   2 on "
           "h1 device  1 [0000:08:00] NVIDIA A100-SXM4-80GB"]
    if header:
        out.append("#       size         count      type   redop    root     time   algbw   "
                   "busbw #wrong     time   algbw   busbw #wrong")
    for size, t, alg, bus in rows:
        cell = f"{t:9.2f} {alg:7.2f} {bus:7.2f}      0"
        out.append(f"{size:12d} {size // 4:12d}     float     sum      -1 {cell} {cell}")
    write(path, "\n".join(out) + "\n")
    return path


def readers(wd):
    # result.json: each impossible value refused, naming result.json:LINE and the field
    rc, _, err, _ = scalecheck1(COLL + ["--results-dir", os.path.join(wd, "res")])
    expect(rc == 0, f"coll: exit {rc}\n{err[-300:]}")
    run = run_dirs(os.path.join(wd, "res"))[0]
    cases = [("negative size", r"results\[0\]\.size_bytes: not a whole number",
              lambda d: d["results"][0].update(size_bytes=-5)),
             ("size past 2^64", r"results\[1\]\.size_bytes",
              lambda d: d["results"][1].update(size_bytes=1e30)),
             ("size as a word", r"results\[0\]\.size_bytes",
              lambda d: d["results"][0].update(size_bytes="big")),
             ("negative time", r"results\[2\]\.time_us: -3 is outside",
              lambda d: d["results"][2].update(time_us=-3)),
             ("busbw past any link", r"results\[0\]\.busbw_GBps: 1\.5e\+14 is outside",
              lambda d: d["results"][0].update(busbw_GBps=1.5e14)),
             ("wrong tool", r"tool: not \"scalecheck\"", lambda d: d.update(tool="other")),
             ("unknown command", r"command: not a command", lambda d: d.update(command="rm")),
             ("newer version", r"version: '99\.0\.0': newer", lambda d: d.update(version="99.0.0")),
             ("negative ranks", r"ranks: out of range", lambda d: d.update(ranks=-1)),
             ("ranks as text", r"ranks: not a whole number", lambda d: d.update(ranks="2")),
             ("rows not a list", r"results: not a list", lambda d: d.update(results={"a": 1}))]
    for what, named, edit in cases:
        planted_result(run, what, named, edit)
    # the line named is the value's own
    path = os.path.join(run, "result.json")
    keep = read(path)
    doc = json.loads(keep)
    doc["results"][3]["time_us"] = -7.25
    write(path, json.dumps(doc, indent=1))
    rc, _, err, _ = scalecheck1(["report", run])
    line = line_of(path, "-7.25")
    expect(f"result.json:{line}: results[3].time_us" in err, f"line {line} not named:\n{err}")
    write(path, keep)
    # nccl-tests text: a row no link could give, a size past 2^64, a fractional count
    good = [(1 << 20, 50.0, 20.97, 20.97), (1 << 22, 150.0, 27.96, 27.96)]
    base = ["judge", "--topology", "dgx-a100", "--results-dir", os.path.join(wd, "jres")]
    log = nccl_log(os.path.join(wd, "good.log"), good)
    rc, _, err, _ = scalecheck1(base + [log])
    expect(rc in (0, 1), f"judge on a sane log: exit {rc}\n{err[-400:]}")
    bad = nccl_log(os.path.join(wd, "bw.log"), good + [(1 << 24, 1.0, 1.5e14, 1.5e14)])
    refused(base + [bad], r"bw\.log:7: out of place: algbw", "judge: busbw 1.5e14")
    bad = nccl_log(os.path.join(wd, "sz.log"), [(1 << 20, 50.0, 20.97, 20.97)])
    write(bad, read(bad).replace(" 1048576 ", " 99999999999999999999999 "))
    refused(base + [bad], r"sz\.log:5: an nccl-tests row", "judge: size past 2^64")
    bad = nccl_log(os.path.join(wd, "ratio.log"), [(1 << 20, 50.0, 1.0, 20.97)])
    refused(base + [bad], r"ratio\.log:5: .*algbw 1 GB/s is not size / time|more than twice",
            "judge: algbw not size / time")
    # nccl-tests -J: sizes and counts that are not whole numbers
    jpath = os.path.join(wd, "nt.json")
    place = {"time": 50.0, "alg_bw": 20.97, "bus_bw": 20.97, "nwrong": 0}
    doc = {"version": 2, "args": ["all_reduce_perf"],
           "config": {"devices": [{"hostname": "h1"}, {"hostname": "h1"}]},
           "results": [{"size": 1 << 20, "count": 262144, "type": "float", "redop": "sum",
                        "root": "-1", "out_of_place": place, "in_place": place},
                       {"size": 1e30, "count": 2.5, "type": "float", "redop": "sum",
                        "root": "-1", "out_of_place": place, "in_place": place}]}
    write(jpath, json.dumps(doc, indent=1))
    refused(base + [jpath], r"nt\.json:\d+: size, count, nwrong: not whole numbers", "judge -J")
    doc["results"][1].update(size=1 << 20, count=262144)
    doc["results"][1]["in_place"] = dict(place, bus_bw=-1.0)
    write(jpath, json.dumps(doc, indent=1))
    refused(base + [jpath], r"nt\.json:\d+: in_place: .*outside", "judge -J negative busbw")
    expect(not run_dirs(os.path.join(wd, "jres"))[1:], "refused judges left run folders")


MODES = {"readers": readers, "outputs": outputs, "results": results, "report": report, "compare": compare}

if __name__ == "__main__":
    mode = sys.argv[1]
    if os.geteuid() != 0:
        print(f"SKIP: {mode} plants links owned by another user: needs root")
        sys.exit(77)
    main(lambda: MODES[mode](workdir("planted-" + mode)))
