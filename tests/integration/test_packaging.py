"""The recipes an HPC centre uses, each exercised as far as this machine allows:
  reframe   - ReFrame (from PyPI, in a venv of its own) runs launch/reframe/scalecheck_check.py
              against this build with mpirun as the partition's launcher: the healthy run
              passes with its bus bandwidth as the figure, a run with corrupted data fails
  spack     - launch/spack's package.py, loaded against a stand-in of Spack's package API that
              records what it declares: the +cuda and +ucx variants, the virtual mpi, NCCL only
              with +cuda, and the CMake options those variants set (options the build has)
  container - launch/container/Dockerfile parsed: built on a CUDA devel image (NCCL with it),
              checked to have built the GPU path, installed where the MPIJob runs it, an SSH
              server and the results volume in the runtime image
  k8s       - launch/k8s/scalecheck-mpijob.yaml: an MPI Operator v2 MPIJob whose workers run
              sshd, mount /dev/shm in memory and the shared results claim (ReadWriteMany) that
              rank 0 writes on, ask for no RDMA resource a cluster may lack, and run the
              image's installed paths
A tool that cannot be had here (PyPI unreachable) skips with the reason (exit 77)."""
import ast
import os
import re
import shutil
import subprocess
import sys
import types

from sclib import *

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MODE = sys.argv[1] if len(sys.argv) > 1 else "spack"
SKIP = 77

REFRAME_CONFIG = """
site_configuration = {
    'systems': [{
        'name': 'here', 'descr': 'this machine', 'hostnames': ['.*'],
        'modules_system': 'nomod',
        'partitions': [{'name': 'local', 'scheduler': 'local', 'launcher': 'mpirun',
                        'environs': ['builtin']}],
    }],
    'environments': [{'name': 'builtin'}],
    'logging': [{'handlers': [{'type': 'file', 'name': '%(log)s', 'level': 'debug',
                               'format': '%%(message)s'}]}],
}
"""


def reframe():
    if MPI != "openmpi":
        print("SKIP reframe: the check's launcher here is Open MPI's mpirun")
        sys.exit(SKIP)
    wd = workdir("reframe")
    venv = os.path.join(os.environ.get("SC_BUILD", wd), "reframe-venv")
    rf = os.path.join(venv, "bin", "reframe")
    if not os.path.exists(rf):
        made = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True,
                              text=True)
        if made.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            print(f"SKIP reframe: no venv for {sys.executable} (python3-venv): "
                  f"{made.stderr.strip()[-200:]}")
            sys.exit(SKIP)
        p = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "reframe-hpc"],
                           capture_output=True, text=True, timeout=240)
        if p.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            print(f"SKIP reframe: pip install reframe-hpc failed: {p.stderr.strip()[-300:]}")
            sys.exit(SKIP)
    cfg = os.path.join(wd, "settings.py")
    with open(cfg, "w") as f:
        f.write(REFRAME_CONFIG % {"log": os.path.join(wd, "reframe.log")})
    check = os.path.join(ROOT, "launch", "reframe", "scalecheck_check.py")
    # this host, held loosely: beside the rest of the suite on two cores its small sizes run
    # slower than localhost.yaml's model; what is under test is ReFrame running the check
    topo = loose_topology(wd, tolerance=0.9, fail_tolerance=0.99)

    def run(name, extra_env, extra_args=()):
        # TMPDIR: ReFrame's own debug log goes there, not to /tmp
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   TMPDIR=wd, **extra_env)
        p = subprocess.run([rf, "--nocolor", "-C", cfg, "-c", check, "-r", "--prefix",
                            os.path.join(wd, name),
                            "-S", f"scalecheck={os.path.abspath(SCALECHECK)}", "-S",
                            f"topology={topo}", "-S", "num_tasks=2", "-S",
                            "num_tasks_per_node=2", "-S", "max_size=256K", *extra_args],
                           capture_output=True, text=True, timeout=240, env=env)
        return p.returncode, p.stdout + p.stderr

    rc, out = run("healthy", {})
    expect(rc == 0 and "[  PASSED  ] Ran 1/1 test case" in out, f"healthy: exit {rc}\n{out[-1500:]}")
    figure = re.search(r"avg_busbw: ([0-9.]+) GB/s", out)
    expect(figure and float(figure.group(1)) > 0, f"no bus bandwidth figure:\n{out[-800:]}")
    rc, out = run("corrupt", {"SCALECHECK_TEST_FAULT": "corrupt:1"})
    expect(rc != 0 and "values came back wrong" in out, f"corrupt: exit {rc}\n{out[-1500:]}")
    # a reference the figure cannot reach: the performance stage fails
    rc, out = run("reference", {}, ["-S", "min_busbw=1000000"])
    expect(rc != 0 and "avg_busbw" in out and "FAIL" in out, f"reference: exit {rc}\n{out[-1500:]}")
    # scalecheck refuses before making a run directory: its message, no traceback
    rc, out = run("refused", {}, ["-S", "topology=dgx-a10"])
    expect(rc != 0 and "scalecheck made no run directory" in out and "dgx-a10" in out
           and "FileNotFoundError" not in out, f"refused: exit {rc}\n{out[-1500:]}")
    print(f"reframe: healthy PASSED ({figure.group(1)} GB/s), corrupted data FAILED, a reference "
          "it misses FAILED, a refused run FAILED with scalecheck's message")


