#!/usr/bin/env python3
"""Makes a sysfs tree from a recorded PCIe tree (tests/fakes/trees/*.tree), for
SCALECHECK_SYS_ROOT: /sys/devices/pciDDDD:BB/... with each device's class, vendor, device,
numa_node and PCIe link files, /sys/bus/pci/devices/ links to them, /sys/class/infiniband and
/sys/class/net entries for the NICs, and /sys/devices/system/node/nodeN/cpulist (and
/sys/devices/system/cpu, so that the tree reads as a host with /sys). What GPUDirect RDMA needs:
the recorded `module` lines as /sys/module/NAME, `driver` and `kernel` as OUT/proc's
driver/nvidia/version and sys/kernel/osrelease, `iommu` as each device's iommu_group/type, and
each bridge's configuration space (4096 bytes: an ACS extended capability, P2P Request Redirect
off unless --acs names it).

A device line's id=VENDOR:DEVICE:CLASS (hex) names another device than the kind's default (an
AMD Instinct GCD: id=1002:740c:038000).

An AMD GPU (id=1002:...) also gets what its amdgpu driver shows (the files ROCm SMI reads): hwmon
(junction and memory temperatures, average power and its cap, graphics and memory clocks), the
clock levels (pp_dpm_sclk, pp_dpm_mclk), its memory's size, its PCIe replays and RAS counters
(ras/umc_err_count, ras/xgmi_wafl_err_count), healthy unless --amd-hot or --amd-ecc say otherwise.

usage: sysfs_tree.py TREE OUT [--numa-cpus 0:LIST,1:LIST] [--link BUS=GEN,WIDTH]...
                     [--acs BUS]... [--no-module NAME]... [--iommu TYPE] [--nic-rate NAME=GBITS]...
  --numa-cpus   each node's CPUs in place of the recorded ones (a test binds ranks to them)
  --link        a device's current link in place of the recorded one (a planted x8 link)
  --acs         a bridge that redirects peer-to-peer requests upstream (ACS P2P Request Redirect)
  --no-module   a recorded kernel module left out (nvidia_peermem: GPUDirect RDMA off)
  --iommu       every device's IOMMU domain type in place of the recorded one (DMA: translated)
  --nic-rate    a NIC port's rate in Gb/s in place of the recorded rate= (a port trained down)
  --amd-hot     BUS=C: an AMD GPU's junction at C degrees (a cooling fault)
  --amd-ecc     BUS=UE:CE: an AMD GPU's uncorrectable and correctable memory errors
  --amd-xgmi    BUS=N: an AMD GPU's XGMI link errors (correctable)"""
import argparse
import os
import struct

RATES = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe", 4: "16.0 GT/s PCIe",
         5: "32.0 GT/s PCIe", 6: "64.0 GT/s PCIe"}
KINDS = {"gpu": ("0x030200", "0x10de", "0x2330"), "nic": ("0x020700", "0x15b3", "0x1021"),
         "bridge": ("0x060400", "0x1000", "0xc030")}


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text + "\n")


def bridge_config(redirect):
    """A bridge's configuration space: an ACS extended capability at 0x100 (its control word:
    Source Validation, P2P Request and Completion Redirect, Upstream Forwarding where redirect)."""
    config = bytearray(4096)
    struct.pack_into("<IHH", config, 0x100, 0x000D | (1 << 16), 0x005F, 0x001D if redirect else 0)
    return bytes(config)


