/* sc_detect_match.c - the shipped topology that describes a detected host (sc_detect_match.h). */
#include "detect/sc_detect_match.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/sc_files.h"

void sc_detect_gpu_token(const char *name, char *token, size_t len)
{
    token[0] = '\0';
    for (const char *p = name; *p != '\0';) {
        while (*p != '\0' && !isalnum((unsigned char)*p))
            p++;
        const char *start = p;
        int digits = 0;
        while (isalnum((unsigned char)*p))
            digits += isdigit((unsigned char)*p++) != 0;
        size_t n = (size_t)(p - start);
        /* the model: letters and digits, a digit among them, not a memory size ("80GB") */
        bool size = n > 2 && toupper((unsigned char)start[n - 1]) == 'B' &&
                    toupper((unsigned char)start[n - 2]) == 'G';
        if (digits > 0 && !size && n >= 2) {
            snprintf(token, len, "%.*s", (int)n, start);
            for (char *c = token; *c; c++)
                *c = (char)toupper((unsigned char)*c);
            return;
        }
    }
}

/* The architecture of a model token: NVIDIA's letter names it (H Hopper, A Ampere, L and the
 * 40-series Ada, V Volta, B Blackwell), AMD's MI and Huawei's 910 their own. */
static const char *detect_match__family(const char *token)
{
    static const struct {
        const char *prefix, *family;
    } table[] = {{"GH", "hopper"}, {"GB", "blackwell"}, {"H", "hopper"},  {"B", "blackwell"},
                 {"A", "ampere"},  {"L", "ada"},        {"40", "ada"},    {"30", "ampere"},
                 {"V", "volta"},   {"MI", "cdna"},      {"910", "ascend"}};
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
        if (strncmp(token, table[i].prefix, strlen(table[i].prefix)) == 0)
            return table[i].family;
    return "";
}

/* Same model: equal tokens, or one the other with a suffix of letters (MI250 and MI250X). */
static bool detect_match__same_model(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;
    if (n == 0 || strncmp(a, b, n) != 0)
        return false;
    const char *rest = la > lb ? a + n : b + n;
    for (; *rest; rest++)
        if (!isalpha((unsigned char)*rest))
            return false;
    return true;
}

static int detect_match__detected_fabric(const sc_detected_t *d)
{
    return d->nvlinks_up >= 12 ? SC_FABRIC_nvswitch
           : d->nvlinks_up > 0 ? SC_FABRIC_nvlink_bridge
                               : SC_FABRIC_pcie;
}

sc_topology_fit_t sc_detect_fit(const sc_detected_t *d, const sc_topology_t *t)
{
    sc_topology_fit_t fit = {0};
    char have[32], declared[32];
    sc_detect_gpu_token(d->gpu, have, sizeof(have));
    sc_detect_gpu_token(t->gpu, declared, sizeof(declared));
    const char *fam_have = detect_match__family(have),
               *fam_declared = detect_match__family(declared);
    if (d->gpus <= 0 || t->library == SC_LIB_mpi || have[0] == '\0') {
        snprintf(fit.why, sizeof(fit.why), "%s: %s", t->name,
                 d->gpus <= 0               ? "no GPU detected"
                 : t->library == SC_LIB_mpi ? "host path"
                                            : "GPU model unknown");
        return fit;
    }
    if (!detect_match__same_model(have, declared)) {
        /* Another model of the same architecture has other rates (an H200's memory is 2.4 times
         * an H100 PCIe's): the host is not held to its file, which is only named. */
        fit.same_architecture = fam_have[0] != '\0' && strcmp(fam_have, fam_declared) == 0;
        snprintf(fit.why, sizeof(fit.why), "%s: declares %s, this host has %s%s", t->name, t->gpu,
                 d->gpu, fit.same_architecture ? " (same architecture, other rates)" : "");
        return fit;
    }
    int fabric = detect_match__detected_fabric(d);
    bool same_fabric = t->fabric == fabric ||
                       (fabric == SC_FABRIC_nvlink_bridge && t->fabric == SC_FABRIC_nvlink_mesh);
    fit.score = 100 + (t->gpus_per_node == d->gpus ? 20 : 0) + (same_fabric ? 15 : 0) +
                (t->nics == d->nics ? 5 : 0);
    snprintf(fit.why, sizeof(fit.why),
             "%s: same GPU (%s, detected %s), %d of %d GPUs, fabric %s%s, "
             "%d NICs (declared %d)",
             t->name, t->gpu, d->gpu, d->gpus, (int)t->gpus_per_node, sc_fabric_name(t->fabric),
             same_fabric ? " as detected" : " (not detected)", d->nics, (int)t->nics);
    return fit;
}

bool sc_detect_pick(const sc_detected_t *d, const char *dirs, char *path, size_t path_len,
                    char *why, size_t why_len)
{
    int best = 0, looked = 0;
    char list[SC_FILES_DIRS_MAX], nearest[sizeof(((sc_topology_fit_t *)0)->why)] = "";
    snprintf(list, sizeof(list), "%s", dirs);
    path[0] = '\0';
    snprintf(why, why_len, "no shipped topology matches %d x %s", d->gpus, d->gpu);
    for (char *save = NULL, *dir = strtok_r(list, ":", &save); dir != NULL;
         dir = strtok_r(NULL, ":", &save)) {
        DIR *folder = opendir(dir);
        struct dirent *e;
        while (folder != NULL && (e = readdir(folder)) != NULL) {
            size_t n = strlen(e->d_name);
            if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
                continue;
            char file[PATH_MAX + 256];
            snprintf(file, sizeof(file), "%s/%s", dir, e->d_name);
            sc_topology_t t;
            sc_err_t ignored;
            if (sc_topology_load(file, &t, &ignored) != SC_OK)
                continue;
            looked++;
            sc_topology_fit_t fit = sc_detect_fit(d, &t);
            if (fit.same_architecture && nearest[0] == '\0')
                snprintf(nearest, sizeof(nearest), "%s", fit.why);
            if (fit.score > best) {
                best = fit.score;
                snprintf(path, path_len, "%s", file);
                snprintf(why, why_len, "%s", fit.why);
            }
        }
        if (folder != NULL)
            closedir(folder);
        if (best > 0)
            break; /* the first folder that has one: the source tree's before an install's */
    }
    if (best == 0)
        snprintf(why + strlen(why), why_len - strlen(why), " (%d topologies looked at%s%s)", looked,
                 nearest[0] ? "; nearest " : "", nearest);
    return best > 0;
}