class Recorder:
    """Spack's package API as far as a recipe uses it at load time: what it declares."""

    def __init__(self):
        self.variants, self.depends, self.versions = {}, [], []

    def module(self):
        m = types.ModuleType("spack.package")
        rec = self

        class CMakePackage:
            def define(self, name, value):
                return f"-D{name}:{'BOOL' if isinstance(value, bool) else 'STRING'}={value}"

            def define_from_variant(self, name, variant):
                return self.define(name, variant in self.spec.enabled)

        m.CMakePackage = CMakePackage
        m.variant = lambda name, default=None, description="": rec.variants.update({name: default})
        m.depends_on = lambda spec, when=None, type=None: rec.depends.append((spec, when))
        m.version = lambda v, **kw: rec.versions.append(v)
        m.maintainers = lambda *a: None
        m.license = lambda *a: None
        m.join_path = os.path.join
        m.__all__ = [n for n in dir(m) if not n.startswith("_")]
        return m


class Prefix(str):
    def __getattr__(self, name):
        return Prefix(os.path.join(self, name))


class Spec:
    def __init__(self, enabled):
        self.enabled = enabled

    def satisfies(self, s):
        return s.lstrip("+") in self.enabled

    def __getitem__(self, name):
        return types.SimpleNamespace(prefix=Prefix(f"/spack/{name}"))


def spack():
    path = os.path.join(ROOT, "launch", "spack", "packages", "scalecheck", "package.py")
    rec = Recorder()
    spack_mod = types.ModuleType("spack")
    spack_mod.package = rec.module()
    sys.modules["spack"], sys.modules["spack.package"] = spack_mod, spack_mod.package
    ns = {}
    exec(compile(open(path).read(), path, "exec"), ns)
    cls = ns["Scalecheck"]
    expect(set(rec.variants) == {"cuda", "ucx"}, f"variants {rec.variants}")
    deps = dict(rec.depends)
    for needed in ("mpi", "libyaml", "jansson", "hwloc"):
        expect(needed in deps and deps[needed] is None, f"{needed}: {deps.get(needed, 'missing')}")
    expect(deps.get("nccl") == "+cuda" and deps.get("cuda") == "+cuda" and
           deps.get("ucx") == "+ucx", f"conditional dependencies {deps}")
    cmake = open(os.path.join(ROOT, "CMakeLists.txt")).read()
    for enabled in (set(), {"cuda", "ucx"}):
        pkg = cls()
        pkg.spec = Spec(enabled)
        args = pkg.cmake_args()
        for a in args:
            name = a[2:].split(":")[0]
            expect(re.search(rf"\b{name}\b", cmake) or name.startswith("CMAKE_"),
                   f"cmake_args sets {name}, which CMakeLists.txt does not read")
        gpu = [a for a in args if a.startswith("-DSC_ENABLE_GPU")]
        expect(gpu == [f"-DSC_ENABLE_GPU:BOOL={'cuda' in enabled}"], f"{enabled}: {args}")
        expect(("cuda" in enabled) == any("NCCL_INCLUDE_DIR" in a for a in args),
               f"{enabled}: NCCL paths {args}")
    print(f"spack: variants {sorted(rec.variants)}, {len(rec.depends)} dependencies, cmake_args ok")


