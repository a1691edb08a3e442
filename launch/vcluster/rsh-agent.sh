#!/bin/sh
# Open MPI's launch agent for the virtual cluster: called like ssh (HOST COMMAND...), runs the
# command in HOST's namespace with HOST as its hostname. Open MPI passes the remote command
# already quoted for a shell, hence sh -c "$*".
host=$1
shift
exec ip netns exec "$VCLUSTER_NAME-$host" unshare --uts sh -c "hostname $host; $*"
