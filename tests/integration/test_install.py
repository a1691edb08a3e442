"""Installed, as an admin installs it:
  prefix - `cmake --install` into a fresh prefix puts the program, the shipped topologies and
           workloads, the man pages (scalecheck(1) and one a command, from the option tables),
           the bash completion and the licence; run from / with another HOME, the installed
           program finds `-Y dgx-a100` and `-W resnet50-dp` by name and keeps its results under
           ~/.local/share/scalecheck/results (SCALECHECK_RESULTS moves them), never in /;
  deb    - `cpack -G DEB` makes a package that dpkg installs; /usr/bin/scalecheck runs a
           collective from / and finds the shipped files; dpkg purges it all again.
Skips (77) with the reason where dpkg or root is missing."""
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys

from sclib import *

BUILD = os.environ["SC_BUILD"]


def run(cmd, env=None, cwd="/", timeout=240):
    full = dict(os.environ)
    full.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"})
    full.update(env or {})
    return subprocess.run(cmd, capture_output=True, text=True, env=full, cwd=cwd, timeout=timeout)


def collective(binary, home, extra_env=None):
    env = {"HOME": home}
    env.update(extra_env or {})
    return run(launcher(2) + [binary, "coll", "-b", "8", "-e", "1K",
                "-n", "5", "-w", "1", "-Y", "localhost"], env=env)


def prefix(wd):
    root = os.path.join(wd, "prefix")
    p = run(["cmake", "--install", BUILD, "--prefix", root])
    expect(p.returncode == 0, f"cmake --install: {p.returncode}\n{p.stderr[-1500:]}")
    files = {os.path.relpath(f, root) for f in glob.glob(os.path.join(root, "**"), recursive=True)
             if os.path.isfile(f)}
    for want in ("bin/scalecheck", "share/scalecheck/topologies/dgx-a100.yaml",
                 "share/scalecheck/workloads/resnet50-dp.yaml", "share/man/man1/scalecheck.1.gz",
                 "share/man/man1/scalecheck-coll.1.gz", "share/man/man1/scalecheck-soak.1.gz",
                 "share/bash-completion/completions/scalecheck", "share/doc/scalecheck/LICENSE", "share/doc/scalecheck/copyright",
                 "share/scalecheck/launch/mpirun.sh"):
        expect(want in files, f"not installed: {want} ({len(files)} files)")
    page = gzip.open(os.path.join(root, "share/man/man1/scalecheck-soak.1.gz"), "rt").read()
    expect(page.startswith(".TH SCALECHECK\\-SOAK 1") and "\\fB\\-\\-duration\\fR" in page
           and ".SH OPTIONS" in page, f"scalecheck-soak.1:\n{page[:400]}")
    # every command's page says what it does and shows how: DESCRIPTION and EXAMPLES, in order
    for page_file in glob.glob(os.path.join(root, "share/man/man1/scalecheck-*.1.gz")):
        text = gzip.open(page_file, "rt").read()
        heads = [h for h in re.findall(r"^\.SH (\w+)", text, re.M)]
        expect(heads[:5] == ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES"]
               and re.search(r"^\.SH EXAMPLES\n\.nf\n.*scalecheck", text, re.M),
               f"{os.path.basename(page_file)}: sections {heads}")
    if shutil.which("nroff"):
        coll_page = os.path.join(wd, "scalecheck-coll.1")
        with open(coll_page, "w") as f:
            f.write(gzip.open(os.path.join(root, "share/man/man1/scalecheck-coll.1.gz"), "rt").read())
        r = run(["nroff", "-man", coll_page])
        text = re.sub(".\b", "", r.stdout).replace("\u2010", "-").replace("\u2212", "-")
        expect(r.returncode == 0 and "--minbytes" in text and "SCALECHECK-COLL(1)" in text,
               f"nroff: {r.stderr}\n{text[:600]}")
    completion = open(os.path.join(root, "share/bash-completion/completions/scalecheck")).read()
    expect("--duration" in completion and "--strategy" in completion and "soak" in completion,
           "completion lacks options")
    r = run(["bash", "-c", f". {root}/share/bash-completion/completions/scalecheck && "
                           "COMP_WORDS=(scalecheck pairs --stra); COMP_CWORD=2; _scalecheck && "
                           "echo \"${COMPREPLY[@]}\""])
    expect(r.returncode == 0 and r.stdout.split() == ["--strategy"], f"completion: {r.stdout!r} {r.stderr}")
    # values complete too: shipped names, the registry's collectives, a metavar's choices
    for words, want in ((["coll", "-Y", "dgx"], ["dgx-a100", "dgx-h100"]),
                        (["coll", "--collective", "all"], ["allreduce", "allgather", "alltoall", "all"]),
                        (["run", "-W", "resnet50"], ["resnet50-dp", "resnet50-dp-tf32"]),
                        (["compute", "--dtype", "f"], ["fp32", "fp16"]),
                        (["pairs", "--strategy", "b"], ["bisect"]),
                        (["co"], ["coll", "compare", "compute"])):
        line = " ".join(["scalecheck"] + words)
        r = run(["bash", "-c", f". {root}/share/bash-completion/completions/scalecheck && "
                               f"COMP_WORDS=({line}); COMP_CWORD={len(words)}; _scalecheck && "
                               "printf '%s\\n' \"${COMPREPLY[@]}\""], cwd=wd)
        expect(r.returncode == 0 and sorted(r.stdout.split()) == sorted(want),
               f"completion of '{line}': {r.stdout.split()} (want {want}) {r.stderr}")
    binary = os.path.join(root, "bin", "scalecheck")
    home = os.path.join(wd, "home")
    os.makedirs(home)
    r = run([binary, "model", "-Y", "dgx-a100", "-W", "resnet50-dp", "--gpus", "8"], env={"HOME": home})
    expect(r.returncode == 0 and "dgx-a100" in r.stdout, f"model by shipped names: {r.returncode}\n"
           f"{r.stdout[-800:]}{r.stderr[-800:]}")
    r = collective(binary, home)
    results = os.path.join(home, ".local", "share", "scalecheck", "results")
    expect(r.returncode in (0, 1) and len(run_dirs(results)) == 1 and not os.path.exists("/results"),
           f"installed coll from /: exit {r.returncode}, results {run_dirs(results)}\n{r.stderr[-800:]}")
    moved = os.path.join(wd, "elsewhere")
    r = collective(binary, home, {"SCALECHECK_RESULTS": moved})
    expect(r.returncode in (0, 1) and len(run_dirs(moved)) == 1, f"SCALECHECK_RESULTS: {run_dirs(moved)}")
    r = run([binary, "model", "-Y", "dgx-a10", "-W", "resnet50-dp"], env={"HOME": home})
    expect(r.returncode == 2 and "dgx-a10" in r.stderr, f"a name that is not shipped: {r.stderr}")
    print(f"prefix: {len(files)} files; shipped names found from /; results under HOME")


