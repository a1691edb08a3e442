#include "sc_cli.h"
#include "sc_config.h"

#include "record/sc_record.h"
#include "util/sc_names.h"
#include "util/sc_size.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sc_cli_compose(const sc_cli_opt_t *table, sc_cli_opt_t *out)
{
    int n = 0;
    for (const sc_cli_opt_t *o = table; o->long_name != NULL && n < SC_CLI_MAX_ROWS - 1; o++) {
        if (o->type != SC_OPT_GROUP) {
            out[n++] = *o;
            continue;
        }
        for (const sc_cli_opt_t *g = o->group; g->long_name != NULL && n < SC_CLI_MAX_ROWS - 1;
             g++) {
            if (!(g->bits & o->bits))
                continue;
            out[n] = *g;
            out[n].offset += o->offset;
            out[n].base = o->offset;
            out[n++].group = o;
        }
    }
    out[n] = (sc_cli_opt_t)SC_OPT_END;
}

const char *sc_cli_help_text(const sc_cli_opt_t *o, char *buf, size_t len)
{
    const char *fill = strstr(o->help, "%s");
    if (fill == NULL || o->group == NULL || o->group->help == NULL)
        return o->help;
    snprintf(buf, len, "%.*s%s%s", (int)(fill - o->help), o->help, o->group->help, fill + 2);
    return buf;
}

static const sc_cli_opt_t *cli__find_long(const sc_cli_opt_t *table, const char *name, size_t len)
{
    for (const sc_cli_opt_t *o = table; o->long_name != NULL; o++)
        if (o->long_name && strlen(o->long_name) == len && strncmp(o->long_name, name, len) == 0)
            return o;
    return NULL;
}

/* "--flg: unknown option (did you mean --flag?; see --help)": the nearest long option. */
static sc_status_t cli__unknown(const sc_cli_opt_t *table, const char *flag, sc_err_t *err)
{
    const char *names[256];
    int n = 0;
    for (const sc_cli_opt_t *o = table; o->long_name != NULL && n < 256; o++)
        names[n++] = o->long_name;
    const char *near = strncmp(flag, "--", 2) == 0 ? sc_names_nearest(names, n, flag + 2) : NULL;
    if (near != NULL)
        return sc_err_set(err, SC_ERR_USAGE, "%s: unknown option (did you mean --%s?; see --help)",
                          flag, near);
    return sc_err_set(err, SC_ERR_USAGE, "%s: unknown option (see --help)", flag);
}

static const sc_cli_opt_t *cli__find_short(const sc_cli_opt_t *table, char name)
{
    for (const sc_cli_opt_t *o = table; o->long_name != NULL; o++)
        if (o->short_name == name)
            return o;
    return NULL;
}

/* Whether value is one of the choices a metavar lists ("concurrent|serial", "nccl|mpi|ucx|auto"),
 * every option's choices checked as it is parsed, before any command looks at them; a metavar
 * that is no such list (FILE, "N|auto": a figure or a word) takes any value. */
static bool cli__one_of(const char *metavar, const char *value)
{
    if (metavar == NULL || strchr(metavar, '|') == NULL)
        return true;
    for (const char *c = metavar; *c; c++)
        if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '|' && *c != '-')
            return true;
    size_t n = strlen(value);
    for (const char *c = metavar; c != NULL; c = strchr(c, '|') ? strchr(c, '|') + 1 : NULL) {
        size_t len = strcspn(c, "|");
        if (len == n && strncmp(c, value, n) == 0)
            return true;
    }
    return false;
}

