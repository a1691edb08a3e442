#!/usr/bin/env bash
# A virtual cluster of N hosts on one machine: each host is a network namespace with its own
# hostname and address on a private bridge (inside a namespace of its own: the root namespace
# gets no address). Traffic stays inside the namespaces this script made.
#
#   vcluster.sh up NAME N [LEAVES]   create hosts NAME-h1..NAME-hN (10.77.0.1..N); with LEAVES,
#                                    the hosts split in order under that many leaf bridges,
#                                    each joined to a spine bridge by an uplink of its own
#   vcluster.sh mpirun NAME PER_HOST [mpirun args...] -- COMMAND...
#                                    run COMMAND with PER_HOST ranks on every host (mpirun in h1)
#   vcluster.sh exec NAME HOST COMMAND...   run a command on host HOST (h1, h2, ...)
#   vcluster.sh shape NAME HOST RATE        limit HOST's link (tc tbf, both ends), e.g. 200mbit
#   vcluster.sh shape-pair NAME HA HB RATE  limit only the traffic between HA and HB (a slow
#                                           route; tc htb + a u32 filter, both ends)
#   vcluster.sh shape-between NAME "HA..." "HB..." RATE   the traffic between two sets of hosts
#                                           (a slow path between two leaf switches)
#   vcluster.sh shape-uplink NAME LEAF RATE limit leaf LEAF's uplink to the spine (tc tbf, both
#                                           ends): every flow between leaves shares it
#   vcluster.sh cut NAME HOST               take HOST's link down
#   vcluster.sh heal NAME HOST              undo shape/cut
#   vcluster.sh env NAME HOST VAR=VALUE...  set variables for what runs on HOST (a host set up
#                                           differently: preflight's tests)
#   vcluster.sh down NAME                   kill what runs in the hosts, delete everything
#   vcluster.sh hosts NAME                  list the hosts
#   vcluster.sh probe NAME HOST             exit 0 when HOST answers from h1
# Needs root (ip netns, tc). See docs/REFERENCE.md §6 and launch/README.md.
# `up` exits 4 where this machine cannot make network namespaces (a chroot, an unprivileged
# container), with ip's reason, and leaves nothing behind. What runs on a host keeps its
# temporary files (the MPI runtime's session directories, shared-memory segments) in the
# cluster's own folders, which `down` removes with the namespaces.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
subnet=10.77.0

ns_of() { echo "$1-$2"; }            # NAME HOST -> namespace
tmp_of() { echo "/tmp/vcluster-$1"; }    # NAME -> the hosts' TMPDIRs (one folder a host)
shm_of() { echo "/dev/shm/vcluster-$1"; } # NAME -> Open MPI's shared-memory segments
bridge_ns() { echo "$1-br"; }
hosts_of() { ip netns list | awk '{print $1}' | grep -E "^$1-h[0-9]+$" | sed "s/^$1-//" | sort -V; }

# A failed `up` removes what it made, says why and exits 4: the tests skip on 4.
up_failed() {
    local name=$1 why
    trap - ERR
    set +e
    exec 2>&5 5>&-
    why=$(tail -n 1 "$2" 2>/dev/null)
    rm -f "$2"
    down "$name"
    echo "vcluster: cannot create network namespaces here: ${why:-unknown reason}" >&2
    exit 4
}

# Leaf bridges br1..brL, each joined to the spine bridge br0 by an uplink (veth uL - sL): a
# tree, so no loop and no spanning tree needed.
up_leaves() {
    local br=$1 leaves=$2 l
    for l in $(seq 1 "$leaves"); do
        ip -n "$br" link add "br$l" type bridge
        ip -n "$br" link set "br$l" up
        ip -n "$br" link add "u$l" type veth peer name "s$l"
        ip -n "$br" link set "u$l" master "br$l"
        ip -n "$br" link set "s$l" master br0
        ip -n "$br" link set "u$l" up
        ip -n "$br" link set "s$l" up
    done
}

# The bridge host i's port joins: br0, or its leaf's (hosts split in order).
bridge_of() {
    local i=$1 n=$2 leaves=$3
    [ "$leaves" -gt 1 ] || { echo br0; return; }
    echo "br$(( (i - 1) * leaves / n + 1 ))"
}

