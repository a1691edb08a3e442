"""The GPU path on a machine without a GPU: --backend nccl fails with one clear line and exit 2
(never a crash or a hang), --backend auto falls back to MPI and says so, and the GPU-only
options are refused by name. Skipped (77) where a GPU is present or the GPU path is not built."""
import json
import os
import shutil
import subprocess
import sys

from sclib import *


def has_gpu():
    smi = shutil.which("nvidia-smi")
    return smi is not None and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


def test():
    wd = workdir("nogpu")
    base = os.path.join(wd, "results")
    rc, out, err, secs = mpirun(2, ["coll", "--backend", "nccl", "-b", "1K", "-e", "1K",
                                    "--results-dir", base], timeout=60)
    expect(rc == 2, f"--backend nccl: exit {rc}, expected 2\n{err[-1500:]}")
    lines = [l for l in err.splitlines() if l.startswith("scalecheck")]
    expect(len(lines) == 1, f"expected one message line, got {lines}")
    expect("no CUDA device on host" in lines[0], f"message: {lines[0]}")
    expect(not os.path.exists(base), "nothing may be half-run: a results directory was made")
    expect(secs < 30, f"took {secs:.1f} s")

    jpath = os.path.join(wd, "auto.json")
    rc, out, err, _ = mpirun(2, ["coll", "-b", "1K", "-e", "1K", "-n", "2", "--json", jpath,
                                 "--results-dir", base])
    expect(rc == 0, f"--backend auto: exit {rc}\n{err[-1500:]}")
    expect("backend auto: using mpi" in out and "nccl not available (no CUDA device" in out,
           f"the choice must be printed:\n{out[:800]}")
    doc = load_json(jpath)
    expect(doc["backend"] == "mpi" and "using mpi" in doc["backend_note"], "JSON backend/note")

    for args, message in [
        (["-d", "fp16"], "-d: type fp16 is not supported by backend mpi"),
        (["-d", "bf16"], "-d: type bf16 is not supported by backend mpi"),
        (["-G", "4"], "-G: CUDA graphs need a GPU backend (backend mpi)"),
        (["--backend", "nccl", "--device", "1"], "no CUDA device on host"),
    ]:
        rc, out, err, _ = mpirun(1, ["coll", "-b", "1K", "-e", "1K", "--results-dir", base] + args,
                                 timeout=60)
        expect(rc == 2 and message in err, f"{args}: exit {rc}, stderr:\n{err[-800:]}")
    rc, out, err, _ = mpirun(1, ["compute", "--mode", "gemm"], timeout=60)
    expect(rc == 2 and "--mode gemm: matrix multiplies need a GPU backend (backend mpi)" in err,
           f"compute gemm: exit {rc}\n{err[-800:]}")
    rc, out, err, _ = mpirun(1, ["version"])
    expect("gpu path: built" in out and "nccl: 2." in out and "cuda driver: 0 (no driver)" in out,
           f"version:\n{out}")


if os.environ.get("SC_HAVE_NCCL") != "1" or has_gpu():
    print("SKIP: needs the GPU path built and no GPU present")
    sys.exit(77)
main(test)
