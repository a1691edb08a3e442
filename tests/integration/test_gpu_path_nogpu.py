"""The GPU path on a machine without a GPU: --backend nccl fails with one clear line and exit 2
(never a crash or a hang), --backend auto falls back to MPI and says so, and the GPU-only
options are refused by name. The GPU libraries live in the plugin alone: the program does not
need them, a host-path run never loads them, --backend nccl does, and a plugin that cannot be
loaded is one clear line. Skipped (77) where a GPU is present or the GPU path is not built."""
import json
import os
import shutil
import subprocess
import sys

from sclib import *


def has_gpu():
    smi = shutil.which("nvidia-smi")
    return smi is not None and subprocess.run([smi, "-L"], capture_output=True).returncode == 0


GPU_LIBS = ("libcudart", "libnccl", "libcublas")


def needed(path):
    r = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True)
    return [l.split("[")[1].rstrip("]") for l in r.stdout.splitlines() if "(NEEDED)" in l]


def loaded_gpu_libs(args, base):
    """The GPU libraries the dynamic loader opened for one rank (LD_DEBUG=files), and the exit
    code."""
    rc, out, err, _ = mpirun(1, args + ["--results-dir", base], env={"LD_DEBUG": "files"},
                             timeout=60)
    opened = {lib for line in err.splitlines() if "file=" in line for lib in GPU_LIBS
              if f"file={lib}" in line}
    return rc, opened, err


def check_plugin(base):
    program = SCALECHECK
    plugin = os.path.join(os.path.dirname(program), "libscalecheck-gpu.so")
    expect(os.path.isfile(plugin), f"the GPU plugin is not beside the program: {plugin}")
    expect(not [n for n in needed(program) if n.startswith(GPU_LIBS)],
           f"the program itself needs GPU libraries: {needed(program)}")
    expect({n.split(".so")[0] for n in needed(plugin)} >= set(GPU_LIBS),
           f"the plugin must carry the GPU libraries: {needed(plugin)}")
    host = ["coll", "-b", "1K", "-e", "1K", "-n", "2"]
    rc, opened, err = loaded_gpu_libs(host, base)
    expect(rc == 0 and not opened, f"a host-path run (auto) loaded {opened}, exit {rc}")
    rc, opened, err = loaded_gpu_libs(host + ["--backend", "nccl"], base)
    expect(rc == 2 and opened == set(GPU_LIBS), f"--backend nccl loaded {opened}, exit {rc}")
    rc, out, err, _ = mpirun(1, host + ["--backend", "nccl", "--results-dir", base],
                             env={"SCALECHECK_GPU_PLUGIN": "/nonexistent/libx.so"}, timeout=60)
    expect(rc == 2 and "cannot load the GPU plugin: /nonexistent/libx.so" in err,
           f"a plugin that cannot load: exit {rc}\n{err[-800:]}")
    rc, out, err, _ = mpirun(1, ["version"], env={"SCALECHECK_GPU_PLUGIN": "/nonexistent/libx.so"})
    expect(rc == 0 and "nccl plugin: not loadable: cannot load the GPU plugin" in out,
           f"version without its plugin:\n{out}")


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
    expect("backend auto: using mpi" in out and "nccl not available (no CUDA device" in out
           and "rccl not available (no AMD GPU on host" in out and "/dev/kfd absent" in out,
           f"the choice must be printed:\n{out[:800]}")
    doc = load_json(jpath)
    expect(doc["backend"] == "mpi" and "using mpi" in doc["backend_note"], "JSON backend/note")

    for args, message in [
        (["-d", "fp16"], "-d: type fp16 is not supported by backend mpi"),
        (["-d", "bf16"], "-d: type bf16 is not supported by backend mpi"),
        (["-G", "4"], "-G: CUDA graphs need a GPU backend (backend mpi)"),
        (["--backend", "nccl", "--device", "1"], "no CUDA device on host"),
        # the AMD module loads everywhere; HIP, without ROCm, does not
        (["--backend", "rccl"], "no HIP device on host"),
        (["--backend", "rccl"], "cannot load libamdhip64.so.7"),
    ]:
        rc, out, err, _ = mpirun(1, ["coll", "-b", "1K", "-e", "1K", "--results-dir", base] + args,
                                 timeout=60)
        expect(rc == 2 and message in err, f"{args}: exit {rc}, stderr:\n{err[-800:]}")
    rc, out, err, _ = mpirun(1, ["compute", "--mode", "gemm"], timeout=60)
    expect(rc == 2 and "--mode gemm: matrix multiplies need a GPU backend (backend mpi)" in err,
           f"compute gemm: exit {rc}\n{err[-800:]}")
    check_plugin(base)
    rc, out, err, _ = mpirun(1, ["version"])
    expect("gpu path: built" in out and "nccl: 2." in out and "cuda driver: 0 (no driver)" in out,
           f"version:\n{out}")


if os.environ.get("SC_HAVE_NCCL") != "1" or has_gpu():
    print("SKIP: needs the GPU path built and no GPU present")
    sys.exit(77)
main(test)
