#!/usr/bin/env python3
"""Turns the raw results benches/run.sh collected into the tables of BENCHMARKS.md (standard
library only). It writes figures, never conclusions: those are written by hand around the tables.

    report.py RESULTS_DIR OUTPUT_FILE

OUTPUT_FILE holds generated blocks between `<!-- generated: NAME -->` and
`<!-- end generated: NAME -->`. Only the blocks this run measured are replaced; everything
outside them (the prose, the hand-measured sections) and the blocks of benchmarks left out by
`BENCH_ONLY` stay as they were. A block not in the file yet is appended at its end.

Every critical path and list schedule is the runner's own: `runner show --format json
--durations FILE -j N` (run.sh saves them as plan*.json), never computed here.

RESULTS_DIR is what run.sh writes: machine.json; fake-version.jsonl; sched/<graph>/ (graph.json from
gen.py, settings.json, measure.jsonl, report-<i>.json, invocations-<i>.jsonl, plan.json,
plan-deps.json, plan-barrier.json, plan-run-<i>.json); rule/ (plan-deps.json, plan-barrier.json,
measure.jsonl, load.json); prio/ (plan.json, measure.jsonl); procs/<variant>/ (projects,
measure.jsonl, <round>/<op>.log from benches/shim); scale/ (time.jsonl, up.jsonl, settings.json);
stream/ (measure.jsonl, logsize.jsonl, settings.json); e2e/ (measure.jsonl, report-<label>.json).
"""

import json
import math
import os
import re
import statistics
import sys

BLOCKS = ["machine", "sched", "rule", "prio", "mara-graph", "procs", "scale", "stream", "e2e"]
CLI_NAMES = {"fake": "fake (Python)", "sleep": "`sleep-pulumi` (sh)"}


# reading and formatting

def read_json(path, default=None):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def read_jsonl(path):
    try:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except OSError:
        return []


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt_s(value, digits=2):
    return "n/a" if value is None else ("%." + str(digits) + "f s") % value


def fmt_ms(value):
    return "n/a" if value is None else "%.0f ms" % (value * 1000)


def fmt_x(value, digits=2):
    return "n/a" if value is None else ("%." + str(digits) + "f") % value


def fmt_mib(kb):
    return "n/a" if kb is None else "%.1f MiB" % (kb / 1024.0)


def ratio(a, b):
    return a / b if a is not None and b else None


def bold(text):
    return "**%s**" % text


def human_bytes(n):
    if n is None:
        return "n/a"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return ("%.0f %s" if unit == "B" else "%.2f %s") % (n, unit)
        n /= 1024.0
    return "%.2f TiB" % n


def other_cores(m):
    """Cores' worth of CPU that other work (not the measured command and its children) used
    during a measurement, on average; None for records without machine_busy_s."""
    if not m or m.get("machine_busy_s") is None or not m.get("wall_s"):
        return None
    return max(0.0, (m["machine_busy_s"] - m.get("tree_cpu_s", 0.0)) / m["wall_s"])


def ok_cell(records):
    return "ok" if records and all(m["exit"] == 0 for m in records) else "**FAILED**"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out) + "\n"


def labelled(measures, prefix):
    return [m for m in measures if m["label"].startswith(prefix)]


def planned(path):
    """What the runner's own planner says: (critical path, total work, list schedule at -j N,
    projects on the critical path), in seconds; Nones when the file is missing."""
    expected = (read_json(path) or {}).get("expected", {})
    return (expected.get("critical_path_seconds"), expected.get("total_work_seconds"),
            expected.get("schedule_seconds"), len(expected.get("critical_path", [])) or None)


def provenance(machine, extra=""):
    return "*Measured %s at %s; load average before / after %s / %s.%s*\n" % (
        machine.get("started", "n/a"), machine.get("source", "an unknown commit"),
        machine.get("load_before", "n/a"), machine.get("load_after", "n/a"), extra)


# blocks: each returns the block's Markdown, or None when its benchmark did not run

def machine_block(results, machine):
    rows = [("CPUs (`nproc`)", machine.get("nproc")), ("memory", machine.get("memory")),
            ("CPU model", machine.get("cpu_model")), ("OS", machine.get("os")),
            ("kernel", machine.get("kernel")), ("rustc", "`%s`" % machine.get("rustc")),
            ("pulumi (real CLI)", "`%s`" % machine.get("pulumi")),
            ("Python (runs the fake CLI)", machine.get("python")), ("runner source", machine.get("source")),
            ("load average before / after", "%s / %s" % (machine.get("load_before"), machine.get("load_after"))),
            ("benchmark started (UTC)", machine.get("started")),
            ("timed runs per measurement", machine.get("runs")),
            ("total time of `benches/run.sh`", machine.get("total_time", "n/a"))]
    return table(["", ""], [(bold(k), v) for k, v in rows])


