"""A host without /sys (a container or chroot without it): MPI cannot bind the ranks nor see the
CPUs, so timings wander. The verdict says so - a WARN that is a disturbance, so FAILs beside it
make the verdict INCONCLUSIVE (exit 5) - and a host with /sys has no such check. The host is
made to lack /sys by SCALECHECK_SYS_ROOT, and, where this test may (root, unshare), for real:
a mount namespace with an empty /sys."""
import os
import shutil
import subprocess

from sclib import *

COLL = ["coll", "-b", "1M", "-e", "4M", "-f", "4", "-n", "10", "-w", "2", "--telemetry", "0"]
SYSFS_CHECK = "every host shows its CPUs to MPI"


def run(wd, topology, env=None, prefix=None):
    """A coll run held to topology; (exit code, its checks, its verdict, stdout)."""
    base = os.path.join(wd, "results")
    before = set(run_dirs(base)) if os.path.isdir(base) else set()
    args = COLL + ["-Y", topology, "--results-dir", base]
    if prefix is None:
        rc, out, err, _ = mpirun(2, args, env=env)
    else:  # the command under a wrapper (unshare), as mpirun() would start it
        cmd = prefix + launcher(2) + [SCALECHECK] + args
        full_env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=full_env)
        rc, out, err = p.returncode, p.stdout, p.stderr
    made = sorted(set(run_dirs(base)) - before)
    expect(len(made) == 1, f"{topology}: exit {rc}, run directories {made}\n{err[-800:]}")
    doc = load_json(os.path.join(made[0], "result.json"))
    verdict = load_json(os.path.join(made[0], "summary.json"))["verdict"]
    return rc, doc.get("checks", []), verdict, out


def sysfs_checks(checks):
    return [c for c in checks if c["name"].startswith(SYSFS_CHECK)]


def test():
    wd = workdir("sysfs")
    loose = loose_topology(wd)
    nowhere = {"SCALECHECK_SYS_ROOT": os.path.join(wd, "no-sys")}
    # a host with /sys: no such check
    rc, checks, verdict, _ = run(wd, loose)
    expect(rc == 0 and not sysfs_checks(checks), f"healthy: exit {rc}, {sysfs_checks(checks)}")
    # without: a WARN, a disturbance, naming the host and what to do
    rc, checks, verdict, out = run(wd, loose, env=nowhere)
    found = sysfs_checks(checks)
    expect(len(found) == 1 and found[0]["verdict"] == "WARN" and found[0].get("disturbance")
           and "has no /sys" in found[0]["note"] and "mount -t sysfs" in found[0]["note"]
           and rc == 0 and verdict == "WARN", f"no /sys: exit {rc}, {verdict}, {found}")
    # a topology this host cannot meet FAILs with /sys (exit 1) and is INCONCLUSIVE without
    # (exit 5): the host could not place its ranks, so the FAILs are no verdict on the system
    rc, checks, verdict, _ = run(wd, "dgx-a100")
    fails = [c for c in checks if c["verdict"] == "FAIL"]
    expect(rc == 1 and verdict == "FAIL" and fails, f"dgx-a100 with /sys: exit {rc}, {verdict}")
    rc, checks, verdict, out = run(wd, "dgx-a100", env=nowhere)
    expect(rc == 5 and verdict == "INCONCLUSIVE" and "a disturbance check did not pass" in out,
           f"dgx-a100 without /sys: exit {rc}, {verdict}\n{out[-600:]}")
    print(f"no /sys: WARN alone, {len(fails)} FAILs beside it INCONCLUSIVE (exit 5)")
    # for real, where this test may make a mount namespace
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare, "-m", "true"], capture_output=True) if unshare else None
    if os.geteuid() != 0 or probe is None or probe.returncode != 0:
        print("real namespace part skipped: needs root and unshare -m")
        return
    script = 'mount -t tmpfs none /sys && exec "$@"'
    rc, checks, verdict, out = run(wd, loose, prefix=[unshare, "-m", "sh", "-c", script, "-"])
    found = sysfs_checks(checks)
    expect(len(found) == 1 and found[0]["verdict"] == "WARN" and rc == 0,
           f"a namespace without /sys: exit {rc}, {verdict}, {found}")
    print("a mount namespace without /sys: the WARN said")


main(test)
