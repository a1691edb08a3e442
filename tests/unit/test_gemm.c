/* test_gemm.c - the matrix products of a layer (plan/sc_plan_gemm.c): Megatron's FLOP count
 * from the transformer's shapes, the CNN's declared FLOPs met, backward as twice the forward
 * plus what is recomputed, and the plan pricing its compute from the same products. */
#include <string.h>

#include "compute/sc_compute.h"
#include "judge/sc_compute_verdict.h"
#include "plan/sc_plan.h"
#include "util/sc_dtype.h"
#include "sc_test.h"
#include "util/sc_gemm.h"

static sc_workload_t gpt(void)
{
    sc_workload_t w;
    memset(&w, 0, sizeof(w));
    snprintf(w.name, sizeof(w.name), "gpt");
    w.kind = SC_MODEL_TRANSFORMER;
    w.layers = 40;
    w.hidden = 5120;
    w.heads = 40;
    w.sequence = 2048;
    w.parameters = 13e9;
    w.micro_batch = 2;
    w.per_gpu_batch = 16;
    w.tp = 2;
    w.pp = 2;
    w.micro_batches = 8;
    w.compute_mode = SC_COMPUTE_FLOPS;
    w.compute_precision = SC_PRECISION_BF16;
    w.gpu_tflops = 312;
    w.efficiency = 0.5;
    w.bucket_mb = 25;
    return w;
}

static const sc_gemm_shape_t *find(const sc_gemm_set_t *set, const char *name)
{
    for (int i = 0; i < set->n; i++)
        if (strcmp(set->items[i].name, name) == 0)
            return &set->items[i];
    return NULL;
}

static void transformer(void)
{
    sc_workload_t w = gpt();
    sc_layout_t l = {.dp = 2, .tp = 2, .pp = 2, .micro_batches = 8, .micro_batch = 2};
    sc_gemm_set_t sets[SC_PHASE_COUNT];
    sc_plan_gemm_sets(&w, &l, sets);
    const sc_gemm_set_t *f = &sets[SC_PHASE_FORWARD], *b = &sets[SC_PHASE_BACKWARD];
    double s = 2048, h = 5120, megatron = (24 * s * h * h + 4 * s * s * h) * 2 / 2;
    SC_EXPECT(f->type == SC_GEMM_bf16 && f->n == 6 && b->n == 12);
    SC_EXPECT_NEAR(sc_gemm_set_flops(f) / megatron, 1.0, 1e-12);
    SC_EXPECT_NEAR(sc_gemm_set_flops(b) / sc_gemm_set_flops(f), 2.0, 1e-12);
    const sc_gemm_shape_t *qkv = find(f, "qkv"), *scores = find(f, "scores");
    SC_EXPECT(qkv != NULL && qkv->m == 4096 && qkv->n == 7680 && qkv->k == 5120);
    SC_EXPECT(scores != NULL && scores->batch == 40 && scores->m == 2048 && scores->k == 128);
    const sc_gemm_shape_t *dgrad = find(b, "qkv.dgrad"), *wgrad = find(b, "qkv.wgrad");
    SC_EXPECT(dgrad != NULL && dgrad->m == 4096 && dgrad->n == 5120 && dgrad->k == 7680);
    SC_EXPECT(wgrad != NULL && wgrad->m == 5120 && wgrad->n == 7680 && wgrad->k == 4096);
    SC_EXPECT(strcmp(b->items[0].name, "mlp_down.dgrad") == 0); /* in reverse */
    /* recomputation: the attention's two products again, or the whole forward */
    w.recompute = SC_RECOMPUTE_SELECTIVE;
    sc_plan_gemm_sets(&w, &l, sets);
    SC_EXPECT(b->n == 14 && strcmp(b->items[0].name, "scores.re") == 0);
    SC_EXPECT_NEAR(sc_plan_backward_factor(&w),
                   2.0 + 4 * s * s * h / (24 * s * h * h + 4 * s * s * h), 1e-12);
    w.recompute = SC_RECOMPUTE_FULL;
    sc_plan_gemm_sets(&w, &l, sets);
    SC_EXPECT(b->n == 18);
    SC_EXPECT_NEAR(sc_plan_backward_factor(&w), 3.0, 1e-12);
    /* the plan prices a layer from the same products */
    w.recompute = SC_RECOMPUTE_NONE;
    sc_plan_t plan;
    sc_err_t err;
    SC_EXPECT(sc_plan_build(&w, &l, &plan, &err) == SC_OK);
    SC_EXPECT_NEAR(sc_gemm_set_flops(&plan.gemms[SC_PHASE_FORWARD]), megatron, 1.0);
    for (size_t i = 0; i < plan.nops; i++)
        if (plan.ops[i].kind == SC_PLAN_COMPUTE && plan.ops[i].phase == SC_PHASE_FORWARD) {
            SC_EXPECT_NEAR(plan.ops[i].compute_us, megatron / (312e12 * 0.5) * 1e6, 1e-6);
            break;
        }
    sc_plan_free(&plan);
}

