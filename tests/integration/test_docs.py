"""Every command the documentation shows is run as shown, so that no page can drift: each ```sh
block of README.md and docs/*.md, in order, a page's blocks in one working folder (a later block
may read what an earlier one wrote), with `scalecheck` on the PATH, the repository's folders
beside it and the run directories under ./results. A block's tag says where it runs:
  ```sh            here, on the host path: must exit 0 (or N: ```sh exit=N)
  ```sh gpu        on the emulated device (tests/fakes), where the GPU path is built; else skipped
  ```sh vcluster   on the virtual cluster (network namespaces); skipped where `up` cannot make one
  ```sh ci         what CI runs itself: each line's script must be one .ci/run or a test runs
Blocks of another language (```yaml, ```text) are shown, not run.

usage: test_docs.py [PAGE...]"""
import glob
import os
import re
import shutil
import subprocess
import sys
import time

from sclib import *

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("SC_BUILD", os.path.join(ROOT, "build"))
BLOCK = re.compile(r"^```sh([^\n]*)\n(.*?)^```\s*$", re.M | re.S)
# what a page's working folder sees of the repository
LINKED = ("topologies", "workloads", "launch", "tests", "scripts", "bench", "docs", "build")
TAGS = {"", "gpu", "vcluster", "ci"}
BLOCK_TIMEOUT = 240


def pages(args):
    if args:
        return [os.path.join(ROOT, a) for a in args]
    skip = {"ARCHITECTURE.md", "REFERENCE.md", "schema-topology.md", "schema-workload.md"}
    return [os.path.join(ROOT, "README.md")] + sorted(
        p for p in glob.glob(os.path.join(ROOT, "docs", "*.md")) if os.path.basename(p) not in skip)


def blocks(path):
    """(line, tag, expected exit code, text) of every ```sh block of the page."""
    text = open(path).read()
    out = []
    for m in BLOCK.finditer(text):
        words = m.group(1).split()
        code = 0
        for w in list(words):
            if w.startswith("exit="):
                code = int(w[5:])
                words.remove(w)
        tag = " ".join(words)
        line = text.count("\n", 0, m.start()) + 1
        expect(tag in TAGS, f"{os.path.basename(path)}:{line}: unknown tag '{tag}'")
        out.append((line, tag, code, m.group(2)))
    return out


def folder(name):
    wd = workdir("docs-" + name)
    for entry in LINKED:
        target = BUILD if entry == "build" else os.path.join(ROOT, entry)
        if os.path.exists(target) and not os.path.exists(os.path.join(wd, entry)):
            os.symlink(target, os.path.join(wd, entry))
    bin_dir = os.path.join(wd, ".bin")
    os.makedirs(bin_dir, exist_ok=True)
    link = os.path.join(bin_dir, "scalecheck")
    if not os.path.exists(link):
        os.symlink(SCALECHECK, link)
    return wd, bin_dir


def environment(wd, bin_dir, tag):
    env = dict(os.environ)
    env.update({"PATH": bin_dir + ":" + env.get("PATH", ""),
                "SCALECHECK_RESULTS": os.path.join(wd, "results"),
                "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                # a page's `mpirun -np 8` on this machine's cores, as the tests start ranks
                "OMPI_MCA_rmaps_base_oversubscribe": "1",
                "OMPI_MCA_hwloc_base_binding_policy": "none"})
    if tag == "gpu":
        fake = os.path.join(BUILD, "fake-gpu")
        # the emulated GPUs at one even speed (1 GFLOP/s: a product is a sleep): products
        # computed on 2 shared cores differ by the load beside them, and run's peer check on
        # compute says so (a GPU 27 % slower than its peers FAILed beside another test)
        env.update({"LD_LIBRARY_PATH": fake + ":" + env.get("LD_LIBRARY_PATH", ""),
                    "FAKE_CUDA_DEVICES": "8", "FAKE_CUDA_MEM_MB": "512",
                    "FAKE_CUBLAS_TFLOPS": "0.001"})
    return env


def ci_commands():
    """The scripts .ci/run runs, and those a test runs (the README's acceptance run: the tests
    `calibrate` and `gpu-emulated-acceptance`)."""
    files = [os.path.join(ROOT, ".ci", "run")] + glob.glob(os.path.join(ROOT, "tests", "integration",
                                                                         "test_*.py"))
    found = (re.findall(r'scripts["/, ]+([\w.-]+\.sh)', open(f).read()) for f in files)
    return {"scripts/" + name for names in found for name in names}


VC = os.path.join(ROOT, "launch", "vcluster", "vcluster.sh")
_namespaces = None


def namespaces():
    """Whether this machine makes a virtual cluster (vcluster.sh up exits 4 where it cannot),
    asked once: a block's own exit 4 is then an interrupted run, not a missing cluster."""
    global _namespaces
    if _namespaces is None:
        p = subprocess.run([VC, "up", "docsprobe", "1"], capture_output=True, text=True,
                           timeout=120)
        subprocess.run([VC, "down", "docsprobe"], capture_output=True, timeout=120)
        _namespaces = p.returncode != 4
    return _namespaces


def vcluster_names(text):
    return re.findall(r"vcluster\.sh up (\S+)", text)


def run_block(page, line, tag, code, text, wd, bin_dir):
    where = f"{os.path.basename(page)}:{line}"
    if tag == "ci":
        known = ci_commands()
        for cmd in (l.split()[0] for l in text.splitlines() if l.strip() and not l.startswith("#")):
            expect(cmd in known, f"{where}: {cmd} is not a command CI runs ({sorted(known)})")
        return "ci"
    if tag == "gpu" and os.environ.get("SC_HAVE_NCCL", "") not in ("1", "ON", "TRUE"):
        return "skipped: the GPU path is not built"
    if tag == "vcluster" and not namespaces():
        return "skipped: no network namespaces here (vcluster.sh up: exit 4)"
    start = time.time()
    try:
        p = subprocess.run(["bash", "-eo", "pipefail", "-c", text], cwd=wd,
                           env=environment(wd, bin_dir, tag), capture_output=True, text=True,
                           timeout=BLOCK_TIMEOUT)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = -1, "", f"still running after {BLOCK_TIMEOUT} s"
    finally:
        for name in vcluster_names(text) if tag == "vcluster" else []:
            subprocess.run([VC, "down", name], capture_output=True, timeout=120)
    expect(rc == code, f"{where}: exit {rc}, the page expects {code}\n$ {text}\n"
                       f"{out[-1500:]}\n{err[-2500:]}")
    return f"{time.time() - start:.1f} s"


def test():
    args = sys.argv[1:]
    total = 0
    for page in pages(args):
        found = blocks(page)
        if not found:
            continue
        wd, bin_dir = folder(os.path.splitext(os.path.basename(page))[0])
        shutil.rmtree(os.path.join(wd, "results"), ignore_errors=True)
        for line, tag, code, text in found:
            said = run_block(page, line, tag, code, text, wd, bin_dir)
            print(f"{os.path.relpath(page, ROOT)}:{line} ({tag or 'here'}): {said}")
            total += 1
    expect(args or total >= 10, f"only {total} blocks found: the pattern looks in the wrong place")


main(test)
