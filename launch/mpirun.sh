#!/usr/bin/env bash
# Launches scalecheck with mpirun (Open MPI's, or MPICH's hydra mpiexec) and the settings that
# matter, and makes sure a fault ends
# the job: when a rank's watchdog reports a timeout ("ending the job (exit 3)"), mpirun gets a
# grace period to tear the job down; if it cannot (a daemon behind a cut link keeps it waiting
# forever), the hosts are probed, the unreachable ones are named as lost, mpirun is stopped, and
# the launcher exits 3.
#
# usage: launch/mpirun.sh [--mpi openmpi|mpich] [--hostfile FILE] [--ranks-per-node K | -np N]
#                         [--transport tcp|ucx] [--grace SECONDS] [--kill-grace SECONDS]
#                         [--probe CMD]
#                         [--mca KEY VALUE ...] -- COMMAND...
#   --mpi             which launcher: the `mpirun` on PATH by default (its --version tells);
#                     mpich runs mpiexec.mpich (or mpiexec) with -disable-auto-cleanup, so that
#                     every rank whose wait timed out reports before the launcher ends the job
#   --transport tcp   Open MPI ob1 with the self, vader (shared memory) and tcp BTLs
#   --transport ucx   UCX PML (Debian needs pml_ucx_tls/devices any: docs/REFERENCE.md §5)
#   --kill-grace S    Open MPI: the seconds a stopped rank gets between SIGTERM and SIGKILL
#                     (default 2). Every daemon waits this long whenever a job ends with a
#                     non-zero code, a FAIL verdict included: on 4 hosts the ending takes
#                     about 3.5 times it
#   --probe CMD       how to tell whether a host answers (CMD HOST exits 0); without it, or
#                     where it cannot run: ping (SCALECHECK_PING names another command),
#                     else a TCP connect (any answer counts)
set -uo pipefail
hostfile="" np="" per_node="" transport=tcp grace="" kill_grace=2 probe="" extra=() mpi_kind=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    case "$1" in
        --mpi) mpi_kind=$2; shift 2 ;;
        --hostfile) hostfile=$2; shift 2 ;;
        -np) np=$2; shift 2 ;;
        --ranks-per-node) per_node=$2; shift 2 ;;
        --transport) transport=$2; shift 2 ;;
        --grace) grace=$2; shift 2 ;;
        --kill-grace) kill_grace=$2; shift 2 ;;
        --probe) probe=$2; shift 2 ;;
        --mca) extra+=(--mca "$2" "$3"); shift 3 ;;
        *) extra+=("$1"); shift ;;
    esac
done
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { sed -n '2,22p' "$0" >&2; exit 2; }

if [ -z "$mpi_kind" ]; then
    mpi_kind=openmpi
    # read whole, then matched: grep -q in a pipe under pipefail fails now and then with
    # mpirun's SIGPIPE (141) and would take MPICH for Open MPI
    mpi_version=$(mpirun --version 2>&1 || true)
    [[ ${mpi_version,,} == *hydra* ]] && mpi_kind=mpich
fi
case "$mpi_kind" in
    openmpi) launcher=mpirun ;;
    mpich) launcher=$(command -v mpiexec.mpich || command -v mpiexec.hydra || echo mpiexec) ;;
    *) echo "launch/mpirun.sh: --mpi: '$mpi_kind' is not openmpi or mpich" >&2; exit 2 ;;
esac

args=(--bind-to none)   # ranks pick their own cores/GPUs; binding by slot is wrong for containers
# A rank told to stop writes its final state before it leaves: give it 2 s, not 1, before
# SIGKILL (a busy host may not schedule its watchdog thread at once).
case "$kill_grace" in
    '' | *[!0-9]*) echo "launch/mpirun.sh: --kill-grace: '$kill_grace' is not whole seconds" >&2; exit 2 ;;