/* Stores value into the option's field (or hands it to its handler). */
static sc_status_t cli__store(const sc_cli_opt_t *opt, void *target, const char *flag,
                              const char *value, sc_err_t *err)
{
    char *slot = (char *)target + opt->offset;
    long n = 0;
    double d = 0;
    sc_status_t status = SC_OK;
    if (opt->type == SC_OPT_FLAG) {
        *(bool *)slot = true;
        return SC_OK;
    }
    if (value == NULL) /* only flags come without a value */
        return sc_err_set(err, SC_ERR_USAGE, "%s: missing value", flag);
    switch (opt->type) {
    case SC_OPT_INT:
        status = sc_cli_int(flag, value, (long)opt->min, (long)opt->max, &n, err);
        if (status == SC_OK)
            *(int *)slot = (int)n;
        return status;
    case SC_OPT_DOUBLE:
        status = sc_cli_double(flag, value, opt->min, opt->max, &d, err);
        if (status == SC_OK)
            memcpy(slot, &d, sizeof(d));
        else if (opt->short_name == 'T' && strtod(value, NULL) == 0.0 && value[0] != '0')
            sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is not seconds (%s)", flag, value,
                       SC_CLI_T_HINT);
        return status;
    case SC_OPT_NAME_TEXT:
    case SC_OPT_TEXT:
        if (*value == '\0')
            return sc_err_set(err, SC_ERR_USAGE, "%s: empty value", flag);
        if (opt->type == SC_OPT_NAME_TEXT && !sc_name_ok(value))
            return sc_err_set(err, SC_ERR_USAGE, "%s: not a name: %s", flag, SC_NAME_RULE);
        if (strlen(value) >= (size_t)opt->max)
            return sc_err_set(err, SC_ERR_USAGE, "%s: longer than %.0f characters", flag,
                              opt->max - 1);
        if (!cli__one_of(opt->metavar, value))
            return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is not one of %s", flag, value,
                              opt->metavar);
        memcpy(slot, value, strlen(value) + 1);
        return SC_OK;
    case SC_OPT_STRING:
        if (*value == '\0')
            return sc_err_set(err, SC_ERR_USAGE, "%s: empty value", flag);
        if (!cli__one_of(opt->metavar, value))
            return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is not one of %s", flag, value,
                              opt->metavar);
        memcpy(slot, &value, sizeof(value));
        return SC_OK;
    case SC_OPT_SIZE: {
        uint64_t bytes = 0;
        status = sc_size_parse(value, flag, &bytes, err);
        if (status == SC_OK && opt->min > 0 && (double)bytes < opt->min)
            status = sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is below the least size, %.0f B", flag,
                                value, opt->min);
        if (status == SC_OK)
            memcpy(slot, &bytes, sizeof(bytes));
        return status;
    }
    default:
        return opt->handler((char *)target + opt->base, flag, value, err);
    }
}

sc_status_t sc_cli_check_list(const char *flag, const char *v, sc_err_t *err)
{
    size_t n = strlen(v);
    if (n == 0 || v[0] == ',' || v[n - 1] == ',' || strstr(v, ",,") != NULL)
        return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' has an empty item", flag, v);
    return SC_OK;
}

/* Finds the option argv[*i] names and its value (inline or the next argument). */
static sc_status_t cli__parse_one(const sc_cli_opt_t *table, int argc, char **argv, int *i,
                                  void *target, sc_err_t *err)
{
    const char *arg = argv[*i];
    const sc_cli_opt_t *opt = NULL;
    const char *inline_value = NULL;
    char flag[64];
    if (strncmp(arg, "--", 2) == 0) {
        const char *eq = strchr(arg + 2, '=');
        size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        opt = cli__find_long(table, arg + 2, len);
        inline_value = eq ? eq + 1 : NULL;
        snprintf(flag, sizeof(flag), "--%.*s", (int)len, arg + 2);
    } else if (arg[0] == '-' && arg[1] != '\0') {
        opt = cli__find_short(table, arg[1]);
        inline_value = arg[2] ? arg + 2 : NULL;
        snprintf(flag, sizeof(flag), "-%c", arg[1]);
    } else {
        return sc_err_set(err, SC_ERR_USAGE, "unexpected argument '%s' (options start with -)",
                          arg);
    }
    if (opt == NULL && strcmp(flag, "-T") == 0)
        return sc_err_set(err, SC_ERR_USAGE, "-T: unknown option here (%s)", SC_CLI_T_HINT);
    if (opt == NULL)
        return cli__unknown(table, flag, err);
    if (opt->metavar == NULL) {
        if (inline_value != NULL)
            return sc_err_set(err, SC_ERR_USAGE, "%s: takes no value", flag);
        return cli__store(opt, target, flag, NULL, err);
    }
    if (inline_value == NULL) {
        /* "--json --csv x" means the value was forgotten, not a file called "--csv". */
        if (*i + 1 >= argc || strncmp(argv[*i + 1], "--", 2) == 0)
            return sc_err_set(err, SC_ERR_USAGE, "%s: missing value (%s)", flag, opt->metavar);
        inline_value = argv[++*i];
    }
    return cli__store(opt, target, flag, inline_value, err);
}

