# ReFrame acceptance check: scalecheck's all-reduce sweep on the partition's nodes, held to the
# site's topology. It passes when the run completed, every value came back right and the verdict
# is not FAIL (summary.json); the average bus bandwidth (result.json) is its figure of merit.
#   reframe -c launch/reframe/scalecheck_check.py -r \
#       -S scalecheck=/usr/bin/scalecheck -S topology=dgx-a100 -S num_tasks=16
# The partition's launcher (srun, mpirun) starts the ranks: one per GPU. -S min_busbw=X (GB/s)
# gives the figure a reference: ReFrame fails the performance stage below 90 % of X. A run that
# ended before it made a run directory (a bad topology, a bad flag) fails the sanity stage with
# scalecheck's own message.
import json
import os

import reframe as rfm
import reframe.utility.sanity as sn
from reframe.core.exceptions import SanityError


@rfm.simple_test
class ScalecheckAllReduceCheck(rfm.RunOnlyRegressionTest):
    descr = "scalecheck: all-reduce bandwidth held to the topology"
    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    scalecheck = variable(str, value="scalecheck")
    topology = variable(str, value="dgx-a100")
    max_size = variable(str, value="1G")
    min_busbw = variable(float, value=0.0)  # GB/s; 0: no reference
    num_tasks = 8
    num_tasks_per_node = 8
    time_limit = "30m"
    tags = {"acceptance", "scalecheck"}

    @run_before("run")
    def set_command(self):
        self.executable = self.scalecheck
        self.executable_opts = ["coll", "-b", "8", "-e", self.max_size, "--topology",
                                self.topology, "--results-dir", self._results()]

    @run_before("performance")
    def set_reference(self):
        if self.min_busbw > 0:
            self.reference = {"*": {"avg_busbw": (self.min_busbw, -0.1, None, "GB/s")}}

    def _results(self):
        return os.path.join(self.stagedir, "results")

    def _run_file(self, name):
        results = self._results()
        runs = sorted(os.listdir(results)) if os.path.isdir(results) else []
        if not runs:  # scalecheck ended first: its message, not a Python traceback
            said = ""
            path = os.path.join(self.stagedir, str(self.stderr))
            if os.path.exists(path):
                with open(path, errors="replace") as f:
                    said = " | ".join(l.strip() for l in f if l.startswith("scalecheck"))[-400:]
            raise SanityError(f"scalecheck made no run directory: {said or 'no message'}")
        with open(os.path.join(self._results(), runs[-1], name)) as f:
            return json.load(f)

    @sanity_function
    def assert_verdict(self):
        summary = self._run_file("summary.json")
        wrong = self._run_file("result.json")["summary"]["wrong_total"]
        return sn.all([
            sn.assert_eq(summary["state"], "complete", msg="the run did not complete: {0}"),
            sn.assert_eq(wrong, 0, msg="{0} values came back wrong"),
            sn.assert_ne(summary["verdict"], "FAIL",
                         msg="verdict FAIL: the system delivers less than its topology says"),
        ])

    @performance_function("GB/s")
    def avg_busbw(self):
        return self._run_file("result.json")["summary"]["avg_busbw_GBps"]