def sched_run(directory, graph, i):
    """One timed run: per project the runner's start and duration (its report), the fake's own
    start and end (its invocation log), and when its last blocker ended."""
    report = read_json(os.path.join(directory, "report-%s.json" % i), {})
    plan = read_json(os.path.join(directory, "plan.json"), {})
    blockers = {p["path"]: p["depends_on"] + p.get("waits_for_cluster", []) for p in plan.get("projects", [])}
    rows = {r["project"]: r for r in report.get("projects", []) if r.get("started") is not None}
    finish = {path: r["started"] + r["duration"] for path, r in rows.items()}
    fake = {}
    for rec in read_jsonl(os.path.join(directory, "invocations-%s.jsonl" % i)):
        if rec.get("op") == "up":
            fake.setdefault(rec["project"], {})[rec["event"]] = rec.get(rec["event"])
    t0 = min((r["started"] for r in rows.values()), default=None)
    run = {"ok": report.get("succeeded") is True, "overhead": [], "spawn": [], "fake": [], "exit": [], "dispatch": []}
    for p in graph["projects"]:
        r = rows.get(p["path"])
        if r is None:
            continue
        run["overhead"].append(r["duration"] - p["sleep"])
        ready = max([finish[b] for b in blockers.get(p["path"], p["depends_on"]) if b in finish] or [t0])
        run["dispatch"].append(r["started"] - ready)
        f = fake.get(p["name"], {})
        if f.get("start") is not None:
            run["spawn"].append(f["start"] - r["started"])
            if f.get("end") is not None:
                run["fake"].append(f["end"] - f["start"] - p["sleep"])
                run["exit"].append(finish[p["path"]] - f["end"])
    return run


def analyse_sched(directory):
    graph = read_json(os.path.join(directory, "graph.json"))
    if not graph:
        return None
    settings = read_json(os.path.join(directory, "settings.json"), {})
    measures = read_jsonl(os.path.join(directory, "measure.jsonl"))
    timed = labelled(measures, "run-")
    runs = [sched_run(directory, graph, m["label"].split("-", 1)[1]) for m in timed]
    cp, total, schedule, hops = planned(os.path.join(directory, "plan.json"))
    walls = [m["wall_s"] for m in timed]
    both = lambda key, pick: median([pick(r[key]) if r[key] else None for r in runs])
    r = {"name": os.path.basename(directory), "provider": graph["provider"], "cli": settings.get("cli", "fake"),
         "parallelism": settings.get("parallelism", 4), "projects": len(graph["projects"]), "graph": graph,
         "cp": cp, "sum": total, "schedule": schedule, "hops": hops,
         "cp_deps": planned(os.path.join(directory, "plan-deps.json"))[0],
         "cp_barrier": planned(os.path.join(directory, "plan-barrier.json"))[0],
         "cp_measured": median([planned(os.path.join(directory, "plan-%s.json" % m["label"]))[0] for m in timed]),
         "ok": bool(runs) and all(x["ok"] for x in runs) and all(m["exit"] == 0 for m in timed),
         "runs": len(timed), "wall": median(walls), "wall_min": min(walls, default=None),
         "wall_max": max(walls, default=None), "other": median([other_cores(m) for m in timed]),
         "runner_cpu": median([m.get("self_cpu_s") for m in timed]),
         "tree_cpu": median([m.get("tree_cpu_s") for m in timed]),
         "peak_rss_kb": median([m.get("self_peak_rss_kb") for m in timed]),
         "sequential": [m["wall_s"] for m in labelled(measures, "p1-run-")]}
    for key in ("overhead", "spawn", "fake", "exit", "dispatch"):
        r[key] = both(key, median)
        r[key + "_max"] = both(key, max)
    return r


