"""The three pages a cluster architect sends (issue 32), rendered by a real browser (headless
Chromium, 1280 px wide): a run's report.html (a shrunk run, held to a band it misses: the
verdict box names the failed checks), compare.html of two runs and a seed system, and a soak's
report.html. In each page nothing is wider than the window (a wide table scrolls inside its own
box), no text reads nan, every plot fits, and the verdict is on the first screen. Skips where no
Chromium is installed (scripts/install-deps.sh --test installs chromium-headless-shell)."""
import glob
import json
import os
import re
import shutil
import subprocess

from sclib import *

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
WIDTH, HEIGHT = 1280, 900
BROWSERS = ["chromium-headless-shell", "chromium", "google-chrome", "chrome"]

# Run in the page once it has loaded: what a reader would see clipped or wrong, as JSON in a
# <pre> that --dump-dom prints.
PROBE = """<script>
window.addEventListener('load', function () {
  var out = {width: document.documentElement.scrollWidth, inner: window.innerWidth,
             nan: [], wide: [], verdict_top: null, svgs: 0};
  var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    var t = walker.currentNode.nodeValue;
    var parent = walker.currentNode.parentNode;
    if (/\\bnan\\b/i.test(t) && !parent.closest('code, script, style'))
      out.nan.push(t.trim().slice(0, 80));
  }
  document.querySelectorAll('table, svg, p, h1, h2, ul, div.verdict').forEach(function (e) {
    if (e.closest('.wide') && e.tagName === 'TABLE') return;  // scrolls in its own box
    var r = e.getBoundingClientRect();
    if (r.right > window.innerWidth + 1) out.wide.push(e.tagName + ' ' + Math.round(r.right));
  });
  out.svgs = document.querySelectorAll('svg').length;
  var v = document.querySelector('.badge, .verdict, h2');
  if (v) out.verdict_top = Math.round(v.getBoundingClientRect().top);
  var pre = document.createElement('pre');
  pre.id = 'sc-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def look(exe, page, wd):
    """The probe's findings on page, and a screenshot beside it for a person."""
    probed = os.path.join(wd, "probe-" + os.path.basename(os.path.dirname(page)) + ".html")
    html = open(page).read()
    html = html.replace("</body>", PROBE + "</body>") if "</body>" in html else html + PROBE
    with open(os.path.join(os.path.dirname(page), os.path.basename(probed)), "w") as f:
        f.write(html)
    probed = os.path.join(os.path.dirname(page), os.path.basename(probed))
    flags = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=5000"]
    p = subprocess.run(flags + ["--dump-dom", "file://" + probed], capture_output=True,
                       text=True, timeout=120)
    m = re.search(r'<pre id="sc-probe">(.*?)</pre>', p.stdout, re.S)
    expect(m is not None, f"{page}: the browser printed no probe (exit {p.returncode})\n"
           f"{p.stderr[-800:]}")
    shot = probed[:-5] + ".png"
    subprocess.run(flags + [f"--screenshot={shot}", "file://" + probed], capture_output=True,
                   timeout=120)
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))


def held(name, found):
    expect(found["width"] <= found["inner"] and not found["wide"],
           f"{name}: wider than the {WIDTH} px window: page {found['width']} px, {found['wide'][:5]}")
    expect(not found["nan"], f"{name}: text reads nan: {found['nan'][:5]}")
    expect(found["verdict_top"] is not None and found["verdict_top"] < HEIGHT,
           f"{name}: the verdict is not on the first screen ({found['verdict_top']})")


