/* sc_pages.c - what each command's manual page says beyond its options: a DESCRIPTION (what
 * it does, what it writes, how it decides) and EXAMPLES (command lines that work as shown from
 * the source tree or an installed prefix). The options come from each command's table. */
#include <string.h>

#include "cli/sc_cli.h"

static const sc_cli_page_t pages__all[] = {
    {"scalecheck",
     "Proves that a GPU cluster scales. Launched with mpirun or Slurm across nodes, every rank "
     "runs the communication of real training - data-parallel gradient all-reduce, tensor-"
     "parallel activation all-reduce, pipeline-parallel send and receive, and their mix - over "
     "NCCL, MPI or UCX; the first rank measures speedup curves from 1 GPU to all nodes, holds "
     "them to what a topology file says the hardware should deliver, names the link or node "
     "that falls short, and gives a verdict that a person and a CI job can both read. Each run "
     "writes a directory under SCALECHECK_RESULTS with result.json, CSV, JUnit and HTML.",
     "mpirun -np 8 scalecheck coll -b 8 -e 128M -f 2 -Y dgx-a100\n"
     "mpirun -np 8 scalecheck run -W resnet50-dp --scales 1,2,4,8 -Y dgx-a100\n"
     "scalecheck model -Y dgx-h100 -W gpt3-13b-3d\n"
     "scalecheck judge -Y dgx-a100 all_reduce_perf.log"},
    {"coll",
     "Measures collectives the way nccl-tests does - the same flags (-b -e -f -n -w -c -g -t -a "
     "-o -d -z -J), the same algorithm and bus bandwidth - over NCCL on GPUs, or MPI or UCX on "
     "hosts. Every case is timed per iteration on every rank; the slowest rank's median is "
     "reported. With --topology each case is held to what that hardware should deliver and the "
     "run gets a verdict (PASS, WARN or FAIL) with the exit code to match. A run directory holds "
     "result.json, a CSV, junit.xml and an HTML report; rows are journalled as they finish, so "
     "an interrupted run keeps what it measured.",
     "mpirun -np 8 scalecheck coll -b 8 -e 128M -f 2 -g 1\n"
     "mpirun -np 8 scalecheck coll --collective all -b 1K -e 64M -Y dgx-a100\n"
     "mpirun -np 2 scalecheck coll --backend ucx -b 1K -e 4M -J out.json"},
    {"run",
     "Runs one training step of a workload (workloads/*.yaml: data-, tensor- and pipeline-"
     "parallel communication with the compute between) at each scale of --scales in one launch, "
     "and measures step time, speedup and scaling efficiency against the smallest scale. With "
     "--topology the measured curve is held to the curve the model derives from that hardware, "
     "and to the workload's claims (a linear-scaling percentage); the verdict names the scale "
     "and the phase that fell short.",
     "mpirun -np 8 scalecheck run -W resnet50-dp --scales 1,2,4,8 -Y dgx-a100\n"
     "mpirun -np 8 scalecheck run -W gpt3-13b-3d --tp 2 --pp 2 --scales 4,8\n"
     "scalecheck validate workloads/*.yaml"},
    {"pairs",
     "Measures point-to-point bandwidth and latency between nodes and names the slow link or "
     "node: every pair (all), one round of disjoint pairs (quick), halving searches (bisect) or "
     "pairs across and within leaf switches (switch). --plan-only prints how many rounds and "
     "pairs a strategy needs at a given node count without running anything.",
     "mpirun -np 16 --map-by ppr:1:node scalecheck pairs --strategy quick\n"
     "scalecheck pairs --plan-only --nodes 4096 --strategy switch"},
    {"soak",
     "The stability run: repeats the step or collective cycle until --duration, sampling GPU "
     "health (temperature, clocks, ECC, XID) and measuring drift of each cycle against the "
     "first. A journal keeps every cycle, so a run cut short is reported up to its last cycle.",
     "mpirun -np 64 --map-by ppr:8:node scalecheck soak --duration 72h -Y site.yaml\n"
     "mpirun -np 2 scalecheck soak --duration 90s"},
    {"preflight",
     "Gathers every host's versions (driver, CUDA, NCCL, MPI, kernel), GPUs, network ports and "
     "CPU settings and names the hosts that differ from the rest, before a long run finds out.",
     "mpirun -np 16 --map-by ppr:1:node scalecheck preflight"},
    {"health",
     "Checks one node for a scheduler's health-check hook: its GPUs, an all-reduce among them "
     "held to the topology's model, and its network ports. Exits 0 with one OK line, or 1 with a "
     "first line in NHC's form that Slurm shows as the drain reason.",
     "scalecheck health -Y dgx-a100\n"
     "HealthCheckProgram=/usr/share/scalecheck/launch/slurm/scalecheck-healthcheck.sh  "
     "# slurm.conf"},
    {"detect",
     "Writes what the hosts really have - GPUs, links, NICs, NUMA placement (hwloc) - as a "
     "topology file, and with --topology lists every difference from the declared one. --pick "
     "writes which shipped topology describes this server, as shell assignments.",
     "mpirun -np 8 scalecheck detect --output my-cluster.yaml --topology dgx-a100\n"
     "scalecheck detect --pick picked.sh && . ./picked.sh && echo \"$SC_TOPOLOGY\""},
    {"calibrate",
     "Measures this host's and cluster's paths (bandwidth and latency at each tier) and writes "
     "them into a copy of the declared topology, so that later verdicts hold runs to what this "
     "hardware delivered when known good rather than to a spec sheet.",
     "mpirun -np 8 scalecheck calibrate --topology dgx-a100 -o calibrated.yaml"},
    {"plan",
     "Prints the operations one training step of a workload issues - each collective, its "
     "group, size and overlap with compute - without running anything.",
     "scalecheck plan -W gpt3-13b-3d --gpus 16 --tp 2 --pp 2"},
    {"model",
     "Predicts what a topology should deliver - each collective's time and bus bandwidth at "
     "given sizes, GPUs and nodes, or a workload's step and scaling curve - from the link rates "
     "and formulas in docs/REFERENCE.md, without running anything.",
     "scalecheck model -Y dgx-a100 --size 8,1M,1G --gpus 1,8 --nodes 1,2,512\n"
     "scalecheck model -Y dgx-a100 -W resnet50-dp"},
    {"judge",
     "Holds output other tools wrote (nccl-tests text or -J JSON, OSU) to a topology and gives "
     "the same verdict, report and exit code as a scalecheck run. Reads rows as a stream, so "
     "millions of rows are judged in seconds.",
     "scalecheck judge -Y dgx-a100 all_reduce_perf.log\n"
     "scalecheck judge -Y dgx-h100 --collective allreduce osu_allreduce.txt"},
    {"compare",
     "Puts systems side by side - run directories (measured) and topologies (predicted) - "
     "normalised per GPU, scored on weights (throughput, efficiency, cost, energy) and ranked; "
     "writes compare.html and a table.",
     "scalecheck compare -W bert-large-dp RUN_DIR dgx-a100 aws-p4d\n"
     "scalecheck compare --predict -W resnet50-dp dgx-a100 dgx-h100"},
    {"baseline",
     "Summarises known-good runs into a baseline file: per case, the median and spread of what "
     "they measured. A later run given --baseline is held to it as well as to the model.",
     "scalecheck baseline create results/good1 results/good2 results/good3 -o base.json"},
    {"report",
     "Renders a run directory's report again (terminal table, HTML, JSON, JUnit), or compares "
     "two runs made alike and names the regressions. Exits with the run's verdict code.",
     "scalecheck report results/20261205-120000-coll\n"
     "scalecheck report results/OLD results/NEW"},
    {"validate",
     "Checks workload or topology files against their schemas; an error names "
     "file:line:column and exits 2.",
     "scalecheck validate workloads/*.yaml"},
    {"node",
     "Looks inside each node: every GPU's and NIC's PCIe link against its best (sysfs), the "
     "NIC nearest each GPU (nvidia-smi topo -m's classes), each rank's CPUs against its GPU's "
     "NUMA node and the NIC it uses against the nearest, and each NUMA node's host memory "
     "bandwidth against the host's best node.",
     "mpirun -np 8 scalecheck node"},
    {"compute",
     "Runs the compute phase alone: a spin of a given time, or cuBLAS GEMMs on a GPU reporting "
     "TFLOP/s, to tell compute from communication.",
     "mpirun -np 8 scalecheck compute --mode gemm -d bf16"},
    {"telemetry",
     "Samples GPU health through NVML (temperature, power, clocks, ECC, XID, throttle reasons) "
     "and prints it.",
     "mpirun -np 8 scalecheck telemetry"},
    {"version",
     "Prints the versions of scalecheck and of the libraries it loaded (MPI, NCCL, CUDA, UCX), "
     "and whether the GPU path was built.",
     "scalecheck version"},
};

const sc_cli_page_t *sc_cli_page(const char *command)
{
    for (size_t i = 0; i < sizeof(pages__all) / sizeof(pages__all[0]); i++)
        if (strcmp(pages__all[i].command, command) == 0)
            return &pages__all[i];
    return NULL;
}
