#!/usr/bin/env bash
# Does what docs/ARCHITECTURE.md's recipes say, on a copy of the tree, and nothing more - each with
# a case that is not a copy of one the tree has:
#   a collective in four files: scan, an inclusive prefix reduction (MPI_Scan), whose results
#     are a reduction over some of the ranks and whose avg divides by fewer than all of them;
#   a report format in three: hello.txt, which every ending, `report DIR` and `judge` write;
#   a shared option in three: --label, taken by every measuring command, recorded in the result
#     header, and read back through the header's field table;
#   a topology field the model uses in three: inter.hop_latency_us, which every library's model
#     prices on each network step.
# Then builds the copy (host path) and checks each one's outcome. A recipe that needs another file
# fails here. The test `recipes` runs it (~40 s here). Exit 77 (skipped) outside a git checkout.
# usage: scripts/check-recipes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git ls-files -z | xargs -0 cp --parents -t "$work"
cd "$work"
edited=()
edit() { edited+=("$1"); }
# replace FILE OLD NEW: the first OLD in FILE becomes NEW; the file is counted as edited
replace() {
    python3 - "$@" <<'EOF'
import sys
path, old, new = sys.argv[1:4]
s = open(path).read()
if old not in s:
    sys.exit(f"check-recipes: {path}: '{old[:60]}' not found: the recipe's anchor moved")
open(path, "w").write(s.replace(old, new, 1))
EOF
    edit "$1"
}

# --- a collective, "scan" (MPI_Scan: rank r gets the reduction of ranks 0..r), in four files
replace harness/util/sc_coll_id.h 'X(gather) X(scatter)' 'X(gather) X(scatter) X(scan)'
cat >harness/coll/coll_scan.c <<'EOF'
/* scan: rank r ends with the reduction of ranks 0..r's buffers (an inclusive prefix). */
#include "sc_coll.h"

static sc_src_t scan__source(const sc_coll_shape_t *s)
{
    return (sc_src_t){.kind = SC_SRC_REDUCED, .ranks = s->rank + 1};
}

const sc_coll_t sc_coll_scan = {
    .id = SC_COLL_scan,
    .name = "scan",
    .nccl_tests = "scan_perf",
    .has_op = true,
    .busbw_factor = sc_coll_factor_one,
    .send_count = sc_coll_count_1,
    .recv_count = sc_coll_count_1,
    .inplace_input_offset = sc_coll_offset_0,
    .result_count = sc_coll_count_1,
    .result_offset = sc_coll_result_at_0,
    .source = scan__source,
};
EOF
edit harness/coll/coll_scan.c
replace harness/comm/backend_mpi.c 'static sc_status_t mpi__broadcast(' 'static sc_status_t mpi__scan(sc_comm_t *comm, const sc_coll_args_t *a, sc_err_t *err)
{
    const void *send = a->in_place ? MPI_IN_PLACE : a->sendbuf;
    int rc = MPI_Scan(send, a->recvbuf, mpi__count(a->count), mpi__dtype(a->dtype),
                      mpi__op(a->op), mpi__c(comm));
    if (rc == MPI_SUCCESS && a->op == SC_REDOP_avg)
        mpi__divide(comm->rank + 1, a->dtype, a->recvbuf, a->count);
    return mpi__check(comm, rc, "MPI_Scan", err);
}

