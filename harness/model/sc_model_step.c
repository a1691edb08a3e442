/* sc_model_step.c - the step's expected time: the step plan played on one clock per pipeline
 * stage. Compute advances the clock; a blocking collective waits for the group's earlier
 * started ones and then takes its modelled time; a started collective runs beside the clock
 * until the group's wait; a send arrives at the next stage after its modelled time, and a
 * receive waits for it. Every stage is played until it blocks on a receive, round after round,
 * so the pipeline's bubble is what the schedule makes it. */
#include "sc_model.h"

#include "util/sc_defaults.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double *at; /* arrival times, in send order */
    int head, tail;
} model_step__chan_t;

typedef struct {
    size_t pc, n;
    const sc_plan_op_t *ops;
    double now, compute_us;
    double left[SC_GROUP_COUNT]; /* work (us at full pace) of the group's started operations */
} model_step__clock_t;

typedef struct {
    const sc_topology_t *t;
    const sc_layout_t *l;
    int gpus_per_node;
    double bytes_scale, compute_factor, slowdown, overlap;
    model_step__clock_t *stages;
    model_step__chan_t *down, *up; /* down[s]: stage s to s + 1; up[s]: stage s + 1 to s */
} model_step__sim_t;

/* Where a group of `size` ranks, `stride` apart in the rank order, lands: GPUs per node and
 * nodes. */
static void model_step__place(int size, int stride, int gpus_per_node, int *g, int *nodes)
{
    int span = size * stride;
    if (span <= gpus_per_node) {
        *g = size;
        *nodes = 1;
    } else {
        *nodes = (span + gpus_per_node - 1) / gpus_per_node;
        *g = size / *nodes > 0 ? size / *nodes : 1;
    }
}

static double model_step__price(const model_step__sim_t *sim, sc_coll_id_t id, double bytes, int g,
                                int nodes)
{
    const sc_coll_t *coll = sc_coll_get(id);
    if (coll == NULL || g * nodes <= 1)
        return 0.0;
    sc_prediction_t p;
    sc_model_collective(sim->t, coll, bytes * sim->bytes_scale, g, nodes, &p);
    return p.time_us;
}

/* Modelled time of a communicating op on its group. Neighbouring stages are one node apart
 * when the pipeline spans nodes. */
static double model_step__comm_us(const model_step__sim_t *sim, const sc_plan_op_t *op)
{
    int g, nodes;
    model_step__place(sc_plan_group_size(sim->l, op->group),
                      sc_plan_group_stride(sim->l, op->group), sim->gpus_per_node, &g, &nodes);
    if (op->kind == SC_PLAN_SEND)
        return nodes > 1 ? model_step__price(sim, SC_COLL_sendrecv, op->bytes, 1, 2)
                         : model_step__price(sim, SC_COLL_sendrecv, op->bytes, 2, 1);
    return model_step__price(sim, op->coll, op->bytes, g, nodes);
}

static model_step__chan_t *model_step__chan(const model_step__sim_t *sim, int from, int to)
{
    return to > from ? &sim->down[from] : &sim->up[to];
}

/* Every started operation of the stage moves on by `work` us of its own pace. */
static void model_step__progress(model_step__clock_t *c, double work)
{
    for (int g = 0; g < SC_GROUP_COUNT; g++)
        c->left[g] = c->left[g] > work ? c->left[g] - work : 0.0;
}

/* Lets d us of wall time pass with the stage idle: started operations run at full pace. */
static void model_step__idle(model_step__clock_t *c, double d)
{
    c->now += d;
    model_step__progress(c, d);
}

/* Compute of d us: slower by the stated factor while any started collective runs beside it,
 * and those collectives move at `overlap` of their pace meanwhile. */
static void model_step__compute(const model_step__sim_t *sim, model_step__clock_t *c, double d)
{
    double left = 0;
    for (int g = 0; g < SC_GROUP_COUNT; g++)
        left = c->left[g] > left ? c->left[g] : left;
    double slowed = d * (1.0 + sim->slowdown);
    double shared = sim->overlap > 0 ? left / sim->overlap : slowed; /* wall time beside them */
    double wall = slowed <= shared ? slowed : shared + (d - shared / (1.0 + sim->slowdown));
    c->now += wall;
    model_step__progress(c, sim->overlap * (wall < shared ? wall : shared));
}

