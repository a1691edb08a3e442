/* sc_cli_common.c - the shared options' rows, each declared once: a command composes in the ones
 * it takes with SC_OPT_COMMON_ROW (sc_cli.h), its options record embedding sc_common_opts_t
 * (record/sc_common_opts.h, where their defaults are set). */
#include "cli/sc_cli.h"
#include "util/sc_defaults.h"

#define C(s, l, meta, help, type, field, lo, hi, bit)                                              \
    {                                                                                              \
        s, l, meta, help, type, offsetof(sc_common_opts_t, field), lo, hi, NULL, NULL, bit, 0      \
    }
#define C_TEXT(l, meta, help, type, field, bit)                                                    \
    C(0, l, meta, help, type, field, 0, (double)sizeof(((sc_common_opts_t *)0)->field), bit)

const sc_cli_opt_t sc_cli_common_rows[] = {
    C_TEXT("backend", "nccl|rccl|hccl|mpi|ucx|auto",
           "the communication library (default auto: NCCL where every rank has an NVIDIA GPU, "
           "RCCL where every rank has an AMD one, HCCL where every rank has an Ascend NPU, "
           "else MPI)",
           SC_OPT_TEXT, backend, SC_COMMON_BACKEND),
    C(0, "device", "N", "GPU backends: use device N (default: the rank's index on its host)",
      SC_OPT_INT, device, 0, 1023, SC_COMMON_DEVICE),
    C_TEXT("json", "FILE", "also write the JSON results to FILE", SC_OPT_TEXT, json_path,
           SC_COMMON_JSON),
    C_TEXT("csv", "FILE", "also write the CSV results to FILE", SC_OPT_TEXT, csv_path,
           SC_COMMON_CSV),
    C_TEXT("results-dir", "DIR", "where run directories go (default " SC_DEFAULT_RESULTS_TEXT ")",
           SC_OPT_TEXT, results_base, SC_COMMON_RESULTS_DIR),
    C_TEXT("name", "NAME", "the run directory's name after its time stamp (default %s)",
           SC_OPT_NAME_TEXT, name, SC_COMMON_NAME),
    C('T', "timeout", "SECONDS",
      "bound on every wait on other ranks, 0 = none, as nccl-tests' -T "
      "(default " SC_DEFAULT_TIMEOUT_TEXT ")",
      SC_OPT_DOUBLE, timeout_s, 0.0, SC_MAX_TIMEOUT_S, SC_COMMON_TIMEOUT),
    C(0, "deadline", "SECONDS",
      "bound on the whole run: past it the job ends (exit 3), what finished kept, and "
      "launch/mpirun.sh's quick pair search names the slow host; 0 = none (default 0)",
      SC_OPT_DOUBLE, deadline_s, 0.0, SC_MAX_DEADLINE_S, SC_COMMON_DEADLINE),
    C(0, "telemetry", "SECONDS",
      "sample GPU health (NVML) this often during the run, 0 = off "
      "(default " SC_DEFAULT_TEXT(SC_DEFAULT_TELEMETRY_S) ")",
      SC_OPT_DOUBLE, telemetry_s, 0.0, 3600.0, SC_COMMON_TELEMETRY),
    C(0, "no-preflight", NULL, SC_NO_PREFLIGHT_HELP, SC_OPT_FLAG, no_preflight, 0, 0,
      SC_COMMON_NO_PREFLIGHT),
    C_TEXT("metrics", "FILE", SC_METRICS_HELP, SC_OPT_TEXT, metrics_path, SC_COMMON_METRICS),
    SC_OPT_END,
};
