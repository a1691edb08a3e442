/* sc_drive_health.c - `scalecheck health`, driven: a short check of one node for a scheduler's
 * node-health hook (Slurm HealthCheckProgram, a prolog, a Kubernetes CronJob), in the manner of
 * NHC: the GPUs there and healthy (NVML: count, temperature, uncorrected ECC errors, NVLinks,
 * throttling), an all-reduce across the node's ranks held to the topology, the fabric's ports
 * ACTIVE. Exit 0 and "scalecheck health: OK" when all passes; exit 1 with a first line in NHC's
 * form, "ERROR:  nhc:  Health check failed:  scalecheck health: <what failed>" - the reason a
 * wrapper drains the node with - when something fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drive/sc_drive_health.h"
#include "telemetry/sc_xid_log.h"
#include "drive/sc_drive_end.h"
#include "report/sc_report.h"
#include "coll/sc_coll.h"
#include "detect/sc_hostcfg_read.h"
#include "engine/sc_sweep.h"
#include "judge/sc_verdict.h"
#include "report/sc_verdict_render.h"
#include "session/sc_session.h"
#include "telemetry/sc_nvml.h"
#include "topology/sc_topology.h"
#include "util/sc_defaults.h"
#include "util/sc_files.h"
#include "util/sc_size.h"

/* A check that is a plain yes or no: PASS when ok, else FAIL (or WARN) with the note. */
static void health__check(sc_checks_t *checks, const char *name, bool ok, sc_level_t otherwise,
                          const char *note)
{
    sc_check_t *c = sc_verdict_add(checks, name, "ok", ok, 1, 0, true, "health");
    if (c == NULL)
        return;
    c->level = ok ? SC_LEVEL_PASS : otherwise;
    if (!ok)
        snprintf(c->note, sizeof(c->note), "%s", note);
}

/* The memory's repairs: a row remap pending (it takes effect at the next reset) or failed (no
 * spare row left) FAILs; pages retired and rows remapped before WARN with their counts. */
static void health__gpu_memory(const sc_gpu_sample_t *s, sc_checks_t *checks)
{
    char name[160], note[128];
    if (s->remap_pending >= 0) {
        snprintf(name, sizeof(name), "GPU %u row remapping", s->index);
        snprintf(note, sizeof(note), "%s",
                 s->remap_failure > 0 ? "a remap failed: no spare row left, the GPU needs "
                                        "replacing"
                                      : "a remap is pending: it takes effect when the GPU is "
                                        "reset");
        health__check(checks, name, s->remap_pending == 0 && s->remap_failure <= 0, SC_LEVEL_FAIL,
                      note);
    }
    if (s->retired_pages < 0 && s->remapped_rows < 0)
        return;
    long long pages = s->retired_pages > 0 ? s->retired_pages : 0,
              rows = s->remapped_rows > 0 ? s->remapped_rows : 0;
    snprintf(name, sizeof(name), "GPU %u memory not repaired", s->index);
    snprintf(note, sizeof(note), "%lld retired page%s, %lld remapped row%s", pages,
             pages == 1 ? "" : "s", rows, rows == 1 ? "" : "s");
    health__check(checks, name, pages + rows == 0, SC_LEVEL_WARN, note);
}

/* The links between GPUs by their maker's name: an AMD GPU's are XGMI (Infinity Fabric). */
static bool health__amd(const sc_gpu_sample_t *s)
{
    return strncmp(s->name, "AMD", 3) == 0;
}

/* Error counters since boot or reset: NVLink's (replay, recovery, CRC) or XGMI's, and PCIe
 * replays WARN; XIDs in the kernel log FAIL where one means the hardware, else WARN. */
static void health__gpu_errors(const sc_gpu_sample_t *s, sc_checks_t *checks)
{
    char name[160], note[160], why[160];
    if (s->nvlink_errors >= 0) {
        snprintf(name, sizeof(name), "GPU %u %s error counters", s->index,
                 health__amd(s) ? "XGMI" : "NVLink");
        snprintf(note, sizeof(note), "%lld %s", s->nvlink_errors,
                 health__amd(s) ? "link errors (RAS: correctable and not)"
                                : "replays, recoveries and CRC errors");
        health__check(checks, name, s->nvlink_errors == 0, SC_LEVEL_WARN, note);
    }
    if (s->pcie_replays >= 0) {
        snprintf(name, sizeof(name), "GPU %u PCIe replays", s->index);
        snprintf(note, sizeof(note), "%lld replays", s->pcie_replays);
        health__check(checks, name, s->pcie_replays == 0, SC_LEVEL_WARN, note);
    }
    sc_xid_tally_t xids;
    if (!sc_xid_log_read(s->bus_id, &xids, why, sizeof(why)))
        return; /* the log is the driver's word where it can be read; nothing else says */
    snprintf(name, sizeof(name), "GPU %u XIDs since boot (kernel log)", s->index);
    snprintf(note, sizeof(note), "%lld XID%s, the last %lld (%lld of the hardware's kind)",
             xids.count, xids.count == 1 ? "" : "s", xids.last, xids.hardware);
    health__check(checks, name, xids.count == 0, xids.hardware > 0 ? SC_LEVEL_FAIL : SC_LEVEL_WARN,
                  note);
}