/* Plays one operation; false when it is a receive whose message has not been sent yet. */
static bool model_step__play(model_step__sim_t *sim, int s, const sc_plan_op_t *op)
{
    model_step__clock_t *c = &sim->stages[s];
    double *left = &c->left[op->group];
    switch (op->kind) {
    case SC_PLAN_COMPUTE: {
        double d = op->compute_us * sim->compute_factor;
        model_step__compute(sim, c, d);
        c->compute_us += d;
        return true;
    }
    case SC_PLAN_COLL: /* after the group's earlier started operations */
        if (op->nonblocking)
            *left += model_step__comm_us(sim, op);
        else
            model_step__idle(c, *left + model_step__comm_us(sim, op));
        return true;
    case SC_PLAN_SEND: {
        model_step__chan_t *ch = model_step__chan(sim, s, op->peer_stage);
        double d = model_step__comm_us(sim, op);
        ch->at[ch->tail++] = c->now + d;
        *left = d > *left ? d : *left;
        return true;
    }
    case SC_PLAN_RECV: {
        model_step__chan_t *ch = model_step__chan(sim, op->peer_stage, s);
        if (ch->head == ch->tail)
            return false;
        double at = ch->at[ch->head++];
        if (at > c->now)
            model_step__idle(c, at - c->now);
        return true;
    }
    default: /* wait */
        model_step__idle(c, *left);
        return true;
    }
}

/* Plays every stage until each blocks or ends; SC_ERR_RUNTIME if none can move (a plan whose
 * receives have no sends). */
static sc_status_t model_step__run(model_step__sim_t *sim, int stages, sc_err_t *err)
{
    for (;;) {
        bool moved = false, done = true;
        for (int s = 0; s < stages; s++) {
            model_step__clock_t *c = &sim->stages[s];
            while (c->pc < c->n && model_step__play(sim, s, &c->ops[c->pc])) {
                c->pc++;
                moved = true;
            }
            done = done && c->pc == c->n;
        }
        if (done)
            return SC_OK;
        if (!moved)
            return sc_err_set(err, SC_ERR_RUNTIME, "step plan: stages wait on each other");
    }
}

static sc_status_t model_step__simulate(model_step__sim_t *sim, const sc_plan_t *plan,
                                        double *step_us, double *compute_us, sc_err_t *err)
{
    int S = plan->stages, m = plan->layout.micro_batches;
    sim->stages = calloc((size_t)S, sizeof(*sim->stages));
    sim->down = calloc((size_t)S, sizeof(*sim->down));
    sim->up = calloc((size_t)S, sizeof(*sim->up));
    double *arrivals = calloc(2 * (size_t)S * (size_t)m + 1, sizeof(double));
    sc_status_t status = SC_OK;
    if (sim->stages == NULL || sim->down == NULL || sim->up == NULL || arrivals == NULL)
        status = sc_err_set(err, SC_ERR_NOMEM, "no memory to price a step of %d stages", S);
    for (int s = 0; s < S && status == SC_OK; s++) {
        sim->stages[s].ops = sc_plan_stage(plan, s, &sim->stages[s].n);
        sim->down[s].at = arrivals + (size_t)(2 * s) * (size_t)m;
        sim->up[s].at = arrivals + (size_t)(2 * s + 1) * (size_t)m;
    }
    if (status == SC_OK)
        status = model_step__run(sim, S, err);
    for (int s = 0; s < S && status == SC_OK; s++)
        if (sim->stages[s].now >= *step_us) {
            *step_us = sim->stages[s].now;
            *compute_us = sim->stages[s].compute_us;
        }
    free(sim->stages);
    free(sim->down);
    free(sim->up);
    free(arrivals);
    return status;
}

/* The slowest of n ranks: each rank's compute between two syncs varies by `jitter` (std/mean),
 * averaged over the micro-steps accumulated between syncs; the expected maximum of n such
 * draws is about mean + std sqrt(2 ln n) (the Gaussian bound). */
static double model_step__straggler_factor(double jitter, int nranks, int micro_steps)
{
    if (nranks <= 1 || jitter <= 0)
        return 1.0;
    return 1.0 + jitter / sqrt((double)micro_steps) * sqrt(2.0 * log((double)nranks));
}

