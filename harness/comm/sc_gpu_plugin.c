/* sc_gpu_plugin.c - the program's side of the GPU plugin (sc_gpu_plugin.h): finding and loading
 * libscalecheck-gpu.so, and the backend entry that opens it. */
#include "sc_gpu_plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The NVIDIA driver's control device (Linux), and the GPU device of WSL2's driver. */
static const char *const gpu__driver_nodes[] = {"/dev/nvidiactl", "/dev/dxg"};

bool sc_gpu_driver_present(char *why, size_t len)
{
    for (size_t i = 0; i < sizeof(gpu__driver_nodes) / sizeof(gpu__driver_nodes[0]); i++)
        if (access(gpu__driver_nodes[i], F_OK) == 0)
            return true;
    snprintf(why, len, "no NVIDIA driver (%s absent)", gpu__driver_nodes[0]);
    return false;
}

/* The folder of the running program, "" when /proc does not say. */
static void gpu__program_dir(char *dir, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", dir, len - 1);
    dir[n > 0 ? n : 0] = '\0';
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
}

static const sc_gpu_plugin_t *gpu__open_at(const char *path, char *why, size_t len)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(why, len, "cannot load the GPU plugin: %s", dlerror());
        return NULL;
    }
    sc_gpu_plugin_fn entry = NULL;
    *(void **)&entry = dlsym(handle, SC_GPU_PLUGIN_ENTRY); /* ISO C: no object-to-function cast */
    const sc_gpu_plugin_t *plugin = entry != NULL ? entry() : NULL;
    if (plugin == NULL || plugin->ops_size != sizeof(sc_backend_ops_t)) {
        snprintf(why, len, "%s is not this build's GPU plugin (%s)", path,
                 plugin == NULL ? "no " SC_GPU_PLUGIN_ENTRY : "another ops table");
        dlclose(handle);
        return NULL;
    }
    return plugin; /* never closed: NCCL and CUDA keep threads running in it */
}

static struct {
    pthread_once_t once;
    const sc_gpu_plugin_t *plugin;
    char why[PATH_MAX + 256];
} gpu__loaded = {.once = PTHREAD_ONCE_INIT};

static void gpu__load_once(void)
{
    const char *chosen = getenv(SC_GPU_PLUGIN_ENV);
    if (chosen != NULL && chosen[0] != '\0') {
        gpu__loaded.plugin = gpu__open_at(chosen, gpu__loaded.why, sizeof(gpu__loaded.why));
        return;
    }
    char dir[PATH_MAX], path[PATH_MAX + 64];
    gpu__program_dir(dir, sizeof(dir));
    static const char *const beside[] = {"", "/../lib/scalecheck"};
    for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
        snprintf(path, sizeof(path), "%s%s/%s", dir, beside[i], SC_GPU_PLUGIN_FILE);
        if (access(path, F_OK) == 0) {
            gpu__loaded.plugin = gpu__open_at(path, gpu__loaded.why, sizeof(gpu__loaded.why));
            return;
        }
    }
    snprintf(gpu__loaded.why, sizeof(gpu__loaded.why),
             "the GPU plugin %s is neither beside the program (%s) nor in %s/../lib/scalecheck "
             "(or set " SC_GPU_PLUGIN_ENV ")",
             SC_GPU_PLUGIN_FILE, dir, dir);
}

const sc_gpu_plugin_t *sc_gpu_plugin_load(char *why, size_t len)
{
    pthread_once(&gpu__loaded.once, gpu__load_once);
    if (gpu__loaded.plugin == NULL)
        snprintf(why, len, "%s", gpu__loaded.why);
    return gpu__loaded.plugin;
}

/* Tried by auto: a host without the driver answers at once, and the plugin is not even loaded
 * (it would map CUDA, NCCL and cuBLAS into every host-path rank). Named (--backend nccl): the
 * plugin and CUDA say themselves what is missing. Every step is agreed by all ranks. */
static sc_status_t gpu__open(const sc_rte_t *rte, const sc_backend_opts_t *opts, sc_comm_t **world,
                             sc_err_t *err)
{
    char why[sizeof(gpu__loaded.why) + SC_HOST_MAX + 64] = "", detail[sizeof(gpu__loaded.why)];
    sc_status_t mine = SC_OK;
    if (!opts->named && !sc_gpu_driver_present(detail, sizeof(detail))) {
        snprintf(why, sizeof(why), "no CUDA device on host %s: %s", rte->host, detail);
        mine = SC_ERR_UNSUPPORTED;
    }
    sc_status_t status = sc_rte_agree(rte, mine, why, sizeof(why), err);
    const sc_gpu_plugin_t *plugin = NULL;
    if (status == SC_OK) {
        plugin = sc_gpu_plugin_load(detail, sizeof(detail));
        if (plugin == NULL)
            snprintf(why, sizeof(why), "host %s: %s", rte->host, detail);
        status = sc_rte_agree(rte, plugin ? SC_OK : SC_ERR_UNSUPPORTED, why, sizeof(why), err);
    }
    return status == SC_OK ? plugin->ops->open(rte, opts, world, err) : status;
}

const sc_backend_ops_t sc_backend_nccl_ops = {.name = "nccl", .open = gpu__open};
