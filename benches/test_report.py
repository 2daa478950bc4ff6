"""Tests of benches/report.py on small hand-made results (no benchmark runs):

    python3 -m unittest discover -s benches
"""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402


def write(path, data, lines=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        if lines:
            f.write("".join(json.dumps(row) + "\n" for row in data))
        elif isinstance(data, str):
            f.write(data)
        else:
            json.dump(data, f)


def plan(critical, total=None, schedule=None, path=()):
    """What `runner show --format json` says about expected durations."""
    return {"projects": [{"path": "a", "depends_on": [], "waits_for_cluster": []},
                         {"path": "b", "depends_on": ["a"], "waits_for_cluster": []},
                         {"path": "c", "depends_on": ["a"], "waits_for_cluster": []}],
            "expected": {"critical_path_seconds": critical, "total_work_seconds": total,
                         "schedule_seconds": schedule, "critical_path": list(path)}}


MACHINE = {"nproc": 2, "started": "2026-01-01T00:00:00Z", "source": "commit abc1234", "runs": 1,
           "load_before": "0.10 0.20 0.30", "load_after": "0.40 0.50 0.60"}


class Results(unittest.TestCase):
    """A results folder shaped like run.sh's: one scheduling run of a three-project graph
    (a, then b and c), the fake's invocation log, and the runner's plans."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.results = self.dir.name
        write(os.path.join(self.results, "machine.json"), MACHINE)
        sched = os.path.join(self.results, "sched", "mara")
        projects = [{"path": "a", "name": "m-a", "phase": "infrastructure", "depends_on": [], "sleep": 1.0,
                     "unscaled_seconds": 600},
                    {"path": "b", "name": "m-b", "phase": "kubernetes", "depends_on": ["a"], "sleep": 1.0,
                     "unscaled_seconds": 600},
                    {"path": "c", "name": "m-c", "phase": "kubernetes", "depends_on": ["a"], "sleep": 0.5,
                     "unscaled_seconds": 30}]
        write(os.path.join(sched, "graph.json"), {"provider": "mara", "projects": projects})
        write(os.path.join(sched, "settings.json"), {"parallelism": 4, "cli": "fake"})
        write(os.path.join(sched, "plan.json"), plan(2.0, 2.5, 2.0, ["a", "b"]))
        write(os.path.join(sched, "plan-deps.json"), plan(2.0))
        write(os.path.join(sched, "plan-barrier.json"), plan(2.5))
        write(os.path.join(sched, "plan-run-1.json"), plan(2.1))
        write(os.path.join(sched, "measure.jsonl"), [
            {"label": "warmup", "exit": 0, "wall_s": 9.0},
            {"label": "run-1", "exit": 0, "wall_s": 2.2, "self_cpu_s": 0.05, "tree_cpu_s": 0.5,
             "self_peak_rss_kb": 10240, "machine_busy_s": 0.72},
            {"label": "p1-run-1", "exit": 0, "wall_s": 2.7}], lines=True)
        write(os.path.join(sched, "report-1.json"), {"succeeded": True, "projects": [
            {"project": "a", "started": 100.0, "duration": 1.05},
            {"project": "b", "started": 101.07, "duration": 1.03},
            {"project": "c", "started": 101.06, "duration": 0.54}]})
        write(os.path.join(sched, "invocations-1.jsonl"), [
            {"op": "up", "project": "m-a", "event": "start", "start": 100.04},
            {"op": "up", "project": "m-a", "event": "end", "start": 100.04, "end": 101.045}], lines=True)

    def tearDown(self):
        self.dir.cleanup()

    def test_the_scheduling_tables_take_paths_from_the_runner_and_walls_from_the_measurements(self):
        text = report.sched_block(self.results, MACHINE)
        self.assertIn("*Measured 2026-01-01T00:00:00Z at commit abc1234; load average before / after "
                      "0.10 0.20 0.30 / 0.40 0.50 0.60. 1 timed runs per graph after a warm-up; medians.*", text)
        # sum, dependency-only, runner's rule, barrier, list schedule: all from the plans.
        self.assertIn("| `mara` | fake (Python) | 3 | 4 | 2.50 s | 2.00 s | 2.00 s | 2.50 s | 2.00 s | **2.20 s** | "
                      "2.20 s–2.20 s | **1.100** | 1.1× | 0.1 | ok |", text)
        # 2 on the critical path; overheads 50, 30, 40 ms; the fake started 40 ms after the
        # spawn, worked 5 ms beyond its sleep, and the runner saw it end 5 ms later; b and c
        # started 20 and 10 ms after a ended; the measured critical path is plan-run-1's.
        self.assertIn("| `mara` | fake (Python) | 2 | 40 ms | 40 ms | 40 ms | 5 ms | 5 ms | 5 ms | 10 ms | 20 ms | "
                      "2.10 s | 1.05 | 0.05 s | 0.50 s | 10.0 MiB |", text)

    def test_the_mara_graph_states_assumed_durations_and_the_sequential_run(self):
        text = report.mara_graph_block(self.results, MACHINE)
        self.assertIn("| `b` | kubernetes | `a` | 10 min | 1.000 s |", text)
        self.assertIn("| `c` | kubernetes | `a` | 30 s | 0.500 s |", text)
        self.assertIn("| `--parallelism 1` | – | – | 2.70 s | 1 |", text)

    def test_benchmarks_that_did_not_run_have_no_block(self):
        self.assertEqual(sorted(report.render_blocks(self.results)), ["machine", "mara-graph", "sched"])

    def test_the_rule_and_priority_ratios_divide_by_the_runners_paths(self):
        rule = os.path.join(self.results, "rule")
        write(os.path.join(rule, "plan-deps.json"), plan(2.0, 4.0))
        write(os.path.join(rule, "plan-barrier.json"), plan(2.5))
        write(os.path.join(rule, "measure.jsonl"), [
            {"label": "cluster-run-1", "exit": 0, "wall_s": 2.04, "load_1m": 0.5},
            {"label": "barrier-run-1", "exit": 0, "wall_s": 2.6, "load_1m": 0.7}], lines=True)
        text = report.rule_block(self.results, MACHINE)
        self.assertIn("| cluster rule (shipped) | **2.04 s** | 2.04 s | 2.04 s | **1.020** | 1.020 | 1 | ok |", text)
        self.assertIn("| MARA's sequential strategy (sum of durations) | 4.00 s | – | – | 2.000 |", text)
        prio = os.path.join(self.results, "prio")
        write(os.path.join(prio, "plan.json"), plan(2.0, 12.0, 3.1))
        write(os.path.join(prio, "measure.jsonl"), [
            {"label": "declaration-1", "exit": 0, "wall_s": 3.6},
            {"label": "critical-1", "exit": 0, "wall_s": 3.15}], lines=True)
        text = report.prio_block(self.results, MACHINE)
        self.assertIn("| declaration order (no history) | **3.60 s** | 1 | **1.200** | ok |", text)
        self.assertIn("| critical path first, list schedule (`show -j 4`, zero overhead) | 3.10 s | – | 1.033 | – |",
                      text)

    def test_processes_are_counted_per_command_when_the_runner_started_them(self):
        procs = os.path.join(self.results, "procs", "nohooks")
        write(os.path.join(procs, "projects"), "2\n")
        write(os.path.join(procs, "1", "up-fresh.log"),
              "1.0\trunner\ta\tstack init bench\n2.0\trunner\ta\tup --yes\n3.0\tpulumi\ta\tplugin ls\n"
              "4.0\trunner\tb\tstack init bench\n5.0\trunner\tb\tup --yes\n6.0\trunner\tb\tconfig set x y\n")
        write(os.path.join(procs, "measure.jsonl"), [{"label": "up-fresh-1", "exit": 0, "wall_s": 3.0}], lines=True)
        text = report.procs_block(self.results, MACHINE)
        self.assertIn("| without hooks | up-fresh | 2 | 5 | **2.50** | stack init 2, up 2, config set 1 | yes | 3.00 s | ok |",
                      text)

    def test_growth_is_the_exponent_between_the_two_largest_sizes(self):
        self.assertAlmostEqual(report.growth_exponent([(1000, 1.0), (2000, 4.0), (500, 0.1)]), 2.0)
        self.assertIsNone(report.growth_exponent([(1000, 1.0)]))


class File(unittest.TestCase):
    def test_only_the_measured_blocks_are_replaced_and_the_prose_is_kept(self):
        start, end = report.markers("sched")
        other_start, other_end = report.markers("scale")
        text = ("# Benchmarks\n\nHand-written conclusion.\n\n%s\nold tables\n%s\n\nMore prose.\n\n"
                "%s\nscale tables of an earlier run\n%s\n\n## 6. Measured by hand\n\nkept\n" % (
                    start, end, other_start, other_end))
        written = report.replace_blocks(text, {"sched": "new tables\n", "prio": "prio tables"})
        self.assertEqual(written, text.replace("old tables", "new tables")
                         + "\n%s\nprio tables\n%s\n" % report.markers("prio"))

    def test_main_starts_a_new_file_and_keeps_it_on_the_next_run(self):
        with tempfile.TemporaryDirectory() as results:
            write(os.path.join(results, "machine.json"), MACHINE)
            output = os.path.join(results, "BENCHMARKS.md")
            sys.argv = ["report.py", results, output]
            report.main()
            with open(output, encoding="utf-8") as f:
                first = f.read()
            self.assertTrue(first.startswith(report.SKELETON))
            self.assertIn("| **runner source** | commit abc1234 |", first)
            with open(output, "a", encoding="utf-8") as f:
                f.write("\n## 6. By hand\n\nkept\n")
            report.main()
            with open(output, encoding="utf-8") as f:
                self.assertEqual(f.read(), first + "\n## 6. By hand\n\nkept\n")


if __name__ == "__main__":
    unittest.main()
