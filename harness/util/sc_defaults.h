/* sc_defaults.h - the defaults a user meets in more than one command, in one place. */
#ifndef SC_DEFAULTS_H
#define SC_DEFAULTS_H

/* Seconds any wait on other ranks may make no progress before the run ends with exit code 3
 * (--timeout; the NCCL communicator's bound too). Long enough for a training step or a 1 GB
 * all-reduce over a slow link; short enough that a hung job ends within minutes. */
#define SC_DEFAULT_TIMEOUT_S 300
/* The longest --timeout (a day) and --deadline (a year) the command line takes. */
#define SC_MAX_TIMEOUT_S  86400.0
#define SC_MAX_DEADLINE_S 31622400.0
/* A rank released by a peer's failure (NCCL's remote error) waits this long before ending the
 * job, so that the failed rank's own message and final state come first; on a GPU communicator
 * it waits for the failed rank's record to say it is done, at most SC_DEFAULT_RELEASED_WAIT_S
 * (the failed rank's own end ends it sooner: a loaded host took more than 2 s to say why). */
#define SC_DEFAULT_PEER_GRACE_S    2
#define SC_DEFAULT_RELEASED_WAIT_S 10
/* A backend's own bound on a wait (an NCCL stream, a UCX request) is --timeout plus this: the
 * watchdog, which reads every rank's record, names the rank at fault before any rank's own wait
 * gives up, aborts and so changes what the records show. */
#define SC_DEFAULT_BACKEND_GRACE_S 2
/* A rank that comes to each operation later than the ranks' median by this fraction of the
 * operation's time (and at least 1 us) is named as the straggler in the case's row; what it
 * costs (the time less the time without it, over the time) is a WARN from SC_STRAGGLER_WARN and
 * a FAIL from SC_STRAGGLER_FAIL (half the time lost to one rank). */
#define SC_DEFAULT_STRAGGLER_MIN_LAG 0.05
#define SC_STRAGGLER_WARN            0.10
#define SC_STRAGGLER_FAIL            0.50
/* Traffic that collides (coll --concurrent, pairs --background; judge/sc_traffic_verdict.h): a
 * victim under load is judged by its slowdown (loaded / alone time). Two flows sharing one link
 * fairly each run half as fast: slower than that is a WARN (the load takes more than a fair
 * share), and a quarter of its speed or less a FAIL (the fabric lets the load starve it). */
#define SC_COLLIDE_WARN_SLOWDOWN 2.0
#define SC_COLLIDE_FAIL_SLOWDOWN 4.0
/* node's copies: the share of a raw rate a healthy system moves. nvbandwidth on H100 servers
 * reads about 55 of a PCIe Gen5 x16 link's 63 GB/s (0.87) from pinned memory, and a stream
 * copy reaches about 0.9 of HBM's peak (memory clock x 2 x bus width): a copy is held to 0.8 of
 * the raw rate, WARN below SC_NODE_COPY_WARN of that, FAIL below SC_NODE_COPY_FAIL (a link at
 * half its width, a pair of GPUs on a degraded NVLink). */
#define SC_PCIE_COPY_SHARE 0.8
#define SC_HBM_COPY_SHARE  0.8
#define SC_NODE_COPY_WARN  0.9
#define SC_NODE_COPY_FAIL  0.75
/* The share of an InfiniBand NIC's line rate a transfer reaches through it: 92-96 % per NIC
 * (docs/REFERENCE.md, link rates) - the topology's nic_efficiency unless it states its own, and
 * what node's transfers through each NIC are held to (in the copies' bands). */
#define SC_NIC_EFFICIENCY 0.92
/* An MPI library sends a message eagerly (into the receiver's buffers, one latency) up to a
 * limit and by rendezvous above it (a request and a reply before the data: two latencies more).
 * The limits where the topology states none (intra.eager_bytes, nics.eager_bytes): Open MPI's
 * shared-memory BTL sends eagerly up to 4 KiB (btl_sm_eager_limit); between nodes Open MPI's
 * openib BTL up to 12 KiB, and published osu_latency runs jump between 8 and 16 KiB: 8 KiB
 * (docs/REFERENCE.md §3.4). */
#define SC_MPI_SHM_EAGER_BYTES 4096
#define SC_MPI_SHM_EAGER_TEXT  SC_DEFAULT_TEXT(SC_MPI_SHM_EAGER_BYTES)
#define SC_MPI_NET_EAGER_BYTES 8192
#define SC_MPI_NET_EAGER_TEXT  SC_DEFAULT_TEXT(SC_MPI_NET_EAGER_BYTES)
/* The backend's bound for a --timeout of timeout_s (<= 0: none). */
#define SC_BACKEND_TIMEOUT_S(timeout_s)                                                            \
    ((timeout_s) > 0 ? (timeout_s) + SC_DEFAULT_BACKEND_GRACE_S : (timeout_s))
