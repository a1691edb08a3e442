"""`scalecheck detect` writes what this host has as a topology file that validates, and lists
what differs from a declared topology (DGX A100 here: fewer GPUs and NICs than declared)."""
import glob
import json
import os
import subprocess
import sys

import yaml

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
FAKE_NVML = os.environ["FAKE_NVML"]


def sys_topology():
    """Sockets, cores and NUMA nodes of this host as the kernel lists them (sysfs), for the CPUs
    this process may use: what detect (hwloc) must have found."""
    cores, sockets = set(), set()
    for cpu in os.sched_getaffinity(0):
        top = f"/sys/devices/system/cpu/cpu{cpu}/topology"
        package = open(f"{top}/physical_package_id").read().strip()
        sockets.add(package)
        cores.add((package, open(f"{top}/core_id").read().strip()))
    numa = len(glob.glob("/sys/devices/system/node/node[0-9]*")) or 1
    return len(sockets), len(cores), numa


def gpu_host(wd):
    """Two GPUs NVML names H200 (the fake answers as an H100 SXM does: 2619 MHz memory, 5120
    bits, 81559 MiB): the detected file states the memory's size and peak from NVML, and no
    shipped topology is picked for it - none declares an H200; the nearest of its architecture
    is named, not held to."""
    out_yaml, env_file = os.path.join(wd, "gpu-host.yaml"), os.path.join(wd, "gpu-host.env")
    env = {"SCALECHECK_NVML_LIBRARY": FAKE_NVML, "FAKE_NVML_GPUS": "2",
           "FAKE_NVML_NAME": "NVIDIA H200"}
    rc, out, err, _ = mpirun(1, ["detect", "--output", out_yaml, "--pick", env_file], env=env)
    expect(rc == 0, f"gpu host: exit {rc}\n{err[-800:]}")
    node = yaml.safe_load(open(out_yaml))["node"]
    expect(node["gpus"] == 2 and node["gpu"] == "NVIDIA H200", f"gpu host: {node}")
    expect(abs(node["gpu_memory_GBps"] - 2619 * 2 * 5120 / 8 / 1000) < 1
           and node["gpu_memory_gb"] == 80, f"memory from NVML: {node}")
    picked = subprocess.run(["bash", "-c", '. "$1"; printf "%s\\n%s" "$SC_TOPOLOGY" '
                             '"$SC_TOPOLOGY_WHY"', "-", env_file],
                            capture_output=True, text=True).stdout.split("\n")
    expect(picked[0] == "", f"an H200 held to another GPU's file: {picked}")
    expect("; nearest " in picked[1] and "same architecture, other rates" in picked[1], picked)


def amd_host(wd):
    """A host whose GPUs NVML does not see: 16 AMD Instinct GCDs (8 MI250 packages) in a sysfs
    tree (tests/fakes/trees/mi250-apollo.tree, SCALECHECK_SYS_ROOT): detect counts them by
    their PCI ids, says RCCL, and --pick chooses the shipped MI250 server; a host of other AMD
    display controllers (workstation cards) has no GPU."""
    tree = os.path.join(wd, "mi250")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fakes", "sysfs_tree.py"),
                    os.path.join(ROOT, "tests", "fakes", "trees", "mi250-apollo.tree"), tree],
                   check=True, capture_output=True)
    out_yaml, env_file = os.path.join(wd, "amd.yaml"), os.path.join(wd, "amd.env")
    env = {"SCALECHECK_SYS_ROOT": os.path.join(tree, "sys"),
           "SCALECHECK_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1"}
    rc, out, err, _ = mpirun(1, ["detect", "--output", out_yaml, "--pick", env_file], env=env)
    expect(rc == 0, f"amd host: exit {rc}\n{err[-800:]}")
    doc = yaml.safe_load(open(out_yaml))
    expect(doc["library"] == "rccl" and doc["node"]["gpus"] == 16
           and doc["node"]["gpu"] == "AMD Instinct MI250X/MI250", f"amd host: {doc}")
    rc, out, err, _ = scalecheck1(["validate", out_yaml])
    expect(rc == 0, f"the detected AMD file does not validate: exit {rc}\n{err}")
    picked = subprocess.run(["bash", "-c", '. "$1"; printf "%s" "$SC_TOPOLOGY"', "-", env_file],
                            capture_output=True, text=True).stdout
    expect(picked.endswith("hpe-apollo6500-mi250.yaml"), f"picked {picked!r}")
    # the same tree with its GCDs as another AMD device (a Radeon workstation card, 1002:744c)
    other = os.path.join(wd, "radeon.tree")
    with open(other, "w") as f:
        f.write(open(os.path.join(ROOT, "tests", "fakes", "trees", "mi250-apollo.tree")).read()
                .replace("id=1002:740c:038000", "id=1002:744c:030000"))
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fakes", "sysfs_tree.py"), other,
                    os.path.join(wd, "radeon")], check=True, capture_output=True)
    env["SCALECHECK_SYS_ROOT"] = os.path.join(wd, "radeon", "sys")
    rc, out, err, _ = mpirun(1, ["detect", "--output", os.path.join(wd, "radeon.yaml")], env=env)
    node = yaml.safe_load(open(os.path.join(wd, "radeon.yaml")))["node"]
    expect(rc == 0 and node["gpu"] == "cpu-rank", f"workstation cards taken for GPUs: {node}")
    amd_health(wd, env)
    print(f"amd host: 16 MI250 GCDs detected by PCI id, rccl, picked {os.path.basename(picked)}; "
          "their telemetry read, a hot GCD and one with memory errors FAIL health")


