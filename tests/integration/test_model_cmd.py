"""`scalecheck model`: predictions for every shipped topology without launching anything, with
the JSON fields, calibrated against public figures (nccl-tests all_reduce busbw on DGX A100:
~230 GB/s on 8 GPUs, ~185 GB/s across 2 nodes with 8x HDR), thousands of nodes at once, and
the workload curve; NVLink SHARP from the switch generation, --algo, the PCIe tree."""
import glob
import math
import os

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def model(args):
    wd = workdir("model")
    jpath = os.path.join(wd, "m.json")
    rc, out, err, _ = scalecheck1(["model", "--json", jpath] + args, timeout=60)
    expect(rc == 0, f"model {args}: exit {rc}\n{err[-800:]}")
    return load_json(jpath), out


def test():
    topo = lambda n: os.path.join(ROOT, "topologies", n + ".yaml")
    doc, _ = model(["--topology", topo("dgx-a100"), "--size", "8,1M,1G", "--gpus", "1,8",
                    "--nodes", "1,2,4096", "--collective", "all"])
    preds = doc["predictions"]
    for p in preds:
        for key in ("collective", "size_bytes", "gpus", "nodes", "algorithm", "time_us",
                    "algbw_GBps", "busbw_GBps"):
            expect(key in p, f"prediction lacks {key}: {p}")
    def one(coll, size, gpus, nodes):
        m = [p for p in preds if (p["collective"], p["size_bytes"], p["gpus"], p["nodes"]) == (coll, size, gpus, nodes)]
        expect(len(m) == 1, f"no prediction for {coll} {size} {gpus} {nodes}")
        return m[0]
    ar8 = one("allreduce", 1 << 30, 8, 1)
    expect(220 <= ar8["busbw_GBps"] <= 250, f"DGX A100 8-GPU busbw {ar8['busbw_GBps']}")
    ar16 = one("allreduce", 1 << 30, 16, 2)
    expect(170 <= ar16["busbw_GBps"] <= 200, f"DGX A100 2-node busbw {ar16['busbw_GBps']}")
    big = one("allreduce", 1 << 30, 8 * 4096, 4096)
    expect(big["busbw_GBps"] > 0 and big["time_us"] > ar16["time_us"], f"4096 nodes: {big}")
    expect(one("allreduce", 1 << 20, 1, 1)["busbw_GBps"] == 0, "one GPU has no busbw")
    expect(one("allreduce", 8, 8, 1)["time_us"] < one("allreduce", 1 << 30, 8, 1)["time_us"], "time grows")

    # every shipped topology predicts something sensible: no bus bandwidth on one GPU, some on
    # more; time and algbw agree with the size; across nodes no faster than inside the best node
    for path in sorted(glob.glob(os.path.join(ROOT, "topologies", "*.yaml"))):
        d, _ = model(["--topology", path, "--size", "1G"])
        name, preds = os.path.basename(path), d["predictions"]
        for p in preds:
            where = f"{name}: {p['gpus']} GPUs on {p['nodes']} nodes"
            expect((p["busbw_GBps"] == 0) == (p["gpus"] == 1), f"{where}: busbw {p['busbw_GBps']}")
            expect(p["time_us"] > 0 and math.isclose(p["algbw_GBps"] * p["time_us"] * 1e3,
                                                     p["size_bytes"], rel_tol=1e-3),
                   f"{where}: algbw {p['algbw_GBps']} x time {p['time_us']} us != size")
        # a buffer never crosses nodes faster than it is reduced inside one (algbw: a tree's
        # busbw on 2 nodes may pass a node's, as NCCL's maintainers say - its factor counts
        # 2(n-1)/n of the bytes, the tree sends fewer)
        inside = max((p["algbw_GBps"] for p in preds if p["nodes"] == 1), default=0)
        across = [p["algbw_GBps"] for p in preds if p["nodes"] > 1]
        expect(all(b <= inside * 1.0001 for b in across),
               f"{name}: across nodes {across} faster than inside one ({inside})")

    # the workload curve: speedup 1 at the base, efficiency <= ~1
    d, out = model(["--topology", topo("dgx-a100"), "--workload",
                    os.path.join(ROOT, "workloads", "bert-large-dp.yaml"), "--gpus", "1,2,4,8",
                    "--nodes", "1,2,4"])
    curve = d["curve"]
    # --gpus names GPUs per node: every count on every node count (1 GPU on each of 2 nodes is
    # a shape too, with one NIC a node)
    expect([(p["gpus"], p["nodes"]) for p in curve] ==
           [(g * n, n) for n in (1, 2, 4) for g in (1, 2, 4, 8)],
           f"curve points {[(p['gpus'], p['nodes']) for p in curve]}")
    expect(curve[0]["speedup"] == 1.0, "base speedup")
    expect(all(0 < p["efficiency"] <= 1.0001 for p in curve), "efficiency in (0, 1]")
    rc, out, err, _ = scalecheck1(["model"], timeout=60)
    expect(rc == 2 and "--topology: required" in err, f"no topology: {rc} {err}")
    test_algo(topo)
    test_partial_nodes(topo)


