"""Planted input, as an attacker or a careless user leaves it: special files and links at an
output's name, links under the names a run's files take, a results folder that is somebody
else's link, every name of a second taken, data that reaches gnuplot and HTML. Each case plants
the input, runs the command, and checks what the planted thing points at is untouched and the
outcome is the one the README names.

usage: test_planted.py outputs|results|report|compare"""
import glob
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
    # a device: written to as it is (ENOSPC from /dev/full), never turned into a file
    _, err = coll(wd, ["--json", "/dev/full"], 3, "--json /dev/full")
    expect("/dev/full" in err and "No space left" in err, f"--json /dev/full: {err[-400:]}")
    expect(stat.S_ISCHR(os.stat("/dev/full").st_mode), "/dev/full is no longer a device")
    # the user's own link to a device or pipe: /dev/stdout takes the JSON
    out, _ = coll(wd, ["--json", "/dev/stdout"], 0, "--json /dev/stdout")
    expect('"tool": "scalecheck"' in out, f"--json /dev/stdout: no JSON on stdout:\n{out[-400:]}")
    # a FIFO nobody reads: refused at once, not waited on
    fifo = os.path.join(wd, "fifo")
    os.mkfifo(fifo)
    start = time.monotonic()
    _, err = coll(wd, ["--json", fifo], 3, "--json FIFO")
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


MODES = {"outputs": outputs, "results": results, "report": report, "compare": compare}

if __name__ == "__main__":
    mode = sys.argv[1]
    if os.geteuid() != 0:
        print(f"SKIP: {mode} plants links owned by another user: needs root")
        sys.exit(77)
    main(lambda: MODES[mode](workdir("planted-" + mode)))