def amd_health(wd, env):
    """The AMD GCDs' telemetry from their driver's files: every GCD sampled (junction
    temperature, power, clocks, memory errors); `health` FAILs the one planted hot (97 C) and the
    one with uncorrectable memory errors, WARNs the one whose XGMI links counted errors, and no
    other."""
    tree = os.path.join(wd, "mi250-faults")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fakes", "sysfs_tree.py"),
                    os.path.join(ROOT, "tests", "fakes", "trees", "mi250-apollo.tree"), tree,
                    "--amd-hot", "0000:13:00.0=97", "--amd-ecc", "0000:14:00.0=2:5",
                    "--amd-xgmi", "0000:15:00.0=3"],
                   check=True, capture_output=True)
    env = dict(env, SCALECHECK_SYS_ROOT=os.path.join(tree, "sys"))
    rc, out, err, _ = mpirun(1, ["telemetry"], env=env)
    gpus = json.loads(out)[0]["gpus"]
    first = gpus[0]["samples"][0]
    expect(rc == 0 and len(gpus) == 16 and first["temp_c"] == 38 and first["power_w"] == 91
           and first["sm_mhz"] == 800 and gpus[2]["samples"][0]["ecc_uncorrected"] == 2,
           f"amd telemetry: exit {rc}: {gpus[:3]}")
    res = os.path.join(wd, "health")
    rc, out, err, _ = mpirun(1, ["health", "--results-dir", res], env=env)
    doc = load_json(glob.glob(os.path.join(res, "*", "result.json"))[0])
    failed = sorted(c["name"] for c in doc["checks"] if c["verdict"] == "FAIL")
    warned = sorted(c["name"] for c in doc["checks"] if c["verdict"] == "WARN")
    expect(rc == 1 and failed == ["GPU 1 temperature", "GPU 2 uncorrected ECC errors"]
           and warned == ["GPU 3 XGMI error counters"], f"amd health: exit {rc}, FAIL {failed}, "
           f"WARN {warned}")