static sc_status_t mpi__broadcast('
python3 - <<'EOF'
p = "harness/comm/backend_mpi.c"
s = open(p).read()
s = s.replace("[SC_COLL_scatter] = mpi__scatter,", "[SC_COLL_scatter] = mpi__scatter,\n[SC_COLL_scan] = mpi__scan,", 1)
open(p, "w").write(s)
EOF
replace tests/unit/test_check.c '    if (!strcmp(name, "broadcast") || !strcmp(name, "reduce") || !strcmp(name, "sendrecv"))' \
    '    if (!strcmp(name, "scan"))
        return 1.0;
    if (!strcmp(name, "broadcast") || !strcmp(name, "reduce") || !strcmp(name, "sendrecv"))'
replace tests/unit/test_check.c '    if (!strcmp(coll, "reducescatter"))' '    if (!strcmp(coll, "scan"))
        return reduce_naive(spec, s->rank + 1, j);
    if (!strcmp(coll, "reducescatter"))'

# --- a report format, hello.txt (the verdict in one line), in three files
cat >harness/report/sc_hello.h <<'EOF'
#ifndef SC_HELLO_H
#define SC_HELLO_H
#include "report/sc_report_outputs.h"
sc_status_t sc_hello_write(const char *path, const sc_report_ctx_t *x, sc_err_t *err);
#endif
EOF
cat >harness/report/sc_hello.c <<'EOF'
#include "report/sc_hello.h"

#include <stdio.h>

#include "util/sc_files.h"

static int hello__writer(FILE *out, void *arg)
{
    const sc_result_t *doc = arg;
    fprintf(out, "%s %s %s\n", doc->command, doc->state, sc_tally_verdict(sc_result_tally(doc)));
    return ferror(out);
}

sc_status_t sc_hello_write(const char *path, const sc_report_ctx_t *x, sc_err_t *err)
{
    return sc_files_write_text(path, hello__writer, (void *)x->r, err);
}
EOF
edit harness/report/sc_hello.c
edit harness/report/sc_hello.h
replace harness/report/sc_report_outputs.c '#include "report/sc_json_out.h"' \
    '#include "report/sc_hello.h"
#include "report/sc_json_out.h"'
replace harness/report/sc_report_outputs.c '    {NULL, NULL, NULL},' '    {"hello.txt", NULL, sc_hello_write},
    {NULL, NULL, NULL},'

# --- a shared option, --label TEXT, in three files: the field and its bit, its row, the header's
replace harness/record/sc_common_opts.h '    SC_COMMON_METRICS = 1u << 10,' '    SC_COMMON_METRICS = 1u << 10,
    SC_COMMON_LABEL = 1u << 11,'
replace harness/record/sc_common_opts.h '     SC_COMMON_NO_PREFLIGHT | SC_COMMON_METRICS)' \
    '     SC_COMMON_NO_PREFLIGHT | SC_COMMON_METRICS | SC_COMMON_LABEL)'
replace harness/record/sc_common_opts.h '    bool no_preflight;' '    bool no_preflight;
    char label[64]; /* what the run was for, as its owner says */'
replace harness/cli/sc_cli_common.c '    SC_OPT_END,' '    C_TEXT("label", "TEXT", "what the run is for, kept in result.json", SC_OPT_TEXT, label,
           SC_COMMON_LABEL),
    SC_OPT_END,'
replace harness/record/sc_result.c '    {NULL, SC_FIELD_INT, 0, 0, 0, NULL},' '    SC__ASKED(label, SC_FIELD_TEXT_OPT),
    {NULL, SC_FIELD_INT, 0, 0, 0, NULL},'

