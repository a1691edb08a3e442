"""`scalecheck detect` writes what this host has as a topology file that validates, and lists
what differs from a declared topology (DGX A100 here: fewer GPUs and NICs than declared)."""
import glob
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


def test():
    if not os.path.isdir("/sys/devices/system/cpu/cpu0/topology"):
        print("SKIP: no /sys/devices/system/cpu (a container or chroot without sysfs): the "
              "kernel's own list of CPUs, which detect is held to, is not there")
        sys.exit(77)
    wd = workdir("detect")
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
