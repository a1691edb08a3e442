/* sc_gpu_plugin.c - the program's side of the GPU modules (sc_gpu_plugin.h): finding and loading
 * a vendor's module, and the backend entries that open them. */
#include "sc_gpu_plugin.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_config.h"

/* The NVIDIA driver's control device (Linux) and WSL2's GPU device; AMD's compute driver (KFD,
 * which ROCm opens for every GPU); Huawei's below. */
#if SC_HAVE_NCCL
static const sc_gpu_vendor_t gpu__nvidia = {"nccl",
                                            "NVIDIA",
                                            "libscalecheck-gpu.so",
                                            "SCALECHECK_GPU_PLUGIN",
                                            {"/dev/nvidiactl", "/dev/dxg"},
                                            "CUDA device"};
#endif
static const sc_gpu_vendor_t gpu__amd = {
    "rccl",   "AMD", "libscalecheck-rocm.so", "SCALECHECK_ROCM_PLUGIN", {"/dev/kfd", NULL},
    "AMD GPU"};
/* Huawei's NPU driver's management device, which every process of the ACL runtime opens. */
static const sc_gpu_vendor_t gpu__ascend = {"hccl",
                                            "Huawei Ascend",
                                            "libscalecheck-ascend.so",
                                            "SCALECHECK_ASCEND_PLUGIN",
                                            {"/dev/davinci_manager", NULL},
                                            "Ascend NPU"};

static const sc_gpu_vendor_t *const gpu__vendors[] = {
#if SC_HAVE_NCCL
    &gpu__nvidia,
#endif
    &gpu__amd, &gpu__ascend, NULL};

const sc_gpu_vendor_t *const *sc_gpu_vendors(void)
{
    return gpu__vendors;
}

const sc_gpu_vendor_t *sc_gpu_vendor_of(const char *backend)
{
    for (const sc_gpu_vendor_t *const *v = gpu__vendors; *v != NULL; v++)
        if (strcmp((*v)->backend, backend) == 0)
            return *v;
    return NULL;
}

bool sc_gpu_driver_present(const sc_gpu_vendor_t *vendor, char *why, size_t len)
{
    for (size_t i = 0; i < 2 && vendor->driver_nodes[i] != NULL; i++)
        if (access(vendor->driver_nodes[i], F_OK) == 0)
            return true;
    snprintf(why, len, "no %s driver (%s absent)", vendor->vendor, vendor->driver_nodes[0]);
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
    return plugin; /* never closed: the vendor's libraries keep threads running in it */
}

typedef struct {
    bool tried;
    const sc_gpu_plugin_t *plugin;
    char why[PATH_MAX + 256];
} gpu__loaded_t;

/* One a vendor, in gpu__vendors' order; the first call for a vendor loads it, under the lock. */
#define GPU__VENDOR_COUNT (sizeof(gpu__vendors) / sizeof(gpu__vendors[0]) - 1)
static gpu__loaded_t gpu__loaded[sizeof(gpu__vendors) / sizeof(gpu__vendors[0])];
static pthread_mutex_t gpu__load_lock = PTHREAD_MUTEX_INITIALIZER;

static void gpu__load(const sc_gpu_vendor_t *v, gpu__loaded_t *l)
{
    const char *chosen = getenv(v->env);
    if (chosen != NULL && chosen[0] != '\0') {
        l->plugin = gpu__open_at(chosen, l->why, sizeof(l->why));
        return;
    }
    char dir[PATH_MAX], path[PATH_MAX + 64];
    gpu__program_dir(dir, sizeof(dir));
    static const char *const beside[] = {"", "/../lib/scalecheck"};
    for (size_t i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
        snprintf(path, sizeof(path), "%s%s/%s", dir, beside[i], v->file);
        if (access(path, F_OK) == 0) {
            l->plugin = gpu__open_at(path, l->why, sizeof(l->why));
            return;
        }
    }
    snprintf(l->why, sizeof(l->why),
             "the GPU plugin %s is neither beside the program (%s) nor in %s/../lib/scalecheck "
             "(or set %s)",
             v->file, dir, dir, v->env);
}

const sc_gpu_plugin_t *sc_gpu_plugin_load(const sc_gpu_vendor_t *vendor, char *why, size_t len)
{
    for (size_t i = 0; i < GPU__VENDOR_COUNT; i++) {
        if (gpu__vendors[i] != vendor)
            continue;
        gpu__loaded_t *l = &gpu__loaded[i];
        pthread_mutex_lock(&gpu__load_lock);
        if (!l->tried) {
            gpu__load(vendor, l);
            l->tried = true;
        }
        pthread_mutex_unlock(&gpu__load_lock);
        if (l->plugin == NULL)
            snprintf(why, len, "%s", l->why);
        return l->plugin;
    }
    snprintf(why, len, "no GPU module for this backend in this build");
    return NULL;
}

/* Tried by auto: a host without the driver answers at once, and the module is not even loaded
 * (it would map the vendor's libraries into every host-path rank). Named (--backend nccl): the
 * module and the vendor's runtime say themselves what is missing. Every step is agreed by all
 * ranks. */
static sc_status_t gpu__open(const sc_gpu_vendor_t *v, const sc_rte_t *rte,
                             const sc_backend_opts_t *opts, sc_comm_t **world, sc_err_t *err)
{
    char why[PATH_MAX + 256 + SC_HOST_MAX + 64] = "", detail[PATH_MAX + 256];
    sc_status_t mine = SC_OK;
    if (!opts->named && !sc_gpu_driver_present(v, detail, sizeof(detail))) {
        snprintf(why, sizeof(why), "no %s on host %s: %s", v->device, rte->host, detail);
        mine = SC_ERR_UNSUPPORTED;
    }
    sc_status_t status = sc_rte_agree(rte, mine, why, sizeof(why), err);
    const sc_gpu_plugin_t *plugin = NULL;
    if (status == SC_OK) {
        plugin = sc_gpu_plugin_load(v, detail, sizeof(detail));
        if (plugin == NULL)
            snprintf(why, sizeof(why), "host %s: %s", rte->host, detail);
        status = sc_rte_agree(rte, plugin ? SC_OK : SC_ERR_UNSUPPORTED, why, sizeof(why), err);
    }
    return status == SC_OK ? plugin->ops->open(rte, opts, world, err) : status;
}

#if SC_HAVE_NCCL
static sc_status_t gpu__open_nvidia(const sc_rte_t *rte, const sc_backend_opts_t *opts,
                                    sc_comm_t **world, sc_err_t *err)
{
    return gpu__open(&gpu__nvidia, rte, opts, world, err);
}

const sc_backend_ops_t sc_backend_nccl_ops = {.name = "nccl", .open = gpu__open_nvidia};
#endif

static sc_status_t gpu__open_amd(const sc_rte_t *rte, const sc_backend_opts_t *opts,
                                 sc_comm_t **world, sc_err_t *err)
{
    return gpu__open(&gpu__amd, rte, opts, world, err);
}

const sc_backend_ops_t sc_backend_rccl_ops = {.name = "rccl", .open = gpu__open_amd};

static sc_status_t gpu__open_ascend(const sc_rte_t *rte, const sc_backend_opts_t *opts,
                                    sc_comm_t **world, sc_err_t *err)
{
    return gpu__open(&gpu__ascend, rte, opts, world, err);
}

const sc_backend_ops_t sc_backend_hccl_ops = {.name = "hccl", .open = gpu__open_ascend};
