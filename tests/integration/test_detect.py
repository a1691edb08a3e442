"""`scalecheck detect` writes what this host has as a topology file that validates, and lists
what differs from a declared topology (DGX A100 here: fewer GPUs and NICs than declared)."""
import glob
import os

import yaml

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


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


def test():
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
    rc, out, err, _ = mpirun(1, ["detect", "--bogus"])
    expect(rc == 2 and "--bogus: unknown option" in err, f"bad flag: {rc} {err}")


main(test)
