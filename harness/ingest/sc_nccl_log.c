/* sc_nccl_log.c - NCCL's INFO log, read (sc_nccl_log.h). */
#include "ingest/sc_nccl_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char names[SC_NCCL_LOG_NICS][32];
} nccl_log__devices_t;

/* " [0]mlx5_0:1/IB [1]mlx5_1:1/IB" or " [0]eth0:10.0.0.1<0>": each device's name, up to its
 * ':' (the port, or the interface's address). */
static void nccl_log__devices(const char *list, nccl_log__devices_t *d)
{
    for (const char *p = strchr(list, '['); p != NULL; p = strchr(p + 1, '[')) {
        char *end = NULL;
        long i = strtol(p + 1, &end, 10);
        if (end == p + 1 || *end != ']' || i < 0 || i >= SC_NCCL_LOG_NICS)
            continue;
        size_t n = strcspn(end + 1, ": ;<\n");
        snprintf(d->names[i], sizeof(d->names[i]), "%.*s", (int)(n < 31 ? n : 31), end + 1);
    }
}

/* One "Channel ..." line's connection (line: that line alone), when it is rank's send to peer
 * through the network. */
static void nccl_log__channel(const char *line, int rank, int peer, sc_nccl_net_use_t *out)
{
    int from = -1, to = -1, dev = -1, n = 0;
    char net[16] = "";
    const char *at = strstr(line, "Channel ");
    const char *arrow = at ? strstr(at, " : ") : NULL;
    if (arrow == NULL || strstr(line, "[send] via NET/") == NULL ||
        sscanf(arrow, " : %d[%*d] -> %d[%*d] [send] via NET/%15[^/]/%d%n", &from, &to, net, &dev,
               &n) != 4 ||
        from != rank || to != peer)
        return;
    const char *rest = arrow + n;
    if (out->sends == 0) {
        out->nic_index = dev;
        snprintf(out->net, sizeof(out->net), "%s", net);
    } else if (dev != out->nic_index) {
        out->other_nics++;
    }
    out->sends++;
    if (strstr(rest, "/GDRDMA") != NULL)
        out->gdr_sends++;
}

bool sc_nccl_log_net(const char *text, int rank, int peer, sc_nccl_net_use_t *out)
{
    memset(out, 0, sizeof(*out));
    out->nic_index = -1;
    nccl_log__devices_t devices;
    memset(&devices, 0, sizeof(devices));
    for (const char *line = text; line != NULL && *line != '\0';) {
        const char *eol = strchr(line, '\n');
        size_t len = eol != NULL ? (size_t)(eol - line) : strlen(line);
        char one[1024]; /* the line alone: nothing read runs on into the next */
        snprintf(one, sizeof(one), "%.*s", (int)(len < sizeof(one) ? len : sizeof(one) - 1), line);
        const char *info = strstr(one, "NCCL INFO ");
        const char *listed = info != NULL ? strstr(info, " : Using") : NULL;
        if (listed != NULL && strncmp(info + 10, "NET/", 4) == 0)
            nccl_log__devices(listed + 8, &devices);
        else if (info != NULL)
            nccl_log__channel(info, rank, peer, out);
        line = eol != NULL ? eol + 1 : NULL;
    }
    if (out->nic_index < 0)
        return false;
    const char *name = out->nic_index < SC_NCCL_LOG_NICS ? devices.names[out->nic_index] : "";
    if (name[0] != '\0')
        snprintf(out->nic, sizeof(out->nic), "%s", name);
    else
        snprintf(out->nic, sizeof(out->nic), "dev %d", out->nic_index);
    return true;
}
