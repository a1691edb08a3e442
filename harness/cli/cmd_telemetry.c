/* cmd_telemetry.c - `scalecheck telemetry`: samples this host's GPUs through NVML for a while
 * and prints the summary JSON (what `coll` and `run` record during a run). One rank per host
 * samples; rank 0 prints every host's summary. Without NVML it says why and exits 0. */
#include <stdio.h>
#include <time.h>

#include "cli/sc_cli.h"
#include "cli/sc_cmd.h"
#include "report/sc_json_out.h"
#include "session/sc_session.h"
#include "telemetry/sc_telemetry.h"

typedef struct {
    double interval_s, duration_s;
    bool help;
} telemetry__opts_t;

#define O(s, l, meta, help, type, field, lo, hi)                                                   \
    SC_OPT_ROW(s, l, meta, help, type, telemetry__opts_t, field, lo, hi)
static const sc_cli_opt_t telemetry__options[] = {
    O(0, "interval", "SECONDS", "time between samples (default 0.5)", SC_OPT_DOUBLE, interval_s,
      0.01, 3600),
    O(0, "duration", "SECONDS", "how long to sample; 0 = one sample (default 0)", SC_OPT_DOUBLE,
      duration_s, 0, 86400),
    O('h', "help", NULL, "this help", SC_OPT_FLAG, help, 0, 0),
    SC_OPT_END,
};
#undef O

int sc_cmd_telemetry(const sc_rte_t *rte, int argc, char **argv)
{
    telemetry__opts_t o = {.interval_s = 0.5};
    sc_err_t err;
    if (sc_cli_parse(telemetry__options, argc, argv, 2, &o, &err) != SC_OK) {
        if (rte->rank == 0)
            fprintf(stderr, "scalecheck telemetry: %s\n", err.msg);
        return 2;
    }
    if (o.help) {
        if (rte->rank == 0)
            sc_cli_print_help(telemetry__options, stdout);
        return 0;
    }
    sc_health_t mine = {0};
    if (rte->local_rank == 0) {
        sc_telemetry_t *t = sc_telemetry_start(o.interval_s, rte->host);
        struct timespec nap = {(time_t)o.duration_s,
                               (long)((o.duration_s - (double)(time_t)o.duration_s) * 1e9)};
        nanosleep(&nap, NULL);
        sc_telemetry_finish(t, &mine);
    }
    sc_health_t *hosts = NULL;
    int nhosts = 0;
    sc_health_gather(rte, rte->local_rank == 0 ? &mine : NULL, &hosts, &nhosts);
    if (rte->rank == 0) {
        sc_json_print_health(stdout, hosts, nhosts);
        fflush(stdout);
    }
    sc_health_free(hosts, nhosts);
    return 0;
}
