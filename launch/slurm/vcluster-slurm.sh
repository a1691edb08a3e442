#!/usr/bin/env bash
# A real Slurm on the virtual cluster: munged (shared by all namespaces through its socket),
# slurmctld in host h1, one `slurmd -N hI` per host, each with its own spool and TmpFS.
#   vcluster-slurm.sh start NAME    (after vcluster.sh up NAME N)
#   vcluster-slurm.sh srun NAME SRUN_ARGS...     run srun in h1 with this cluster's config
#   vcluster-slurm.sh sbatch NAME SBATCH_ARGS... submit a batch job the same way
#   vcluster-slurm.sh stop NAME
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vc="$here/../vcluster/vcluster.sh"
name=$2
dir=/tmp/vcluster-slurm-$name
conf=$dir/slurm.conf

start() {
    local hosts n
    hosts=$("$vc" hosts "$name")
    n=$(echo "$hosts" | wc -w)
    rm -rf "$dir"; mkdir -p "$dir/state" "$dir/log"
    for h in $hosts; do mkdir -p "$dir/spool-$h" "$dir/tmp-$h"; done
    if ! pgrep -x munged >/dev/null; then   # started here, so stopped here too
        mkdir -p /run/munge && chown munge:munge /run/munge 2>/dev/null || true
        [ -s /etc/munge/munge.key ] || mungekey --create >/dev/null 2>&1 || true
        munged --force --pid-file "$dir/munged.pid"
    fi
    cat > "$conf" <<CONF
ClusterName=vc$name
SlurmctldHost=h1(10.77.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
GresTypes=gpu
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
TmpFS=$dir/tmp-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmctldPort=6817
SlurmdPort=6818
NodeName=h[1-$n] NodeAddr=10.77.0.[1-$n] CPUs=2 Gres=gpu:2 State=UNKNOWN
PartitionName=vc Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
    # Two "GPUs" a host as Slurm counts them, so that the batch scripts' --gpus-per-node is
    # allocated as on a GPU cluster. slurmd counts a GPU only with a device file; these hosts
    # have none, so two character devices every Linux has stand in (nothing opens them).
    printf 'NodeName=h[1-%s] Name=gpu File=/dev/null\nNodeName=h[1-%s] Name=gpu File=/dev/zero\n' \
        "$n" "$n" > "$dir/gres.conf"
    "$vc" exec "$name" h1 slurmctld -f "$conf"
    # `ip netns exec` mounts a fresh /sys without cgroups, which slurmd needs: mount the cgroup
    # v1 hierarchies again inside (only in that command's mount namespace).
    local remount='mount -t tmpfs cgroup_root /sys/fs/cgroup
        for c in cpu cpuacct cpuset memory devices freezer pids blkio; do
            mkdir -p /sys/fs/cgroup/$c && mount -t cgroup -o $c cgroup /sys/fs/cgroup/$c; done
        mkdir -p /sys/fs/cgroup/systemd
        mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd'
    for h in $hosts; do
        ip netns exec "$name-$h" unshare --uts sh -c "$remount; hostname $h; exec slurmd -f $conf -N $h"
    done
    export SLURM_CONF=$conf
    for _ in $(seq 1 100); do   # until every node is idle
        states=$("$vc" exec "$name" h1 sinfo -h -o %t 2>/dev/null || true)
        if [ -n "$states" ] && ! echo "$states" | grep -qvE '^(idle|mix)$'; then return 0; fi
        sleep 0.2
    done
    echo "vcluster-slurm: nodes did not come up:" >&2
    "$vc" exec "$name" h1 sinfo >&2 || true
    return 1
}

case "$1" in
    start) start ;;
    srun | sbatch) cmd=$1; shift 2
        # Open MPI's TCP traffic stays on the cluster's subnet, as with vcluster.sh mpirun.
        exec "$vc" exec "$name" h1 env SLURM_CONF="$conf" OMPI_MCA_btl_tcp_if_include=10.77.0.0/24 \
            OMPI_MCA_oob_tcp_if_include=10.77.0.0/24 OMPI_ALLOW_RUN_AS_ROOT=1 \
            OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$cmd" "$@" ;;
    stop) pids=()
          for p in "$dir"/slurm*.pid "$dir"/munged.pid; do
              [ -f "$p" ] && pids+=("$(cat "$p")"); done
          kill "${pids[@]}" 2>/dev/null || true
          for _ in $(seq 20); do kill -0 "${pids[@]}" 2>/dev/null || break; sleep 0.1; done
          rm -rf "$dir" ;;  # its state, spools and logs: nothing is left behind
    *) sed -n '2,7p' "$0" >&2; exit 2 ;;
esac
