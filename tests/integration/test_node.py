"""scalecheck node - inside the node. Here, on the host path: host memory per NUMA node and each
rank's place, measured and written (JSON rows, node.csv, the report). On a recorded HGX H100 tree
(tests/fakes/trees/hgx-h100.tree made into a sysfs by tests/fakes/sysfs_tree.py, given through
SCALECHECK_SYS_ROOT, its NUMA nodes mapped onto this machine's CPUs 0 and 1) with 8 ranks, each
bound to its GPU's node: the healthy twin PASSes; a GPU's link planted at x8, the ranks bound to
the far node, a rank told to use a far NIC (NCCL_IB_HCA), GPUDirect RDMA off (no peer memory
module) and a switch port redirecting peer-to-peer requests (ACS) each FAIL naming the GPU or
rank; the IOMMU translating is a WARN."""
import os
import re
import subprocess
import sys

from sclib import *

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TREE = os.path.join(ROOT, "tests", "fakes", "trees", "hgx-h100.tree")
MAKE_TREE = os.path.join(ROOT, "tests", "fakes", "sysfs_tree.py")
WD = workdir("node")


def make_tree(name, *extra, tree=TREE):
    out = os.path.join(WD, name)
    subprocess.run([sys.executable, MAKE_TREE, tree, out, "--numa-cpus", "0:0,1:1", *extra],
                   check=True, capture_output=True)
    return os.path.join(out, "sys")


def node(np, name, args=(), env=None, cpu_of_rank=None):
    """scalecheck node on np ranks; cpu_of_rank: a shell expression of the local rank ($lr)
    that each rank is bound to (taskset), as mpirun --bind-to would place it."""
    jpath = os.path.join(WD, name + ".json")
    cmd = ["node", "--json", jpath, "--results-dir", os.path.join(WD, "results"), *args]
    full_env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                    **(env or {}))
    if cpu_of_rank is None:
        argv = launcher(np) + [SCALECHECK] + cmd
    else:
        wrap = ('lr=${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-0}}; '
                f'exec taskset -c $(({cpu_of_rank})) "$0" "$@"')
        argv = launcher(np) + ["sh", "-c", wrap, SCALECHECK] + cmd
    p = subprocess.run(argv, capture_output=True, text=True, timeout=240, env=full_env)
    expect(os.path.exists(jpath), f"{name}: exit {p.returncode}, no JSON\n{p.stderr[-1500:]}")
    doc = load_json(jpath)
    return p.returncode, doc, p


def rows(doc, kind):
    return [r for r in doc["node"] if r["kind"] == kind]


def host_path():
    """This machine: its NUMA nodes' memory copied by their cores, each rank's place."""
    rc, doc, p = node(2, "here", ["--mem-size", "8M", "-n", "3"])
    memory = rows(doc, "memory")
    expect(rc == 0 and memory and all(r["measured_GBps"] > 0.1 for r in memory),
           f"here: exit {rc}, memory {memory}\n{p.stderr[-800:]}")
    ranks = rows(doc, "rank")
    expect(sorted(r["what"] for r in ranks) == ["rank 0", "rank 1"] and
           all(r["detail"].startswith("CPUs ") for r in ranks), f"here: ranks {ranks}")
    run_dir = doc["results_dir"]
    for f in ("node.csv", "report.html", "junit.xml", "summary.json"):
        expect(os.path.exists(os.path.join(run_dir, f)), f"here: no {f}")
    print(f"here: {len(memory)} NUMA node(s), " + ", ".join(
        f"{r['what']} {r['measured_GBps']:.1f} GB/s ({r['detail']})" for r in memory))


def checks_failed(doc):
    return [c for c in doc.get("checks", []) if c["verdict"] == "FAIL"]