sc_status_t sc_cli_parse(const sc_cli_opt_t *table, int argc, char **argv, int first, void *target,
                         sc_err_t *err)
{
    return sc_cli_parse_words(table, argc, argv, first, target, NULL, 0, NULL, err);
}

sc_status_t sc_cli_parse_words(const sc_cli_opt_t *table, int argc, char **argv, int first,
                               void *target, const char **words, int max_words, int *nwords,
                               sc_err_t *err)
{
    sc_cli_opt_t rows[SC_CLI_MAX_ROWS];
    sc_cli_compose(table, rows);
    if (nwords != NULL)
        *nwords = 0;
    for (int i = first; i < argc; i++) {
        bool word = argv[i][0] != '-' || argv[i][1] == '\0';
        if (word && words != NULL && *nwords == max_words)
            return sc_err_set(err, SC_ERR_USAGE, "'%s': at most %d arguments besides options",
                              argv[i], max_words);
        if (word && words != NULL) {
            words[(*nwords)++] = argv[i];
            continue;
        }
        sc_status_t status = cli__parse_one(rows, argc, argv, &i, target, err);
        if (status != SC_OK)
            return status;
    }
    return SC_OK;
}

static const char *cli__command = "scalecheck", *cli__summary = "", *cli__usage = NULL;

void sc_cli_set_command(const char *name, const char *summary, const char *usage)
{
    cli__command = name;
    cli__summary = summary;
    cli__usage = usage;
}

const char *sc_cli_help_format(void)
{
    const char *f = getenv("SCALECHECK_HELP_FORMAT");
    return f != NULL && (!strcmp(f, "man") || !strcmp(f, "words") || !strcmp(f, "values") ||
                         !strcmp(f, "exit-codes"))
               ? f
               : "text";
}

void sc_cli_roff(FILE *out, const char *text)
{
    for (const char *c = text; *c; c++) {
        if (*c == '-' || *c == '\\')
            fputc('\\', out);
        if (*c == '.' && (c == text || c[-1] == '\n'))
            fputs("\\&", out); /* a line that starts with a dot is a request */
        fputc(*c, out);
    }
}

/* The command's page: NAME, SYNOPSIS, OPTIONS from the table, SEE ALSO. */
static void cli__man(const sc_cli_opt_t *table, FILE *out)
{
    char help[512];
    fprintf(out, ".TH SCALECHECK\\-");
    for (const char *c = cli__command; *c; c++)
        fputc(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c, out);
    fprintf(out, " 1 \"\" \"scalecheck %s\" \"scalecheck manual\"\n.SH NAME\nscalecheck\\-",
            SC_VERSION);
    sc_cli_roff(out, cli__command);
    fputs(" \\- ", out);
    sc_cli_roff(out, cli__summary);
    fprintf(out,
            "\n.SH SYNOPSIS\n.B mpirun\n[\\fImpirun options\\fR]\n.B scalecheck %s\n"
            "[\\fIoptions\\fR]\n",
            cli__command);
    const sc_cli_page_t *page = sc_cli_page(cli__command);
    if (page != NULL) {
        fputs(".SH DESCRIPTION\n", out);
        sc_cli_roff(out, page->description);
        fputc('\n', out);
    }
    fputs(".SH OPTIONS\n", out);
    for (const sc_cli_opt_t *o = table; o->long_name != NULL; o++) {
        fputs(".TP\n", out);
        if (o->short_name)
            fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
        fputs("\\fB\\-\\-", out);
        sc_cli_roff(out, o->long_name);
        fputs("\\fR", out);
        if (o->metavar) {
            fputs(" \\fI", out);
            sc_cli_roff(out, o->metavar);
            fputs("\\fR", out);
        }
        fputc('\n', out);
        sc_cli_roff(out, sc_cli_help_text(o, help, sizeof(help)));
        fputc('\n', out);
    }
    if (page != NULL) {
        fputs(".SH EXAMPLES\n.nf\n", out);
        sc_cli_roff(out, page->examples);
        fputs("\n.fi\n", out);
    }
    sc_cli_man_exit_codes(out);
    fputs(".SH SEE ALSO\n.BR scalecheck (1)\n", out);
}

void sc_cli_man_exit_codes(FILE *out)
{
    size_t n;
    const sc_exit_code_t *codes = sc_exit_codes(&n);
    fputs(".SH EXIT STATUS\n", out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, ".TP\n.B %d\n", codes[i].code);
        sc_cli_roff(out, codes[i].meaning);
        fputc('\n', out);
    }
}