/* The bound on each wait of a start, before the watchdog runs (sc_rte_guard.c), for a
 * --timeout of timeout_s: past the backend's own, whose message says more. */
#define SC_START_TIMEOUT_S(timeout_s)                                                              \
    ((timeout_s) > 0 ? SC_BACKEND_TIMEOUT_S(timeout_s) + SC_DEFAULT_BACKEND_GRACE_S : (timeout_s))
/* The communication library a run uses unless told (--backend): NCCL where every rank has a GPU,
 * else MPI (comm/sc_backend.c explains its choice). */
#define SC_DEFAULT_BACKEND "auto"
/* Seconds between two GPU health samples (--telemetry; soak's --telemetry-interval). */
#define SC_DEFAULT_TELEMETRY_S 1
/* coll, run and pairs check that the hosts are set up alike when they run on several */
/* node_exporter's textfile collector reads what --metrics writes */
#define SC_METRICS_HELP                                                                            \
    "also write the run's metrics here (Prometheus text format: node_exporter's textfile "         \
    "collector reads *.prom)"
#define SC_NO_PREFLIGHT_HELP "skip the check that all hosts are set up alike (multi-node runs)"

/* The model's stated factors (topology training.*), calibrated in topologies/README.md against
 * DeepLearningExamples' ResNet-50 scaling on DGX A100: a rank's compute between two gradient
 * syncs varies by 1.8 % (std/mean), and the step waits for the slowest of n ranks, about
 * mean + std sqrt(2 ln n); compute runs 10 % slower while a collective shares the GPU (NCCL's
 * kernels hold SMs and memory bandwidth) - an assumption the calibration barely moves. */
#define SC_DEFAULT_STEP_JITTER      0.018
#define SC_DEFAULT_OVERLAP_SLOWDOWN 0.10
/* A started collective keeps all its progress while compute runs (GPUs: NCCL's kernels run on
 * their own SMs). On the host path progress needs the rank's own calls: calibrate measures it. */
#define SC_DEFAULT_OVERLAP 1.0

/* How many times a figure that misses its expectation is measured (the best kept) before it
 * is judged: a host busy for a moment is not a slow host (--looks of run, coll and pairs). */
#define SC_DEFAULT_LOOKS      3
#define SC_DEFAULT_LOOKS_TEXT SC_DEFAULT_TEXT(SC_DEFAULT_LOOKS)

/* A pair (or a bisect group) is slow below (1 - this) x its reference: `pairs --tolerance`,
 * `soak --pair-tolerance`. */
#define SC_DEFAULT_PAIRS_TOLERANCE      0.5
#define SC_DEFAULT_PAIRS_TOLERANCE_TEXT SC_DEFAULT_TEXT(SC_DEFAULT_PAIRS_TOLERANCE)

/* A later look at a slow pair (or group) counts only when a healthy control measured in the same
 * round held this share of its own figure: when the control dropped too, the machine was busy,
 * not the link, and the look is taken again (at most --looks - 1 more rounds). */
#define SC_DEFAULT_PAIRS_CONTROL_HOLD 0.8

/* How far a case whose time is all latency may stray from the model (expect.latency_tolerance):
 * PASS down to half the model's speed, FAIL below a quarter of it. */
#define SC_DEFAULT_LATENCY_TOLERANCE 0.5

/* The CPU cores a node has for each of its GPUs when its topology does not say (`node.cores`):
 * two 32-core sockets for 8 GPUs, the common build of 8-GPU servers (DGX A100 has 16 a GPU,
 * AWS p4d 6). Feeds the input pipeline of workloads whose loader is the CPU. */
#define SC_DEFAULT_CORES_PER_GPU 8

/* The share of its GPU's peak a workload that states no compute.efficiency computes at when
 * `run` spins its step plan (the model takes the GPU's published figure instead). */
#define SC_DEFAULT_COMPUTE_EFFICIENCY 0.5

/* A GPU held to the median of its peers under the same load (TFLOP/s reached, SM clock): a WARN
 * below 90 % of it, a FAIL below 75 % (a GPU a third as fast, a clock stuck at idle). */
#define SC_DEFAULT_PEER_TOLERANCE      0.10
#define SC_DEFAULT_PEER_FAIL_TOLERANCE 0.25

/* The share of its peak a large square product reaches on a healthy GPU (cuBLAS, 8192^3 and
 * up): `compute --mode gemm -Y` holds each GPU to peak x this, in the topology's band
 * (docs/REFERENCE.md section 8.1). */
#define SC_DEFAULT_GEMM_SHARE 0.7

/* The corruption check's product (`compute --mode gemm`): --size, at most this, so that its
 * fp64 reference on the host stays quick. */
#define SC_DEFAULT_CHECK_SIZE_MAX 1024

/* `soak --load burn`: the products' matrices and the memory stream's buffer on a GPU (an 8192^3
 * bf16 product keeps an H100 at its power limit; 1 GiB streams far past its caches), and at most
 * these on the host path, where one core of each rank burns. */