static void health__gpu(const sc_gpu_sample_t *s, double max_temp, sc_checks_t *checks)
{
    char name[160], note[128];
    snprintf(name, sizeof(name), "GPU %u temperature", s->index);
    snprintf(note, sizeof(note), "%d C, above %.0f C", s->temp_c, max_temp);
    health__check(checks, name, s->temp_c < 0 || s->temp_c <= max_temp, SC_LEVEL_FAIL, note);
    snprintf(name, sizeof(name), "GPU %u uncorrected ECC errors", s->index);
    snprintf(note, sizeof(note), "%lld since boot", s->ecc_uncorrected);
    health__check(checks, name, s->ecc_uncorrected <= 0, SC_LEVEL_FAIL, note);
    /* where the monitor reports link states at all: NVML on an NVLink GPU; not the amdgpu
     * driver's files (no XGMI link's state), not DCMI, not a PCIe-only GPU */
    if (s->nvlinks_reported > 0) {
        snprintf(name, sizeof(name), "GPU %u NVLinks up", s->index);
        snprintf(note, sizeof(note), "%d of %d links up", s->nvlinks_up, s->nvlinks_reported);
        health__check(checks, name, s->nvlinks_up == s->nvlinks_reported, SC_LEVEL_FAIL, note);
    }
    snprintf(name, sizeof(name), "GPU %u not throttled", s->index);
    /* bit 0 is "idle" (GPU_IDLE): nothing to worry about on a node being checked */
    char reasons[160];
    snprintf(note, sizeof(note), "at rest: %s",
             sc_throttle_text(s->throttle_reasons, reasons, sizeof(reasons)));
    health__check(checks, name, s->throttle_reasons <= 1, SC_LEVEL_WARN, note);
    health__gpu_memory(s, checks);
    health__gpu_errors(s, checks);
}

/* The GPUs through NVML: as many as the topology declares (when it is a GPU system), each
 * healthy. Without NVML only a GPU system's topology makes that a failure. */
static void health__gpus(const sc_topology_t *t, double max_temp, sc_checks_t *checks)
{
    char why[256], note[128];
    bool gpu_system = t != NULL && t->library != SC_LIB_mpi;
    sc_nvml_t *nvml = sc_nvml_open(why, sizeof(why));
    if (nvml == NULL) {
        if (gpu_system)
            health__check(checks, "GPUs present", false, SC_LEVEL_FAIL, why);
        return;
    }
    unsigned n = sc_nvml_count(nvml);
    snprintf(note, sizeof(note), "%u GPUs, the topology declares %lld", n,
             t ? t->gpus_per_node : 0);
    health__check(checks, "GPUs present", n > 0 && (!gpu_system || n == t->gpus_per_node),
                  SC_LEVEL_FAIL, note);
    for (unsigned i = 0; i < n; i++) {
        sc_gpu_sample_t s;
        sc_nvml_sample(nvml, i, &s);
        health__gpu(&s, max_temp, checks);
    }
    sc_nvml_close(nvml);
}

static void health__ports(const sc_rte_t *rte, sc_checks_t *checks)
{
    sc_hostcfg_t *mine = calloc(1, sizeof(*mine));
    if (mine == NULL)
        return;
    sc_hostcfg_read(rte, mine);
    health__check(checks, "fabric ports ACTIVE", mine->ib_down[0] == '\0', SC_LEVEL_FAIL,
                  mine->ib_down);
    if (mine->pcie_degraded[0] != '\0')
        health__check(checks, "GPU PCIe links at full width and speed", false, SC_LEVEL_WARN,
                      mine->pcie_degraded);
    free(mine);
}

