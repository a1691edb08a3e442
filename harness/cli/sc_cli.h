/* sc_cli.h - command-line options declared once, in a table that drives both parsing and
 * --help. Accepts -x VALUE, -xVALUE, --name VALUE and --name=VALUE. */
#ifndef SC_CLI_H
#define SC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "record/sc_common_opts.h"
#include "rte/sc_rte.h"
#include "topology/sc_topology.h"
#include "util/sc_defaults.h"
#include "util/sc_status.h"

/* Stores the option's value into target; `flag` is how the user spelled the option, for
 * error messages ("-b", "--timeout"). value is NULL for options without an argument. */
typedef sc_status_t (*sc_cli_handler_t)(void *target, const char *flag, const char *value,
                                        sc_err_t *err);

/* How an option's value is stored at `offset` in the target struct. */
typedef enum {
    SC_OPT_FLAG,      /* bool, set to true; takes no value */
    SC_OPT_INT,       /* int within [min, max] */
    SC_OPT_DOUBLE,    /* double within [min, max] */
    SC_OPT_STRING,    /* const char *, not empty (points into argv) */
    SC_OPT_TEXT,      /* char[max], not empty, copied (refused when longer) */
    SC_OPT_NAME_TEXT, /* a TEXT that must be a name (util/sc_names.h): run names */
    SC_OPT_SIZE,      /* uint64_t bytes, K/M/G suffixes (sc_size_parse) */
    SC_OPT_CUSTOM,    /* the handler does it */
    SC_OPT_GROUP      /* no option: the rows of `group` whose bit is in `bits`, composed in here,
                         their fields at `offset` (the shared options: sc_cli_common_rows) */
} sc_opt_type_t;

typedef struct sc_cli_opt {
    char short_name; /* 0: none */
    const char *long_name;
    const char *metavar; /* NULL: the option takes no value */
    /* "(default ...)" belongs in here; a group's row may hold one "%s", filled with its group
     * row's help (the command's own default: --name's) */
    const char *help;
    sc_opt_type_t type;
    size_t offset;
    double min, max;
    sc_cli_handler_t handler;       /* SC_OPT_CUSTOM: gets the target (a group's: its field) */
    const struct sc_cli_opt *group; /* SC_OPT_GROUP: its rows; composed: the group row */
    unsigned bits;                  /* SC_OPT_GROUP: the rows taken; a group's row: its bit */
    size_t base;                    /* composed: where the group's field is in the target */
} sc_cli_opt_t;

/* Table rows, so that each option is one line. */
#define SC_OPT_ROW(s, l, meta, help, type, st, field, lo, hi)                                      \
    {                                                                                              \
        s, l, meta, help, type, offsetof(st, field), lo, hi, NULL, NULL, 0, 0                      \
    }
/* A char[] field: its size is the longest value taken (and one for the end). */
#define SC_OPT_TEXT_ROW(s, l, meta, help, type, st, field)                                         \
    {                                                                                              \
        s, l, meta, help, type, offsetof(st, field), 0, (double)sizeof(((st *)0)->field), NULL,    \
            NULL, 0, 0                                                                             \
    }
#define SC_OPT_CUSTOM_ROW(s, l, meta, help, fn)                                                    \
    {                                                                                              \
        s, l, meta, help, SC_OPT_CUSTOM, 0, 0, 0, fn, NULL, 0, 0                                   \
    }
#define SC_OPT_END                                                                                 \
    {                                                                                              \
        0, NULL, NULL, NULL, SC_OPT_FLAG, 0, 0, 0, NULL, NULL, 0, 0                                \
    }

/* The shared options (record/sc_common_opts.h), one row each, in cli/sc_cli_common.c. */
extern const sc_cli_opt_t sc_cli_common_rows[];
/* A command's table takes the shared options it has (SC_COMMON_* bits) with one row, where its
 * options record embeds sc_common_opts_t (st's field); name_default: what --name defaults to
 * ("coll-<collective>"). */
#define SC_OPT_COMMON_ROW(st, field, takes, name_default)                                          \
    {                                                                                              \
        0, "", NULL, name_default, SC_OPT_GROUP, offsetof(st, field), 0, 0, NULL,                  \
            sc_cli_common_rows, takes, 0                                                           \
    }