def ascend_host(wd):
    """A host of 8 Ascend 910B3 NPUs (tests/fakes/trees/atlas800t-a2.tree, DCMI's stand-in in
    NVML's place): detect counts them, says HCCL and --pick chooses the Sugon 910B server;
    their telemetry is DCMI's; `health` passes the healthy host and FAILs the NPU with
    uncorrectable HBM errors (FAKE_DCMI_ECC), and no other."""
    if not os.environ.get("FAKE_DCMI"):
        return
    tree = os.path.join(wd, "atlas")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fakes", "sysfs_tree.py"),
                    os.path.join(ROOT, "tests", "fakes", "trees", "atlas800t-a2.tree"), tree],
                   check=True, capture_output=True)
    env = {"SCALECHECK_SYS_ROOT": os.path.join(tree, "sys"),
           "SCALECHECK_NVML_LIBRARY": "/nonexistent/libnvidia-ml.so.1",
           "SCALECHECK_DCMI_LIBRARY": os.environ["FAKE_DCMI"]}
    out_yaml, env_file = os.path.join(wd, "ascend.yaml"), os.path.join(wd, "ascend.env")
    rc, out, err, _ = mpirun(1, ["detect", "--output", out_yaml, "--pick", env_file], env=env)
    doc = yaml.safe_load(open(out_yaml)) if rc == 0 else {}
    expect(rc == 0 and doc["library"] == "hccl" and doc["node"]["gpus"] == 8
           and doc["node"]["gpu"] == "Ascend 910B3", f"ascend host: exit {rc}: {doc}\n{err}")
    picked = subprocess.run(["bash", "-c", '. "$1"; printf "%s" "$SC_TOPOLOGY"', "-", env_file],
                            capture_output=True, text=True).stdout
    expect(picked.endswith("sugon-ascend910b.yaml"), f"picked {picked!r}")
    rc, out, err, _ = mpirun(1, ["telemetry"], env=env)
    gpus = json.loads(out)[0]["gpus"] if rc == 0 else []
    first = gpus[0]["samples"][0] if gpus else {}
    expect(len(gpus) == 8 and first.get("temp_c") == 35 and first.get("power_w") == 90
           and first.get("sm_mhz") == 1800 and first.get("ecc_uncorrected") == 0
           and gpus[1]["bus_id"] == "0000:02:00.0",
           f"ascend telemetry: exit {rc}: {gpus[:2]}")
    # healthy: exit 0, said, nothing kept (a healthy node leaves nothing)
    res = os.path.join(wd, "ascend-health-healthy")
    rc, out, err, _ = mpirun(1, ["health", "--results-dir", res], env=env)
    expect(rc == 0 and "scalecheck health: OK" in out and not glob.glob(os.path.join(res, "*")),
           f"ascend health (healthy): exit {rc}\n{out[-600:]}{err[-600:]}")
    # an NPU with uncorrectable HBM errors: FAIL naming it, and no other NPU
    res = os.path.join(wd, "ascend-health-ecc")
    rc, out, err, _ = mpirun(1, ["health", "--results-dir", res],
                             env=dict(env, FAKE_DCMI_ECC="2:3"))
    found = glob.glob(os.path.join(res, "*", "result.json"))
    failed = sorted(c["name"] for c in load_json(found[0])["checks"]
                    if c["verdict"] != "PASS") if found else None
    # (its isolated pages are the pages the driver retired: "memory not repaired" too)
    expect(rc == 1 and failed == ["GPU 2 memory not repaired", "GPU 2 uncorrected ECC errors"],
           f"ascend health (HBM errors): exit {rc}, not passed {failed}\n{err[-600:]}")
    print("ascend host: 8 910B3 detected (hccl, picked sugon-ascend910b), DCMI's telemetry read; "
          "health PASSes the healthy host and FAILs the NPU with HBM errors")


def test():
    if not os.path.isdir("/sys/devices/system/cpu/cpu0/topology"):
        print("SKIP: no /sys/devices/system/cpu (a container or chroot without sysfs): the "
              "kernel's own list of CPUs, which detect is held to, is not there")
        sys.exit(77)
    wd = workdir("detect")
    amd_host(wd)
    ascend_host(wd)
    out_yaml = os.path.join(wd, "detected.yaml")
    rc, out, err, _ = mpirun(2, ["detect", "--output", out_yaml, "--topology",
                                 os.path.join(ROOT, "topologies", "dgx-a100.yaml")])
    expect(rc == 0, f"exit {rc}\n{err[-800:]}")
    text = open(out_yaml).read()
    node = yaml.safe_load(text)["node"]
    sockets, cores, numa = sys_topology()
    expect((node["sockets"], node["cores"], node["numa_nodes"]) == (sockets, cores, numa),
           f"detected sockets/cores/NUMA {node['sockets']}/{node['cores']}/{node['numa_nodes']}, "
           f"the kernel lists {sockets}/{cores}/{numa}:\n{text}")
    expect(node["gpus"] == 2 and node["gpu"] == "cpu-rank", f"two ranks, no GPU: {node}")
    rc, vout, verr, _ = mpirun(1, ["validate", out_yaml])
    expect(rc == 0 and ": ok (topology detected-" in vout, f"validate: {rc} {vout} {verr}")
    expect("error    fewer GPUs than declared" in out and "fewer NICs up than declared" in out,
           f"findings:\n{out}")
    gpu_host(wd)
    rc, out, err, _ = mpirun(1, ["detect", "--bogus"])
    expect(rc == 2 and "--bogus: unknown option" in err, f"bad flag: {rc} {err}")


main(test)