def pages(wd):
    """The three pages: a run, a comparison, a soak."""
    run = ["run", "--workload", os.path.join(ROOT, "workloads", "bert-large-dp.yaml"), "--scales",
           "1,2", "--bytes-scale", "0.01", "--compute-scale", "0.01", "-n", "4", "-w", "1",
           "--telemetry", "0"]
    # a band no host meets, on one core (two ranks share it: the speedup stays near 1), so its
    # scaling check FAILs and the page must say which and why; and a claim no timing meets (a
    # speedup of 100 on 2 GPUs): a moment of load beside the suite that slows the 1-GPU point
    # can lift the measured efficiency into the band, never to that claim
    fast = os.path.join(wd, "fast.yaml")
    with open(fast, "w") as f:
        f.write(f"name: fast\nextends: {os.path.join(ROOT, 'topologies', 'localhost.yaml')}\n"
                "intra:\n  gpu_bandwidth_GBps: 100000\n  latency_us: 0.001\n"
                "expect:\n  claims:\n    - metric: speedup\n      gpus: 2\n      min: 100\n")
    made = {}
    for name, topo in (("a", fast), ("b", os.path.join(ROOT, "topologies", "localhost.yaml"))):
        base = os.path.join(wd, name)
        rc, out, err, _ = mpirun(2, run + ["--topology", topo, "--results-dir", base],
                                 cpus="0" if name == "a" else None)
        expect(rc in (0, 1) and run_dirs(base), f"run {name}: exit {rc}\n{err[-600:]}")
        made[name] = run_dirs(base)[0]
    cmp_dir = os.path.join(wd, "cmp")
    rc, out, err, _ = scalecheck1(["compare", "-o", cmp_dir, "-W", "bert-large-dp", made["a"],
                                   made["b"], "dgx-a100"])
    expect(rc == 0, f"compare: exit {rc}\n{out[-600:]}{err[-600:]}")
    soak_base = os.path.join(wd, "soak")
    rc, out, err, _ = mpirun(2, ["soak", "--duration", "4s", "--cycle", "2", "--bytes-scale",
                                 "0.001", "--compute-scale", "0.01", "--sweep-max", "1M",
                                 "--steps", "5", "--warmup", "1", "--results-dir", soak_base],
                             timeout=120)
    expect(rc in (0, 1) and run_dirs(soak_base), f"soak: exit {rc}\n{err[-600:]}")
    return {"run report": os.path.join(made["a"], "report.html"),
            "compare.html": os.path.join(cmp_dir, "compare.html"),
            "soak report": os.path.join(run_dirs(soak_base)[0], "report.html")}


def test():
    exe = browser()
    if exe is None:
        print("SKIP: no headless Chromium (chromium-headless-shell) to render the pages")
        sys.exit(77)
    needs("taskset", why="the degraded run is confined to one core")
    wd = workdir("browser")
    found = {name: look(exe, page, wd) for name, page in pages(wd).items()}
    for name, f in found.items():
        held(name, f)
    # the soak was shrunk too: its page says so, as the run's does, and so does its report
    # made again from its directory
    soak_dir = run_dirs(os.path.join(wd, "soak"))[0]
    expect("A shrunk run" in open(os.path.join(soak_dir, "report.html")).read(),
           "the shrunk soak's page does not say it was shrunk")
    rc, _, err, _ = scalecheck1(["report", soak_dir])
    expect(rc in (0, 1) and "A shrunk run" in open(os.path.join(soak_dir, "report.html")).read(),
           f"soak report made again: exit {rc}, shrunk notice lost\n{err[-400:]}")
    run_dir = run_dirs(os.path.join(wd, "a"))[0]
    run_html = open(os.path.join(run_dir, "report.html")).read()
    failed = [c["name"] for c in load_result(os.path.join(run_dir, "result.json"))["checks"]
              if c["verdict"] == "FAIL"]
    expect("A shrunk run" in run_html, "the run report does not say it was shrunk")
    expect(any(n.startswith("claim (") for n in failed),
           f"the impossible speedup claim did not FAIL: {failed}")
    expect(all(f"<li><b>FAIL</b> {n}" in run_html for n in failed),
           f"the verdict box does not name each failed check: {failed}")
    expect(found["run report"]["svgs"] >= 1 and found["compare.html"]["svgs"] >= 1
           and found["soak report"]["svgs"] >= 1, f"plots: {[f['svgs'] for f in found.values()]}")
    print("browser: " + "; ".join(f"{n}: {f['width']} px wide, {f['svgs']} plots" for n, f in
                                  found.items()) + f" ({os.path.basename(exe)}, {WIDTH} px)")


main(test)