def sched_block(results, machine):
    found = [r for r in (analyse_sched(os.path.join(results, "sched", name)) for name in
                         ("mara", "wide", "chain", "mara-sh", "wide-sh", "chain-sh")) if r]
    if not found:
        return None
    cli = lambda r: CLI_NAMES.get(r["cli"], r["cli"])
    out = [provenance(machine, " %s timed runs per graph after a warm-up; medians." % machine.get("runs", "?")),
           table(["graph", "CLI", "projects", "parallelism", "sum of durations (MARA's strategy)",
                  "dependency-only critical path", "critical path (runner's rule)", "critical path (phase barrier)",
                  "list schedule at the parallelism", "wall (median)", "wall range", "wall / dependency-only c.p.",
                  "speed-up over sum", "other work (cores)", "runs"],
                 [["`%s`" % r["provider"], cli(r), r["projects"], r["parallelism"], fmt_s(r["sum"]),
                   fmt_s(r["cp_deps"]), fmt_s(r["cp"]), fmt_s(r["cp_barrier"]), fmt_s(r["schedule"]),
                   bold(fmt_s(r["wall"])), "%s–%s" % (fmt_s(r["wall_min"]), fmt_s(r["wall_max"])),
                   bold(fmt_x(ratio(r["wall"], r["cp_deps"]), 3)), fmt_x(ratio(r["sum"], r["wall"]), 1) + "×",
                   fmt_x(r["other"], 1), "ok" if r["ok"] else "**FAILED**"] for r in found]),
           table(["graph", "CLI", "projects on the critical path", "overhead per project", "spawn → fake running",
                  "… worst", "fake's work beyond sleep", "fake exit → runner done", "… worst", "dispatch", "… worst",
                  "measured critical path", "wall / measured c.p.", "runner CPU", "runner + children CPU",
                  "runner peak RSS"],
                 [["`%s`" % r["provider"], cli(r), r["hops"] or "n/a", fmt_ms(r["overhead"]), fmt_ms(r["spawn"]),
                   fmt_ms(r["spawn_max"]), fmt_ms(r["fake"]), fmt_ms(r["exit"]), fmt_ms(r["exit_max"]),
                   fmt_ms(r["dispatch"]), fmt_ms(r["dispatch_max"]), fmt_s(r["cp_measured"]),
                   fmt_x(ratio(r["wall"], r["cp_measured"])), fmt_s(r["runner_cpu"]), fmt_s(r["tree_cpu"]),
                   fmt_mib(r["peak_rss_kb"])] for r in found])]
    versions = read_jsonl(os.path.join(results, "fake-version.jsonl"))
    rows = [[name, bold(fmt_ms(median([m["wall_s"] for m in ms]))), len(ms)] for label, name in (
        ("direct", "fake, with the interpreter the benchmark puts on PATH"),
        ("on-path", "fake, through the `python3` first on the default PATH (%s)"
         % machine.get("python_on_path_note", "another launcher")),
        ("sleep-cli", "`sleep-pulumi`")) for ms in [[m for m in versions if m["label"] == label]] if ms]
    if rows:
        out.append(table(["CLI start-up: `pulumi version`", "median", "runs"], rows))
    return "\n".join(out)


def mara_graph_block(results, machine):
    r = analyse_sched(os.path.join(results, "sched", "mara"))
    if not r:
        return None
    rows = [["`%s`" % p["path"], p["phase"], ", ".join("`%s`" % d for d in p["depends_on"]) or "–",
             ("%g min" % (p["unscaled_seconds"] / 60.0)) if p["unscaled_seconds"] >= 60
             else "%d s" % p["unscaled_seconds"], "%.3f s" % p["sleep"]] for p in r["graph"]["projects"]]
    out = [table(["project", "phase", "depends on", "assumed (real)", "scripted sleep"], rows),
           table(["`mara`, fake CLI", "unscaled (×600)", "scaled", "wall (median)", "runs"], [
               ["sum of durations", "%.1f min" % (r["sum"] * 10), fmt_s(r["sum"]), "–", "–"],
               ["critical path (runner's rule)", "%.1f min" % (r["cp"] * 10), fmt_s(r["cp"]), fmt_s(r["wall"]),
                r["runs"]],
               ["`--parallelism 1`", "–", "–", fmt_s(median(r["sequential"])), len(r["sequential"])]])]
    return "\n".join(out)