def hgx():
    healthy = make_tree("healthy")
    near = "$lr / 4"  # GPUs 0-3 on node 0 (CPU 0 here), 4-7 on node 1 (CPU 1)
    rc, doc, p = node(8, "hgx-healthy", ["--no-memory"], {"SCALECHECK_SYS_ROOT": healthy}, near)
    links, nics, ranks = rows(doc, "link"), rows(doc, "gpu-nic"), rows(doc, "rank")
    expect(len(links) == 16 and all(r["verdict"] == "PASS" for r in links), f"links {links}")
    expect(len(nics) == 8 and all(r["detail"].startswith(f"nearest NIC mlx5_{i} ") and
                                  r["detail"].endswith("(PIX)") for i, r in enumerate(nics)),
           f"GPUs' NICs {nics}")
    expect(len(ranks) == 8 and all(r["verdict"] == "PASS" for r in ranks), f"ranks {ranks}")
    gdr = rows(doc, "gpudirect")
    expect(len(gdr) == 8 and all(r["verdict"] == "PASS" and "PIX: nvidia_peermem, ACS redirect off, "
                                 "IOMMU identity" in r["detail"] for r in gdr), f"GPUDirect {gdr}")
    expect(rc == 0 and doc["verdict"]["verdict"] == "PASS" and not checks_failed(doc),
           f"healthy: exit {rc}, {doc['verdict']}\n{p.stdout[-1500:]}")
    print(f"HGX healthy: {len(links)} links at their best, every GPU's NIC PIX, 8 ranks placed, "
          f"GPUDirect RDMA possible ({gdr[0]['detail']})")

    # GPUDirect RDMA: the peer memory module not loaded (every GPU), a switch port above GPU 0
    # redirecting peer-to-peer requests (ACS: GPU 0 alone), the IOMMU translating (a WARN)
    for name, extra, want in (("no-peermem", ["--no-module", "nvidia_peermem"], list(range(8))),
                              ("acs", ["--acs", "0000:16:00.0"], [0])):
        rc, doc, p = node(8, "hgx-" + name, ["--no-memory"], {"SCALECHECK_SYS_ROOT":
                                                               make_tree(name, *extra)}, near)
        failed = checks_failed(doc)
        named = sorted(int(re.search(r": GPU (\d+) ", c["name"]).group(1)) for c in failed)
        expect(rc == 1 and named == want and all(c["name"].startswith("GPUDirect RDMA to its NIC")
                                                 for c in failed), f"{name}: exit {rc}, {failed}")
        print(f"HGX {name}: {failed[0]['name']}")
    rc, doc, p = node(8, "hgx-iommu", ["--no-memory"],
                      {"SCALECHECK_SYS_ROOT": make_tree("iommu", "--iommu", "DMA-FQ")}, near)
    gdr = rows(doc, "gpudirect")
    expect(rc == 0 and all(r["verdict"] == "WARN" for r in gdr) and len(gdr) == 8,
           f"IOMMU: exit {rc}, {gdr}")

    x8 = make_tree("x8", "--link", "0000:3c:00.0=5,8")
    rc, doc, p = node(8, "hgx-x8", ["--no-memory"], {"SCALECHECK_SYS_ROOT": x8}, near)
    failed = checks_failed(doc)
    expect(rc == 1 and len(failed) == 1 and "GPU 2 0000:3c:00.0" in failed[0]["name"] and
           "Gen5 x8 of Gen5 x16" in failed[0]["name"], f"x8: exit {rc}, {failed}")
    print(f"HGX GPU 2 at x8: {failed[0]['name']}")

    rc, doc, p = node(8, "hgx-far-numa", ["--no-memory"], {"SCALECHECK_SYS_ROOT": healthy}, "1")
    failed = sorted(c["name"] for c in checks_failed(doc))
    expect(rc == 1 and len(failed) == 4 and all(f"rank {r}" in " ".join(failed) for r in range(4)),
           f"far NUMA: exit {rc}, {failed}")
    print(f"HGX ranks 0-3 on the far node: {failed[0]}")

    rc, doc, p = node(8, "hgx-far-nic", ["--no-memory"],
                      {"SCALECHECK_SYS_ROOT": healthy, "NCCL_IB_HCA": "=mlx5_7"}, near)
    ranks = {r["what"]: r for r in rows(doc, "rank")}
    expect(rc == 1 and ranks["rank 0"]["verdict"] == "FAIL" and "(SYS" in ranks["rank 0"]["detail"]
           and ranks["rank 7"]["verdict"] == "PASS", f"far NIC: exit {rc}, {ranks}")
    print(f"HGX NCCL_IB_HCA=mlx5_7: rank 0 {ranks['rank 0']['detail']}")


def amd_gpudirect():
    """An AMD server's GPUDirect RDMA (tests/fakes/trees/mi250-apollo.tree: 16 MI250 GCDs):
    with ROCm's amdgpu driver on a kernel past 5.12 every GCD's nearest NIC reaches its memory
    by DMA-BUF (PASS); without the driver, no peer memory nor DMA-BUF (every row FAILs)."""
    mi250 = os.path.join(ROOT, "tests", "fakes", "trees", "mi250-apollo.tree")
    env = {"SCALECHECK_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1"}
    for name, extra, level, said in (("amd-dmabuf", (), "PASS", "DMA-BUF"),
                                     ("amd-none", ("--no-module", "amdgpu"), "FAIL",
                                      "no peer memory module nor DMA-BUF")):
        rc, doc, p = node(1, name, ["--backend", "mpi", "--no-memory", "-n", "1"],
                          env=dict(env, SCALECHECK_SYS_ROOT=make_tree(name, *extra, tree=mi250)))
        gdr = rows(doc, "gpudirect")
        expect(len(gdr) == 16 and all(r["verdict"] == level and said in r["detail"] for r in gdr)
               and rc == (0 if level == "PASS" else 1),
               f"{name}: exit {rc}, {[(r['verdict'], r['detail']) for r in gdr][:3]}")
    print("AMD GPUDirect RDMA: DMA-BUF with amdgpu PASS on 16 GCDs, without it FAIL on each")


def refusals():
    for args, message in ((["--trials", "0"], "--trials"), (["--mem-size", "1"], "--mem-size")):
        rc, out, err, _ = mpirun(1, ["node", "--results-dir", os.path.join(WD, "refused")] + args)
        expect(rc == 2 and message in err and not os.path.exists(os.path.join(WD, "refused")),
               f"{args}: exit {rc}: {err[-400:]}")


def test():
    refusals()
    host_path()
    hgx()
    amd_gpudirect()


main(test)
