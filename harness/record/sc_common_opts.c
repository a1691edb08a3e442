/* sc_common_opts.c - the shared options' defaults, set once (sc_common_opts.h). */
#include "record/sc_common_opts.h"

#include <stdio.h>
#include <string.h>

#include "util/sc_defaults.h"
#include "util/sc_files.h"

void sc_common_opts_default(sc_common_opts_t *c, unsigned takes)
{
    memset(c, 0, sizeof(*c));
    snprintf(c->backend, sizeof(c->backend), "%s", SC_DEFAULT_BACKEND);
    c->device = -1;
    c->timeout_s = SC_DEFAULT_TIMEOUT_S;
    c->telemetry_s = (takes & SC_COMMON_TELEMETRY) ? SC_DEFAULT_TELEMETRY_S : 0;
    snprintf(c->results_base, sizeof(c->results_base), "%s", sc_files_results_default());
}

const char *sc_common_path(const char *value)
{
    return value != NULL && value[0] != '\0' ? value : NULL;
}
