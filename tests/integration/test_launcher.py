"""launch/mpirun.sh, the launcher that ends a faulty job, against a stand-in `mpirun` on PATH
that writes its stderr as a job would (the launcher's own logic, without MPI):
  - a line that arrives in two parts, a read's one-second timeout between them, is passed on
    whole, and the watchdog's report split that way is still seen: the launcher stops the job
    after --grace and exits 3 (a split line once lost its beginning, and with it the report);
  - a last line without a newline is passed on, and the job's exit code with it;
  - --kill-grace that is not whole seconds: exit 2, naming the flag;
  - the exit code from rank 0's note, not mpirun's alone: a FAIL verdict (1) and bad usage (2)
    pass through; mpirun's own 1 (a lost daemon, a rank that died after rank 0 finished, a job
    that ended before rank 0 said anything) is a runtime fault, 3, with the lost host named; a
    rank 0 that left no note (another host) keeps mpirun's code."""
import os
import stat
import subprocess
import time

from sclib import *

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
LAUNCH = os.path.join(ROOT, "launch", "mpirun.sh")
REPORT = ("scalecheck: rank 1 (host h2): timeout: no progress for 4.0 s in allreduce; waiting on "
          "ranks 0-1 on hosts h1, h2; ending the job (exit 3)")


def fake_mpirun(wd, body):
    """A stand-in mpirun in wd/bin running body (bash) after its arguments."""
    bindir = os.path.join(wd, "bin")
    os.makedirs(bindir, exist_ok=True)
    path = os.path.join(bindir, "mpirun")
    with open(path, "w") as f:
        f.write("#!/usr/bin/env bash\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return bindir


def launch(bindir, *flags, timeout=30):
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ["PATH"])
    start = time.monotonic()
    try:
        p = subprocess.run([LAUNCH, "--mpi", "openmpi", *flags, "--", "true"], env=env,
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        raise Failure(f"the launcher did not end in {timeout} s: {flags}\n{e.stderr}")
    return p, time.monotonic() - start


def split_report(wd):
    # the report split inside "ending the job", 1.6 s apart: the launcher's read times out in
    # between; then the job hangs (a daemon behind a cut link) until the launcher stops it
    cut = REPORT.index("the job") + 4
    bindir = fake_mpirun(wd, f"printf '%s' '{REPORT[:cut]}' >&2\nsleep 1.6\n"
                             f"printf '%s\\n' '{REPORT[cut:]}' >&2\nexec sleep 60\n")
    p, took = launch(bindir, "--grace", "1")
    expect(REPORT + "\n" in p.stderr, f"the split line is passed on whole:\n{p.stderr}")
    expect(p.returncode == 3 and "did not wind down 1 s after a fault" in p.stderr,
           f"the split report is seen and the job stopped: exit {p.returncode}\n{p.stderr}")
    expect(took < 15, f"stopped {took:.1f} s after the start (the job would hang 60 s)")
    print(f"split report: passed on whole, job stopped, exit 3 after {took:.1f} s")


def last_line(wd):
    bindir = fake_mpirun(wd, "printf 'first\\n' >&2\nsleep 1.3\nprintf 'no newline' >&2\nexit 1\n")
    p, _ = launch(bindir)
    expect(p.stderr.endswith("first\nno newline\n") and p.returncode == 1,
           f"the last line: exit {p.returncode}, stderr {p.stderr!r}")
    print("last line without a newline: passed on, exit 1 kept")


def bad_kill_grace(wd):
    bindir = fake_mpirun(wd, "exit 0\n")
    p, _ = launch(bindir, "--kill-grace", "1.5")
    expect(p.returncode == 2 and "--kill-grace: '1.5' is not whole seconds" in p.stderr,
           f"--kill-grace 1.5: exit {p.returncode}\n{p.stderr}")
    print("--kill-grace 1.5: exit 2")


# (what the job does, hosts the probe finds gone, the launcher's exit code, what it says).
NOTE = 'printf "dir=/nonexistent\\nexe=/bin/true\\n" >"$SCALECHECK_LAUNCH_NOTE"\n'
SAID = 'printf "exit=%s\\n" {} >>"$SCALECHECK_LAUNCH_NOTE"\n'
LOST_DAEMON = "ORTE has lost communication with a remote daemon."
ENDINGS = [
    ("a FAIL verdict", NOTE + SAID.format(1) + "exit 1\n", 1, None),
    ("bad usage before a run directory", SAID.format(2) + "exit 2\n", 2, None),
    ("a lost daemon", NOTE + f"echo '{LOST_DAEMON}' >&2\nexit 1\n", 3,
     "mpirun lost a daemon (a cut link or a host down); lost host(s): h2"),
    ("a rank died after rank 0 finished", NOTE + SAID.format(0) + "exit 1\n", 3,
     "mpirun ended (exit 1) before the command did; lost host(s): none unreachable"),
    ("no note (rank 0 on another host)", "exit 1\n", 1, None),
]


def endings(wd):
    hostfile = os.path.join(wd, "hosts")
    with open(hostfile, "w") as f:
        f.write("h1\nh2\n")
    probe = os.path.join(wd, "probe")
    with open(probe, "w") as f:
        f.write("#!/bin/sh\n[ \"$1\" != h2 ]\n")  # h2 does not answer
    os.chmod(probe, 0o755)
    for i, (name, body, code, said) in enumerate(ENDINGS):
        bindir = fake_mpirun(os.path.join(wd, str(i)), body)
        # "lost" probes only when the job ends with a runtime fault; h2 answers otherwise
        flags = ("--hostfile", hostfile, "--probe", probe if "daemon" in name else "true")
        p, _ = launch(bindir, *flags)
        expect(p.returncode == code, f"{name}: exit {p.returncode}, expected {code}\n{p.stderr}")
        expect(said is None or said in p.stderr, f"{name}: says {said!r}:\n{p.stderr}")
        print(f"{name}: exit {p.returncode}")


def test():
    wd = workdir("launcher")
    endings(wd)
    split_report(wd)
    last_line(wd)
    bad_kill_grace(wd)


main(test)
