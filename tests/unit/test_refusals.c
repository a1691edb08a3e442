/* The exit-2 path in process, for the quick loop: each command's bad usage and bad input - an
 * unknown flag, a value out of range, a broken YAML, an output that cannot be written, a results
 * folder that is a file - is refused with exit 2 and a message naming the flag or the file
 * (file:line:column for YAML), before anything opens, and leaves nothing on disk. The rte is a
 * singleton's without MPI: a command that opened its backend or its session before checking
 * would abort here, not pass. The same matrix under mpirun, and the refusals found after a
 * session opened, are `exit2-nothing-on-disk` and `run-refusals`. */
#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/sc_cmd.h"
#include "sc_config.h"
#include "sc_test.h"

typedef int (*refusals__cmd_t)(const sc_rte_t *rte, int argc, char **argv);

static const struct {
    const char *name;
    refusals__cmd_t run;
} refusals__commands[] = {
    {"coll", sc_cmd_coll},           {"run", sc_cmd_run},
    {"pairs", sc_cmd_pairs},         {"soak", sc_cmd_soak},
    {"calibrate", sc_cmd_calibrate}, {"compute", sc_cmd_compute},
    {"preflight", sc_cmd_preflight}, {"health", sc_cmd_health},
    {"judge", sc_cmd_judge},         {"model", sc_cmd_model},
    {"plan", sc_cmd_plan},           {"validate", sc_cmd_validate},
    {"compare", sc_cmd_compare},     {"detect", sc_cmd_detect},
    {"report", sc_cmd_report},       {"version", sc_cmd_version},
};

static char refusals__dir[256], refusals__results[300];
static sc_rte_t refusals__rte;

/* Placeholders in a case's words: @ the scratch folder. */
static const char *refusals__word(const char *w, char *buf, size_t len)
{
    if (w[0] != '@')
        return w;
    snprintf(buf, len, "%s%s", refusals__dir, w + 1);
    return buf;
}

static void refusals__write(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", refusals__dir, name);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

/* The entries of the results folder (0: nothing left). */
static int refusals__left(void)
{
    DIR *d = opendir(refusals__results);
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d != NULL)
        closedir(d);
    return n;
}

/* Runs `cmd words...` with stderr to a file; the exit code and what it said. */
static int refusals__run(const char *cmd, const char *const *words, char *said, size_t len)
{
    refusals__cmd_t run = NULL;
    for (size_t i = 0; i < sizeof(refusals__commands) / sizeof(refusals__commands[0]); i++)
        if (!strcmp(refusals__commands[i].name, cmd))
            run = refusals__commands[i].run;
    char bufs[16][512], *argv[20] = {"scalecheck", (char *)cmd};
    int argc = 2;
    for (int i = 0; words[i] != NULL && argc < 18; i++, argc++)
        argv[argc] = (char *)refusals__word(words[i], bufs[i], sizeof(bufs[i]));
    argv[argc] = NULL;
    char log[512];
    snprintf(log, sizeof(log), "%s/stderr.txt", refusals__dir);
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    int code = run != NULL ? run(&refusals__rte, argc, argv) : -1;
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    FILE *f = fopen(log, "r");
    size_t n = f != NULL ? fread(said, 1, len - 1, f) : 0;
    said[n] = '\0';
    if (f != NULL)
        fclose(f);
    return code;
}

/* cmd and its words (NULL-ended), then the text the refusal must hold. */
#define REFUSE(named, cmd, ...) refusals__case(named, cmd, (const char *const[]){__VA_ARGS__, NULL})

static void refusals__case(const char *named, const char *cmd, const char *const *words)
{
    char said[4096];
    int code = refusals__run(cmd, words, said, sizeof(said));
    int left = refusals__left();
    bool ok = code == 2 && strstr(said, named) != NULL && left == 0;
    if (!ok)
        fprintf(stderr,
                "%s %s...: exit %d (2 expected), %d left on disk, said: %s(expected '%s')\n", cmd,
                words[0] ? words[0] : "", code, left, said, named);
    SC_EXPECT(ok);
}

