#!/usr/bin/env bash
# The YAML reference, generated from the schema tables the loaders check with:
# docs/schema-topology.md and docs/schema-workload.md are `scalecheck validate --schema KIND`.
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
[ "${2:-}" = --check ] && [ $status = 0 ] && echo "schema-docs: docs/schema-*.md match the tables"
exit $status