static void cnn(void)
{
    sc_workload_t w = gpt();
    w.kind = SC_MODEL_CNN;
    w.layers = 50;
    w.micro_batch = 256;
    w.tp = w.pp = 1;
    w.forward_gflops_per_sample = 4.1;
    w.compute_precision = SC_PRECISION_TF32;
    sc_layout_t l = {.dp = 8, .tp = 1, .pp = 1, .micro_batches = 1, .micro_batch = 256};
    sc_gemm_set_t sets[SC_PHASE_COUNT];
    sc_plan_gemm_sets(&w, &l, sets);
    SC_EXPECT(sets[SC_PHASE_FORWARD].type == SC_GEMM_tf32 && sets[SC_PHASE_FORWARD].n == 1);
    SC_EXPECT_NEAR(sc_gemm_set_flops(&sets[SC_PHASE_FORWARD]) / (4.1e9 / 50 * 256), 1.0, 1e-12);
    SC_EXPECT(sets[SC_PHASE_OPTIMIZER].n == 0);
    /* compute.mode none: nothing to run, nothing priced */
    w.compute_mode = SC_COMPUTE_NONE;
    SC_EXPECT(sc_plan_layer_us(&w, &l) == 0.0);
}

static void dims(void)
{
    SC_EXPECT(sc_gemm_dim_at(5120, 1.0) == 5120);
    SC_EXPECT(sc_gemm_dim_at(5120, 1e-6) == 51); /* 5120 x 0.01 */
    SC_EXPECT(sc_gemm_dim_at(64, 1e-9) == 1);    /* at least 1 */
    SC_EXPECT(sc_gemm_dim_at(7.5, 1.0) == 8);
    sc_gemm_shape_t s = {"x", 100, 200, 300, 4};
    SC_EXPECT_NEAR(sc_gemm_shape_flops(&s), 2.0 * 100 * 200 * 300 * 4, 0);
    long long d[4];
    SC_EXPECT_NEAR(sc_gemm_shape_at(&s, 1e-3, d), 2.0 * 10 * 20 * 30 * 4, 0);
    SC_EXPECT(d[0] == 10 && d[1] == 20 && d[2] == 30 && d[3] == 4);
    sc_gemm_type_t t;
    sc_err_t err;
    SC_EXPECT(sc_gemm_type_parse("tf32", "-d", &t, &err) == SC_OK && t == SC_GEMM_tf32);
    SC_EXPECT(sc_gemm_type_parse("fp64", "-d", &t, &err) == SC_ERR_USAGE);
    SC_EXPECT(strstr(err.msg, "-d") != NULL && strstr(err.msg, "bf16") != NULL);
    SC_EXPECT(sc_gemm_type_size(SC_GEMM_bf16) == 2 && sc_gemm_type_size(SC_GEMM_tf32) == 4);
}