def rule_block(results, machine):
    directory = os.path.join(results, "rule")
    measures = read_jsonl(os.path.join(directory, "measure.jsonl"))
    if not measures:
        return None
    cp, total, _, _ = planned(os.path.join(directory, "plan-deps.json"))
    barrier_cp = planned(os.path.join(directory, "plan-barrier.json"))[0]
    load = read_json(os.path.join(directory, "load.json"), {})
    rows, loads = [], []
    for variant, name in (("cluster", "cluster rule (shipped)"), ("barrier", "`strict_phase_barrier = true` (MARA)")):
        runs = labelled(measures, variant + "-run-")
        loads += [m.get("load_1m") for m in runs]
        walls = [m["wall_s"] for m in runs if m["exit"] == 0]
        best = min(walls, default=None)
        rows.append([name, bold(fmt_s(median(walls))), fmt_s(best), fmt_s(max(walls, default=None)),
                     bold(fmt_x(ratio(median(walls), cp), 3)), fmt_x(ratio(best, cp), 3), len(runs), ok_cell(runs)])
    for name, value in (("dependency-only critical path (`show`)", cp),
                        ("critical path with the phase barrier (`show`)", barrier_cp),
                        ("MARA's sequential strategy (sum of durations)", total)):
        rows.append([name, fmt_s(value), "–", "–", fmt_x(ratio(value, cp), 3), "–", "–", "–"])
    extra = " Load (1, 5, 15 min) before / after the comparison: %s / %s; 1-minute load as runs ended: median %s, " \
            "at most %s." % (load.get("before", "n/a"), load.get("after", "n/a"), fmt_x(median(loads), 1),
                             fmt_x(max([x for x in loads if x is not None], default=None), 1))
    return "\n".join([provenance(machine, extra), table(
        ["variant", "wall median", "best", "worst", "wall / dependency-only c.p. (median)", "best", "runs", "exit"],
        rows)])


def prio_block(results, machine):
    directory = os.path.join(results, "prio")
    measures = read_jsonl(os.path.join(directory, "measure.jsonl"))
    if not measures:
        return None
    cp, total, schedule, _ = planned(os.path.join(directory, "plan.json"))
    bound = max(cp, total / 4.0) if cp is not None and total is not None else None
    rows = []
    for prefix, name in (("declaration-", "declaration order (no history)"),
                         ("critical-", "critical path first (history)")):
        runs = labelled(measures, prefix)
        wall = median([m["wall_s"] for m in runs if m["exit"] == 0])
        rows.append([name, bold(fmt_s(wall)), len(runs), bold(fmt_x(ratio(wall, bound), 3)), ok_cell(runs)])
    rows.append(["critical path first, list schedule (`show -j 4`, zero overhead)", fmt_s(schedule), "–",
                 fmt_x(ratio(schedule, bound), 3), "–"])
    rows.append(["lower bound: max(critical path %s, total work / 4 = %s)" % (fmt_s(cp), fmt_s(ratio(total, 4))),
                 fmt_s(bound), "–", "1.000", "–"])
    return "\n".join([provenance(machine), table(["policy", "wall (median)", "runs", "wall / lower bound", "exit"],
                                                 rows)])


def classify(argv):
    two = " ".join(argv.split(" ")[:2])
    return two if two in ("stack init", "config set", "stack output", "stack select") else argv.split(" ")[0] or "?"


