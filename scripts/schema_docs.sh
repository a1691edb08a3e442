#!/usr/bin/env bash
# The YAML reference, generated from the schema tables the loaders check with:
# docs/schema-topology.md and docs/schema-workload.md are `scalecheck validate --schema KIND`;
# and the README's exit codes and verdicts, from the tables help, the man pages, metrics and
# JUnit take them from (SCALECHECK_HELP_FORMAT=exit-codes scalecheck --help).
# usage: scripts/schema_docs.sh SCALECHECK           rewrite both
#        scripts/schema_docs.sh SCALECHECK --check   exit 1 (and the diff) when one is stale
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$1
status=0
for kind in topology workload; do
    doc=docs/schema-$kind.md
    if [ "${2:-}" = --check ]; then
        if ! diff -u "$doc" <("$bin" validate --schema "$kind"); then
            echo "schema-docs: $doc is stale: run scripts/schema_docs.sh $bin" >&2
            status=1
        fi
    else
        "$bin" validate --schema "$kind" >"$doc"
    fi
done
# the README's section between "## Exit codes" and the line after its tables
readme_codes() { sed -n '/^## Exit codes$/,/^Every ending leaves/p' README.md | sed '1,2d;$d' | sed '$d'; }
if [ "${2:-}" = --check ]; then
    if ! diff -u <(readme_codes) <(SCALECHECK_HELP_FORMAT=exit-codes "$bin" --help); then
        echo "schema-docs: README.md's exit codes are stale: run scripts/schema_docs.sh $bin" >&2
        status=1
    fi
else
    codes=$(SCALECHECK_HELP_FORMAT=exit-codes "$bin" --help)
    python3 - "$codes" <<'PY'
import sys
text = open("README.md").read()
a = text.index("## Exit codes\n\n") + len("## Exit codes\n\n")
b = text.index("\nEvery ending leaves")
open("README.md", "w").write(text[:a] + sys.argv[1] + "\n" + text[b:])
PY
fi
[ "${2:-}" = --check ] && [ $status = 0 ] && echo "schema-docs: docs/schema-*.md and the README's exit codes match the tables"
exit $status
