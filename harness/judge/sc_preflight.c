#include "judge/sc_preflight.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The values of one kind, host by host, and the groups of hosts that share one. */
typedef struct {
    const char **value; /* n, one per host */
    int *order;         /* host indices sorted by value, then by index */
    int n;
} pf__column_t;

static int pf__cmp(const void *a, const void *b, void *arg)
{
    const pf__column_t *col = arg;
    int x = *(const int *)a, y = *(const int *)b, order = strcmp(col->value[x], col->value[y]);
    return order != 0 ? order : (x > y) - (x < y);
}

/* "h7" or "3 hosts (h7, h9, h12)" for the group at order[first .. first+count). */
static void pf__hosts(const sc_hostcfg_t *hosts, const pf__column_t *col, int first, int count,
                      char *buf, size_t len)
{
    if (count == 1) {
        snprintf(buf, len, "%s", hosts[col->order[first]].host);
        return;
    }
    size_t used = (size_t)snprintf(buf, len, "%d hosts (", count);
    for (int i = 0; i < count && used + 1 < len; i++) {
        if (i == 4 && count > 5) {
            used += (size_t)snprintf(buf + used, len - used, "... ");
            break;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 hosts[col->order[first + i]].host);
    }
    if (used + 1 < len)
        snprintf(buf + used, len - used, ")");
}

static void pf__finding(sc_findings_t *findings, sc_severity_t severity, const char *host,
                        const char *what)
{
    sc_finding_t *f = SC_LIST_PUSH(findings);
    if (f == NULL)
        return;
    snprintf(f->severity, sizeof(f->severity), "%s", sc_severity_name(severity));
    snprintf(f->what, sizeof(f->what), "%s", what);
    snprintf(f->host, sizeof(f->host), "%s", host);
    f->declared = f->detected = SC_ABSENT;
}

/* Groups the column; every group but the largest becomes a finding (with no largest - a tie -
 * every group does). Marks the hosts named in odd[]. */
static void pf__compare(const sc_hostcfg_t *hosts, pf__column_t *col, const char *label,
                        sc_severity_t severity, sc_findings_t *findings, bool *odd)
{
    qsort_r(col->order, (size_t)col->n, sizeof(int), pf__cmp, col);
    int best = 0, best_count = 0, groups = 0, tie = 0;
    for (int i = 0; i < col->n;) {
        int j = i;
        while (j < col->n && strcmp(col->value[col->order[j]], col->value[col->order[i]]) == 0)
            j++;
        groups++;
        tie = j - i == best_count ? tie + 1 : j - i > best_count ? 0 : tie;
        if (j - i > best_count) {
            best = i;
            best_count = j - i;
        }
        i = j;
    }
    if (groups < 2)
        return;
    const char *common = col->value[col->order[best]];
    for (int i = 0; i < col->n;) {
        int j = i;
        while (j < col->n && strcmp(col->value[col->order[j]], col->value[col->order[i]]) == 0)
            j++;
        if (i != best || tie > 0) {
            char who[160], what[256];
            pf__hosts(hosts, col, i, j - i, who, sizeof(who));
            if (tie > 0)
                snprintf(what, sizeof(what), "%s: %s %s; no setting has a majority of the %d hosts",
                         who, label, col->value[col->order[i]], col->n);
            else
                snprintf(what, sizeof(what), "%s: %s %s while %d host%s %s %s", who, label,
                         col->value[col->order[i]], best_count, best_count == 1 ? "" : "s",
                         best_count == 1 ? "has" : "have", common);
            pf__finding(findings, severity, hosts[col->order[i]].host, what);
            for (int k = i; k < j; k++)
                odd[col->order[k]] = true;
        }
        i = j;
    }
}

/* The value of variable name in a host's env lines ("(unset)" when absent), into buf. */
static const char *pf__env_value(const char *env, const char *name, char *buf, size_t len)
{
    size_t n = strlen(name);
    for (const char *line = env; line && *line;) {
        const char *end = strchr(line, '\n');
        if (strncmp(line, name, n) == 0 && line[n] == '=') {
            size_t vlen = end ? (size_t)(end - line) - n - 1 : strlen(line + n + 1);
            snprintf(buf, len, "%.*s", (int)vlen, line + n + 1);
            return buf;
        }
        line = end ? end + 1 : NULL;
    }
    snprintf(buf, len, "(unset)");
    return buf;
}

