#!/usr/bin/env bash
# A Slurm node health check with scalecheck, in the manner of NHC: runs `scalecheck health` on
# this node (its GPUs, an all-reduce across its ranks held to the topology, its fabric ports)
# and, when that fails, drains the node with the failure as the reason, which `sinfo -R` shows;
# when it passes on a node that it drained itself (the reason starts "scalecheck health"), it
# resumes it - a drain an admin set, for any other reason, is left alone, as NHC does.
#
#   slurm.conf:  HealthCheckProgram=/usr/share/scalecheck/launch/slurm/scalecheck-healthcheck.sh
#                (the .deb's path; <prefix>/share/scalecheck/launch/slurm/ for cmake --install)
#                HealthCheckInterval=600
#                HealthCheckNodeState=IDLE       (checks nodes that run no job)
#
# Environment (all optional): SCALECHECK the program (default: scalecheck on PATH),
# SCALECHECK_TOPOLOGY the node's topology file (calibrated: `scalecheck calibrate`),
# SCALECHECK_RANKS ranks to start (default: the GPUs nvidia-smi lists, else 2),
# SCALECHECK_HEALTH_ARGS more options for `scalecheck health`, SCONTROL (default scontrol),
# SCALECHECK_HEALTH_TIMEOUT seconds the check may take (default 50: slurmd kills a
# HealthCheckProgram after 60 s, and one killed there drains nothing and says nothing).
# The node is Slurm's name for it ($SLURMD_NODENAME, which slurmd sets; else `hostname -s`).
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
node=${SLURMD_NODENAME:-$(hostname -s)}
scontrol=${SCONTROL:-scontrol}
limit=${SCALECHECK_HEALTH_TIMEOUT:-50}
out=$(timeout --kill-after=5 "$limit" "$here/../mpirun.sh" -np "$ranks" -- "$sc" "${args[@]}" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
    # healthy: undo our own drain, never an admin's
    shown=$("$scontrol" show node -o "$node" 2>/dev/null || true)
    if [[ $shown == *State=*DRAIN* && $shown == *"Reason=scalecheck health"* ]]; then
        "$scontrol" update NodeName="$node" State=RESUME
    fi
    exit 0
fi
# NHC's form: "ERROR:  nhc:  Health check failed:  scalecheck health: WHY"; the reason is WHY's line
failed="ERROR:  nhc:  Health check failed:  "
[ "$rc" -eq 124 ] && out="${failed}scalecheck health: no answer in ${limit} s (SCALECHECK_HEALTH_TIMEOUT)"
reason=$(grep -m1 '^ERROR: ' <<<"$out")
[ -n "$reason" ] || reason="${failed}scalecheck health: exit $rc: $(tail -n 1 <<<"$out")"
reason=${reason#"$failed"}
reason=${reason#ERROR: }
"$scontrol" update NodeName="$node" State=DRAIN Reason="${reason:0:200}"
echo "$reason" >&2
exit 1