esac
args+=(--mca odls_base_sigkill_timeout "$kill_grace")
[ -n "$hostfile" ] && args+=(--hostfile "$hostfile")
[ -n "$np" ] && args+=(-np "$np")
[ -n "$per_node" ] && args+=(--map-by "ppr:$per_node:node")
case "$transport" in
    tcp) args+=(--mca pml ob1 --mca btl self,vader,tcp) ;;
    ucx) args+=(--mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any --mca btl ^openib) ;;
    *) echo "launch/mpirun.sh: --transport: '$transport' is not tcp or ucx" >&2; exit 2 ;;
esac
# The seconds a job gets to wind down after a fault: Open MPI's mpirun tears it down itself;
# under hydra the ranks that timed out end on their own within a second of the first (they see
# its record), and only a rank that cannot end (stopped, hung) is left to stop.
if [ -z "$grace" ]; then grace=5; [ "$mpi_kind" = mpich ] && grace=2; fi
if [ "$mpi_kind" = mpich ]; then
    # hydra's own spelling; its environment passes to the ranks whole. MPICH picks its network
    # when it is built (--transport has no say), and hydra places more ranks than cores freely.
    # -disable-auto-cleanup: hydra would SIGKILL every rank the moment one exits 3, before the
    # others say what they waited on; the grace below ends a job whose ranks do not all end.
    args=(-bind-to none -disable-auto-cleanup)
    [ -n "$hostfile" ] && args+=(-f "$hostfile")
    [ -n "$np" ] && args+=(-n "$np")
    [ -n "$per_node" ] && args+=(-ppn "$per_node")
    for a in "${extra[@]}"; do
        case "$a" in
            --oversubscribe) ;;
            --mca) echo "launch/mpirun.sh: --mca is Open MPI's; MPICH takes MPIR_CVAR_* variables" >&2
                   exit 2 ;;
            *) args+=("$a") ;;
        esac
    done
    extra=()
fi
# Ranks write to a pty under mpirun and cannot tell where mpirun's own output goes: colour only
# when this script's output is a terminal (CLICOLOR_FORCE=1 passed on), unless NO_COLOR is set.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
    export CLICOLOR_FORCE=1
    [ "$mpi_kind" = openmpi ] && args+=(-x CLICOLOR_FORCE)
fi
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1}
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}

# A folder of the launcher's own: rank 0 leaves a note there (its run directory, so that a run
# whose ranks are killed outright still gets a final state: finalize below). The ranks' stderr
# comes through a FIFO made there, opened at both ends and unlinked at once: nothing named is
# left in /tmp however the launcher ends, and the folder goes with the EXIT trap (or the guard).
priv=$(mktemp -d /tmp/scalecheck-launch.XXXXXX) || exit 3
note="$priv/run"
mkfifo "$priv/stderr"
exec 3<>"$priv/stderr" 4>"$priv/stderr"
rm -f "$priv/stderr"
trap 'rm -rf "$priv"' EXIT
export SCALECHECK_LAUNCH_NOTE=$note
[ "$mpi_kind" = openmpi ] && args+=(-x SCALECHECK_LAUNCH_NOTE)
# mpirun runs under a guard, in a session of its own: a signal meant for the job reaches it
# once, from here (two SIGTERMs make mpirun kill the ranks outright, with no final state, which
# a terminal's Ctrl-C to the whole foreground group, or a scheduler signalling every process,
# would otherwise cause). When the launcher itself is killed outright (SIGKILL, the OOM
# killer), the guard ends the job - SIGTERM, then SIGKILL to the whole session a grace later -
# and removes the launcher's folder: nothing is left running.
# Whether the launcher lives: still the guard's parent (a killed launcher is a zombie until its
# own parent reaps it, and kill -0 would say it is there; the guard is reparented at once).
guard='launcher=$1 priv=$2 grace=$3; shift 3
orphan() { [ "$(cut -d" " -f4 /proc/$$/stat)" != "$launcher" ]; }
noted() { sed -n "s/^$1=//p" "$priv/run" 2>/dev/null | tail -n 1; }
# a run whose ranks were killed before they wrote a final state gets one, as the launcher
# gives it (finalize): report --ended never replaces a state a rank wrote
ended() {
    local d e; d=$(noted dir); e=$(noted exe)
    [ -n "$d" ] && [ -x "$e" ] && [ -f "$d/result.json" ] || return 0
    "$e" report --ended interrupted --reason "the launcher was killed: its guard stopped the job" \
        "$d" >/dev/null 2>&1 </dev/null || true
}
"$@" & m=$!
trap "kill -TERM $m 2>/dev/null" TERM INT HUP
while kill -0 $m 2>/dev/null; do
    if orphan; then
        kill -TERM $m 2>/dev/null
        for _ in $(seq $((2 * grace))); do kill -0 $m 2>/dev/null || break; sleep 0.5; done
        for p in $(pgrep -s $$); do [ "$p" = $$ ] || kill -KILL "$p" 2>/dev/null; done
        ended
        rm -rf "$priv"
        exit 4
    fi
    sleep 0.5
