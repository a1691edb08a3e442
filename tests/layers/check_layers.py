"""Layers the build enforces (cmake/layers.cmake): for every layer, including a header of any
module above it fails to compile ("No such file"), and every module it may use is there; no
header of harness/ is part of an include cycle - the detector is first shown a planted cycle, so
it can fail. usage: check_layers.py CC BUILD_DIR SOURCE_DIR"""
import os
import re
import subprocess
import sys
import tempfile


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def layer_map(build):
    layers = {}
    with open(os.path.join(build, "layers", "map.txt")) as f:
        for line in f:
            name, rest = line.split(":", 1)
            own, allowed = rest.split("|")
            layers[name.strip()] = (own.split(), allowed.split())
    return layers


def some_header(src, module):
    headers = sorted(h for h in os.listdir(os.path.join(src, "harness", module)) if h.endswith(".h"))
    return f"{module}/{headers[0]}" if headers else None


def check_refusals(cc, build, src, layers):
    modules = sorted({m for own, _ in layers.values() for m in own})
    refused = 0
    for name, (own, allowed) in layers.items():
        inc = os.path.join(build, "layers", name)
        for m in modules:
            header = some_header(src, m)
            if header is None:
                continue
            if m in allowed:
                if not os.path.isfile(os.path.join(inc, header)):
                    fail(f"layer {name}: may use {m}, but {header} is not reachable")
                continue
            r = subprocess.run([cc, "-E", "-I", inc, "-x", "c", "-"], input=f'#include "{header}"\n',
                               capture_output=True, text=True)
            if r.returncode == 0 or header not in r.stderr:
                fail(f"layer {name}: an upward include of {header} compiled ({r.returncode})\n{r.stderr}")
            refused += 1
    return refused


def includes(path):
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith('#include "'):
                out.append(line.split('"')[1])
    return out


def find_cycle(root):
    """A cycle among the headers under root, as a list of paths, or None."""
    graph = {}
    for d, _, files in os.walk(root):
        for h in files:
            if not h.endswith(".h"):
                continue
            path = os.path.join(d, h)
            deps = []
            for inc in includes(path):
                for cand in (os.path.join(root, inc), os.path.join(d, inc)):
                    if os.path.isfile(cand):
                        deps.append(os.path.normpath(cand))
                        break
            graph[os.path.normpath(path)] = deps
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for dep in graph.get(node, []):
            if state.get(dep) == 1:
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep, stack)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [])
            if found:
                return found
    return None


# where JSON is read and written: the checked reader (json/), scalecheck's documents
# (report/sc_json_*) and other tools' JSON (ingest/sc_json_*)
JSON_MODULE = ("harness/json/", "harness/report/sc_json_", "harness/ingest/sc_json_")


def json_users(src):
    """The files under harness/ that include jansson.h (or the JSON module's private header)."""
    users = []
    for d, _, files in os.walk(os.path.join(src, "harness")):
        for name in files:
            path = os.path.join(d, name)
            if name.endswith((".c", ".h", ".cu")):
                with open(path) as f:
                    if any(line.strip().startswith(("#include <jansson.h>",
                                                    '#include "report/sc_json_build.h"'))
                           for line in f):
                        users.append(os.path.relpath(path, src))
    return sorted(users)


def check_json_module(src):
    users = json_users(src)
    outside = [u for u in users if not u.startswith(JSON_MODULE)]
    if outside:
        fail(f"JSON read or written outside {JSON_MODULE}*: {outside}")
    if not users:
        fail("no file includes jansson.h: the detector looks in the wrong place")
    with tempfile.TemporaryDirectory() as tmp:  # the detector must see a planted user
        os.makedirs(os.path.join(tmp, "harness", "judge"))
        with open(os.path.join(tmp, "harness", "judge", "x.c"), "w") as f:
            f.write("#include <jansson.h>\n")
        if json_users(tmp) != ["harness/judge/x.c"]:
            fail("the JSON detector missed a planted jansson.h")
    return len(users)


STATIC_DEF = re.compile(r"^static [A-Za-z_][A-Za-z_0-9 ]*?\**\b([a-z_0-9]+__[a-z_0-9]+)\(")


