"""launch/mpirun.sh, the launcher that ends a faulty job, against a stand-in `mpirun` on PATH
that writes its stderr as a job would (the launcher's own logic, without MPI):
  - a line that arrives in two parts, a read's one-second timeout between them, is passed on
    whole, and the watchdog's report split that way is still seen: the launcher stops the job
    after --grace and exits 3 (a split line once lost its beginning, and with it the report);
  - a last line without a newline is passed on, and the job's exit code with it;
  - --kill-grace that is not whole seconds: exit 2, naming the flag."""
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


def test():
    wd = workdir("launcher")
    split_report(wd)
    last_line(wd)
    bad_kill_grace(wd)


main(test)
