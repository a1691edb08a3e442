/* sc_memory.h - how much memory this host can still give a run: the kernel's estimate of what
 * can be allocated without swapping, capped by the memory limit of the process's control group
 * (a Slurm job or a container is held to that, not to the machine). */
#ifndef SC_MEMORY_H
#define SC_MEMORY_H

#include <stddef.h>
#include <stdint.h>

/* Bytes available, 0 when nothing says; where names the source ("MemAvailable", "cgroup
 * memory.max"). */
uint64_t sc_memory_host_available(char *where, size_t len);

#endif
