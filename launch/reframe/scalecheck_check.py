# ReFrame acceptance check: scalecheck's all-reduce sweep on the partition's nodes, held to the
# site's topology. It passes when the run completed, every value came back right and the verdict
# is not FAIL (summary.json); the average bus bandwidth (result.json) is its figure of merit.
#   reframe -c launch/reframe/scalecheck_check.py -r \
#       -S scalecheck=/usr/bin/scalecheck -S topology=dgx-a100 -S num_tasks=16
# The partition's launcher (srun, mpirun) starts the ranks: one per GPU.
import json
import os

import reframe as rfm
import reframe.utility.sanity as sn


@rfm.simple_test
class ScalecheckAllReduceCheck(rfm.RunOnlyRegressionTest):
    descr = "scalecheck: all-reduce bandwidth held to the topology"
    valid_systems = ["*"]
    valid_prog_environs = ["*"]
    scalecheck = variable(str, value="scalecheck")
    topology = variable(str, value="dgx-a100")
    max_size = variable(str, value="1G")
    num_tasks = 8
    num_tasks_per_node = 8
    time_limit = "30m"
    tags = {"acceptance", "scalecheck"}

    @run_before("run")
    def set_command(self):
        self.executable = self.scalecheck
        self.executable_opts = ["coll", "-b", "8", "-e", self.max_size, "--topology",
                                self.topology, "--results-dir", self._results()]

    def _results(self):
        return os.path.join(self.stagedir, "results")

    def _run_file(self, name):
        runs = sorted(os.listdir(self._results()))
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
