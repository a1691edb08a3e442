#!/usr/bin/env bash
# A Slurm node health check with scalecheck, in the manner of NHC: runs `scalecheck health` on
# this node (its GPUs, an all-reduce across its ranks held to the topology, its fabric ports)
# and, when that fails, drains the node with the failure as the reason, which `sinfo -R` shows.
#
#   slurm.conf:  HealthCheckProgram=/opt/scalecheck/launch/slurm/scalecheck-healthcheck.sh
#                HealthCheckInterval=600
#                HealthCheckNodeState=IDLE       (checks nodes that run no job)
#
# Environment (all optional): SCALECHECK the program (default: scalecheck on PATH),
# SCALECHECK_TOPOLOGY the node's topology file (calibrated: `scalecheck calibrate`),
# SCALECHECK_RANKS ranks to start (default: the GPUs nvidia-smi lists, else 2),
# SCALECHECK_HEALTH_ARGS more options for `scalecheck health`, SCONTROL (default scontrol).
# Exit 0 healthy, 1 drained (the reason on stderr), as a HealthCheckProgram is expected to.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=${SCALECHECK:-scalecheck}
ranks=${SCALECHECK_RANKS:-}
if [ -z "$ranks" ]; then
    ranks=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    [ "$ranks" -gt 0 ] || ranks=2
fi
args=(health)
[ -n "${SCALECHECK_TOPOLOGY:-}" ] && args+=(--topology "$SCALECHECK_TOPOLOGY")
# shellcheck disable=SC2206 # more options, split as the admin wrote them
args+=(${SCALECHECK_HEALTH_ARGS:-})
out=$(timeout --kill-after=10 120 "$here/../mpirun.sh" -np "$ranks" -- "$sc" "${args[@]}" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && exit 0
reason=$(grep -m1 '^ERROR: ' <<<"$out")
[ -n "$reason" ] || reason="ERROR: scalecheck health: exit $rc: $(tail -n 1 <<<"$out")"
reason=${reason#ERROR: }
"${SCONTROL:-scontrol}" update NodeName="$(hostname -s)" State=DRAIN Reason="${reason:0:200}"
echo "$reason" >&2
exit 1