done
wait $m; rc=$?
! orphan || rm -rf "$priv"  # mpirun may have ended first (SIGPIPE on the launcher'"'"'s pipe)
exit $rc'
setsid bash -c "$guard" guard "$$" "$priv" "$((kill_grace + 3))" \
    "$launcher" "${args[@]}" "${extra[@]}" "$@" 2>&4 &
mpi=$!
exec 4>&-
# Stopped ourselves (the user, the scheduler): mpirun passes one SIGTERM on to the ranks, which
# write their final state ("interrupted"); the launcher then ends in 4, as the README says. A
# second later, in case mpirun got the signal directly as well and is already winding down.
interrupted="" forwarded=""
trap 'interrupted=${interrupted:-$SECONDS}' TERM INT HUP

# Watch stderr (passing it on) for the watchdog's report. A read that times out keeps what it
# had read of a line (bash saves the partial input): it is joined to the rest, which the next
# read brings, so that no line loses its beginning when the second ends mid-line.
fault_at="" partial="" why="" who="" hydra_host="" deadline=""
pass_on() {
    printf '%s\n' "$1" >&2
    case "$1" in
        *"deadline: the run went on past --deadline"*"ending the job (exit 3)"*)
            deadline=1; [ -z "$fault_at" ] && fault_at=$SECONDS ;;
        *"ending the job (exit 3)"*) [ -z "$fault_at" ] && fault_at=$SECONDS ;;
        *"ORTE has lost communication with a remote daemon"* | \
            *"ORTE was unable to reliably start one or more daemons"*)  # Open MPI: a host lost
            [ -z "$why" ] && why="mpirun lost a daemon (a cut link or a host down)" ;;
        *"mpirun noticed that process rank "*" on node "*)  # Open MPI: a rank that died
            [ -n "$who" ] && return
            why="mpirun: ${1#*mpirun noticed that }"
            local rank=${1#*process rank } node=${1#* on node } how="ended"
            case "$1" in *" on signal "*) how=${1#* on signal }; how="ended by signal ${how%% *}" ;; esac
            who="rank ${rank%% *} (host ${node%% *}): $how, as mpirun reported"
            ;;
        *"RUNNING AT "*) hydra_host=${1#*RUNNING AT }; hydra_host=${hydra_host%% *} ;;
        *"EXIT CODE: "*)  # hydra's report of a process that died
            [ -z "$who" ] && [ -n "$hydra_host" ] && who="host $hydra_host: a rank ended with ${1#*= }"
            why="hydra: a rank on $hydra_host ended with ${1#*EXIT CODE: }"
            ;;
    esac
}
# Rank 0's note (key=value lines: dir, exe, exit), one key's last value; "" when rank 0 said
# nothing (it ran on another host, or never got that far).
noted() { [ -f "$note" ] && sed -n "s/^$1=//p" "$note" | tail -n 1; }
# The probes that tell whether a host answers, in the order tried: --probe's command, ping
# where it is installed, then a TCP connect from this shell (any answer - accepted or refused -
# is a host that answers; silence for a second, or no route, is one that does not).
tcp_probe() {
    local out
    out=$(timeout 1 bash -c 'exec 3<>"/dev/tcp/$1/9"' tcp_probe "$1" 2>&1) && return 0
    case "$out" in *"Connection refused"*) return 0 ;; esac
    return 1
}
ping_probe() { "${SCALECHECK_PING:-ping}" -c1 -W1 "$1"; }
probes() {
    [ -n "$probe" ] && echo "$probe"
    command -v "${SCALECHECK_PING:-ping}" >/dev/null 2>&1 && echo ping_probe
    echo tcp_probe
}
# Whether probe P can tell at all: it runs (exit 126/127: not there, not executable) and the
# host this launcher runs on - which answers by definition - answers it. A probe that cannot
# tell says so and the next is tried: it never turns into a verdict on every host.
probe_works() {
    local p=$1 rc self=${2:-}
    $p "${self:-localhost}" >/dev/null 2>&1; rc=$?
    [ $rc -eq 0 ] && return 0
    if [ $rc -eq 126 ] || [ $rc -eq 127 ]; then
        echo "scalecheck launcher: the probe '$p' cannot run here (exit $rc); trying the next" >&2
    else
        echo "scalecheck launcher: the probe '$p' finds even ${self:-localhost} (this host) unreachable: it cannot tell; trying the next" >&2
    fi
    return 1
}
# The hosts that do not answer from here, into lost (and who, when any).
find_lost() {
    lost=()
    [ -n "$hostfile" ] || return 0
    local hosts self p use=""
    hosts=$(awk '!/^#/ && NF {print $1}' "$hostfile")
    # this host as the hostfile names it, where it does
    self=$(hostname 2>/dev/null)
    printf '%s\n' $hosts | grep -qx "$self" || self=""
    while IFS= read -r p; do
        if probe_works "$p" "$self"; then use=$p; break; fi
    done < <(probes)
    if [ -z "$use" ]; then
        echo "scalecheck launcher: no probe can tell here whether a host answers: the hosts are not checked" >&2
        return 0
    fi
    for h in $hosts; do
        $use "$h" >/dev/null 2>&1 || lost+=("$h")
    done
    [ ${#lost[@]} -gt 0 ] && who="host ${lost[*]} (unreachable from the launcher: a cut link or a host down)"
    return 0
}
# A run that went on past its --deadline made progress, only too slowly: a link or a host at
# a fraction of its speed. Which one takes a measurement: a quick pair search on the same hosts
# (each node paired once, each member of a slow pair again with a good one: a bad node is slow
# with a good partner too), bounded, its suspects into who.
find_slow() {
    local exe out suspects
    exe=$(noted exe)
    [ -n "$deadline" ] && [ -x "$exe" ] || return 0
    echo "scalecheck launcher: the run passed its --deadline; a quick pair search for the slow host (at most 120 s)" >&2
    out=$(SCALECHECK_LAUNCH_NOTE="" timeout -k 5 150 "$launcher" "${args[@]}" "${extra[@]}" "$exe" pairs --strategy quick \
        --mode serial --size 1M -n 4 --looks 2 --timeout 20 --deadline 120 --no-preflight \
        --results-dir "$priv/pairs" 2>/dev/null </dev/null)
    suspects=$(printf '%s\n' "$out" | sed -n 's/^  SUSPECT \([a-z]*\) *\([^ ]*\) *\(.*\)$/\1 \2 (\3)/p' |
        paste -sd ';' -)
    if [ -n "$suspects" ]; then
        who="$suspects, found by the launcher's quick pair search after the deadline"
        echo "scalecheck launcher: slow: $suspects" >&2
    else
        echo "scalecheck launcher: the pair search named no host (every pair alike, or it did not finish)" >&2
    fi
}
# A run killed outright (its ranks SIGKILLed: no final state, "running") gets one from what was
# seen here: `report --ended` writes it (never over a state a rank wrote) and renders the report.
finalize() {
    local dir exe state=failed
    dir=$(noted dir) exe=$(noted exe)
    [ -n "$dir" ] && [ -x "$exe" ] && [ -f "$dir/result.json" ] || return 0
    [ -n "$interrupted" ] && state=interrupted
    local reason=${why:-"the job ended (exit $1) before its ranks wrote a final state"}
    "$exe" report --ended "$state" --reason "$reason" ${who:+--at-fault "$who"} "$dir" \
        >/dev/null 2>&1 </dev/null || true
}
while true; do
    if IFS= read -r -t 1 line <&3; then
        pass_on "$partial$line"
        partial=""
    else
        rc=$?
        partial+=$line # what a timeout read of a line, or a last line without a newline
        if ! kill -0 "$mpi" 2>/dev/null; then
            [ -z "$partial" ] || pass_on "$partial"
            break
        fi
        [ "$rc" -gt 128 ] || sleep 0.2 # the end of the output: mpirun is leaving
    fi
    if [ -n "$interrupted" ] && [ -z "$forwarded" ] && [ $((SECONDS - interrupted)) -ge 2 ]; then
        forwarded=1
        kill -TERM "$mpi" 2>/dev/null
    fi
    if [ -n "$fault_at" ] && [ $((SECONDS - fault_at)) -ge "$grace" ] && kill -0 "$mpi" 2>/dev/null; then
        find_lost
        why="the job did not wind down ${grace} s after a fault; lost host(s): ${lost[*]:-none unreachable}"
        echo "scalecheck launcher: $why; stopping mpirun (exit 3)" >&2
        # One SIGTERM, then SIGKILL: Open MPI 4.1's mpirun crashes (SIGSEGV) when it is
        # interrupted twice while a daemon is unreachable. Disowned, so that the shell does not
        # report how it ended: the line above has said what happened.
        disown "$mpi" 2>/dev/null
        kill -TERM "$mpi" 2>/dev/null
        for _ in 1 2 3 4; do kill -0 "$mpi" 2>/dev/null || break; sleep 0.5; done
        pkill -KILL -s "$mpi" 2>/dev/null || kill -KILL -- -"$mpi" 2>/dev/null
        find_slow
        finalize 3
        exit 3
    fi
done
wait "$mpi"
rc=$?
while kill -0 "$mpi" 2>/dev/null; do wait "$mpi"; rc=$?; done   # a trapped signal ends wait early
# The README's codes whatever ended the job. mpirun's own code says little: 1 when it was
# stopped or lost a daemon (the FAIL code), 128+N when a rank died of signal N, hydra 9 for a
# rank killed. Rank 0's note says what the command itself ended with: a job that ended
# otherwise than rank 0 said (or before it said anything) ended in a runtime fault.
own=$(noted exit)
runtime=""
if [ "$rc" -ne 0 ]; then
    if [ -n "$fault_at" ] || [ "$rc" -gt 4 ]; then runtime=1
    elif [ -s "$note" ] && [ "$own" != "$rc" ]; then runtime=1; fi
fi
if [ -n "$runtime" ] && [ -z "$interrupted" ]; then
    if [ -z "$who" ] && [ -z "$fault_at" ]; then # mpirun ended first: which hosts are gone
        find_lost
        why="${why:-"mpirun ended (exit $rc) before the command did"}; lost host(s): ${lost[*]:-none unreachable}"
        echo "scalecheck launcher: $why (exit 3)" >&2
    fi
    find_slow
fi
[ "$rc" -eq 0 ] || finalize "$rc"
[ -n "$interrupted" ] && exit 4
[ -n "$runtime" ] && exit 3
exit "$rc"