# --- a topology field the model uses, inter.hop_latency_us (what a network hop adds: a longer
# cable run, a gateway), in three files: the schema row, the field, where the hop is priced
replace harness/topology/sc_topology.c '    {"inter.oversubscription",' '    {"inter.hop_latency_us", SC_FIELD_NUMBER, T(hop_latency_us), 0, false, 0, 1e6, NULL,
     "what each network step adds to the NICs latency, us"},
    {"inter.oversubscription",'
replace harness/topology/sc_topology.h '    double nic_latency_us;' '    double nic_latency_us;
    double hop_latency_us; /* inter.hop_latency_us */'
replace harness/topology/sc_topology_paths.c '    double latency_us = nic_us * (1.0 + 0.5 * (double)t->switch_tiers);' \
    '    double latency_us = nic_us * (1.0 + 0.5 * (double)t->switch_tiers) + t->hop_latency_us;'

fail() { echo "check-recipes: FAIL: $*" >&2; exit 1; }
[ ${#edited[@]} = 17 ] || fail "edits: ${#edited[@]} (${edited[*]})"
files=$(printf '%s\n' "${edited[@]}" | sort -u | wc -l)
[ "$files" = 13 ] || fail "files: $files ($(printf '%s\n' "${edited[@]}" | sort -u | tr '\n' ' '))"
cmake -S . -B b -DSC_ENABLE_GPU=OFF -DCMAKE_BUILD_TYPE=Release >b.log 2>&1 || { tail b.log; fail "configure"; }
cmake --build b -j "$(nproc)" --target scalecheck test_check test_busbw >>b.log 2>&1 ||
    { grep -m5 error b.log; fail "the copy does not build"; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi=(mpirun --oversubscribe --bind-to none)

# the collective: registered, held by the unit tests, exact at 3 ranks for every reduction
b/tests/test_check >/dev/null || fail "test_check refuses the new collective"
b/tests/test_busbw >/dev/null || fail "test_busbw"
version=$(b/scalecheck version) # whole, then matched: no SIGPIPE under pipefail
grep -q '^collectives:.* scan' <<<"$version" || fail "scan is not registered"
grep -q 'scan=1' <<<"$version" || fail "scan's busbw factor is not listed"
grep -q '^mpi runs:.* scan' <<<"$version" || fail "the MPI backend does not list scan"
"${mpi[@]}" -np 3 b/scalecheck coll --collective scan -o all -d int32,float,double -b 8 -e 4K \
    -f 8 -n 3 -w 1 -c 1 --label "recipes check" --json out.json --results-dir r >coll.log 2>&1 ||
    { tail coll.log; fail "coll scan at 3 ranks"; }
read -r rows wrong ops label < <(python3 -c '
import json
d = json.load(open("out.json"))
rows = [r for r in d["results"] if r["collective"] == "scan"]
print(len(rows), sum(r["wrong"] for r in rows), len({r["op"] for r in rows}), d.get("label", "-").replace(" ", "_"))')
[ "$rows" -ge 12 ] && [ "$wrong" = 0 ] && [ "$ops" = 5 ] ||
    fail "coll scan at 3 ranks: $rows rows, $wrong wrong, $ops reductions"
# a backend without it: named, it is refused; in --collective all, it is left out and said
"${mpi[@]}" -np 2 b/scalecheck coll --backend ucx --collective scan -b 8 -e 8 --results-dir r2 \
    >ucx.log 2>&1 && fail "coll --backend ucx --collective scan ran"
grep -q 'collective: scan is not run by backend ucx' ucx.log || fail "ucx's refusal: $(tail -3 ucx.log)"
"${mpi[@]}" -np 2 b/scalecheck coll --backend ucx --collective all -b 8 -e 8 --results-dir r2 \
    >ucx-all.log 2>&1 && fail "coll --backend ucx --collective all ran"
grep -q '# scan: not run by backend ucx (left out)' ucx-all.log &&
    grep -q 'collective all: backend ucx runs no collective' ucx-all.log ||
    fail "ucx's --collective all: $(tail -3 ucx-all.log)"
[ ! -e r2 ] || fail "a refused coll left r2 behind"

# the report format: written by the run's ending, by report DIR, by judge
dir=$(ls -d r/*/)
grep -q '^coll complete' "$dir/hello.txt" || fail "the ending did not write hello.txt"
rm "$dir/hello.txt"
b/scalecheck report "$dir" >report.log 2>&1 || { tail report.log; fail "report DIR"; }
grep -q '^coll complete' "$dir/hello.txt" || fail "report DIR did not write hello.txt"
b/scalecheck judge --topology topologies/dgx-a100.yaml --collective allreduce --results-dir j \
    tests/data/formats/nccl-tests-2.13.txt >judge.log 2>&1 || true
grep -q '^judge complete' j/*/hello.txt || fail "judge did not write hello.txt: $(tail -3 judge.log)"

# the shared option: recorded, read back through the header's table, taken where it belongs
[ "$label" = "recipes_check" ] || fail "result.json's label: $label"
b/scalecheck coll --help | grep -q -- '--label TEXT' || fail "coll --help has no --label"
b/scalecheck compare --label x >cmp.log 2>&1 && fail "compare took --label"
grep -q -- '--label: unknown option' cmp.log || fail "compare's refusal: $(cat cmp.log)"
"${mpi[@]}" -np 2 b/scalecheck run -W workloads/bert-large-dp.yaml --scales 1,2 -n 1 -w 0 \
    --bytes-scale 0.001 --compute-scale 0.001 --telemetry 0 --label run-label --json run.json \
    --results-dir r3 >run.log 2>&1 || { tail run.log; fail "run --label"; }
grep -q '"label": "run-label"' run.json || fail "run's result.json has no label"
python3 - "$dir/result.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = 5
json.dump(d, open(sys.argv[1], "w"), indent=1)
EOF
b/scalecheck report "$dir" >bad.log 2>&1 && fail "report DIR read a label that is a number"
grep -q 'label' bad.log || fail "the refusal does not name label: $(cat bad.log)"

# the topology field: every library's model prices it on each network step
for lib in nccl mpi; do
    for hop in 0 20; do
        # beside the shipped file it extends
        printf 'name: t-%s-%s\nextends: dgx-a100.yaml\nlibrary: %s\ninter:\n  hop_latency_us: %s\n' \
            "$lib" "$hop" "$lib" "$hop" >"topologies/t-$lib-$hop.yaml"
        b/scalecheck model -Y "topologies/t-$lib-$hop.yaml" --size 8 --gpus 8 --nodes 4 \
            --collective allgather --json "m-$lib-$hop.json" >model.log 2>&1 ||
            { tail model.log; fail "model $lib $hop"; }
    done
    added=$(python3 -c "
import json
t = [json.load(open(f'm-$lib-{h}.json'))['predictions'][0]['time_us'] for h in (0, 20)]
print(round(t[1] - t[0], 3))")
    # NCCL's ring all-gather over 4 nodes crosses the network 4 times: 4 x 20 us; MPI's
    # recursive doubling on 32 ranks twice (ranks 8 and 16 apart): 2 x 20 us
    want=80.0
    [ "$lib" = mpi ] && want=40.0
    [ "$added" = "$want" ] || fail "inter.hop_latency_us on $lib: +$added us, not +$want"
done
echo "check-recipes: a collective in 4 files, a report format in 3, a shared option in 3, a" \
    "topology field in 3 (${files} files: $(printf '%s\n' "${edited[@]}" | sort -u | tr '\n' ' '))" \
    "built; scan exact at 3 ranks ($rows rows, 5 reductions), refused by ucx; hello.txt from the" \
    "ending, report DIR and judge; --label recorded and read back; +80 us on nccl, +40 on mpi"