static int pf__by_name(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

typedef char pf__name_t[128];

/* The names of the variables the hosts set, each once, sorted; their count (-1: no memory). */
static int pf__env_names(const sc_hostcfg_t *hosts, int n, pf__name_t **out)
{
    size_t count = 0, cap = 0;
    pf__name_t *names = NULL;
    for (int h = 0; h < n; h++)
        for (const char *line = hosts[h].env; line && *line;) {
            const char *eq = strchr(line, '='), *end = strchr(line, '\n');
            if (count == cap) {
                pf__name_t *grown = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*names));
                if (grown == NULL) {
                    free(names);
                    return -1;
                }
                names = grown;
            }
            if (eq != NULL && eq > line)
                snprintf(names[count++], sizeof(*names), "%.*s", (int)(eq - line), line);
            line = end ? end + 1 : NULL;
        }
    if (count > 0)
        qsort(names, count, sizeof(*names), pf__by_name);
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (kept == 0 || strcmp(names[kept - 1], names[i]) != 0)
            memmove(names[kept++], names[i], sizeof(*names));
    *out = names;
    return (int)kept;
}

/* Every variable any host sets, compared host by host (warnings). */
static void pf__env(const sc_hostcfg_t *hosts, pf__column_t *col, sc_findings_t *findings,
                    bool *odd)
{
    pf__name_t *names = NULL;
    int nnames = pf__env_names(hosts, col->n, &names);
    char(*values)[SC_HOSTCFG_ENV_MAX] = nnames > 0 ? calloc((size_t)col->n, sizeof(*values)) : NULL;
    for (int v = 0; values != NULL && v < nnames; v++) {
        for (int k = 0; k < col->n; k++) {
            col->value[k] = pf__env_value(hosts[k].env, names[v], values[k], sizeof(values[k]));
            col->order[k] = k;
        }
        pf__compare(hosts, col, names[v], SC_SEVERITY_WARNING, findings, odd);
    }
    free(values);
    free(names);
}

/* What a host shows alone: a GPU's PCIe link below its maximum, a port that is not ACTIVE, a
 * GPU at rest in trouble (a remap pending or failed, a hardware XID) or repaired. */
static void pf__own(const sc_hostcfg_t *h, sc_findings_t *findings, bool *odd)
{
    const struct {
        const char *text;
        sc_severity_t severity;
    } own[] = {{h->pcie_degraded, SC_SEVERITY_WARNING},
               {h->ib_down, SC_SEVERITY_ERROR},
               {h->gpu_trouble, SC_SEVERITY_ERROR},
               {h->gpu_repairs, SC_SEVERITY_WARNING}};
    char what[320];
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
        if (own[i].text[0] == '\0')
            continue;
        snprintf(what, sizeof(what), "%s: %s", h->host, own[i].text);
        pf__finding(findings, own[i].severity, h->host, what);
        *odd = true;
    }
}

static sc_level_t pf__check(int n, const bool *odd, const sc_findings_t *findings, size_t first,
                            sc_checks_t *checks)
{
    int differing = 0;
    for (int h = 0; h < n; h++)
        differing += odd[h];
    sc_level_t level = SC_LEVEL_PASS;
    for (size_t i = first; i < findings->n; i++)
        level = strcmp(findings->items[i].severity, "error") == 0 ? SC_LEVEL_FAIL
                : level == SC_LEVEL_PASS                          ? SC_LEVEL_WARN
                                                                  : level;
    sc_check_t *c = SC_LIST_PUSH(checks);
    if (c == NULL)
        return level;
    snprintf(c->name, sizeof(c->name), "preflight: %d host%s set up alike", n, n == 1 ? "" : "s");
    snprintf(c->metric, sizeof(c->metric), "hosts_differing");
    snprintf(c->source, sizeof(c->source), "preflight");
    c->measured = differing;
    c->expected = 0;
    c->ratio = n > 0 ? (double)(n - differing) / n : 1.0;
    c->level = level;
    c->higher_is_better = true;
    c->looks = 1;
    if (findings->n > first)
        snprintf(c->note, sizeof(c->note), "%s%s", findings->items[first].what,
                 findings->n > first + 1 ? " (and more: the findings)" : "");
    return level;
}

sc_level_t sc_preflight_judge(const sc_hostcfg_t *hosts, int n, sc_findings_t *findings,
                              sc_checks_t *checks)
{
    pf__column_t col = {calloc((size_t)n, sizeof(char *)), calloc((size_t)n, sizeof(int)), n};
    bool *odd = calloc((size_t)n, sizeof(bool));
    size_t first = findings->n;
    for (const sc_hostcfg_kind_t *k = sc_hostcfg_kinds; col.value && col.order && odd && k->field;
         k++) {
        for (int h = 0; h < n; h++) {
            col.value[h] = (const char *)&hosts[h] + k->offset;
            col.order[h] = h;
        }
        pf__compare(hosts, &col, k->label, k->severity, findings, odd);
    }
    if (col.value && col.order && odd)
        pf__env(hosts, &col, findings, odd);
    for (int h = 0; odd && h < n; h++)
        pf__own(&hosts[h], findings, &odd[h]);
    sc_level_t level = odd ? pf__check(n, odd, findings, first, checks) : SC_LEVEL_FAIL;
    free(col.value);
    free(col.order);
    free(odd);
    return level;
}
