"""A fleet's result, too large to read whole (issue 31): judge and report of 12 000 rows (past
SC_DEFAULT_SHOWN, 10 000). result.json keeps every row and check; what a person reads - the
verdict table, report.html, junit.xml, metrics.prom - lists every check that did not pass and an
even spread of the rest, and says so; the verdict counts them all. A degraded twin with 40 slow
rows spread through the log FAILs on exactly those, each of them listed, and `report DIR` of the
judged run says what judge said. A baseline of the healthy run holds every row (written as made),
and the degraded log held to it regresses on its slow rows, as it does compared with the healthy
run (report DIR1 DIR2, streamed: the regressions listed, the rest counted)."""
import os

from sclib import *

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
import fleet  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
DGX = os.path.join(ROOT, "topologies", "dgx-a100.yaml")
LINES = 6000  # an out-of-place and an in-place row each
SHOWN = 10000  # util/sc_defaults.h SC_DEFAULT_SHOWN
SLOW = set(range(97, LINES, LINES // 40))  # 40 lines, to the end of the log


def judge(wd, name, slow):
    path = os.path.join(wd, f"{name}.txt")
    fleet.nccl_log(path, LINES, slow)  # bench/fleet.py's log: one description of it
    base = os.path.join(wd, name)
    rc, out, err, _ = scalecheck1(["judge", "--topology", DGX, "--results-dir", base, path],
                                  timeout=240)
    dirs = [os.path.join(base, d) for d in os.listdir(base)] if os.path.isdir(base) else []
    expect(len(dirs) == 1, f"{name}: exit {rc}, dirs {dirs}\n{err[-500:]}")
    return rc, out, dirs[0]


def listed(d, out, doc):
    """What the run's pages list, held to result.json's every row and check."""
    summary = load_json(os.path.join(d, "summary.json"))
    rows, checks = doc["results"], doc["checks"]
    expect(len(rows) == 2 * LINES and len(checks) == 2 * LINES,
           f"result.json keeps {len(rows)} rows, {len(checks)} checks")
    counts = {v: sum(1 for c in checks if c["verdict"] == v) for v in ("PASS", "WARN", "FAIL")}
    expect((summary["pass"], summary["warn"], summary["fail"], summary["checks"])
           == (counts["PASS"], counts["WARN"], counts["FAIL"], len(checks))
           and doc["verdict"]["checks"] == len(checks) and doc["verdict"]["fail"] == counts["FAIL"],
           f"the tally counts every check: summary {summary}, counted {counts}")
    shown = summary["listed"]
    expect(shown["of_rows"] == len(rows) and shown["of_checks"] == len(checks)
           and SHOWN // 2 <= shown["checks"] <= 2 * SHOWN and shown["rows"] <= 2 * SHOWN
           and shown["checks"] < len(checks), f"listed {shown}")
    more = len(checks) - shown["checks"]
    expect(f"# {more} more checks" in out and "result.json holds every check" in out,
           f"the verdict table says what it leaves out:\n{out[-600:]}")
    html = open(os.path.join(d, "report.html")).read()
    expect(f"This page lists {shown['rows']} of the {len(rows)} rows and {shown['checks']} of the "
           f"{len(checks)} checks" in html, "report.html says what it lists")
    expect(html.count("<tr") <= shown["rows"] + shown["checks"] + 10, "report.html lists more")
    junit = open(os.path.join(d, "junit.xml")).read()
    cases = junit.count("<testcase ")
    expect(cases == shown["checks"] + 1 and f"{more} more checks, not listed" in junit,
           f"junit.xml: {cases} test cases for {shown['checks']} listed checks and one more")
    return summary, counts, html, junit


def test():
    wd = workdir("fleet")
    rc, out, d = judge(wd, "healthy", set())
    healthy = d
    doc = load_result(os.path.join(d, "result.json"))
    summary, counts, _, _ = listed(d, out, doc)
    expect(rc == 0 and counts["FAIL"] == 0 and summary["verdict"] in ("PASS", "WARN"),
           f"healthy: exit {rc}, {summary}")
    # rows another tool measured say nothing of their iterations: absent, not 0
    expect(all("time_us_min" not in r and "host_time_us" not in r for r in doc["results"][:50])
           and all(r["expected_time_us"] > 0 for r in doc["results"]), "foreign rows' figures")

    # a baseline of it: every row a figure, written as made (the terminal lists none of 12 000)
    bpath = os.path.join(wd, "b.json")
    rc, bout, err, _ = scalecheck1(["baseline", "create", "-o", bpath, d], timeout=120)
    points = load_json(bpath)["points"] if rc == 0 else []
    expect(rc == 0 and len(points) == 2 * LINES and "(12000 figures" in bout
           and all(p["count"] == 1 and p["median"] > 0 for p in points)
           and [p["key"] for p in points] == sorted(p["key"] for p in points),
           f"baseline create: exit {rc}, {len(points)} points\n{bout[-300:]}{err[-300:]}")

    rc, out, d = judge(wd, "degraded", SLOW)
    doc = load_result(os.path.join(d, "result.json"))
    summary, counts, html, junit = listed(d, out, doc)
    failed = [c["name"] for c in doc["checks"] if c["verdict"] == "FAIL"]
    expect(rc == 1 and summary["verdict"] == "FAIL" and counts["FAIL"] == 2 * len(SLOW),
           f"degraded: exit {rc}, {summary}, {len(failed)} FAILs (want {2 * len(SLOW)})")
    missing = [n for n in failed if n not in html or n not in junit]
    expect(not missing, f"FAILed checks not listed: {missing[:3]}")
    expect(junit.count("<failure ") == len(failed), "one <failure> a FAILed check")
    prom = open(os.path.join(d, "metrics.prom")).read()
    expect(f'scalecheck_checks{{command="judge",verdict="FAIL"}} {len(failed)}' in prom
           and prom.count("scalecheck_check_verdict{") == counts["FAIL"] + counts["WARN"],
           "metrics.prom: a series a check that did not pass, and the counts")

    # report DIR re-renders the judged run: the same tally and listing
    rc, out, err, _ = scalecheck1(["report", d], timeout=120)
    again = load_json(os.path.join(d, "summary.json"))
    expect(rc == 0 and (again["fail"], again["checks"], again["listed"]["of_rows"])
           == (summary["fail"], summary["checks"], summary["listed"]["of_rows"]),
           f"report DIR: exit {rc}, {again}\n{err[-400:]}")
    html = open(os.path.join(d, "report.html")).read()
    expect(all(n in html for n in failed), "report DIR lists every FAILed check")
    # the degraded log held to the healthy one's baseline: each slow row a regression
    base = os.path.join(wd, "held")
    rc, out, err, _ = scalecheck1(["judge", "--topology", DGX, "--baseline", bpath,
                                   "--results-dir", base, os.path.join(wd, "degraded.txt")],
                                  timeout=240)
    held = load_result(os.path.join(base, os.listdir(base)[0], "result.json"))
    slow_rows = [c for c in held["checks"] if c["source"] == "baseline" and c["verdict"] == "FAIL"]
    expect(rc == 1 and len(slow_rows) >= 2 * len(SLOW) - 2, f"--baseline: exit {rc}, "
           f"{len(slow_rows)} baseline FAILs for {2 * len(SLOW)} slow rows")
    # the degraded run compared with the healthy one (report DIR1 DIR2, streamed): each slow row
    # a regression, every one listed, the rest counted, not listed
    rc, out, err, _ = scalecheck1(["report", healthy, d], timeout=240)
    named = [ln for ln in out.splitlines() if "vs baseline" in ln and ln.rstrip().endswith("FAIL")]
    expect(rc == 1 and f"# {2 * len(SLOW)} regressions beyond" in out
           and f"({2 * LINES} figures matched)" in out and len(named) == 2 * len(SLOW)
           and "those not PASS are listed first" in out,
           f"report DIR1 DIR2: exit {rc}, {len(named)} FAILs listed\n{out[-800:]}{err[-300:]}")
    rc, out, err, _ = scalecheck1(["report", healthy, healthy], timeout=240)
    expect(rc == 0 and "# 0 regressions" in out, f"a run held to itself: {rc} {out[-300:]}")
    print(f"fleet: {2 * LINES} rows judged; listed {summary['listed']}; degraded run "
          f"{len(failed)} FAILs, each listed")


main(test)