#define SC_DEFAULT_BURN_SIZE       8192
#define SC_DEFAULT_BURN_STREAM     (1ull << 30)
#define SC_DEFAULT_HOST_BURN_SIZE  512
#define SC_DEFAULT_HOST_BURN_BYTES (64ull << 20)

/* A case's tail (its slowest 1 % of iterations) against its median: a WARN beyond 3 x, a FAIL
 * beyond 10 x (expect.steadiness_tolerance, expect.steadiness_fail_tolerance). */
#define SC_DEFAULT_STEADINESS_TOLERANCE      (2.0 / 3.0)
#define SC_DEFAULT_STEADINESS_FAIL_TOLERANCE 0.9

/* The least drop against a baseline that is a finding (a WARN; twice it a FAIL), whatever the
 * baseline's own spread: `baseline create --tolerance`, `report DIR1 DIR2 --tolerance`. */
#define SC_DEFAULT_BASELINE_TOLERANCE      0.05
#define SC_DEFAULT_BASELINE_TOLERANCE_TEXT SC_DEFAULT_TEXT(SC_DEFAULT_BASELINE_TOLERANCE)
/* a figure whose known-good runs spread more than this is marked unstable when made */
#define SC_DEFAULT_BASELINE_MAX_SPREAD 0.5
/* the runs a baseline's spread needs to mean something */
#define SC_DEFAULT_BASELINE_MIN_RUNS 3

/* What a soak holds every cycle to unless the topology's expect.soak says otherwise (and the
 * hottest GPU `health` lets pass): the seeds' 72-hour stability test keeps GPUs under 85 C with
 * no memory errors; XIDs are driver-reported GPU faults; a 5 % slide of a figure over the run is
 * a finding even when each cycle passes. */
#define SC_DEFAULT_SOAK_MAX_GPU_TEMP_C        85
#define SC_DEFAULT_SOAK_MAX_CPU_TEMP_C        95
#define SC_DEFAULT_SOAK_MAX_THROTTLE_FRACTION 0.10
#define SC_DEFAULT_SOAK_MAX_DRIFT             0.05
#define SC_DEFAULT_SOAK_MAX_DRIFT_TEXT        SC_DEFAULT_TEXT(SC_DEFAULT_SOAK_MAX_DRIFT)
/* The workload a soak's step runs unless -W names one: the acceptance run's. */
#define SC_DEFAULT_SOAK_CYCLE_S    300
#define SC_DEFAULT_SOAK_CYCLE_TEXT SC_DEFAULT_TEXT(SC_DEFAULT_SOAK_CYCLE_S)
#define SC_DEFAULT_SOAK_WORKLOAD   "bert-large-dp.yaml"

/* Where results directories go unless --results-dir says otherwise: results/ (git-ignored)
 * from the build tree, else SCALECHECK_RESULTS or ~/.local/share/scalecheck/results
 * (sc_files_results_default, util/sc_files.h). calibrate's output keeps the relative name. */
#define SC_DEFAULT_RESULTS_DIR  "results"
#define SC_DEFAULT_RESULTS_TEXT "results, or $SCALECHECK_RESULTS: docs/install.md"

/* The rows `coll -N 0` (a sweep until stopped) keeps in result.json: the latest, so that a run
 * of days neither fills memory nor rewrites a growing file after every size. */
#define SC_DEFAULT_FOREVER_ROWS 4096

/* The rows and the checks a report lists in full (HTML, JUnit, the verdict table, the plots):
 * past it a person is shown every check that did not pass (up to this many) and an even spread
 * of the rest, and result.json keeps them all (record/sc_shown.h). A million rows is no page
 * anyone reads, nor a JUnit file a CI server loads. */
#define SC_DEFAULT_SHOWN 10000

/* compare's weights when no weights file is given (record/sc_weights.h's dimensions, in order:
 * scaling, throughput, cost, energy, memory, ecosystem): scaling and throughput first, as the
 * seeds rank servers for training, then what a node costs to rent and run, then whether the
 * workload fits and the software around the GPUs. */
#define SC_DEFAULT_WEIGHTS                                                                         \
    {                                                                                              \
        3, 2, 2, 1, 1, 1                                                                           \
    }
/* A purchase is written off over this many years when the topology's cost says no otherwise. */
#define SC_DEFAULT_AMORTIZE_YEARS 3.0
/* The memory headroom that earns full marks: half the GPU's memory left free. */
#define SC_DEFAULT_FULL_HEADROOM 0.5

/* A default as text, for the help tables: the same number, written once. */
#define SC_DEFAULT_TEXT(x)      SC__DEFAULT_TEXT(x)
#define SC__DEFAULT_TEXT(x)     #x
#define SC_DEFAULT_TIMEOUT_TEXT SC_DEFAULT_TEXT(SC_DEFAULT_TIMEOUT_S)

#endif