/* An all-reduce ladder across the node's ranks, each size held to the topology's model. */
static sc_status_t health__allreduce(const sc_rte_t *rte, sc_session_t *ses, const sc_topology_t *t,
                                     uint64_t size, sc_checks_t *checks, sc_err_t *err)
{
    sc_case_rows_t rows = {0};
    uint64_t least = size / 64 > 0 ? size / 64 : size;
    sc_status_t status = sc_sweep_ladder(ses->world, rte->world, ses->wd, least, size, 4,
                                         SC_SWEEP_ITERS, &rows, err);
    for (size_t i = 0; status == SC_OK && rte->rank == 0 && i < rows.n; i++) {
        char name[160], text[32];
        snprintf(name, sizeof(name), "all-reduce of %s B across the node's %d ranks",
                 sc_size_format(rows.items[i].size_bytes, text, sizeof(text)), rte->size);
        if (t != NULL && rte->size > 1)
            sc_verdict_case(t, &sc_coll_allreduce, rte->size, 1, name, &rows.items[i], checks);
        if (rows.items[i].wrong > 0)
            health__check(checks, "all-reduce data", false, SC_LEVEL_FAIL, "wrong elements");
    }
    sc_list_free(&rows);
    return status;
}

/* NHC's own form of a failed check (its die()): "ERROR:  nhc:  Health check failed:  MESSAGE",
 * two blanks apart, which NHC's parsers (Slurm's drain reason, aznhc) read. */
#define SC_HEALTH_FAILED "ERROR:  nhc:  Health check failed:  scalecheck health: "

/* NHC's way: one line that says it all first, then the table (on the terminal and in the run
 * directory's log, kept when the node fails). */
static int health__report(sc_results_t *res, const sc_checks_t *checks)
{
    sc_tally_t t = sc_checks_tally(checks);
    const sc_check_t *first = NULL;
    for (size_t i = 0; i < checks->n && first == NULL; i++)
        if (checks->items[i].level == SC_LEVEL_FAIL)
            first = &checks->items[i];
    if (first != NULL)
        sc_results_printf(res, SC_HEALTH_FAILED "%s%s%s\n", first->name, first->note[0] ? ": " : "",
                          first->note);
    else
        sc_results_printf(res, "scalecheck health: OK (%d checks, %d warnings)\n", t.checks,
                          t.warn);
    sc_verdict_print(stdout, res->log, checks);
    fflush(stdout);
    return first != NULL;
}

int sc_drive_health(const sc_rte_t *rte, const sc_drive_health_opts_t *opts, int argc, char **argv)
{
    sc_drive_health_opts_t o = *opts;
    sc_err_t err;
    sc_err_clear(&err);
    sc_status_t status = SC_OK;
    if (rte->nhosts > 1)
        status = sc_err_set(&err, SC_ERR_USAGE,
                            "health checks one node: start it on each node (%d hosts here)",
                            rte->nhosts);
    sc_topology_t *topo = o.topology ? calloc(1, sizeof(*topo)) : NULL;
    if (status == SC_OK && o.topology != NULL)
        status = topo ? sc_topology_load(o.topology, topo, &err)
                      : sc_err_set(&err, SC_ERR_NOMEM, "no memory for the topology");
    sc_session_t ses = {0};
    if (status == SC_OK) {
        sc_session_opts_t so = {.common = &o.common, .default_name = "health"};
        status = sc_session_open(&ses, rte, &so, &err);
    }
    /* the evidence a failing node keeps: result.json with every check (a final state whatever
     * ends the run: the watchdog's ending marks it), summary, junit.xml, metrics.prom */
    sc_result_t doc;
    sc_result_init(&doc, "health");
    sc_drive_ending_t ending = {.command = "health"};
    if (status == SC_OK) {
        sc_session_on_end(&ses, sc_drive_end_hook, &ending);
        if (rte->rank == 0)
            sc_drive_doc_header(&doc, &ses, argc, argv);
        doc.judged = true;
        status = sc_drive_save_doc(&ses, &doc, "running", &err);
    }
    if (status == SC_OK && rte->rank == 0) {
        health__gpus(topo, o.max_temp_c, &doc.checks);
        health__ports(rte, &doc.checks);
    }
    if (status == SC_OK) /* the ladder's largest all-reduce: send and receive buffers */
        status = sc_comm_check_memory(ses.world, 2 * o.size, "--size", &err);
    if (status == SC_OK)
        status = health__allreduce(rte, &ses, topo, o.size, &doc.checks, &err);
    int failed = status == SC_OK && rte->rank == 0 ? health__report(&ses.res, &doc.checks) : 0;
    if (status == SC_OK && rte->rank == 0) /* a healthy node's folder goes below: no report */
        status = failed ? sc_drive_complete(&ses, &doc, &ending, &err)
                        : sc_drive_save_doc(&ses, &doc, "complete", &err);
    if (status != SC_OK && rte->rank == 0 && doc.version[0] != '\0')
        sc_drive_save_failed(&ses, &doc, &err, &ending);
    int code = sc_session_finish(&ses, rte, "health", status, &err, failed);
    if (code == 0 && rte->rank == 0) /* run every few minutes: a healthy node leaves nothing */
        sc_results_discard(&ses.res);
    sc_session_close(&ses);
    sc_result_free(&doc);
    free(topo);
    return code;
}