up() {
    local name=$1 n=$2 leaves=${3:-1} br errs
    br=$(bridge_ns "$name")
    errs=$(mktemp)
    trap 'up_failed "$name" "$errs"' ERR
    exec 5>&2 2>"$errs"  # ip's own words, for the reason
    ip netns add "$br"
    ip -n "$br" link set lo up
    ip -n "$br" link add br0 type bridge
    ip -n "$br" link set br0 up
    if [ "$leaves" -gt 1 ]; then up_leaves "$br" "$leaves"; fi
    for i in $(seq 1 "$n"); do
        local host=h$i ns
        ns=$(ns_of "$name" "$host")
        ip netns add "$ns"
        ip -n "$ns" link set lo up                 # without it mpirun hangs silently
        ip link add "vc$$-$i" type veth peer name "vp$$-$i"
        ip link set "vc$$-$i" netns "$ns"
        ip link set "vp$$-$i" netns "$br"
        ip -n "$ns" link set "vc$$-$i" name eth0
        ip -n "$br" link set "vp$$-$i" name "p$i"
        ip -n "$ns" addr add "$subnet.$i/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$br" link set "p$i" master "$(bridge_of "$i" "$n" "$leaves")"
        ip -n "$br" link set "p$i" up
        mkdir -p "$(tmp_of "$name")/$host"
    done
    # each host resolves the others' names, as a cluster's hosts do: `ip netns exec` puts
    # /etc/netns/NS/hosts over /etc/hosts inside the namespace
    for i in $(seq 1 "$n"); do
        local etc=/etc/netns/$(ns_of "$name" "h$i")
        mkdir -p "$etc"
        { cat /etc/hosts; for j in $(seq 1 "$n"); do echo "$subnet.$j h$j"; done; } > "$etc/hosts"
    done
    mkdir -p "$(shm_of "$name")"
    trap - ERR
    exec 2>&5 5>&-
    rm -f "$errs"
}

kill_all() {
    local ns
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^$1-h[0-9]+$"); do
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
    done
}

# Exit 0 when HOST answers a ping from h1 (used by the launcher to name lost hosts); 127 where
# the ping command (SCALECHECK_PING, default ping) is not installed.
probe() {
    local name=$1 host=$2 i=${2#h} ping=${SCALECHECK_PING:-ping}
    command -v "$ping" >/dev/null 2>&1 || return 127
    ip netns exec "$(ns_of "$name" h1)" "$ping" -c1 -W1 "$subnet.$i" >/dev/null 2>&1
}

down() {
    local name=$1 ns f
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-(h[0-9]+|br)$"); do
        # end what runs there first (mpirun may ignore SIGTERM when a link is cut: KILL)
        for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
        ip netns del "$ns" 2>/dev/null || true
    done
    # a namespace that was half made (its mount point without a mount) is not listed by ip
    for f in /run/netns/"$name"-h* /run/netns/"$name"-br; do
        [ -e "$f" ] || continue
        umount "$f" 2>/dev/null || true
        rm -f "$f" 2>/dev/null || true
    done
    rm -rf "$(tmp_of "$name")" "$(shm_of "$name")"
    rm -rf /etc/netns/"$name"-h*
}

# Runs a command on a host, with the host's own hostname (unshare --uts).
# What runs on a host reads its variables from here (`env`); sourced by exec_on, run_mpi (h1)
# and rsh-agent.sh (the MPI daemons of the other hosts).
env_of() { echo "$(tmp_of "$1")/$2/env"; }

set_env() {
    local name=$1 host=$2 kv; shift 2
    for kv in "$@"; do printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}" >> "$(env_of "$name" "$host")"; done
}

exec_on() {
    local name=$1 host=$2; shift 2
    TMPDIR=$(tmp_of "$name")/$host exec ip netns exec "$(ns_of "$name" "$host")" unshare --uts \
        sh -c 'hostname "$0"; [ -f "$TMPDIR/env" ] && . "$TMPDIR/env"; exec "$@"' "$host" "$@"
}