/* The threads a node decodes on with the CPU as the loader: its cores, or the workers the
 * workload gives each of its gpus GPUs where fewer (*cores: the node's; *assumed: not declared). */
static double model_step__decoders(const sc_topology_t *t, const sc_workload_t *w, int gpus,
                                   double *cores, bool *assumed)
{
    *cores = sc_topology_cores(t, assumed);
    double workers = (double)w->input_workers_per_gpu * (double)gpus;
    return workers > 0 && workers < *cores ? workers : *cores;
}

/* With the CPU as the loader, the node's decoders prepare every sample its GPUs take: a step is
 * never shorter than that. */
static double model_step__input_us(const sc_topology_t *t, const sc_workload_t *w,
                                   const sc_layout_t *l, int gpus_per_node, int nodes)
{
    if (w->input_loader != SC_LOADER_CPU || w->input_cpu_ms_per_sample <= 0)
        return 0.0;
    bool assumed;
    double cores, per_node = sc_workload_samples_per_step(w, l) / (double)(nodes > 0 ? nodes : 1);
    double decoders = model_step__decoders(t, w, gpus_per_node, &cores, &assumed);
    return per_node * w->input_cpu_ms_per_sample * 1e3 / decoders;
}

/* With the GPU as the loader, each GPU decodes its own samples: their decode time joins its
 * step's compute. */
static double model_step__gpu_decode_us(const sc_workload_t *w, const sc_layout_t *l)
{
    if (w->input_loader != SC_LOADER_GPU || w->input_gpu_ms_per_sample <= 0)
        return 0.0;
    double per_gpu = sc_workload_samples_per_step(w, l) / (double)(l->dp > 0 ? l->dp : 1);
    return per_gpu * w->input_gpu_ms_per_sample * 1e3 / (double)(l->tp * l->pp);
}

void sc_model_input_describe(const sc_topology_t *t, const sc_workload_t *w, char *buf, size_t len)
{
    bool assumed;
    double cores, decoders = model_step__decoders(t, w, (int)t->gpus_per_node, &cores, &assumed);
    const char *source = assumed
                             ? "assumed: " SC_DEFAULT_TEXT(
                                   SC_DEFAULT_CORES_PER_GPU) " a GPU, the topology declares none"
                             : "declared";
    if (w->input_loader == SC_LOADER_GPU && w->input_gpu_ms_per_sample > 0)
        snprintf(buf, len, "input: decoded on the GPU, %.2f ms of its time a sample (declared)",
                 w->input_gpu_ms_per_sample);
    else if (w->input_loader == SC_LOADER_GPU)
        snprintf(buf, len, "input: decoded on the GPU (no host bound, no GPU time stated)");
    else if (w->input_loader == SC_LOADER_SYNTHETIC)
        snprintf(buf, len, "input: synthetic data (no loader)");
    else if (w->input_cpu_ms_per_sample <= 0)
        snprintf(buf, len, "input: the workload states no CPU cost (no host bound)");
    else if (decoders < cores)
        snprintf(buf, len,
                 "input: CPU decode %.2f ms a sample on %lld workers a GPU (%.0f of the node's "
                 "%.0f cores, %s)",
                 w->input_cpu_ms_per_sample, w->input_workers_per_gpu, decoders, cores, source);
    else
        snprintf(buf, len, "input: CPU decode %.2f ms a sample on %.0f cores (%s)",
                 w->input_cpu_ms_per_sample, cores, source);
}