/* bert-large-dp.yaml with one thing wrong: a misspelt key, a word for a number */
static void refusals__workloads(void)
{
    FILE *f = fopen(SC_SOURCE_DIR "/workloads/bert-large-dp.yaml", "r");
    static char good[16384];
    size_t n = f != NULL ? fread(good, 1, sizeof(good) - 1, f) : 0;
    good[n] = '\0';
    if (f != NULL)
        fclose(f);
    const struct {
        const char *file, *from, *to;
    } bad[] = {{"typo.yaml", "bucket_mb", "bucket_mbs"},
               {"type.yaml", "layers: 24", "layers: many"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char text[sizeof(good) + 64];
        const char *at = strstr(good, bad[i].from);
        SC_EXPECT(at != NULL);
        if (at == NULL)
            continue;
        snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - good), good, bad[i].to,
                 at + strlen(bad[i].from));
        refusals__write(bad[i].file, text);
    }
    refusals__write("syntax.yaml", "name: x\nmodel: [1, 2\n");
}

static void refusals__inputs(void)
{
    refusals__write("broken.yaml", "name: broken\nintra: [unclosed\n");
    refusals__write("broken-workload.yaml", "name: w\nmodel:\n  parameters: -3\n");
    refusals__write("a-file", "x");
    refusals__workloads();
    refusals__write("ar.log", "# Collective test starting: all_reduce_perf\n"
                              "#       size         count      type   redop    root     time   "
                              "algbw   busbw #wrong     time   algbw   busbw #wrong\n"
                              "     1048576        262144     float     sum      -1    50.00   "
                              "20.97   20.97      0    50.00   20.97   20.97      0\n");
    char fifo[512];
    snprintf(fifo, sizeof(fifo), "%s/workload.fifo", refusals__dir);
    mkfifo(fifo, 0600);
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/a-folder", refusals__dir);
    mkdir(sub, 0700);
}