/* A product computed here in fp64 and stored in type: within the bound; an element planted
 * off by one: caught, named by its index. */
static void check_sample(sc_dtype_t dt, sc_gemm_type_t type)
{
    enum { N = 48 };
    size_t es = sc_dtype_size(dt);
    unsigned char a[N * N * 4], b[N * N * 4], c[N * N * 4];
    for (size_t i = 0; i < N * N; i++) {
        sc_dtype_store(dt, a, i, (double)((i * 7919) % 2048) / 1024.0 - 1.0);
        sc_dtype_store(dt, b, i, (double)((i * 104729) % 2048) / 1024.0 - 1.0);
    }
    for (size_t j = 0; j < N; j++)
        for (size_t i = 0; i < N; i++) {
            double acc = 0;
            for (size_t p = 0; p < N; p++)
                acc += sc_dtype_load(dt, a, p * N + i) * sc_dtype_load(dt, b, j * N + p);
            sc_dtype_store(dt, c, j * N + i, acc);
        }
    (void)es;
    sc_gemm_check_t ok, bad;
    sc_gemm_check_sample(type, N, a, b, c, &ok);
    SC_EXPECT(ok.sampled == 64 && ok.wrong == 0 && ok.first_wrong == -1 && ok.worst < 1);
    sc_dtype_store(dt, c, 0, sc_dtype_load(dt, c, 0) + 1.0);
    sc_gemm_check_sample(type, N, a, b, c, &bad);
    SC_EXPECT(bad.wrong == 1 && bad.first_wrong == 0 && bad.worst > 1);
    SC_EXPECT(bad.digest != ok.digest);
}

static sc_compute_row_t row(double tflops, uint64_t digest, int wrong)
{
    sc_compute_row_t r;
    memset(&r, 0, sizeof(r));
    snprintf(r.dtype, sizeof(r.dtype), "bf16");
    snprintf(r.device, sizeof(r.device), "GPU 0 NVIDIA H200 (0000:1b:00.0)");
    r.tflops = tflops;
    r.digest = digest;
    r.check_size = 64;
    r.check_sampled = 64;
    r.check_wrong = wrong;
    r.check_first_wrong = wrong ? 0 : -1;
    return r;
}

static int fails(const sc_checks_t *c, const char *who)
{
    int n = 0;
    for (size_t i = 0; i < c->n; i++)
        n += c->items[i].level == SC_LEVEL_FAIL && strstr(c->items[i].name, who) != NULL;
    return n;
}

static void verdict(void)
{
    const char who[4][192] = {"rank 0", "rank 1", "rank 2", "rank 3"};
    sc_compute_row_t healthy[4] = {row(700, 9, 0), row(690, 9, 0), row(710, 9, 0), row(705, 9, 0)};
    sc_checks_t c = {0};
    sc_compute_verdict(healthy, who, 4, NULL, &c);
    SC_EXPECT(fails(&c, "rank") == 0 && c.n == 6); /* slowest, 4 references, agreement */
    sc_list_free(&c);
    sc_compute_row_t sick[4] = {row(700, 9, 0), row(230, 9, 0), row(710, 7, 1), row(705, 9, 0)};
    sc_compute_verdict(sick, who, 4, NULL, &c);
    SC_EXPECT(fails(&c, "rank 1") == 1 && fails(&c, "rank 2") == 2 && fails(&c, "rank 0") == 0 &&
              fails(&c, "rank 3") == 0);
    sc_list_free(&c);
}

int main(void)
{
    check_sample(SC_DTYPE_float, SC_GEMM_fp32);
    check_sample(SC_DTYPE_bf16, SC_GEMM_bf16);
    check_sample(SC_DTYPE_fp16, SC_GEMM_fp16);
    verdict();
    transformer();
    cnn();
    dims();
    return sc_test_done("test_gemm");
}