shape() {
    local name=$1 host=$2 rate=$3 i=${2#h}
    ip netns exec "$(ns_of "$name" "$host")" tc qdisc replace dev eth0 root tbf rate "$rate" \
        burst 256kbit latency 400ms
    ip netns exec "$(bridge_ns "$name")" tc qdisc replace dev "p$i" root tbf rate "$rate" \
        burst 256kbit latency 400ms
}

shape_uplink() {
    local name=$1 leaf=$2 rate=$3 end
    for end in "u$leaf" "s$leaf"; do
        ip netns exec "$(bridge_ns "$name")" tc qdisc replace dev "$end" root tbf rate "$rate" \
            burst 256kbit latency 400ms
    done
}

# The traffic of one host to one address only, through an htb class of its own (the rest goes
# to a class too fast to matter; htb and u32 are what a minimal kernel has: no prio, no netem).
shape_to() {
    local ns=$1 rate=$2 dst; shift 2
    ip netns exec "$ns" tc qdisc replace dev eth0 root handle 1: htb default 10
    ip netns exec "$ns" tc class replace dev eth0 parent 1: classid 1:10 htb rate 100gbit \
        quantum 200000
    ip netns exec "$ns" tc class replace dev eth0 parent 1: classid 1:20 htb rate "$rate" \
        quantum 1514
    for dst in "$@"; do  # every address shares the one slow class: one slow uplink
        ip netns exec "$ns" tc filter add dev eth0 protocol ip parent 1:0 prio 1 u32 \
            match ip dst "$dst/32" flowid 1:20
    done
}

shape_pair() {
    local name=$1 a=$2 b=$3 rate=$4
    shape_to "$(ns_of "$name" "$a")" "$rate" "$subnet.${b#h}"
    shape_to "$(ns_of "$name" "$b")" "$rate" "$subnet.${a#h}"
}

# Every host of one set slowed towards every host of the other, both ways.
shape_between() {
    local name=$1 rate=$4 h addrs_a=() addrs_b=()
    for h in $2; do addrs_a+=("$subnet.${h#h}"); done
    for h in $3; do addrs_b+=("$subnet.${h#h}"); done
    for h in $2; do shape_to "$(ns_of "$name" "$h")" "$rate" "${addrs_b[@]}"; done
    for h in $3; do shape_to "$(ns_of "$name" "$h")" "$rate" "${addrs_a[@]}"; done
}

heal() {
    local name=$1 host=$2 i=${2#h}
    ip netns exec "$(ns_of "$name" "$host")" tc qdisc del dev eth0 root 2>/dev/null || true
    ip netns exec "$(bridge_ns "$name")" tc qdisc del dev "p$i" root 2>/dev/null || true
    ip -n "$(ns_of "$name" "$host")" link set eth0 up
    ip -n "$(bridge_ns "$name")" link set "p$i" up
    # A port set up again forwards a moment later: a job started at once could not start its
    # daemon there (ORTE: "unable to reliably start one or more daemons", 1 launch in 8 right
    # after a heal). Healed means answering again, and reaching every other host (its
    # neighbours learnt again both ways: a job's first connection from it to a third host once
    # never completed, "failed to TCP connect ... Operation now in progress"): 10 s at most.
    local ping=${SCALECHECK_PING:-ping} other
    for _ in $(seq 1 20); do
        if probe "$name" "$host"; then
            for other in $(hosts_of "$name"); do
                [ "$other" = "$host" ] && continue
                ip netns exec "$(ns_of "$name" "$host")" "$ping" -c1 -W1 "$subnet.${other#h}" \
                    >/dev/null 2>&1 || continue 2
            done
            return 0
        fi
        sleep 0.5
    done
    echo "vcluster: $host does not answer, or reach every host, 10 s after the heal" >&2
    return 1
}

cut() {
    local name=$1 host=$2 i=${2#h}
    ip -n "$(bridge_ns "$name")" link set "p$i" down
}

run_mpi() {
    local name=$1 per_host=$2; shift 2
    local margs=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do margs+=("$1"); shift; done
    [ "${1:-}" = "--" ] && shift
    local hostfile
    hostfile=$(mktemp "$(tmp_of "$name")/hostfile.XXXXXX")  # the cluster's own tree: gone with `down`
    for host in $(hosts_of "$name"); do echo "$host slots=$per_host" >> "$hostfile"; done
    local n=$(( $(wc -l < "$hostfile") * per_host ))
    # The rsh agent runs the daemons in their host's namespace; oob/btl on the cluster subnet;
    # --bind-to none, or every daemon binds its ranks to core 0 (docs/REFERENCE.md §6).
    # launch/mpirun.sh ends the job after a fault even when a cut link would hang mpirun.
    # --kill-grace 0: the daemons wait it out on every non-zero ending, a FAIL verdict too (4
    # hosts: 7.7 s at 2, 3.7 s at 1); this cluster's ranks end on their own watchdogs, not on
    # mpirun's SIGTERM (test_faults.py holds the grace a stopped rank gets, on one host).
    # The hosts share this machine's cores, which no daemon knows: a rank waiting for a peer
    # yields (mpi_yield_when_idle), or it spins through the peer's time slice and an 8-byte
    # all-reduce on 4 hosts takes 8 ms instead of ~0.1 ms - the scheduler, not the links.
    VCLUSTER_NAME=$name TMPDIR=$(tmp_of "$name")/h1 \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        ip netns exec "$(ns_of "$name" h1)" unshare --uts \
        sh -c 'hostname h1; [ -f "$TMPDIR/env" ] && . "$TMPDIR/env"; exec "$@"' h1 \
        "$here/../mpirun.sh" --hostfile "$hostfile" -np "$n" --transport tcp --kill-grace 0 \
        --probe "$here/vcluster.sh probe $name" \
        --mca plm_rsh_agent "$here/rsh-agent.sh" \
        --mca oob_tcp_if_include "$subnet.0/24" --mca btl_tcp_if_include "$subnet.0/24" \
        --mca btl_vader_backing_directory "$(shm_of "$name")" \
        --mca mpi_yield_when_idle 1 --oversubscribe -x VCLUSTER_NAME "${margs[@]}" -- "$@"
    local rc=$?
    rm -f "$hostfile"
    # After a fault, end what is left on the hosts (only this cluster's namespaces).
    [ $rc -eq 3 ] && kill_all "$name"
    return $rc
}

cmd=${1:-}; shift || true
case "$cmd" in
    up) up "$@" ;;
    down) down "$@" ;;
    exec) exec_on "$@" ;;
    shape) shape "$@" ;;
    shape-pair) shape_pair "$@" ;;
    shape-uplink) shape_uplink "$@" ;;
    shape-between) shape_between "$@" ;;
    heal) heal "$@" ;;
    env) set_env "$@" ;;
    cut) cut "$@" ;;
    hosts) hosts_of "$@" ;;
    probe) probe "$@" ;;
    mpirun) set +e; run_mpi "$@"; exit $? ;;
    *) sed -n '2,33p' "$0" >&2; exit 2 ;;
esac