def count_processes(log):
    """`pulumi` invocations the runner itself started, by command, from one shim log."""
    kinds = {}
    with open(log, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t", 3)
            if len(parts) == 4 and parts[1] == "runner":
                kinds[classify(parts[3])] = kinds.get(classify(parts[3]), 0) + 1
    return kinds


def procs_block(results, machine):
    rows = []
    for variant, name in (("hooks", "with hook"), ("nohooks", "without hooks")):
        vdir = os.path.join(results, "procs", variant)
        try:
            with open(os.path.join(vdir, "projects"), encoding="utf-8") as f:
                projects = int(f.read().strip())
        except (OSError, ValueError):
            continue
        measures = {m["label"]: m for m in read_jsonl(os.path.join(vdir, "measure.jsonl"))}
        rounds = sorted(d for d in os.listdir(vdir) if d.isdigit())
        for op in ("up-fresh", "up-existing", "preview", "refresh", "destroy"):
            counts = [count_processes(os.path.join(vdir, rnd, op + ".log")) for rnd in rounds
                      if os.path.exists(os.path.join(vdir, rnd, op + ".log"))]
            if not counts:
                continue
            totals = [sum(c.values()) for c in counts]
            # Ties by name: a set's order changes with Python's hash seed from run to run.
            kinds = sorted({k for c in counts for k in c}, key=lambda k: (-max(c.get(k, 0) for c in counts), k))
            m = [measures.get("%s-%s" % (op, rnd)) for rnd in rounds]
            rows.append([name, op, projects, "%g" % median(totals), bold("%.2f" % (median(totals) / projects)),
                         ", ".join("%s %g" % (k, median([c.get(k, 0) for c in counts])) for k in kinds) or "–",
                         "yes" if len(set(totals)) == 1 else "no (%s)" % ", ".join(map(str, totals)),
                         fmt_s(median([x["wall_s"] for x in m if x])), ok_cell([x for x in m if x])])
    if not rows:
        return None
    return "\n".join([provenance(machine, " %s rounds; counts are medians per operation." % machine.get(
        "proc_rounds", "?")), table(["provider", "operation", "projects", "`pulumi` processes", "per project",
                                     "by command", "same in every round", "wall (median, via shim)", "exit"], rows)])


def growth_exponent(series):
    """k in time ~ n^k between the two largest sizes of [(n, seconds)], or None."""
    series = sorted((n, t) for n, t in series if t)
    if len(series) < 2 or series[-1][0] <= series[-2][0]:
        return None
    (n0, t0), (n1, t1) = series[-2], series[-1]
    return math.log(t1 / t0) / math.log(n1 / n0)


def scale_block(results, machine):
    rows_in = read_jsonl(os.path.join(results, "scale", "time.jsonl"))
    if not rows_in:
        return None
    settings = read_json(os.path.join(results, "scale", "settings.json"), {})
    big = settings.get("n")
    groups = {}
    for r in rows_in:
        groups.setdefault((" ".join(r["label"].split()[:2]), r["label"], r["n"]), []).append(r)
    order = {"runner show": 0, "runner validate": 1, "runner providers": 2}
    rows, growth = [], []
    for (command, label, n), rs in sorted(groups.items(), key=lambda kv: (order.get(kv[0][0], 3), kv[0][2])):
        wall = median([r["wall_s"] for r in rs])
        mark = bold if n == big else str
        rows.append(["`%s`" % label, mark(n), mark(fmt_s(wall)), fmt_mib(median([r["peak_rss_kb"] for r in rs])),
                     "ok" if all(r["exit"] == 0 for r in rs) else "**FAILED**", len(rs)])
    for command in order:
        k = growth_exponent([(n, median([r["wall_s"] for r in rs])) for (c, _, n), rs in groups.items() if c == command])
        growth.append("`%s` n^%s" % (command.split()[1], fmt_x(k, 1)))
    out = [provenance(machine, " Provider file of %s projects: %s; measured with %s." % (
        big, settings.get("toml_size", "?"), settings.get("tool", "?"))),
           table(["command", "projects", "wall (median)", "peak RSS", "exit", "runs"], rows),
           "Growth between the two largest sizes: %s.\n" % ", ".join(growth)]
    ups = {}
    for m in read_jsonl(os.path.join(results, "scale", "up.jsonl")):
        ups.setdefault(int(m["label"].split("-", 1)[1]), []).append(m)
    if ups:
        cpu = {n: median([m["self_cpu_s"] for m in ms]) for n, ms in ups.items()}
        out.append(table(["`up` projects (sleep 0 s, `-j 4`)", "wall (median)", "runner CPU", "runner CPU per project",
                          "runner + children CPU", "runner peak RSS", "exit", "runs"],
                         [[n, fmt_s(median([m["wall_s"] for m in ms])), fmt_s(cpu[n]), "%.2f ms" % (cpu[n] * 1000.0 / n),
                           fmt_s(median([m["tree_cpu_s"] for m in ms])),
                           fmt_mib(median([m["self_peak_rss_kb"] for m in ms])), ok_cell(ms), len(ms)]
                          for n, ms in sorted(ups.items())]))
        out.append("Runner CPU grows like n^%s between the two largest sizes.\n" % fmt_x(
            growth_exponent(sorted(cpu.items())), 1))
    return "\n".join(out)


def stream_block(results, machine):
    directory = os.path.join(results, "stream")
    measures = read_jsonl(os.path.join(directory, "measure.jsonl"))
    if not measures:
        return None
    settings = read_json(os.path.join(directory, "settings.json"), {})
    sizes = {s["label"]: s["bytes"] for s in read_jsonl(os.path.join(directory, "logsize.jsonl"))}
    row = lambda label, ms: [label, fmt_s(median([m["wall_s"] for m in ms])),
                             fmt_mib(median([m["self_peak_rss_kb"] for m in ms])),
                             fmt_s(median([m["self_cpu_s"] for m in ms])), fmt_s(median([m["tree_cpu_s"] for m in ms])),
                             human_bytes(median([sizes.get(m["label"]) for m in ms])),
                             fmt_x(median([other_cores(m) for m in ms]), 1), ok_cell(ms)]
    timed = labelled(measures, "run-")
    rows = [row(m["label"], [m]) for m in timed] + [row(bold("median"), timed)]
    rows += [row("quiet warm-up (no output)", [m for m in measures if m["label"] == "warmup"])]
    total = settings.get("projects", 0) * settings.get("bytes", 0)
    wall, cpu = median([m["wall_s"] for m in timed]), median([m["self_cpu_s"] for m in timed])
    lines = total / 80.0
    return "\n".join([provenance(machine, " %s projects × %s of output (80-byte lines) at parallelism %s." % (
        settings.get("projects"), human_bytes(settings.get("bytes")), settings.get("parallelism"))),
        table(["run", "wall", "runner peak RSS", "runner CPU", "runner + fakes CPU", "log files total",
               "other work (cores)", "exit"], rows),
        "Throughput %s MiB/s; runner CPU %s µs per line (%.0f lines).\n" % (
            fmt_x(ratio(total / 1048576.0, wall), 0), fmt_x(ratio(cpu * 1e6, lines)), lines)])


def e2e_block(results, machine):
    directory = os.path.join(results, "e2e")
    measures = read_jsonl(os.path.join(directory, "measure.jsonl"))
    if not measures:
        return None
    rows = []
    for p in ("1", "4"):
        for kind, name in (("fresh", "fresh backend (stack init + up)"), ("reup", "no-change re-up")):
            ms = labelled(measures, "p%s-%s-" % (p, kind))
            if not ms:
                continue
            reports = [read_json(os.path.join(directory, "report-%s.json" % m["label"]), {}) for m in ms]
            walls = [m["wall_s"] for m in ms]
            rows.append([p, name, bold(fmt_s(median(walls))), "%s–%s" % (fmt_s(min(walls)), fmt_s(max(walls))),
                         fmt_s(median([sum(x["duration"] for x in r["projects"]) for r in reports if r.get("projects")])),
                         fmt_s(median([m["tree_cpu_s"] for m in ms])), fmt_mib(median([m["self_peak_rss_kb"] for m in ms])),
                         fmt_x(median([other_cores(m) for m in ms]), 1), ok_cell(ms), len(ms)])
    return "\n".join([provenance(machine), table(
        ["parallelism", "run", "wall (median)", "range", "sum of project durations", "CPU (runner + pulumi)",
         "runner peak RSS", "other work (cores)", "exit", "runs"], rows)])


# the file: generated blocks replaced, everything else kept

SKELETON = """# Benchmarks

Tables between `generated` markers are written by `benches/run.sh` (`benches/report.py`); the
prose around them is written by hand and never rewritten.
"""


def markers(name):
    return "<!-- generated: %s -->" % name, "<!-- end generated: %s -->" % name


def replace_blocks(text, blocks):
    """`text` with each block of `blocks` ({name: markdown}) between its markers; a block the
    text lacks is appended. Text outside the markers is kept byte for byte."""
    for name, body in blocks.items():
        start, end = markers(name)
        wrapped = "%s\n%s\n%s" % (start, body.strip("\n"), end)
        pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
        if pattern.search(text):
            text = pattern.sub(lambda _: wrapped, text, count=1)
        else:
            text = text.rstrip("\n") + "\n\n" + wrapped + "\n"
    return text


def render_blocks(results):
    machine = read_json(os.path.join(results, "machine.json"), {})
    functions = {"machine": machine_block, "sched": sched_block, "rule": rule_block, "prio": prio_block,
                 "mara-graph": mara_graph_block, "procs": procs_block, "scale": scale_block,
                 "stream": stream_block, "e2e": e2e_block}
    blocks = {}
    for name in BLOCKS:
        body = functions[name](results, machine)
        if body is not None:
            blocks[name] = body
    return blocks


def main():
    results, output = sys.argv[1], sys.argv[2]
    try:
        with open(output, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        text = SKELETON
    with open(output, "w", encoding="utf-8") as f:
        f.write(replace_blocks(text, render_blocks(results)))


if __name__ == "__main__":
    main()
