/* sc_xid_log.c - XIDs from the kernel log. */
#include "telemetry/sc_xid_log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool sc_xid_is_hardware(long long xid)
{
    static const long long hardware[] = {48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120};
    for (size_t i = 0; i < sizeof(hardware) / sizeof(hardware[0]); i++)
        if (xid == hardware[i])
            return true;
    return false;
}

/* "00000000:1B:00.0" or "0000:1b:00" as (domain, bus, device); false when it is neither. */
static bool xid_log__bus(const char *text, unsigned long v[3])
{
    char *end = NULL;
    for (int i = 0; i < 3; i++) {
        v[i] = strtoul(text, &end, 16);
        if (end == text || (i < 2 && *end != ':'))
            return false;
        text = end + 1;
    }
    return true;
}

/* One log line: an XID for the GPU at want, counted. */
static void xid_log__line(const char *line, const unsigned long want[3], sc_xid_tally_t *out)
{
    const char *at = strstr(line, "NVRM: Xid (PCI:");
    unsigned long bus[3];
    if (at == NULL || !xid_log__bus(at + strlen("NVRM: Xid (PCI:"), bus))
        return;
    if (bus[0] != want[0] || bus[1] != want[1] || bus[2] != want[2])
        return;
    const char *num = strstr(at, "): ");
    if (num == NULL)
        return;
    long long xid = strtoll(num + 3, NULL, 10);
    out->count++;
    out->last = xid;
    out->hardware += sc_xid_is_hardware(xid);
}

bool sc_xid_log_read(const char *bus_id, sc_xid_tally_t *out, char *why, size_t len)
{
    *out = (sc_xid_tally_t){0, -1, 0};
    unsigned long want[3];
    if (!xid_log__bus(bus_id, want)) {
        snprintf(why, len, "no PCI bus id for the GPU ('%s')", bus_id);
        return false;
    }
    const char *file = getenv("SCALECHECK_KMSG");
    const char *path = file != NULL && file[0] ? file : "/dev/kmsg";
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, len, "%s: %s", path, strerror(errno));
        return false;
    }
    /* /dev/kmsg gives one record a read and EAGAIN at the end; a file gives blocks */
    char buf[8192], line[8192];
    size_t used = 0;
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
        if (n < 0) /* a record overwritten while reading: skip it */
            continue;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n' && used < sizeof(line) - 1) {
                line[used++] = buf[i];
                continue;
            }
            line[used] = '\0';
            xid_log__line(line, want, out);
            used = 0;
        }
    }
    line[used] = '\0';
    xid_log__line(line, want, out);
    close(fd);
    return true;
}