def dockerfile_instructions(path):
    """(instruction, arguments) per instruction, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", open(path).read())
    return [(l.split(None, 1)[0].upper(), l.split(None, 1)[1] if " " in l.strip() else "")
            for l in (x.strip() for x in text.splitlines()) if l and not l.startswith("#")]


def container():
    steps = dockerfile_instructions(os.path.join(ROOT, "launch", "container", "Dockerfile"))
    froms = [a for i, a in steps if i == "FROM"]
    expect(len(froms) == 2 and "-devel-" in froms[0] and froms[0].endswith(" AS build") and
           "-runtime-" in froms[1], f"stages {froms}")
    runs = [a for i, a in steps if i == "RUN"]
    build = next((r for r in runs if "cmake -S" in r), "")
    expect("CMAKE_INSTALL_PREFIX=/opt/scalecheck" in build and "cmake --install" in build and
           "SC_HAVE_NCCL 1" in build, f"build step: {build}")
    runtime = runs[-1]
    for pkg in ("openssh-server", "openmpi-bin", "libucx0", "libyaml-0-2", "libjansson4"):
        expect(pkg in runtime, f"runtime image lacks {pkg}")
    env = " ".join(a for i, a in steps if i == "ENV")
    expect("SCALECHECK_RESULTS=/results" in env and "/opt/scalecheck/bin" in env, f"ENV {env}")
    expect(any(i == "COPY" and "--from=build /opt/scalecheck" in a for i, a in steps),
           "the install tree is not copied into the runtime image")
    print(f"container: {len(steps)} instructions, devel -> runtime, /opt/scalecheck")


def k8s():
    import yaml
    docs = list(yaml.safe_load_all(open(os.path.join(ROOT, "launch", "k8s",
                                                     "scalecheck-mpijob.yaml"))))
    job = next(d for d in docs if d["kind"] == "MPIJob")
    claim = next(d for d in docs if d["kind"] == "PersistentVolumeClaim")
    expect(job["apiVersion"] == "kubeflow.org/v2beta1" and job["spec"]["mpiImplementation"] ==
           "OpenMPI", f"{job['apiVersion']}")
    spec = job["spec"]["mpiReplicaSpecs"]
    worker = spec["Worker"]["template"]["spec"]
    launcher = spec["Launcher"]["template"]["spec"]
    wc = worker["containers"][0]
    expect(wc["command"][0] == "/usr/sbin/sshd", f"worker command {wc.get('command')}")
    mounts = {m["mountPath"]: m["name"] for m in wc["volumeMounts"]}
    vols = {v["name"]: v for v in worker["volumes"]}
    expect(vols[mounts["/dev/shm"]]["emptyDir"]["medium"] == "Memory", "no /dev/shm in memory")
    expect(vols[mounts["/results"]]["persistentVolumeClaim"]["claimName"] ==
           claim["metadata"]["name"] and "ReadWriteMany" in claim["spec"]["accessModes"],
           "workers (rank 0 is on worker 0) do not mount the shared results claim")
    limits = wc["resources"]["limits"]
    expect(limits.get("nvidia.com/gpu") == job["spec"]["slotsPerWorker"] and
           not any(k.startswith("rdma/") for k in limits), f"limits {limits}")
    cmd = launcher["containers"][0]["command"]
    steps = dockerfile_instructions(os.path.join(ROOT, "launch", "container", "Dockerfile"))
    prefix = re.search(r"CMAKE_INSTALL_PREFIX=(\S+)", " ".join(a for _, a in steps)).group(1)
    expect(cmd[0] == f"{prefix}/share/scalecheck/launch/mpirun.sh" and
           f"{prefix}/bin/scalecheck" in cmd and cmd[cmd.index("--results-dir") + 1] == "/results",
           f"launcher command {cmd}")
    installed = open(os.path.join(ROOT, "cmake", "install.cmake")).read()
    expect("launch" in installed, "launch/ is not installed")
    # one image, tagged with the version (never :latest: every node checks with the same build)
    cron = yaml.safe_load(open(os.path.join(ROOT, "launch", "k8s",
                                            "scalecheck-health-cronjob.yaml")))
    pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    version = re.search(r"project\(scalecheck VERSION (\S+)",
                        open(os.path.join(ROOT, "CMakeLists.txt")).read()).group(1)
    images = {c["image"] for c in pod["containers"] + worker["containers"]
              + launcher["containers"]}
    expect(len(images) == 1 and next(iter(images)).endswith(":" + version),
           f"images {images}: one name, tagged {version}")
    # a failing health check's evidence outlives the pod: its results directory is the node's
    hc = pod["containers"][0]
    where = hc["command"][hc["command"].index("--results-dir") + 1]
    mounted = {m["mountPath"]: m["name"] for m in hc["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    expect(where in mounted and "hostPath" in volumes[mounted[where]] and not where.startswith("/tmp"),
           f"health evidence in {where}: {volumes.get(mounted.get(where))}")
    print(f"k8s: MPIJob {job['metadata']['name']}, {spec['Worker']['replicas']} workers with sshd,"
          f" /dev/shm and the shared results claim")


if __name__ == "__main__":
    main({"reframe": reframe, "spack": spack, "container": container, "k8s": k8s}[MODE])