def deb(wd):
    if os.geteuid() != 0 or not shutil.which("dpkg") or not shutil.which("dpkg-shlibdeps"):
        print("SKIP: needs root, dpkg and dpkg-shlibdeps (dpkg-dev) to build and install a .deb")
        sys.exit(77)
    status = run(["dpkg-query", "-W", "-f=${Status}", "scalecheck"]).stdout
    if "install ok installed" in status:
        print("SKIP: a scalecheck package is installed here already; not replacing it")
        sys.exit(77)
    out = os.path.join(wd, "pkg")
    p = run(["cpack", "-G", "DEB", "-B", out], cwd=BUILD, timeout=600)
    debs = glob.glob(os.path.join(out, "*.deb"))
    expect(p.returncode == 0 and len(debs) == 1, f"cpack: {p.returncode}\n{p.stdout[-1500:]}{p.stderr[-1500:]}")
    info = run(["dpkg-deb", "-I", debs[0]]).stdout
    expect("Package: scalecheck" in info and "Depends:" in info, f"control:\n{info}")
    # what runs it, not only what it links: the launcher, gnuplot recommended, one-line summary
    depends = next((l for l in info.splitlines() if l.strip().startswith("Depends:")), "")
    expect(re.search(r"\b(openmpi-bin|mpich)\b", depends) and "gnuplot" in info
           and ";" not in next((l for l in info.splitlines() if "Description:" in l), ";"),
           f"control: launcher, gnuplot, description:\n{info}")
    # Debian's conventions, as lintian holds them (its two overrides say why: cmake/debian/)
    lint = "lintian clean"
    if shutil.which("lintian"):
        p = run(["lintian", "--tag-display-limit", "0", "--fail-on", "error,warning", debs[0]],
                timeout=300)
        findings = [l for l in (p.stdout + p.stderr).splitlines() if re.match(r"[EW]: ", l)]
        expect(p.returncode == 0 and not findings, f"lintian: exit {p.returncode}\n" + "\n".join(findings))
    else:
        lint = "lintian not installed here (scripts/install-deps.sh --test installs it): not run"
    p = run(["dpkg", "-i", debs[0]])
    try:
        expect(p.returncode == 0, f"dpkg -i: {p.stderr[-1500:]}")
        home = os.path.join(wd, "home")
        os.makedirs(home)
        r = run(["/usr/bin/scalecheck", "version"])
        expect(r.returncode == 0 and "scalecheck" in r.stdout, f"version: {r.stdout}{r.stderr}")
        r = collective("/usr/bin/scalecheck", home)
        expect(r.returncode in (0, 1) and os.path.isfile("/usr/share/scalecheck/topologies/dgx-a100.yaml")
               and len(run_dirs(os.path.join(home, ".local/share/scalecheck/results"))) == 1,
               f"the package's coll: {r.returncode}\n{r.stderr[-800:]}")
    finally:
        run(["dpkg", "--purge", "scalecheck"])
    expect(not os.path.exists("/usr/bin/scalecheck") and not os.path.exists("/usr/share/scalecheck")
           and "installed" not in run(["dpkg-query", "-W", "-f=${Status}", "scalecheck"]).stdout,
           "dpkg --purge left the package or its files")
    print(f"deb: {os.path.basename(debs[0])} {lint}, installed, ran from /, removed")


def test():
    wd = workdir("install-" + sys.argv[1])
    {"prefix": prefix, "deb": deb}[sys.argv[1]](wd)


main(test)