/* The most rows a table has once its groups are composed in. */
#define SC_CLI_MAX_ROWS 128
/* table with its groups composed in (each group's rows in place of its row, their offsets
 * the target's), ended by SC_OPT_END, into out[SC_CLI_MAX_ROWS]. Every walk of a table -
 * parsing, --help, the man page, the completion - walks this. */
void sc_cli_compose(const sc_cli_opt_t *table, sc_cli_opt_t *out);
/* An option's help as printed: a group's row's "%s" filled. */
const char *sc_cli_help_text(const sc_cli_opt_t *o, char *buf, size_t len);

/* -T was the topology before it became the timeout, as in nccl-tests: an old habit is told. */
#define SC_CLI_T_HINT "-T is the timeout in seconds, as in nccl-tests; a topology is -Y/--topology"

/* Parses argv[first..argc) against table (terminated by SC_OPT_END). Stops at the first error:
 * SC_ERR_USAGE naming the flag. Non-option arguments are refused. */
sc_status_t sc_cli_parse(const sc_cli_opt_t *table, int argc, char **argv, int first, void *target,
                         sc_err_t *err);

/* The same, keeping the arguments that are not options (files) in words[0..*nwords), at most
 * max_words of them. */
sc_status_t sc_cli_parse_words(const sc_cli_opt_t *table, int argc, char **argv, int first,
                               void *target, const char **words, int max_words, int *nwords,
                               sc_err_t *err);

/* The widest a line of --help runs (an option's text wraps under itself). */
#define SC_CLI_HELP_WIDTH 100
/* Prints the option table as help text: the command's usage line, then an option a line. */
void sc_cli_print_help(const sc_cli_opt_t *table, FILE *out);
/* How --help prints, from SCALECHECK_HELP_FORMAT: "text" (the default); "man": the command's
 * page in roff (scalecheck-CMD(1), what `cmake --install` installs); "words": its option names,
 * and "values": the values they take, for the shell completion; "exit-codes" (scalecheck
 * --help only): the README's table of exit codes. The page names the command main set here. */
const char *sc_cli_help_format(void);
/* The exit codes (SC_EXIT_MAP) as a man page's EXIT STATUS, and as the README's markdown table. */
void sc_cli_man_exit_codes(FILE *out);
void sc_cli_markdown_exit_codes(FILE *out);
void sc_cli_set_command(const char *name, const char *summary, const char *usage);
/* A command's manual page beyond its options (cli/sc_pages.c): DESCRIPTION and EXAMPLES, one
 * command line a line; NULL for a command without one. */
typedef struct {
    const char *command, *description, *examples;
} sc_cli_page_t;
const sc_cli_page_t *sc_cli_page(const char *command);
/* The values an option takes, for the shell completion (SCALECHECK_HELP_FORMAT=values): a line
 * "-Y|--topology v1 v2 ..." for each option of table whose values are known - shipped
 * topologies and workloads, collectives, data types, reductions, backends, and the choices a
 * metavar lists (spin|gemm). */
void sc_cli_print_values(const sc_cli_opt_t *table, FILE *out);
/* text for roff: dashes and backslashes escaped, no line taken for a request. */
void sc_cli_roff(FILE *out, const char *text);

/* Helpers for handlers: strict number parsing with the flag in the message. */
sc_status_t sc_cli_int(const char *flag, const char *value, long min, long max, long *out,
                       sc_err_t *err);
sc_status_t sc_cli_double(const char *flag, const char *value, double min, double max, double *out,
                          sc_err_t *err);

/* A comma list with no empty item ("1,,2", "1,", "" are refused, naming the flag). */
sc_status_t sc_cli_check_list(const char *flag, const char *v, sc_err_t *err);

/* A command's options refused: "scalecheck CMD: why" on rank 0 (every rank parsed the same
 * argv and has the same error), and the exit code to return (2). */
int sc_cli_refuse(const sc_rte_t *rte, const char *cmd, const sc_err_t *err);

#endif
