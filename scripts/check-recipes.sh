#!/usr/bin/env bash
# Does what docs/ARCHITECTURE.md's recipes say, on a copy of the tree, and nothing more: a
# collective in its four files, a report format in its three; then builds the copy (host path)
# and checks that the new collective is registered, held by the unit tests, and measured at 3
# ranks with exit 0, and that a run's ending wrote the new format. A recipe that needs a fifth
# file fails here. The test `recipes` runs it (the host path's build of the copy: ~15 s here).
# Exit 77 (skipped) outside a git checkout. usage: scripts/check-recipes.sh
set -euo pipefail
cd "$(dirname "$0")/.."
git rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIP: not a git checkout"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git ls-files -z | xargs -0 cp --parents -t "$work"
cd "$work"
edited=()
edit() { edited+=("$1"); }

# --- a collective, "bcast" (a broadcast under another name), in four files
sed -i 's/X(gather) X(scatter)/X(gather) X(scatter) X(bcast)/' harness/util/sc_coll_id.h
grep -q 'X(bcast)' harness/util/sc_coll_id.h && edit harness/util/sc_coll_id.h
sed -e 's/broadcast__/bcast__/g; s/sc_coll_broadcast/sc_coll_bcast/; s/SC_COLL_broadcast/SC_COLL_bcast/' \
    -e 's/"broadcast"/"bcast"/' harness/coll/coll_broadcast.c >harness/coll/coll_bcast.c
edit harness/coll/coll_bcast.c
sed -i 's/\( *\)\[SC_COLL_broadcast\] = mpi__broadcast,/&\n\1[SC_COLL_bcast] = mpi__broadcast,/' \
    harness/comm/backend_mpi.c
grep -q 'SC_COLL_bcast' harness/comm/backend_mpi.c && edit harness/comm/backend_mpi.c
sed -i -e 's/!strcmp(name, "broadcast") ||/!strcmp(name, "broadcast") || !strcmp(name, "bcast") ||/' \
    -e 's/if (!strcmp(coll, "broadcast"))/if (!strcmp(coll, "broadcast") || !strcmp(coll, "bcast"))/' \
    tests/unit/test_check.c
[ "$(grep -c '"bcast"' tests/unit/test_check.c)" = 2 ] && edit tests/unit/test_check.c

# --- a report format, hello.txt (the verdict in one line), in three files
cat >harness/report/sc_hello.h <<'EOF'
#ifndef SC_HELLO_H
#define SC_HELLO_H
#include "record/sc_result.h"
sc_status_t sc_hello_write(const char *dir, const sc_result_t *doc, sc_err_t *err);
#endif
EOF
cat >harness/report/sc_hello.c <<'EOF'
#include "report/sc_hello.h"

#include <limits.h>
#include <stdio.h>

#include "util/sc_files.h"

static int hello__writer(FILE *out, void *arg)
{
    const sc_result_t *doc = arg;
    fprintf(out, "%s %s %s\n", doc->command, doc->state, sc_tally_verdict(sc_checks_tally(&doc->checks)));
    return ferror(out);
}

sc_status_t sc_hello_write(const char *dir, const sc_result_t *doc, sc_err_t *err)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/hello.txt", dir);
    return sc_files_write_text(path, hello__writer, (void *)doc, err);
}
EOF
edit harness/report/sc_hello.c
edit harness/report/sc_hello.h
python3 - <<'EOF'
p = "harness/drive/sc_drive_end.c"
s = open(p).read()
s = s.replace('#include "report/sc_report.h"\n', '#include "report/sc_report.h"\n#include "report/sc_hello.h"\n', 1)
s = s.replace('    {"the command\'s own files", drive_end__own},\n',
              '    {"the command\'s own files", drive_end__own},\n'
              '    {"hello.txt", drive_end__hello},\n', 1)
s = s.replace("static const struct {\n    const char *what;",
              "static sc_status_t drive_end__hello(const char *dir, const sc_result_t *doc,\n"
              "                                    const sc_drive_ending_t *e, sc_err_t *err)\n"
              "{\n    (void)e;\n    return sc_hello_write(dir, doc, err);\n}\n\n"
              "static const struct {\n    const char *what;", 1)
open(p, "w").write(s)
EOF
grep -q drive_end__hello harness/drive/sc_drive_end.c && edit harness/drive/sc_drive_end.c

fail() { echo "check-recipes: FAIL: $*" >&2; exit 1; }
[ ${#edited[@]} = 7 ] || fail "an edit did not apply: ${edited[*]}"
cmake -S . -B b -DSC_ENABLE_GPU=OFF -DCMAKE_BUILD_TYPE=Release >b.log 2>&1 || { tail b.log; fail "configure"; }
cmake --build b -j "$(nproc)" --target scalecheck test_check test_busbw >>b.log 2>&1 ||
    { grep -m5 error b.log; fail "the copy does not build"; }
b/tests/test_check >/dev/null || fail "test_check refuses the new collective"
b/tests/test_busbw >/dev/null || fail "test_busbw"
version=$(b/scalecheck version) # whole, then matched: no SIGPIPE under pipefail
grep -q '^collectives:.* bcast' <<<"$version" || fail "bcast is not registered"
grep -q 'bcast=1' <<<"$version" || fail "bcast's busbw factor is not listed"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun -np 3 --oversubscribe --bind-to none b/scalecheck coll --collective bcast -b 8 -e 4K \
    -f 8 -n 3 -w 1 -c 1 --json out.json --results-dir r >coll.log 2>&1 || { tail coll.log; fail "coll bcast at 3 ranks"; }
rows=$(python3 -c 'import json; d=json.load(open("out.json")); print(sum(1 for r in d["results"] if r["collective"] == "bcast" and not r["wrong"]))')
[ "$rows" -ge 4 ] || fail "coll bcast at 3 ranks measured $rows rows"
grep -q '^coll complete PASS' r/*/hello.txt || fail "the new format was not written: $(cat r/*/hello.txt 2>&1)"
echo "check-recipes: a collective in 4 files, a report format in 3 (${edited[*]}): built, $rows bcast rows at 3 ranks, hello.txt written"
