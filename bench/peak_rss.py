"""Runs one command (a rank's) and prints its peak resident set size, as the kernel counted it
for the finished child: 'peak_rss_kb N rank R exit C'. bench/peak-rss.sh starts it under mpirun."""
import os
import resource
import subprocess
import sys

rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "?"))
print(f"peak_rss_kb {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss} rank {rank} exit {rc}")