static sc_status_t model_step__model_plan(const sc_topology_t *t, const sc_workload_t *w,
                                          const sc_plan_t *plan, int gpus_per_node, int nodes,
                                          double bytes_scale, double compute_scale, bool as_run,
                                          bool spun, sc_step_prediction_t *out, sc_err_t *err)
{
    const sc_layout_t *l = &plan->layout;
    double peak = sc_topology_tflops(t, w->compute_precision);
    /* the plan's compute is at the workload's GPU speed and stated share of it; the topology's
     * GPU may differ, and reaches what calibrate measured, the share the workload states or its
     * generation's published one. `run` spins the plan's compute as it is on the host path;
     * on a GPU it runs the products, at the GPU's own speed. */
    double planned = w->gpu_tflops * sc_workload_efficiency(w);
    double reached = peak * sc_model_compute_efficiency(t, w);
    double speed =
        !spun && w->compute_mode == SC_COMPUTE_FLOPS && reached > 0 ? planned / reached : 1.0;
    model_step__sim_t sim = {.t = t,
                             .l = l,
                             .gpus_per_node = gpus_per_node,
                             .bytes_scale = bytes_scale,
                             .compute_factor = speed * compute_scale,
                             .slowdown = t->overlap_slowdown,
                             .overlap = t->overlap};
    double step_us = 0, compute_us = 0;
    sc_status_t status = model_step__simulate(&sim, plan, &step_us, &compute_us, err);
    if (status != SC_OK)
        return status;
    step_us *=
        model_step__straggler_factor(t->step_jitter, gpus_per_node * nodes, l->micro_batches);
    /* `run` loads no data: the input pipeline bounds a real step, not the one it runs */
    double input_us =
        as_run ? 0.0 : model_step__input_us(t, w, l, gpus_per_node, nodes) * compute_scale;
    double decode_us = as_run ? 0.0 : model_step__gpu_decode_us(w, l) * compute_scale;
    step_us += decode_us;
    compute_us += decode_us;
    step_us = input_us > step_us ? input_us : step_us;
    *out = (sc_step_prediction_t){.gpus = gpus_per_node * nodes,
                                  .nodes = nodes,
                                  .dp = l->dp,
                                  .tp = l->tp,
                                  .pp = l->pp,
                                  .compute_ms = compute_us * 1e-3,
                                  .speedup = 1.0,
                                  .efficiency = 1.0};
    out->step_ms = step_us * 1e-3 > 1e-6 ? step_us * 1e-3 : 1e-6;
    out->comm_ms = out->step_ms - out->compute_ms > 0 ? out->step_ms - out->compute_ms : 0.0;
    out->throughput = sc_workload_samples_per_step(w, l) / (out->step_ms * 1e-3);
    out->flops_per_sample = sc_workload_train_flops_per_sample(w);
    return SC_OK;
}

sc_status_t sc_model_plan(const sc_topology_t *t, const sc_workload_t *w, const sc_plan_t *plan,
                          int gpus_per_node, int nodes, double bytes_scale, double compute_scale,
                          sc_step_prediction_t *out, sc_err_t *err)
{
    return model_step__model_plan(t, w, plan, gpus_per_node, nodes, bytes_scale, compute_scale,
                                  false, false, out, err);
}

static sc_status_t model_step__model_step(const sc_topology_t *t, const sc_workload_t *w,
                                          int gpus_per_node, int nodes, double bytes_scale,
                                          double compute_scale, bool as_run, bool spun,
                                          sc_step_prediction_t *out, sc_err_t *err)
{
    sc_workload_t at;
    sc_layout_t l;
    sc_plan_t plan;
    sc_workload_at(w, gpus_per_node * nodes, &at);
    sc_status_t status = sc_workload_layout(&at, gpus_per_node * nodes, &l, err);
    if (status == SC_OK)
        status = sc_plan_build(&at, &l, &plan, err);
    if (status != SC_OK)
        return status;
    status = model_step__model_plan(t, &at, &plan, gpus_per_node, nodes, bytes_scale, compute_scale,
                                    as_run, spun, out, err);
    sc_plan_free(&plan);
    return status;
}

sc_status_t sc_model_step(const sc_topology_t *t, const sc_workload_t *w, int gpus_per_node,
                          int nodes, double bytes_scale, double compute_scale,
                          sc_step_prediction_t *out, sc_err_t *err)
{
    return model_step__model_step(t, w, gpus_per_node, nodes, bytes_scale, compute_scale, false,
                                  false, out, err);
}

sc_status_t sc_model_step_as_run(const sc_topology_t *t, const sc_workload_t *w, int gpus_per_node,
                                 int nodes, double bytes_scale, double compute_scale, bool products,
                                 sc_step_prediction_t *out, sc_err_t *err)
{
    return model_step__model_step(t, w, gpus_per_node, nodes, bytes_scale, compute_scale, true,
                                  !products, out, err);
}
