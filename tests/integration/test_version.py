"""`scalecheck version` (and `--version`) names the build, its libraries and backends; --help
lists commands."""
from sclib import *


def test():
    rc, out, err, _ = mpirun(1, ["version"])
    expect(rc == 0, f"exit {rc}: {err}")
    # the MPI the build uses, whichever it is (Open MPI, MPICH)
    for fragment in ("scalecheck 0.", "mpi: ", "libyaml: 0.", "jansson: 2.", "backends: ",
                     "gpu path:"):
        expect(fragment in out, f"'{fragment}' missing:\n{out}")
    mpi = [l for l in out.splitlines() if l.startswith("mpi: ")][0]
    expect(any(name in mpi for name in ("Open MPI", "MPICH")), f"which MPI: {mpi}")
    rc, again, err, _ = scalecheck1(["--version"])
    expect(rc == 0 and again.splitlines()[0] == out.splitlines()[0], f"--version: {rc} {again}")
    backends = [l for l in out.splitlines() if l.startswith("backends:")][0].split()[1:]
    expect("mpi" in backends, f"backends {backends}")
    rc, out, err, _ = mpirun(1, ["--help"])
    expect(rc == 0 and "coll" in out and "exit codes" in out, f"--help: {rc} {out}")
    rc, out, err, _ = mpirun(1, ["coll", "--help"])
    expect(rc == 0 and "--collective" in out and "-b, --minbytes" in out, f"coll --help: {out}")


main(test)