def private_names(src):
    """{name: [files]} of the file-private functions under harness/ (static, with a prefix__),
    and the files that still use the shared sc__ prefix."""
    where, shared = {}, []
    for d, _, files in os.walk(os.path.join(src, "harness")):
        for name in files:
            if not name.endswith((".c", ".cu")):
                continue
            path = os.path.join(d, name)
            rel = os.path.relpath(path, src)
            with open(path) as f:
                text = f.read()
            if re.search(r"\bsc__[a-z]", text):
                shared.append(rel)
            for m in {STATIC_DEF.match(line).group(1) for line in text.splitlines()
                      if STATIC_DEF.match(line)}:
                where.setdefault(m, []).append(rel)
    return where, shared


def check_private_names(src):
    """Each file names its statics after itself (docs/ARCHITECTURE.md, Names): no sc__ left, and
    no private name defined in two files - a name found by grep is the one meant."""
    where, shared = private_names(src)
    if shared:
        fail(f"sc__ statics (name them after their file): {shared[:5]}")
    twice = {n: f for n, f in where.items() if len(f) > 1}
    if twice:
        fail(f"private names defined in more than one file: {dict(list(twice.items())[:5])}")
    with tempfile.TemporaryDirectory() as tmp:  # the detector must see planted ones
        os.makedirs(os.path.join(tmp, "harness", "a"))
        for n in ("x.c", "y.c"):
            with open(os.path.join(tmp, "harness", "a", n), "w") as f:
                f.write("static int a__twice(void)\n{\n    return sc__old;\n}\n")
        w, sh = private_names(tmp)
        if w.get("a__twice", []) != sorted(w.get("a__twice", [])) or len(w.get("a__twice", [])) != 2 \
                or len(sh) != 2:
            fail("the private-name detector missed planted duplicates")
    return len(where)


def check_thin_cli(src):
    """The top floor stays thin (docs/ARCHITECTURE.md): cli parses, prints help and calls the
    drive layer - no MPI call, no backend op, and under a tenth of the harness's lines."""
    total = cli = 0
    for root, _, files in os.walk(os.path.join(src, "harness")):
        for name in files:
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(root, name)
            with open(path) as f:
                text = f.read()
            lines = text.count("\n")
            total += lines
            hit = re.search(r"->ops->", text)
            if hit and os.path.basename(root) != "comm":  # the ops through sc_comm_* alone
                line = text.count("\n", 0, hit.start()) + 1
                fail(f"a backend op called past its wrapper (comm/sc_comm_ops.h): "
                     f"{os.path.relpath(path, src)}:{line}")
            if os.path.basename(root) != "cli":
                continue
            cli += lines
            for pattern in (r"\bMPI_[A-Z]",):
                hit = re.search(pattern, text)
                if hit:
                    line = text.count("\n", 0, hit.start()) + 1
                    fail(f"cli does work the drive layer owns: {os.path.relpath(path, src)}:{line}: "
                         f"{hit.group(0)}")
    if cli * 10 >= total:
        fail(f"cli holds {cli} of {total} lines (a tenth or more): move the work to drive/")
    return cli, total


def main():
    cc, build, src = sys.argv[1:4]
    layers = layer_map(build)
    expected = {"base", "comm", "spec", "measure", "judge", "render", "drive", "cli"}
    if set(layers) != expected:
        fail(f"layers {sorted(layers)} != {sorted(expected)}")
    refused = check_refusals(cc, build, src, layers)
    if refused < 30:
        fail(f"only {refused} upward includes tried")
    with tempfile.TemporaryDirectory() as tmp:  # the detector must see a planted cycle
        os.makedirs(os.path.join(tmp, "a"))
        with open(os.path.join(tmp, "a", "x.h"), "w") as f:
            f.write('#include "a/y.h"\n')
        with open(os.path.join(tmp, "a", "y.h"), "w") as f:
            f.write('#include "x.h"\n')
        if not find_cycle(tmp):
            fail("the cycle detector missed a planted cycle")
    cycle = find_cycle(os.path.join(src, "harness"))
    if cycle:
        fail("header cycle: " + " -> ".join(os.path.relpath(p, src) for p in cycle))
    cli, total = check_thin_cli(src)
    json_files = check_json_module(src)
    names = check_private_names(src)
    print(f"layers: {refused} upward includes refused across {len(layers)} layers; no header cycle; "
          f"JSON in {json_files} files of {JSON_MODULE}* only; {names} private names, each in "
          f"one file; cli {cli} of {total} lines, no MPI call; backend ops through sc_comm_* only")


main()