void sc_cli_markdown_exit_codes(FILE *out)
{
    size_t n;
    const sc_exit_code_t *codes = sc_exit_codes(&n);
    fputs("| code | meaning |\n|---|---|\n", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "| %d | %s |\n", codes[i].code, codes[i].meaning);
    fputs("\nThe verdict every output says (the table, `result.json`, `summary.json`, `junit.xml`, "
          "`metrics.prom`, `report.html`):\n\n| verdict | exit | `scalecheck_verdict` | in JUnit "
          "| meaning |\n|---|---|---|---|---|\n",
          out);
    for (int v = 0; v < SC_VERDICT_COUNT; v++) {
        const sc_verdict_row_t *row = sc_verdict_row((sc_verdict_t)v);
        fprintf(out, "| %s | %d | %d | %s | %s |\n", row->name, row->exit_code, v, row->junit,
                row->meaning);
    }
}

/* text from column col to SC_CLI_HELP_WIDTH, broken between words, each further line indented
 * to column at. */
static void cli__wrapped(FILE *out, const char *text, int col, int at)
{
    bool first = true;
    while (*text != '\0') {
        size_t word = strcspn(text, " ");
        if (!first && col + 1 + (int)word > SC_CLI_HELP_WIDTH) {
            fprintf(out, "\n%*s", at, "");
            col = at;
        } else if (!first) {
            fputc(' ', out);
            col++;
        }
        fwrite(text, 1, word, out);
        first = false;
        col += (int)word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

void sc_cli_print_help(const sc_cli_opt_t *table, FILE *out)
{
    sc_cli_opt_t rows[SC_CLI_MAX_ROWS];
    sc_cli_compose(table, rows);
    const char *format = sc_cli_help_format();
    if (!strcmp(format, "man")) {
        cli__man(rows, out);
        return;
    }
    if (!strcmp(format, "values")) {
        sc_cli_print_values(rows, out);
        return;
    }
    if (!strcmp(format, "words")) {
        for (const sc_cli_opt_t *o = rows; o->long_name != NULL; o++)
            fprintf(out, "%s--%s", o == rows ? "" : " ", o->long_name);
        fputc('\n', out);
        return;
    }
    if (cli__usage != NULL)
        fprintf(out, "usage: %s\n\n", cli__usage);
    for (const sc_cli_opt_t *o = rows; o->long_name != NULL; o++) {
        char names[64];
        if (o->short_name)
            snprintf(names, sizeof(names), "-%c, --%s%s%s", o->short_name, o->long_name,
                     o->metavar ? " " : "", o->metavar ? o->metavar : "");
        else
            snprintf(names, sizeof(names), "    --%s%s%s", o->long_name, o->metavar ? " " : "",
                     o->metavar ? o->metavar : "");
        char help[512];
        int col = fprintf(out, "  %-30s ", names);
        cli__wrapped(out, sc_cli_help_text(o, help, sizeof(help)), col, 33);
    }
}

sc_status_t sc_cli_int(const char *flag, const char *value, long min, long max, long *out,
                       sc_err_t *err)
{
    errno = 0;
    char *end = NULL;
    long v = strtol(value, &end, 10);
    if (*value == '\0' || *end != '\0' || errno == ERANGE)
        return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is not an integer", flag, value);
    if (v < min || v > max)
        return sc_err_set(err, SC_ERR_USAGE, "%s: %ld is out of range [%ld, %ld]", flag, v, min,
                          max);
    *out = v;
    return SC_OK;
}

sc_status_t sc_cli_double(const char *flag, const char *value, double min, double max, double *out,
                          sc_err_t *err)
{
    errno = 0;
    char *end = NULL;
    double v = strtod(value, &end);
    if (*value == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v))
        return sc_err_set(err, SC_ERR_USAGE, "%s: '%s' is not a number", flag, value);
    if (v < min || v > max)
        return sc_err_set(err, SC_ERR_USAGE, "%s: %g is out of range [%g, %g]", flag, v, min, max);
    *out = v;
    return SC_OK;
}

int sc_cli_refuse(const sc_rte_t *rte, const char *cmd, const sc_err_t *err)
{
    if (rte->rank == 0)
        fprintf(stderr, "scalecheck %s: %s\n", cmd, err->msg);
    return sc_status_exit_code(err->status);
}