def test_partial_nodes(topo):
    """Fewer GPUs than a node holds, across nodes: priced, not dropped, and through the NICs
    those GPUs drive - one GPU of a DGX H100 reaches its own NIC of eight (400 Gb/s at 0.92:
    46 GB/s, an all-reduce on 2 ranks moving busbw = algbw), two GPUs two NICs (twice the algbw,
    whichever algorithm moves it)."""
    d, out = model(["--topology", topo("dgx-h100"), "--gpus", "1,2", "--nodes", "2", "--size",
                    "1G"])
    rows = {p["gpus"]: p for p in d["predictions"]}
    expect(sorted(rows) == [2, 4] and 40 <= rows[2]["busbw_GBps"] <= 47.5 and
           1.8 <= rows[4]["algbw_GBps"] / rows[2]["algbw_GBps"] <= 2.2 and "allreduce" in out,
           f"1 and 2 GPUs a node on 2 nodes: {d['predictions']}")


def test_algo(topo):
    """NVLink SHARP follows from the switch generation; --algo prices what a run forced."""
    def ar(name, gpus, *extra):
        d, _ = model(["--topology", topo(name), "--size", "4G", "--gpus", str(gpus), "--nodes",
                      "1", *extra])
        return d["predictions"][0]
    h = ar("dgx-h100", 8)
    expect(h["algorithm"] == "nvls" and 465 <= h["busbw_GBps"] <= 495, f"DGX H100 NVLS: {h}")
    r = ar("dgx-h100", 8, "--algo", "ring")
    expect(r["algorithm"] == "ring" and 355 <= r["busbw_GBps"] <= 380, f"DGX H100 ring: {r}")
    expect(ar("dgx-h100", 2)["algorithm"] == "ring", "two GPUs: the ring wins")
    a = ar("dgx-a100", 8)
    expect(a["algorithm"] == "ring", f"NVSwitch gen 2 has no NVLS: {a}")
    rc, out, err, _ = scalecheck1(["model", "--topology", topo("dgx-a100"), "--size", "1G",
                                   "--gpus", "8", "--nodes", "1", "--algo", "nvls"])
    expect(rc == 0 and "no NVLink SHARP" in err and "ring" in out, f"forced NVLS on A100: {err}")
    rc, out, err, _ = scalecheck1(["model", "--topology", topo("dgx-a100"), "--algo", "fast"])
    expect(rc == 2 and "--algo" in err and "fast" in err, f"bad --algo: {rc} {err}")
    # the PCIe tree: inside one switch the link's reach; beyond it staged through host memory,
    # whose 409.6 GB/s (2 x 8 channels of DDR4-3200) at 0.8 carries 2 flows a GPU
    p4 = ar("inspur-nf5468m6-h100pcie", 4)
    p8 = ar("inspur-nf5468m6-h100pcie", 8)
    expect(abs(p4["busbw_GBps"] - 25) < 0.5 and abs(p8["busbw_GBps"] - 0.8 * 409.6 / 16) < 0.5,
           f"PCIe tree: {p4['busbw_GBps']} {p8['busbw_GBps']}")
    # --symmetric (nccl-tests -R 2): NCCL's symmetric kernels where they run - a Hopper node all
    # on NVLink - and a word where they do not (Ampere)
    s = ar("dgx-h100", 8, "--symmetric")
    expect(s["algorithm"] == "symmetric" and 465 <= s["busbw_GBps"] <= 495,
           f"DGX H100 symmetric: its bytes no faster than NVLS moves them {s}")
    rc, out, err, _ = scalecheck1(["model", "--topology", topo("dgx-a100"), "--size", "8",
                                   "--gpus", "8", "--nodes", "1", "--symmetric"])
    expect(rc == 0 and "--symmetric: no point above runs NCCL's symmetric kernels" in out and
           "symmetric " not in out.split("\n# --symmetric")[0], f"symmetric on A100: {out}")


main(test)
