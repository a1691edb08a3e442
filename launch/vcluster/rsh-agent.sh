#!/bin/sh
# Open MPI's launch agent for the virtual cluster: called like ssh (HOST COMMAND...), runs the
# command in HOST's namespace with HOST as its hostname. Open MPI passes the remote command
# already quoted for a shell, hence sh -c "$*".
host=$1
shift
# Its temporary files (the MPI runtime's session directory) go to the host's own folder, which
# `vcluster.sh down` removes.
# Its variables (`vcluster.sh env`) are read there too.
TMPDIR=/tmp/vcluster-$VCLUSTER_NAME/$host exec ip netns exec "$VCLUSTER_NAME-$host" \
    unshare --uts sh -c "hostname $host; [ -f \"\$TMPDIR/env\" ] && . \"\$TMPDIR/env\"; $*"
