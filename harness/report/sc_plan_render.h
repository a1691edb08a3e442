/* sc_plan_render.h - a step plan for people and programs: the per-group table of calls and
 * bytes per step (and, optionally, every operation of every stage) as text; the same as JSON
 * is report/sc_json_out.h's. */
#ifndef SC_PLAN_RENDER_H
#define SC_PLAN_RENDER_H

#include <stdbool.h>
#include <stdio.h>

#include "model/sc_model.h"
#include "plan/sc_plan.h"

typedef struct {
    const sc_workload_t *w;
    const sc_plan_t *plan;
    int gpus_per_node, nodes;
    bool ops;                               /* list every operation */
    const char *topology;                   /* name, when priced */
    const sc_step_prediction_t *prediction; /* NULL: not priced */
} sc_plan_view_t;

void sc_plan_print(FILE *out, const sc_plan_view_t *v);
/* "gpipe" or "1f1b". */
const char *sc_plan_schedule_name(int schedule);
/* The ranks the plan's layout spans. */
int sc_plan_ranks(const sc_plan_t *plan);

#endif