int main(void)
{
    snprintf(refusals__dir, sizeof(refusals__dir), "/tmp/sc-refusals-XXXXXX");
    if (mkdtemp(refusals__dir) == NULL)
        return 1;
    snprintf(refusals__results, sizeof(refusals__results), "%s/results", refusals__dir);
    mkdir(refusals__results, 0700);
    setenv("SCALECHECK_RESULTS", refusals__results, 1);
    refusals__inputs();
    int argc = 1;
    char *args[] = {"scalecheck", NULL}, **argv = args;
    sc_err_t err;
    if (sc_rte_init_alone(&argc, &argv, &refusals__rte, &err) != SC_OK)
        return 1;
    /* usage: the flag named */
    REFUSE("--bogus: unknown option", "coll", "--bogus");
    REFUSE("--resuts-dir: unknown option (did you mean --results-dir?", "run", "--resuts-dir", "x");
    REFUSE("-b", "coll", "-b", "lots");
    REFUSE("--name: not a name", "coll", "--name", "a b");
    REFUSE("-T: 'x' is not seconds", "coll", "-T", "x");
    REFUSE("--timeout: -1 is out of range", "pairs", "--timeout", "-1");
    REFUSE("--deadline: missing value", "soak", "--deadline");
    REFUSE("--workload: required", "run", "--scales", "1");
    REFUSE("--scales: values must increase", "run", "-W", "x.yaml", "--scales", "2,1");
    REFUSE("--mode: 'both' is not one of concurrent|serial", "pairs", "--mode", "both");
    REFUSE("--telemetry: unknown option", "soak", "--telemetry", "1");
    REFUSE("-T: 0 is out of range", "health", "-T", "0");
    REFUSE("--backend: unknown option", "preflight", "--backend", "mpi");
    REFUSE("--label: unknown option", "compare", "--label", "x");
    /* input: the file, and where in it */
    REFUSE("broken.yaml:3:1: did not find expected", "coll", "-Y", "@/broken.yaml");
    REFUSE("broken.yaml:3:1: did not find expected", "soak", "--duration", "1m", "-Y",
           "@/broken.yaml");
    REFUSE("broken.yaml:3:1: did not find expected", "model", "-Y", "@/broken.yaml");
    REFUSE("a pair needs two", "pairs", "--size", "1M");
    REFUSE("broken-workload.yaml:3:", "run", "-W", "@/broken-workload.yaml");
    REFUSE("broken-workload.yaml:3:", "validate", "@/broken-workload.yaml");
    REFUSE("broken-workload.yaml:3:", "plan", "-W", "@/broken-workload.yaml");
    REFUSE("no-such.yaml", "calibrate", "-Y", "@/no-such.yaml");
    /* outputs: a folder that does not exist, a folder where a file goes, a file for a folder */
    REFUSE("--json", "coll", "--json", "@/none/out.json");
    REFUSE("--csv", "run", "-W", "bert-large-dp", "--csv", "@/a-folder");
    REFUSE("--metrics", "preflight", "--metrics", "@/none/m.prom");
    REFUSE("--json", "compute", "--json", "@/a-folder");
    /* a results folder that takes no run directory: a file, a folder under a file, /proc */
    const char *const bases[] = {"@/a-file", "@/a-file/sub", "/proc/scalecheck-results"};
    const char *const why[] = {"is not a folder", "Not a directory",
                               "cannot make a folder in /proc"};
    for (int i = 0; i < 3; i++) {
        REFUSE("--results-dir: ", "coll", "-b", "8", "-e", "64", "--results-dir", bases[i]);
        REFUSE(why[i], "coll", "-b", "8", "-e", "64", "--results-dir", bases[i]);
        REFUSE(why[i], "run", "-W", "bert-large-dp", "--scales", "1", "--results-dir", bases[i]);
    }
    REFUSE("--results-dir: ", "judge", "-Y", "dgx-a100", "--results-dir", "@/a-file", "@/a-file");
    /* what exit2-nothing-on-disk held under mpirun and needs no peer (1.5 s a case there) */
    const char *const coll[] = {"-b", "8", "-e", "64", "-n", "2", "-w", "0"};
    const char *const run[] = {"-W", "bert-large-dp", "--scales", "1", "-n", "1", "-w", "0"};
    REFUSE("broken.yaml:3:1: ", "coll", coll[0], coll[1], coll[2], coll[3], "-Y", "@/broken.yaml");
    REFUSE("--csv", "coll", coll[0], coll[1], "--csv", "@/a-folder");
    REFUSE("broken.yaml:3:1: ", "run", run[0], run[1], run[2], run[3], "-Y", "@/broken.yaml");
    REFUSE("--json", "run", run[0], run[1], run[2], run[3], "--json", "@/none/out.json");
    REFUSE("broken-workload.yaml:3:", "run", "-W", "@/broken-workload.yaml", "--scales", "1");
    REFUSE("is a FIFO, not a regular file", "run", "-W", "@/workload.fifo", "--scales", "1");
    REFUSE("is a directory, not a regular file", "run", "-W", "@/a-folder", "--scales", "1");
    REFUSE("-b: '0'", "coll", "-b", "0", "-e", "0", "-n", "1");
    REFUSE("-e: '0'", "coll", "-b", "8", "-e", "0", "-n", "1");
    REFUSE("broken.yaml:3:1: ", "model", "-Y", "@/broken.yaml");
    REFUSE("broken-workload.yaml:3:", "model", "-Y", "localhost", "-W", "@/broken-workload.yaml");
    REFUSE("--json", "model", "-Y", "localhost", "--json", "@/none/out.json");
    REFUSE("--json", "compute", "--mode", "spin", "--time-us", "10", "--json", "@/none/o.json");
    REFUSE("broken.yaml:3:1: ", "detect", "--topology", "@/broken.yaml");
    REFUSE("--output", "detect", "--output", "@/a-folder");
    REFUSE("--size: a size of 0", "model", "-Y", "localhost", "--size", "0");
    REFUSE("--size: '1,,2' has an empty item", "model", "-Y", "localhost", "--size", "1,,2");
    REFUSE("is a directory", "validate", "@/a-folder");
    REFUSE("nope/result.json: cannot open: No such file", "report", "@/nope");
    REFUSE("--bogus: unknown option", "version", "--bogus");
    REFUSE("--bogus: unknown option", "detect", "--bogus");
    REFUSE("--gpus: 100000 GPUs per node, but a node of dgx-a100 has 8", "model", "-Y", "dgx-a100",
           "--gpus", "100000");
    REFUSE("--nodes: 2000000 is out of range [2, 1048576]", "pairs", "--plan-only", "--nodes",
           "2000000");
    REFUSE("--collective: unknown collective 'foo'", "judge", "-Y", "dgx-a100", "--collective",
           "foo", "@/ar.log");
    REFUSE("says it measured allreduce", "judge", "-Y", "dgx-a100", "--collective", "broadcast",
           "@/ar.log");
    /* coll's flags (test_coll_bad_flags.py keeps those that need two ranks or check that one
     * rank speaks) */
    REFUSE("-b: '12X' has an unknown suffix", "coll", "-b", "12X");
    REFUSE("-e: 'abc' is not a size", "coll", "-e", "abc");
    REFUSE("-b: minimum size 1048576 is larger than the maximum (-e) 1024", "coll", "-b", "1M",
           "-e", "1K");
    REFUSE("-f: 1 is out of range", "coll", "-f", "1");
    REFUSE("-f and -i: give one way to step", "coll", "-f", "2", "-i", "1K");
    REFUSE("-i: the step must be at least 1 byte", "coll", "-i", "0");
    REFUSE("-n: '0' is not an iteration count", "coll", "-n", "0");
    REFUSE("-n: 'many' is not an iteration count", "coll", "-n", "many");
    REFUSE("-w: -1 is out of range", "coll", "-w", "-1");
    REFUSE("-c: 'x' is not an integer", "coll", "-c", "x");
    REFUSE("-o: unknown reduction 'xor' (valid: sum, prod, min, max, avg, all)", "coll", "-o",
           "xor");
    REFUSE("-d: unknown data type 'float16x'", "coll", "-d", "float16x");
    REFUSE("-a: unknown way to combine rank times '7'", "coll", "-a", "7");
    REFUSE("--collective: unknown collective 'allreduc'", "coll", "--collective", "allreduc");
    REFUSE("--collective: 'allreduce,,allgather' is not a list", "coll", "--collective",
           "allreduce,,allgather");
    REFUSE("--collective: unknown collective 'bcast'", "coll", "--collective", "allgather,bcast");
    REFUSE("-d: 'float,' is not a list of names", "coll", "-d", "float,");
    REFUSE("-o: unknown reduction 'xor'", "coll", "-o", "sum,xor");
    REFUSE("--backend: 'verbs' is not one of nccl|rccl|hccl|mpi|ucx|auto", "coll", "--backend",
           "verbs");
    REFUSE("--timeout: -3 is out of range", "coll", "--timeout", "-3");
    REFUSE("--deadline: -1 is out of range", "coll", "--deadline", "-1");
    REFUSE("--deadline: ", "coll", "--deadline", "soon");
    REFUSE("--target-ci: 0 is out of range", "coll", "--target-ci", "0");
    REFUSE("--json: missing value (FILE)", "coll", "--json");
    REFUSE("--colective: unknown option (did you mean --collective?", "coll", "--colective",
           "allreduce");
    REFUSE("unknown collective 'alreduce' (did you mean 'allreduce'?", "coll", "--collective",
           "alreduce");
    REFUSE("unknown reduction 'summ' (did you mean 'sum'?", "coll", "-o", "summ");
    REFUSE("-q: unknown option", "coll", "-q", "1");
    REFUSE("-x: NCCL's device API and CTA policies are not measured", "coll", "-x", "1");
    REFUSE("unexpected argument 'stray'", "coll", "stray");
    REFUSE("--name: not a name: 1-63 letters", "coll", "--name", "a/b");
    /* run's options and workload files (test_run_refusals.py keeps the layouts, which need
     * ranks) */
    REFUSE("--bytes-scale: 2 is out of range", "run", "-W", "bert-large-dp", "--bytes-scale", "2");
    REFUSE("/nonexistent.yaml: cannot open", "run", "--workload", "/nonexistent.yaml");
    REFUSE("unknown key 'data_parallel.bucket_mbs' (did you mean 'bucket_mb'?)", "run", "-W",
           "@/typo.yaml");
    REFUSE("model.layers: expected a number, got 'many'", "run", "-W", "@/type.yaml");
    REFUSE("syntax.yaml:3:1:", "run", "-W", "@/syntax.yaml");
    /* soak's (test_soak.py refused keeps the memory and a resume on other ranks) */
    REFUSE("--duration: 'x' is not a duration", "soak", "--duration", "x");
    REFUSE("--duration: '-5m' is not a duration", "soak", "--duration", "-5m");
    REFUSE("--duration: required", "soak", "--cycle", "5");
    REFUSE("--resume: ", "soak", "--resume", "@/nowhere");
    REFUSE("--resume: the soak's options come from its journal", "soak", "--resume", "@/a-folder",
           "--duration", "1m");
    REFUSE("--mode: 'x' is not one of concurrent|serial", "soak", "--duration", "1m", "--mode",
           "x");
    char missing[512];
    snprintf(missing, sizeof(missing), "%s/none", refusals__dir);
    SC_EXPECT(access(missing, F_OK) != 0); /* no output file, nor its folder */
    sc_rte_fini(&refusals__rte);
    char rm[400];
    snprintf(rm, sizeof(rm), "rm -rf '%s'", refusals__dir);
    if (system(rm) != 0)
        return 1;
    return sc_test_done("test_refusals");
}