def amdgpu_files(folder, bus, a):
    """What the amdgpu driver shows of an MI250 GCD at rest (the kernel's units: millidegrees,
    microwatts, hertz, bytes)."""
    hot = dict(x.split("=") for x in a.amd_hot)
    ecc = dict(x.split("=") for x in a.amd_ecc)
    xgmi = dict(x.split("=") for x in a.amd_xgmi)
    hw = os.path.join(folder, "hwmon", "hwmon0")
    for name, text in (("name", "amdgpu"), ("temp2_label", "junction"),
                       ("temp2_input", str(int(float(hot.get(bus, 38)) * 1000))),
                       ("temp3_label", "mem"), ("temp3_input", "35000"),
                       ("power1_average", "91000000"), ("power1_cap", "500000000"),
                       ("freq1_input", "800000000"), ("freq2_input", "1600000000")):
        write(os.path.join(hw, name), text)
    write(os.path.join(folder, "pp_dpm_sclk"), "0: 500Mhz\n1: 800Mhz *\n2: 1700Mhz")
    write(os.path.join(folder, "pp_dpm_mclk"), "0: 400Mhz\n1: 1600Mhz *")
    write(os.path.join(folder, "mem_info_vram_total"), str(64 * 2**30))
    write(os.path.join(folder, "pcie_replay_count"), "0")
    ue, ce = ecc.get(bus, "0:0").split(":")
    write(os.path.join(folder, "ras", "umc_err_count"), f"ue: {ue}\nce: {ce}")
    write(os.path.join(folder, "ras", "xgmi_wafl_err_count"), f"ue: 0\nce: {xgmi.get(bus, 0)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tree")
    ap.add_argument("out")
    ap.add_argument("--numa-cpus", default="")
    ap.add_argument("--link", action="append", default=[])
    ap.add_argument("--acs", action="append", default=[])
    ap.add_argument("--no-module", action="append", default=[])
    ap.add_argument("--iommu", default=None)
    ap.add_argument("--nic-rate", action="append", default=[])  # NAME=GBITS: a port's rate
    ap.add_argument("--amd-hot", action="append", default=[])
    ap.add_argument("--amd-ecc", action="append", default=[])
    ap.add_argument("--amd-xgmi", action="append", default=[])
    a = ap.parse_args()
    cpus = dict(kv.split(":", 1) for kv in a.numa_cpus.split(",") if kv)
    links = {k: tuple(map(int, v.split(","))) for k, v in (x.split("=") for x in a.link)}
    nic_rates = dict(x.split("=") for x in a.nic_rate)
    sys_dir = os.path.join(a.out, "sys") if not a.out.endswith("sys") else a.out
    proc_dir = os.path.join(os.path.dirname(sys_dir), "proc")
    where, numa_of = {}, {}  # bus or host bridge -> its folder; host bridge -> NUMA node
    iommu = a.iommu
    for line in open(a.tree):
        f = [w for w in line.split() if not w.startswith(("rate=", "id="))]
        rate = [w[5:] for w in line.split() if w.startswith("rate=")]
        ident = [w[3:].split(":") for w in line.split() if w.startswith("id=")]
        if not f or f[0].startswith("#"):
            continue
        if f[0] == "module":
            if f[1] not in a.no_module:
                os.makedirs(f"{sys_dir}/module/{f[1]}", exist_ok=True)
            continue
        if f[0] in ("driver", "kernel"):
            write(os.path.join(proc_dir, "driver/nvidia/version" if f[0] == "driver"
                               else "sys/kernel/osrelease"), line.split(None, 1)[1].strip())
            continue
        if f[0] == "iommu":
            iommu = iommu or f[1]
            continue
        if f[0] == "numa":
            write(f"{sys_dir}/devices/system/node/node{f[1]}/cpulist", cpus.get(f[1], f[2]))
            continue
        if f[0] == "host-bridge":
            where[f[1]] = f"{sys_dir}/devices/{f[1]}"
            numa_of[f[1]] = f[2]
            os.makedirs(where[f[1]], exist_ok=True)
            continue
        bus, parent = f[1], f[2]
        folder = os.path.join(where[parent], bus)
        where[bus] = folder
        root = os.path.relpath(folder, f"{sys_dir}/devices").split(os.sep)[0]
        numa_of[bus] = numa_of[root]
        cls, vendor, device = KINDS[f[0]]
        if ident:  # id=VENDOR:DEVICE:CLASS: another maker's device (an AMD GCD)
            vendor, device, cls = "0x" + ident[0][0], "0x" + ident[0][1], "0x" + ident[0][2]
            if ident[0][0] == "1002":
                amdgpu_files(folder, bus, a)
        for name, text in (("class", cls), ("vendor", vendor), ("device", device),
                           ("numa_node", numa_of[root])):
            write(os.path.join(folder, name), text)
        if f[0] in ("gpu", "nic"):
            link = list(map(int, f[3:] if f[0] == "gpu" else f[5:]))  # GEN WIDTH [MAX MAX]
            max_gen, max_width = link[2:4] if len(link) == 4 else link[:2]
            gen, width = links.get(bus, tuple(link[:2]))
            write(os.path.join(folder, "current_link_speed"), RATES[gen])
            write(os.path.join(folder, "current_link_width"), str(width))
            write(os.path.join(folder, "max_link_speed"), RATES[max_gen])
            write(os.path.join(folder, "max_link_width"), str(max_width))
        if f[0] == "bridge":
            with open(os.path.join(folder, "config"), "wb") as c:
                c.write(bridge_config(bus in a.acs))
        if iommu:
            write(os.path.join(folder, "iommu_group", "type"), iommu)
        link = f"{sys_dir}/bus/pci/devices/{bus}"
        os.makedirs(os.path.dirname(link), exist_ok=True)
        os.symlink(os.path.relpath(folder, os.path.dirname(link)), link)
        if f[0] == "nic":
            # an RDMA device's name, or "-" for an Ethernet NIC without one
            for cls_dir, name in ((f"{sys_dir}/class/infiniband", f[3]),
                                  (f"{sys_dir}/class/net", f[4])):
                if name == "-":
                    continue
                os.makedirs(os.path.join(cls_dir, name), exist_ok=True)
                os.symlink(os.path.relpath(folder, os.path.join(cls_dir, name)),
                           os.path.join(cls_dir, name, "device"))
            gbits = nic_rates.get(f[3], rate[0] if rate else None)
            if gbits and f[3] != "-":  # the InfiniBand port's rate, as the kernel writes it
                write(f"{sys_dir}/class/infiniband/{f[3]}/ports/1/rate", f"{gbits} Gb/sec (4X)")
    os.makedirs(f"{sys_dir}/devices/system/cpu", exist_ok=True)
    print(sys_dir)


if __name__ == "__main__":
    main()
