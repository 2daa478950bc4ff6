#!/usr/bin/env python3
"""Turns the raw results benches/run.sh collected into BENCHMARKS.md (standard library only).

    report.py RESULTS_DIR OUTPUT_FILE

RESULTS_DIR layout (all written by run.sh):
  machine.json                          the machine, versions, settings, load averages
  fake-version.jsonl                    measure.py records of the fake's `pulumi version`
  sched/<graph>/graph.json              from gen.py: projects, phases, dependencies, scripted sleeps
  sched/<graph>/measure.jsonl           measure.py records: warmup, run-<i>, p1-run-<i>
  sched/<graph>/report-<i>.json         the runner's --report json of timed run i
  sched/<graph>/invocations-<i>.jsonl   the fake's invocation log of timed run i
  sched/<graph>/settings.json           {"parallelism": N}
  rule/graph.json, rule/settings.json   MARA's graph for the cluster rule against the barrier
  rule/measure.jsonl                    labels cluster-run-<i>, barrier-run-<i> (and warm-ups)
  rule/load.json                        load averages before and after that comparison
  procs/<variant>/<round>/<op>.log      shim log (time, parent, folder, argv) of one operation
  procs/<variant>/projects              number of projects
  scale/time.jsonl                      {"label", "n", "wall_s", "peak_rss_kb", "exit"}
  stream/measure.jsonl, stream/logsize.jsonl, stream/settings.json
  e2e/measure.jsonl                     labels p<N>-fresh-<i>, p<N>-reup-<i>
  e2e/report-<label>.json
"""

import json
import math
import os
import statistics
import sys


# ---------------------------------------------------------------------------------------
# small helpers

def read_json(path, default=None):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


def read_jsonl(path):
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    rows.append(json.loads(line))
    except OSError:
        pass
    return rows


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


def other_cores(m):
    """Cores' worth of CPU that other work (not the measured command and its children) used
    during a measurement, on average; None for records without machine_busy_s."""
    if not m or m.get("machine_busy_s") is None or not m.get("wall_s"):
        return None
    return max(0.0, (m["machine_busy_s"] - m.get("tree_cpu_s", 0.0)) / m["wall_s"])


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c) for c in row) + " |")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------
# graphs: critical path with the phase barrier, list scheduling like the runner's

def topo_order(projects):
    index = {p["path"]: i for i, p in enumerate(projects)}
    indegree = [len(p["depends_on"]) for p in projects]
    users = [[] for _ in projects]
    for i, p in enumerate(projects):
        for d in p["depends_on"]:
            users[index[d]].append(i)
    ready = [i for i, n in enumerate(indegree) if n == 0]
    order = []
    while ready:
        i = ready.pop()
        order.append(i)
        for j in users[i]:
            indegree[j] -= 1
            if indegree[j] == 0:
                ready.append(j)
    return order, index


def waits(projects, rule):
    """Per project, the indexes it waits for, and whether it also waits for the whole
    infrastructure phase. rule: "dependencies" (declared dependencies only: the physical
    limit), "runner" (the runner's cluster rule: kubernetes projects that need the cluster
    wait for the projects marked provides_cluster, or for the whole infrastructure phase
    when none is marked), "barrier" (MARA's phase barrier)."""
    index = {p["path"]: i for i, p in enumerate(projects)}
    providers = [i for i, p in enumerate(projects) if p.get("provides_cluster")]
    result = []
    for p in projects:
        deps = [index[d] for d in p["depends_on"]]
        barrier = False
        if p["phase"] == "kubernetes" and rule != "dependencies":
            needs = p.get("needs_cluster", True)
            if rule == "barrier" or (needs and not providers):
                barrier = True
            elif needs:
                deps = sorted(set(deps) | set(providers))
        result.append((deps, barrier))
    return result


def critical_path(projects, durations, rule="runner"):
    """Earliest finish of everything with unlimited parallelism under `rule` (see waits)."""
    order, index = topo_order(projects)
    rules = waits(projects, rule)
    finish = {}
    # Infrastructure projects never depend on kubernetes ones, so they can all go first.
    for phase in ("infrastructure", "kubernetes"):
        barrier = 0.0
        if phase == "kubernetes":
            barrier = max([finish[i] for i, p in enumerate(projects) if p["phase"] == "infrastructure"] or [0.0])
        for i in order:
            p = projects[i]
            if p["phase"] != phase:
                continue
            deps, behind = rules[i]
            start = max([finish[d] for d in deps] + [barrier if behind else 0.0])
            finish[i] = start + durations[i]
    return max(finish.values()) if finish else 0.0


def remaining_paths(projects, durations, rule="runner"):
    """Longest chain from each project's start to the end: the runner's start priority."""
    order, _ = topo_order(projects)
    rules = waits(projects, rule)
    users = [[] for _ in projects]
    for i, (deps, _) in enumerate(rules):
        for d in deps:
            users[d].append(i)
    behind = [i for i, (_, b) in enumerate(rules) if b]
    infra = [i for i, p in enumerate(projects) if p["phase"] == "infrastructure"]
    path = [0.0] * len(projects)
    # Kubernetes projects first (reverse topological), so the barrier's followers are known.
    after_barrier = 0.0
    for i in reversed(order):
        if projects[i]["phase"] == "kubernetes":
            path[i] = durations[i] + max([path[u] for u in users[i]] or [0.0])
    after_barrier = max([path[i] for i in behind] or [0.0])
    for i in reversed(order):
        if projects[i]["phase"] == "infrastructure":
            path[i] = durations[i] + max([path[u] for u in users[i]] + [after_barrier if behind else 0.0])
    del infra
    return path


def list_schedule(projects, durations, parallelism, priority="critical", rule="runner", known=None):
    """The runner's policy with zero overhead: whenever a slot is free, start the ready project
    with the best priority: "critical" = longest expected remaining chain (from `known`
    durations, default the real ones), then infrastructure first, then declaration order;
    "declaration" = infrastructure first, then declaration order."""
    n = len(projects)
    rules = waits(projects, rule)
    infra = [i for i, p in enumerate(projects) if p["phase"] == "infrastructure"]
    paths = remaining_paths(projects, known or durations, rule) if priority == "critical" else [0.0] * n
    done, running, now = {}, {}, 0.0
    while len(done) < n:
        infra_done = all(i in done for i in infra)
        ready = [i for i in range(n) if i not in done and i not in running
                 and all(d in done for d in rules[i][0])
                 and (not rules[i][1] or infra_done)]
        ready.sort(key=lambda i: (-paths[i], 0 if projects[i]["phase"] == "infrastructure" else 1, i))
        for i in ready[:max(0, parallelism - len(running))]:
            running[i] = now + durations[i]
        if not running:
            break
        now = min(running.values())
        for i in [i for i, t in running.items() if t <= now]:
            done[i] = running.pop(i)
    return now


# ---------------------------------------------------------------------------------------
# benchmark 1: scheduling

def sched_run_details(graph, report, invocations):
    """Per project: runner start/finish (report), fake start/end (invocation log), ready time."""
    projects = graph["projects"]
    by_path = {p["path"]: p for p in projects}
    rows = {r["project"]: r for r in report.get("projects", [])}
    fake = {}
    for rec in invocations:
        if rec.get("op") != "up":
            continue
        entry = fake.setdefault(rec["project"], {})
        if rec["event"] == "start":
            entry["start"] = rec["start"]
        else:
            entry["end"] = rec["end"]
    finish = {path: r["started"] + r["duration"] for path, r in rows.items() if r.get("started") is not None}
    infra = [finish[p["path"]] for p in projects if p["phase"] == "infrastructure" and p["path"] in finish]
    infra_finish = max(infra) if infra else None
    t0 = min((r["started"] for r in rows.values() if r.get("started") is not None), default=None)
    details = []
    for p in projects:
        r = rows.get(p["path"])
        if r is None or r.get("started") is None:
            continue
        ready_from = [finish[d] for d in p["depends_on"] if d in finish]
        if p["phase"] == "kubernetes" and infra_finish is not None:
            ready_from.append(infra_finish)
        ready = max(ready_from) if ready_from else t0
        f = fake.get(p["name"], {})
        details.append({
            "path": p["path"],
            "sleep": p["sleep"],
            "started": r["started"],
            "duration": r["duration"],
            "finished": finish[p["path"]],
            "ready": ready,
            "fake_start": f.get("start"),
            "fake_end": f.get("end"),
        })
    return details


def analyse_sched(directory):
    graph = read_json(os.path.join(directory, "graph.json"))
    if not graph:
        return None
    settings = read_json(os.path.join(directory, "settings.json"), {})
    projects = graph["projects"]
    sleeps = [p["sleep"] for p in projects]
    cp = critical_path(projects, sleeps)
    cp_deps = critical_path(projects, sleeps, "dependencies")
    cp_barrier = critical_path(projects, sleeps, "barrier")
    total = sum(sleeps)
    parallelism = settings.get("parallelism", 4)
    simulated = list_schedule(projects, sleeps, parallelism)
    measures = read_jsonl(os.path.join(directory, "measure.jsonl"))
    timed = [m for m in measures if m["label"].startswith("run-")]
    sequential = [m for m in measures if m["label"].startswith("p1-run-")]
    warmup = [m for m in measures if m["label"] == "warmup"]
    runs = []
    for m in timed:
        i = m["label"].split("-", 1)[1]
        report = read_json(os.path.join(directory, "report-%s.json" % i), {})
        invocations = read_jsonl(os.path.join(directory, "invocations-%s.jsonl" % i))
        details = sched_run_details(graph, report, invocations)
        path_index = {p["path"]: k for k, p in enumerate(projects)}
        measured = list(sleeps)
        for d in details:
            measured[path_index[d["path"]]] = d["duration"]
        runs.append({
            "wall": m["wall_s"],
            "other": other_cores(m),
            "ok": m["exit"] == 0 and report.get("succeeded") is True,
            "internal": report.get("duration_seconds"),
            "runner_cpu": m.get("self_cpu_s"),
            "tree_cpu": m.get("tree_cpu_s"),
            "peak_rss_kb": m.get("self_peak_rss_kb"),
            "cp_measured": critical_path(projects, measured),
            "overhead": [d["duration"] - d["sleep"] for d in details],
            "spawn_to_fake": [d["fake_start"] - d["started"] for d in details if d["fake_start"]],
            "fake_internal": [d["fake_end"] - d["fake_start"] - d["sleep"] for d in details
                              if d["fake_start"] and d["fake_end"]],
            "exit_to_runner": [d["finished"] - d["fake_end"] for d in details if d["fake_end"]],
            "dispatch": [d["started"] - d["ready"] for d in details if d["ready"] is not None],
            "details": details,
        })
    walls = [r["wall"] for r in runs]
    result = {
        "name": os.path.basename(directory),
        "graph": graph,
        "cli": settings.get("cli", "fake"),
        "parallelism": parallelism,
        "projects": len(projects),
        "cp": cp,
        "cp_deps": cp_deps,
        "cp_barrier": cp_barrier,
        "sum": total,
        "simulated": simulated,
        "runs": runs,
        "all_ok": all(r["ok"] for r in runs) and bool(runs),
        "wall": median(walls),
        "wall_min": min(walls) if walls else None,
        "wall_max": max(walls) if walls else None,
        "internal": median([r["internal"] for r in runs]),
        "cp_measured": median([r["cp_measured"] for r in runs]),
        "runner_cpu": median([r["runner_cpu"] for r in runs]),
        "other": median([r["other"] for r in runs]),
        "tree_cpu": median([r["tree_cpu"] for r in runs]),
        "peak_rss_kb": median([r["peak_rss_kb"] for r in runs]),
        "overhead": median([median(r["overhead"]) for r in runs]),
        "spawn_to_fake": median([median(r["spawn_to_fake"]) for r in runs]),
        "spawn_to_fake_max": median([max(r["spawn_to_fake"]) if r["spawn_to_fake"] else None for r in runs]),
        "fake_internal": median([median(r["fake_internal"]) for r in runs]),
        "exit_to_runner": median([median(r["exit_to_runner"]) for r in runs]),
        "exit_to_runner_max": median([max(r["exit_to_runner"]) if r["exit_to_runner"] else None for r in runs]),
        "dispatch": median([median(r["dispatch"]) for r in runs]),
        "dispatch_max": median([max(r["dispatch"]) if r["dispatch"] else None for r in runs]),
        "warmup": warmup[0]["wall_s"] if warmup else None,
        "sequential": median([m["wall_s"] for m in sequential]),
        "sequential_runs": len(sequential),
    }
    if result["wall"]:
        result["ratio"] = result["wall"] / cp if cp else None
        result["ratio_deps"] = result["wall"] / cp_deps if cp_deps else None
        result["ratio_measured"] = result["wall"] / result["cp_measured"] if result["cp_measured"] else None
        result["speedup"] = total / result["wall"]
    return result


def longest_chain_hops(projects):
    """Projects on the longest (in project count) dependency path, barrier included."""
    return critical_path(projects, [1.0] * len(projects))


# ---------------------------------------------------------------------------------------
# benchmark 2: process counts

OP_KINDS = [
    ("stack init", "stack init"),
    ("config set", "config set"),
    ("stack output", "stack output"),
    ("stack select", "stack select"),
    ("up", "up"),
    ("preview", "preview"),
    ("refresh", "refresh"),
    ("destroy", "destroy"),
]


def classify(argv):
    for prefix, name in OP_KINDS:
        if argv == prefix or argv.startswith(prefix + " "):
            return name
    return argv.split(" ", 1)[0] if argv else "?"


def analyse_procs(directory):
    variants = {}
    if not os.path.isdir(directory):
        return variants
    for variant in sorted(os.listdir(directory)):
        vdir = os.path.join(directory, variant)
        try:
            with open(os.path.join(vdir, "projects"), encoding="utf-8") as f:
                n_projects = int(f.read().strip())
        except (OSError, ValueError):
            continue
        ops = {}
        for rnd in sorted(os.listdir(vdir)):
            rdir = os.path.join(vdir, rnd)
            if not os.path.isdir(rdir):
                continue
            for name in sorted(os.listdir(rdir)):
                if not name.endswith(".log"):
                    continue
                op = name[:-4]
                kinds, others = {}, 0
                with open(os.path.join(rdir, name), encoding="utf-8") as f:
                    for line in f:
                        parts = line.rstrip("\n").split("\t", 3)
                        if len(parts) < 4:
                            continue
                        _, parent, _, argv = parts
                        if parent != "runner":
                            others += 1
                            continue
                        kind = classify(argv)
                        kinds[kind] = kinds.get(kind, 0) + 1
                ops.setdefault(op, []).append({"total": sum(kinds.values()), "kinds": kinds, "others": others})
        measures = {m["label"]: m for m in read_jsonl(os.path.join(vdir, "measure.jsonl"))}
        variants[variant] = {"projects": n_projects, "ops": ops, "measures": measures}
    return variants


# ---------------------------------------------------------------------------------------
# rendering

def machine_section(machine):
    rows = [
        ("CPUs (`nproc`)", machine.get("nproc")),
        ("memory", machine.get("memory")),
        ("CPU model", machine.get("cpu_model")),
        ("OS", machine.get("os")),
        ("kernel", machine.get("kernel")),
        ("rustc", machine.get("rustc")),
        ("pulumi (real CLI)", machine.get("pulumi")),
        ("Python (runs the fake CLI)", machine.get("python")),
        ("runner source", machine.get("source")),
        ("load average before / after", "%s / %s" % (machine.get("load_before"), machine.get("load_after"))),
        ("benchmark started (UTC)", machine.get("started")),
        ("total time of `benches/run.sh`", machine.get("total_time", "n/a")),
    ]
    return table(["", ""], [("**%s**" % k, "`%s`" % v if k in ("rustc", "pulumi (real CLI)") else v)
                            for k, v in rows])


CLI_NAMES = {"fake": "fake (Python)", "sleep": "`sleep-pulumi` (sh)"}


def render_sched(results, fake_version, runs_wanted):
    out = []
    out.append("## 1. Scheduling efficiency\n")
    if not results:
        out.append("Not run in this invocation (`BENCH_ONLY`).\n")
        return "\n".join(out)
    out.append(
        "Command: `runner up --provider <graph> --stack bench --non-interactive --parallelism N`, run "
        "from a generated repository with a file backend. Each graph runs twice over: with the fake CLI "
        "(`tests/support/fake-pulumi/pulumi`, one Python process per operation, sleeping its scripted "
        "duration), and with `benches/sleep-pulumi/pulumi`, a POSIX `sh` script that only `exec sleep`s "
        "the same duration, so that what is left is the runner's own overhead. With the fake, one "
        "warm-up `up` first creates the stacks (`stack init`, one at a time); with the sh CLI the "
        "stacks exist on the backend beforehand (the warm-up is run anyway). Then %d timed `up`s on "
        "existing stacks; figures are their medians. *Wall* is measured outside the runner, from "
        "process start to exit, so it includes loading the provider and writing the history.\n" % runs_wanted)
    out.append(
        "*Dependency-only critical path*: the longest path of scripted durations through declared "
        "dependencies alone: the physical limit of any scheduler (ratio 1.0; MARA's target ≤ 1.03, "
        "Terragrunt's `run --all` reaches 1.036 on this graph). *Runner's rule*: kubernetes projects "
        "that need the cluster also wait for the projects marked `provides_cluster` (for MARA, "
        "`infrastructure/kubeconfig`, which they depend on anyway). *Phase barrier*: every kubernetes "
        "project waits for the whole infrastructure phase, MARA's semantics and the runner's behaviour "
        "before the cluster rule. *Sum*: every duration one after another, MARA's own sequential "
        "strategy. *List schedule*: the runner's policy (longest expected remaining chain first, then "
        "infrastructure first, then declaration order) at the run's `--parallelism`, simulated with "
        "zero overhead: when it equals the critical path, the parallelism limit costs nothing.\n")
    rows = []
    for r in results:
        rows.append([
            "`%s`" % r["graph"]["provider"], CLI_NAMES.get(r["cli"], r["cli"]), r["projects"], r["parallelism"],
            fmt_s(r["sum"]), fmt_s(r["cp_deps"]), fmt_s(r["cp"]), fmt_s(r["cp_barrier"]), fmt_s(r["simulated"]),
            "**%s**" % fmt_s(r["wall"]),
            "%s–%s" % (fmt_s(r["wall_min"]), fmt_s(r["wall_max"])),
            "**%s**" % fmt_x(r.get("ratio_deps"), 3), fmt_x(r.get("speedup"), 1) + "×",
            fmt_x(r.get("other"), 1), "ok" if r["all_ok"] else "**FAILED**",
        ])
    out.append(table(["graph", "CLI", "projects", "parallelism", "sum of durations (MARA's strategy)",
                      "dependency-only critical path", "critical path (runner's rule)",
                      "critical path (phase barrier)", "list schedule (sim.)", "wall (median)", "wall range",
                      "wall / dependency-only c.p.",
                      "speed-up over sum", "other work (cores)", "runs"], rows))
    out.append("")
    out.append("*Other work*: CPU the rest of the machine used during the timed runs (from `/proc/stat`, "
               "minus the runner and its children, in cores on average; it includes the measuring "
               "script's own polling). The machine has %s cores; anything well above 0 competed with "
               "the benchmark.\n" % MACHINE.get("nproc", "?"))
    out.append("")
    out.append(
        "Where the time goes. Per project: *overhead* = the duration the runner reports minus the "
        "scripted sleep; with the fake, its own invocation log (same clock) splits that into *spawn → "
        "fake running* (process creation and interpreter start-up), the fake's work beyond its sleep, "
        "and *fake exit → runner done* (the runner reaping it and reading the rest of its output and "
        "event log). *Dispatch* = from the moment a project's last dependency (or the phase barrier) "
        "finished to the moment the runner started it. Medians over projects, then over runs; "
        "*worst* is the largest value of a run (median over runs). *Measured critical path*: the "
        "critical path recomputed with the durations the runner measured, i.e. the best any scheduler "
        "could do with these processes; wall divided by it isolates the runner's scheduling.\n")
    rows = []
    for r in results:
        rows.append([
            "`%s`" % r["graph"]["provider"], CLI_NAMES.get(r["cli"], r["cli"]), fmt_ms(r["overhead"]),
            fmt_ms(r["spawn_to_fake"]), fmt_ms(r["spawn_to_fake_max"]),
            fmt_ms(r["fake_internal"]), fmt_ms(r["exit_to_runner"]), fmt_ms(r["exit_to_runner_max"]),
            fmt_ms(r["dispatch"]), fmt_ms(r["dispatch_max"]), fmt_s(r["cp_measured"]),
            fmt_x(r.get("ratio_measured")), fmt_s(r["runner_cpu"]), fmt_s(r["tree_cpu"]),
            fmt_mib(r["peak_rss_kb"]),
        ])
    out.append(table([
        "graph", "CLI", "overhead per project", "spawn → fake running", "… worst",
        "fake's work beyond sleep", "fake exit → runner done", "… worst",
        "dispatch", "… worst", "measured critical path", "wall / measured c.p.", "runner CPU",
        "runner + children CPU", "runner peak RSS"], rows))
    out.append("")
    fv = fake_version
    text = "CLI start-up, `pulumi version`, median of %d: the fake **%s** (with the interpreter the " \
           "benchmark puts on PATH)" % (fv.get("n", 0), fmt_ms(fv.get("direct")))
    if fv.get("on_path") is not None:
        text += ", %s through the `python3` first on the default PATH (%s)" % (
            fmt_ms(fv.get("on_path")), fv.get("on_path_note", "another launcher"))
    text += "; `sleep-pulumi` **%s**. Both include the measuring Python's own fork and exec.\n" % fmt_ms(fv.get("sleep"))
    out.append(text)
    for r in results:
        note = sched_note(r, fv)
        if note:
            out.append(note + "\n")
    return "\n".join(out)


def sched_note(r, fv):
    label = "**`%s`, %s**" % (r["graph"]["provider"], CLI_NAMES.get(r["cli"], r["cli"]))
    if r.get("ratio") is None:
        return "%s: no successful timed run." % label
    hops = int(round(longest_chain_hops(r["graph"]["projects"])))
    excess = r["wall"] - r["cp_deps"]
    words = ["%s: wall / dependency-only critical path = **%.3f**" % (label, r["ratio_deps"])]
    if r["ratio_deps"] <= 1.03:
        words.append("(within the 1.03 target; %.0f ms above the critical path)." % (excess * 1000))
    else:
        words.append("(%.2f s above the critical path, above the 1.03 target)." % excess)
    if r["graph"]["provider"] == "wide":
        middles = r["projects"] - 2
        words.append(
            "All %d middle projects become ready together when the root ends; the last of them starts "
            "%s later (a median %s): their tasks start one after another on the runtime's worker "
            "threads, each blocking its thread while it spawns its process, %.1f ms per project on "
            "average here." % (
                middles, fmt_ms(r["dispatch_max"]), fmt_ms(r["dispatch"]),
                (r["dispatch_max"] or 0) * 1000.0 / middles))
        if r["cli"] == "fake":
            words.append(
                "Each fake is a Python process: together they used %s of CPU on %s cores, so a middle "
                "spends a median %s (worst %s) between spawn and running Python, and %s beyond its "
                "sleep inside the fake. That CPU contention also slows the runner's own spawning. "
                "The runner itself used %s of CPU. **Process start-up on 2 cores, not scheduling, "
                "dominates this graph**; compare the sh-CLI row." % (
                    fmt_s(r["tree_cpu"]), MACHINE.get("nproc", "?"), fmt_ms(r["spawn_to_fake"]),
                    fmt_ms(r["spawn_to_fake_max"]), fmt_ms(r["fake_internal"]), fmt_s(r["runner_cpu"])))
        else:
            words.append(
                "Each project costs a median %s beyond its sleep and the runner used %s of CPU for the "
                "whole run; with a CLI that costs nothing to start, starting %d processes at once is "
                "what is left (wall / measured critical path %s, where the measured durations do not "
                "include that wait)." % (fmt_ms(r["overhead"]), fmt_s(r["runner_cpu"]), middles,
                                         fmt_x(r.get("ratio_measured"))))
        return " ".join(words)
    along = hops * (r["overhead"] or 0)
    words.append(
        "The longest path holds %d projects, each costing a median %s beyond its sleep, about %.2f s "
        "along the path; the runner's dispatch adds a median %s per project (worst %s). Wall / "
        "measured critical path = %s." % (
            hops, fmt_ms(r["overhead"]), along, fmt_ms(r["dispatch"]), fmt_ms(r["dispatch_max"]),
            fmt_x(r.get("ratio_measured"))))
    if r["cli"] == "fake":
        words.append(
            "Of the per-project overhead, %s is spawn → fake running (the fake's `pulumi version` alone "
            "takes %s), %s the fake's own bookkeeping, %s the runner finishing after the fake's exit." % (
                fmt_ms(r["spawn_to_fake"]), fmt_ms(fv.get("direct")), fmt_ms(r["fake_internal"]),
                fmt_ms(r["exit_to_runner"])))
    if r["simulated"] > r["cp"] * 1.001:
        words.append("At parallelism %d even a zero-overhead list schedule needs %s (%.2f× the critical "
                     "path): the slot limit and the declaration-order priority cost that much." % (
                         r["parallelism"], fmt_s(r["simulated"]), r["simulated"] / r["cp"]))
    elif r["dispatch_max"] is not None and r["dispatch_max"] > 0.1 and r["parallelism"] < r["projects"]:
        words.append("The worst dispatch is a project waiting for one of the %d slots; the simulated list "
                     "schedule shows it costs nothing on the critical path." % r["parallelism"])
    return " ".join(words)


def analyse_rule(directory):
    """The cluster rule against MARA's phase barrier, alternating runs on MARA's graph."""
    graph = read_json(os.path.join(directory, "graph.json"))
    if not graph:
        return None
    projects = graph["projects"]
    sleeps = [p["sleep"] for p in projects]
    measures = read_jsonl(os.path.join(directory, "measure.jsonl"))
    result = {
        "cp_deps": critical_path(projects, sleeps, "dependencies"),
        "cp_barrier": critical_path(projects, sleeps, "barrier"),
        "sum": sum(sleeps),
        "load": read_json(os.path.join(directory, "load.json"), {}),
        "failed": sum(1 for m in measures if m["exit"] != 0),
    }
    for variant in ("cluster", "barrier"):
        runs = [m for m in measures if m["label"].startswith(variant + "-run-")]
        walls = [m["wall_s"] for m in runs if m["exit"] == 0]
        result[variant] = {
            "runs": len(runs),
            "wall": median(walls),
            "best": min(walls) if walls else None,
            "worst": max(walls) if walls else None,
            "load": median([m.get("load_1m") for m in runs]),
            "load_max": max([m["load_1m"] for m in runs if m.get("load_1m") is not None], default=None),
        }
    return result


def render_rule(result):
    out = ["### MARA's aws graph: the cluster rule against MARA's phase barrier, same load\n"]
    if not result:
        out.append("Not run in this invocation (`BENCH_ONLY`).\n")
        return "\n".join(out)
    cp = result["cp_deps"]
    cluster, barrier = result["cluster"], result["barrier"]
    ratio = lambda value: fmt_x(value / cp if value is not None and cp else None, 3)
    out.append(
        "The `mara` graph with `benches/sleep-pulumi`, `runner up --parallelism 4` (the default), %d runs "
        "of each variant after one warm-up each, alternating, the first of each pair swapped every round "
        "so both see the same load: the shipped marks (kubernetes projects wait for "
        "`infrastructure/kubeconfig`, the KIC image build and push need no cluster) against the same "
        "provider with `strict_phase_barrier = true` prepended (MARA's order). Dependency-only critical "
        "path %s; with the phase barrier %s; sum of durations (MARA's own one-after-another strategy) "
        "%s. Load average (1, 5, 15 min) before / after: %s / %s; the 1-minute load as each run "
        "ended: median %s, at most %s.\n" % (
            cluster["runs"], fmt_s(cp), fmt_s(result["cp_barrier"]), fmt_s(result["sum"]),
            result["load"].get("before", "n/a"), result["load"].get("after", "n/a"),
            fmt_x(median([cluster["load"], barrier["load"]]), 1),
            fmt_x(max([v for v in (cluster["load_max"], barrier["load_max"]) if v is not None], default=None), 1)))
    out.append(table(
        ["variant", "wall median", "best", "worst", "wall / dependency-only c.p. (median)", "best", "runs"], [
            ["cluster rule (shipped)", "**%s**" % fmt_s(cluster["wall"]), fmt_s(cluster["best"]),
             fmt_s(cluster["worst"]), "**%s**" % ratio(cluster["wall"]), ratio(cluster["best"]), cluster["runs"]],
            ["`strict_phase_barrier = true` (MARA)", fmt_s(barrier["wall"]), fmt_s(barrier["best"]),
             fmt_s(barrier["worst"]), ratio(barrier["wall"]), ratio(barrier["best"]), barrier["runs"]],
            ["MARA's sequential strategy (sum of durations)", fmt_s(result["sum"]), "–", "–",
             ratio(result["sum"]), "–", "–"],
        ]))
    out.append("")
    if result["failed"]:
        out.append("**%d runs failed**; their walls are left out.\n" % result["failed"])
    if cluster["wall"] is not None and cp:
        excess = (cluster["wall"] - cp) * 1000
        verdict = "meets" if cluster["wall"] / cp <= 1.03 else "misses"
        out.append(
            "The cluster rule %s the target (≤ 1.03 at the median): %.0f ms above the critical path "
            "(%.0f ms allowed), which is the runner's own start and end plus the start-up of the processes "
            "along the 6-project critical path.\n" % (verdict, excess, cp * 30))
    return "\n".join(out)


def analyse_prio(directory):
    graph = read_json(os.path.join(directory, "graph.json"))
    if not graph:
        return None
    measures = read_jsonl(os.path.join(directory, "measure.jsonl"))
    walls = lambda prefix: [m["wall_s"] for m in measures if m["label"].startswith(prefix) and m["exit"] == 0]
    return {"graph": graph, "declaration": walls("declaration-"), "critical": walls("critical-")}


def prio_simulation(seeds=200, n=30, parallelism=4):
    """The same two policies with zero overhead on many random graphs of gen.py."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import gen
    rows = []
    for seed in range(1, seeds + 1):
        projects = gen.random_graph(n, seed)
        sleeps = [p["sleep"] for p in projects]
        bound = max(critical_path(projects, sleeps, "dependencies"), sum(sleeps) / parallelism)
        rows.append((list_schedule(projects, sleeps, parallelism, "declaration") / bound,
                     list_schedule(projects, sleeps, parallelism, "critical") / bound))
    return rows


def render_prio(result):
    out = ["## 1b. Start priority when `--parallelism` limits\n"]
    if not result:
        out.append("Not run in this invocation (`BENCH_ONLY`).\n")
        return "\n".join(out)
    projects = result["graph"]["projects"]
    sleeps = [p["sleep"] for p in projects]
    cp = critical_path(projects, sleeps, "dependencies")
    bound = max(cp, sum(sleeps) / 4)
    decl, crit = median(result["declaration"]), median(result["critical"])
    out.append(
        "Command: `runner up --provider random --stack bench --non-interactive --parallelism 4` on a random "
        "DAG of %d projects (`benches/gen.py random --n 30 --seed 11`: up to two earlier dependencies each, "
        "80%% of durations 0.1–0.3 s, the rest 0.8–1.6 s) with `benches/sleep-pulumi`. *Declaration "
        "order*: the history is removed before each run, so nothing is known and ready projects start in "
        "declaration order. *Critical path first*: the same graph with the history of the earlier runs, "
        "so ready projects with the longest expected remaining chain start first. *Lower bound*: "
        "max(dependency-only critical path, total work / 4) = max(%s, %s) = %s.\n" % (
            len(projects), fmt_s(cp), fmt_s(sum(sleeps) / 4), fmt_s(bound)))
    out.append(table(["policy", "wall (median)", "runs", "wall / lower bound"], [
        ["declaration order", fmt_s(decl), len(result["declaration"]), fmt_x(decl / bound if decl else None, 3)],
        ["critical path first", "**%s**" % fmt_s(crit), len(result["critical"]),
         "**%s**" % fmt_x(crit / bound if crit else None, 3)],
        ["declaration order, simulated (zero overhead)", fmt_s(list_schedule(projects, sleeps, 4, "declaration")), "–",
         fmt_x(list_schedule(projects, sleeps, 4, "declaration") / bound, 3)],
        ["critical path first, simulated", fmt_s(list_schedule(projects, sleeps, 4, "critical")), "–",
         fmt_x(list_schedule(projects, sleeps, 4, "critical") / bound, 3)],
    ]))
    rows = prio_simulation()
    worse = sum(1 for d, c in rows if c > d + 1e-9)
    out.append("")
    out.append(
        "The same two policies simulated with zero overhead on 200 random graphs of the same generator "
        "(seeds 1–200) at parallelism 4, as a ratio to each graph's lower bound: declaration order median "
        "%s (worst %s), critical path first median **%s** (worst %s); critical path first was slower on "
        "%d of 200 graphs.\n" % (
            fmt_x(median([d for d, _ in rows]), 3), fmt_x(max(d for d, _ in rows), 3),
            fmt_x(median([c for _, c in rows]), 3), fmt_x(max(c for _, c in rows), 3), worse))
    return "\n".join(out)


def render_mara_assumptions(result):
    if not result:
        return ""
    rows = []
    for p in result["graph"]["projects"]:
        rows.append(["`%s`" % p["path"], p["phase"], ", ".join("`%s`" % d for d in p["depends_on"]) or "–",
                     ("%g min" % (p["unscaled_seconds"] / 60.0)) if p["unscaled_seconds"] >= 60
                     else "%d s" % p["unscaled_seconds"], "%.3f s" % p["sleep"]])
    unscaled_cp = result["cp"] * 600 / 60.0
    unscaled_sum = result["sum"] * 600 / 60.0
    text = ["<details><summary>MARA aws graph: assumed durations (scale 1/600)</summary>\n",
            "Dependencies copied from `runner show --provider aws --format json` (the EKS kubeconfig "
            "hook is not copied: the fake has no kubeconfig output). Durations are rough figures for a "
            "fresh MARA deployment on AWS, scaled by 1/600 (10 min → 1 s). Unscaled: sum %.1f min "
            "(MARA one after another), critical path %.1f min.\n" % (unscaled_sum, unscaled_cp),
            table(["project", "phase", "depends on", "assumed (real)", "scripted sleep"], rows),
            "\n</details>\n"]
    if result.get("sequential"):
        text.insert(0, "`mara` at `--parallelism 1` (MARA's order, same fake and overheads): median %s over "
                       "%d runs, i.e. the parallel run is %.2f× faster with the same per-process costs.\n" % (
                           fmt_s(result["sequential"]), result["sequential_runs"],
                           result["sequential"] / result["wall"]))
    return "\n".join(text)


def render_procs(variants, runs_wanted):
    out = ["## 2. Process overhead (real CLI)\n"]
    if not variants:
        out.append("Not run: `BENCH_ONLY` left it out, or the real `pulumi` was not available.\n")
        return "\n".join(out)
    out.append(
        "`benches/shim/pulumi` is first on PATH: it logs each invocation and its parent, then execs the "
        "real CLI. Provider `local` (6 projects; `infrastructure/cluster` has a kubeconfig `on_success` hook, "
        "which needs `stack output`), in a copy of the repository with its own file backend. *Without hooks* "
        "is the same provider with the `on_success` line removed. Sequence per round: `up` on a fresh "
        "backend, `up` again (stacks exist, nothing changes), `preview`, `refresh`, `destroy --yes`. "
        "Only processes whose parent is the runner are counted (`pulumi` starting its own language host "
        "does not go through PATH). %d rounds; counts are the median per operation.\n" % runs_wanted)
    rows = []
    order = ["up-fresh", "up-existing", "preview", "refresh", "destroy"]
    for variant in ("hooks", "nohooks"):
        data = variants.get(variant)
        if not data:
            continue
        for op in order:
            rounds = data["ops"].get(op)
            if not rounds:
                continue
            totals = [r["total"] for r in rounds]
            kinds = {}
            for r in rounds:
                for k, v in r["kinds"].items():
                    kinds.setdefault(k, []).append(v)
            breakdown = ", ".join("%s %g" % (k, median(v + [0] * (len(rounds) - len(v))))
                                  for k, v in sorted(kinds.items(), key=lambda kv: -max(kv[1])))
            total = median(totals)
            per = total / data["projects"]
            m = [data["measures"].get("%s-%s" % (op, i)) for i in range(1, len(rounds) + 1)]
            wall = median([x["wall_s"] for x in m if x])
            ok = all(x and x["exit"] == 0 for x in m)
            rows.append([
                "with hook" if variant == "hooks" else "without hooks", op, data["projects"],
                "%g" % total, "**%.2f**" % per, breakdown or "–",
                "yes" if len(set(totals)) == 1 else "no (%s)" % ", ".join(str(t) for t in totals),
                fmt_s(wall), "ok" if ok else "**FAILED**"])
    out.append(table(["provider", "operation", "projects", "`pulumi` processes", "per project",
                      "by command", "same in every round", "wall (median, via shim)", "exit"], rows))
    out.append("")
    notes = []
    for variant in ("hooks", "nohooks"):
        data = variants.get(variant)
        if not data:
            continue
        n = data["projects"]
        for op in order:
            rounds = data["ops"].get(op)
            if not rounds:
                continue
            kinds = rounds[0]["kinds"]
            total = median([r["total"] for r in rounds])
            if total / n <= 2:
                continue
            per = ["`%s`" % k for k, v in kinds.items() if v == n]
            extra = ["%d `%s`" % (v, k) for k, v in kinds.items() if v != n]
            notes.append("%s, `%s`: %.2f per project = %s for every project, plus %s." % (
                "With the hook" if variant == "hooks" else "Without hooks", op, total / n,
                " + ".join(per) or "nothing", ", ".join(extra)))
    if notes:
        out.append("Above 2 per project: " + " ".join(notes) + " A `stack output` is the hook reading "
                   "its outputs; a `config set` stores a provider `secrets` value in the shared stack file "
                   "(once, on the first run); `stack init` only happens for stacks that do not exist yet.\n")
    out.append(
        "For comparison, the Automation API (MARA) runs at least 3 per project for an `up` "
        "(`stack select`/`stack init`, `up`, then `stack output` to read outputs), plus `config set` "
        "calls. Target: ≤ 2 per project per operation when no hook needs outputs.\n")
    return "\n".join(out)


def growth_exponent(series):
    """k in time ~ n^k between the two largest sizes of [(n, seconds)], or None."""
    series = sorted((n, t) for n, t in series if t)
    if len(series) < 2:
        return None
    (n0, t0), (n1, t1) = series[-2], series[-1]
    if n1 <= n0 or t0 <= 0 or t1 <= 0:
        return None
    return math.log(t1 / t0) / math.log(n1 / n0)


def render_scale(rows_in, up_rows, settings):
    if not rows_in:
        return "## 3. Scale\n\nNot run in this invocation (`BENCH_ONLY`).\n"
    big = settings.get("n", 0)
    out = ["## 3. Scale: a %s-project provider\n" % big]
    out.append(
        "A random DAG (`benches/gen.py big`, seed %s): the first 40%% of the projects in the "
        "infrastructure phase, the rest kubernetes, 2-4 dependencies each on earlier projects, every "
        "project with a folder and a `Pulumi.yaml`; the %d-project provider file is %s. No "
        "`config/pulumi` files (the provider needs no configuration, so `validate` succeeds). Measured "
        "with %s; median of %s runs. The %d-project rows are the benchmark; the other sizes show how "
        "the time grows.\n" % (settings.get("seed"), big, settings.get("toml_size", "?"),
                               settings.get("tool", "?"), settings.get("runs"), big))
    groups = {}
    for r in rows_in:
        groups.setdefault((r["label"], r["n"]), []).append(r)
    rows = []
    rank = {"runner show": 0, "runner validate": 1, "runner providers": 2}

    def command_of(label):
        return " ".join(label.split()[:2])

    for (label, n), rs in sorted(groups.items(), key=lambda kv: (rank.get(command_of(kv[0][0]), 3), kv[0][1])):
        wall = median([r["wall_s"] for r in rs])
        rows.append(["`%s`" % label, ("**%d**" % n) if n == big else n,
                     ("**%s**" % fmt_s(wall)) if n == big else fmt_s(wall),
                     fmt_mib(median([r["peak_rss_kb"] for r in rs])),
                     "ok" if all(r["exit"] == 0 for r in rs) else "**exit %s**" % rs[0]["exit"], len(rs)])
    out.append(table(["command", "projects", "wall (median)", "peak RSS", "exit", "runs"], rows))
    out.append("")
    notes = []
    superlinear = []
    for command in ("runner show", "runner validate", "runner providers"):
        series = [(n, median([r["wall_s"] for r in rs])) for (label, n), rs in groups.items()
                  if command_of(label) == command]
        k = growth_exponent(series)
        if k is not None:
            notes.append("`%s` grows like n^%.1f between the two largest sizes" % (command.split()[1], k))
            if k > 1.5 and max(t for _, t in series) > 0.5:
                superlinear.append(command.split()[1])
    if notes:
        out.append("; ".join(notes) + " (n^1 is linear; below ~0.05 s the figures are too coarse to tell).\n")
    if superlinear:
        out.append(
            "**Quadratic growth in `%s`.** Harmless at MARA's size, it dominates from a few thousand "
            "projects. At the time of writing `perf` (20,000 projects) put it in two places: "
            "`Provider::project_dir` (`src/provider/provider_definition.rs`) finds the project with "
            "`Provider::project`, a linear search, and is called once per project by "
            "`ProviderCatalog::check_project_folders` (`src/provider/catalog.rs`, ~70%% of `show`) and by "
            "the dependency lint; `dependency_lint::undeclared_references` "
            "(`src/commands/dependency_lint.rs`, ~85%% of `validate`) builds the full set of transitive "
            "dependencies of every project (`plan::closure` into a `BTreeSet`) before looking at whether "
            "the project has any StackReference at all.\n" % "`, `".join(superlinear))

    if up_rows:
        out.append("### `up` of a large graph: the scheduler's own cost\n")
        out.append(
            "The same kind of random graph, run with `runner up --parallelism 4` where `pulumi` is "
            "`benches/sleep-pulumi` sleeping 0 s (stacks created beforehand), so nearly everything the "
            "runner does besides starting processes is scheduling and reporting. *Runner CPU* is the "
            "runner's own user + system time (children excluded).\n")
        groups = {}
        for m in up_rows:
            groups.setdefault(int(m["label"].split("-", 1)[1]), []).append(m)
        rows = []
        series = []
        for n in sorted(groups):
            ms = groups[n]
            cpu = median([m["self_cpu_s"] for m in ms])
            series.append((n, cpu))
            rows.append([n, fmt_s(median([m["wall_s"] for m in ms])), fmt_s(cpu),
                         "%.2f ms" % (cpu * 1000.0 / n), fmt_s(median([m["tree_cpu_s"] for m in ms])),
                         fmt_mib(median([m["self_peak_rss_kb"] for m in ms])),
                         "ok" if all(m["exit"] == 0 for m in ms) else "**FAILED**", len(ms)])
        out.append(table(["projects", "wall (median)", "runner CPU", "runner CPU per project",
                          "runner + children CPU", "runner peak RSS", "exit", "runs"], rows))
        out.append("")
        k = growth_exponent(series)
        if k is not None:
            text = "Runner CPU grows like n^%.1f between the two largest sizes." % k
            if k > 1.5:
                extrapolated = series[-1][1] * (big / float(series[-1][0])) ** k
                text += (
                    " **Superlinear: a scheduling performance bug.** Extrapolated to %d projects that is "
                    "about %.0f min of CPU before any real work. At the time of writing `perf` put most of it in "
                    "`Executor::settle_blocked` and `Executor::next_ready` (`src/execute/executor.rs`): "
                    "after every finished project both walk every planned step, look each step up with "
                    "`ExecutionPlan::step` (a linear search, `src/plan/execution_plan.rs`) and, for a "
                    "step behind the phase barrier, scan every step again for the phase's state — O(n²) "
                    "per event, O(n³) per run." % (big, extrapolated / 60.0))
            out.append(text + "\n")
    return "\n".join(out)


def render_stream(measures, sizes, settings, runs_wanted):
    if not measures:
        return "## 4. Streaming\n\nNot run in this invocation (`BENCH_ONLY`).\n"
    out = ["## 4. Streaming: %d projects × %s of output at parallelism %d\n" % (
        settings.get("projects", 0), human_bytes(settings.get("bytes", 0)), settings.get("parallelism", 0))]
    out.append(
        "Every project's fake prints `stdout_bytes` = %d bytes (80-byte lines) and sleeps 0 s. The runner "
        "streams each line into `.runner/logs/<run>/<project>.log`. Peak RSS is the runner's own `VmHWM` "
        "(read from `/proc` every 50 ms; the children are not counted). One quiet warm-up creates the "
        "stacks; %d timed runs.\n" % (settings.get("bytes", 0), runs_wanted))
    timed = [m for m in measures if m["label"].startswith("run-")]
    rows = []
    for m in timed:
        size = next((s["bytes"] for s in sizes if s["label"] == m["label"]), None)
        rows.append([m["label"], fmt_s(m["wall_s"]), fmt_mib(m["self_peak_rss_kb"]), fmt_s(m["self_cpu_s"]),
                     fmt_s(m["tree_cpu_s"]), human_bytes(size), fmt_x(other_cores(m), 1),
                     "ok" if m["exit"] == 0 else "**exit %s**" % m["exit"]])
    if timed:
        total = settings.get("projects", 0) * settings.get("bytes", 0)
        wall = median([m["wall_s"] for m in timed])
        rows.append(["**median**", "**%s**" % fmt_s(wall), "**%s**" % fmt_mib(median([m["self_peak_rss_kb"] for m in timed])),
                     fmt_s(median([m["self_cpu_s"] for m in timed])), fmt_s(median([m["tree_cpu_s"] for m in timed])),
                     human_bytes(median([s["bytes"] for s in sizes if s["label"].startswith("run-")])),
                     fmt_x(median([other_cores(m) for m in timed]), 1), ""])
    out.append(table(["run", "wall", "runner peak RSS", "runner CPU", "runner + fakes CPU",
                      "log files total", "other work (cores)", "exit"], rows))
    out.append("")
    if timed:
        cpu = median([m["self_cpu_s"] for m in timed])
        lines = total / 80.0
        peak = median([m["self_peak_rss_kb"] for m in timed])
        quiet = next((m["self_peak_rss_kb"] for m in measures if m["label"] == "warmup"), None)
        text = ("Throughput: %s of output in %s (%.0f MiB/s); the runner spent %s of CPU on it, about "
                "%.2f µs per line (%.0f lines). Peak RSS %s with %s streamed, against %s for the quiet "
                "warm-up (same 16 projects, no output)" % (
                    human_bytes(total), fmt_s(wall), total / wall / 1048576.0, fmt_s(cpu),
                    cpu / lines * 1e6 if lines else 0, lines, fmt_mib(peak), human_bytes(total), fmt_mib(quiet)))
        if quiet and peak:
            text += (": memory does not grow with output." if peak <= 2 * quiet + 8192 else
                     ": **memory grows with output.**")
        out.append(text + "\n")
    return "\n".join(out)


def human_bytes(n):
    if n is None:
        return "n/a"
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return ("%.0f %s" if unit == "B" else "%.2f %s") % (n, unit)
        n /= 1024.0
    return "%.0f B" % n


def render_e2e(directory, runs_wanted):
    out = ["## 5. Real end to end: provider `local` with the real CLI\n"]
    measures = read_jsonl(os.path.join(directory, "measure.jsonl"))
    if not measures:
        out.append("Not run: `BENCH_ONLY` left it out, or the real `pulumi` was not available.\n")
        return "\n".join(out)
    out.append(
        "`runner up --provider local --stack bench --non-interactive` in a fresh copy of the repository "
        "(providers/local.toml, projects/local, config/pulumi/environment from the example) with a fresh "
        "file backend each round, then the same `up` again with nothing to change. %d rounds per "
        "parallelism; median. *Sum of project durations* is what the runner reports per project, added "
        "up (what one-after-another would cost at best).\n" % runs_wanted)
    rows = []
    for p in ("1", "4"):
        for kind in ("fresh", "reup"):
            ms = [m for m in measures if m["label"].startswith("p%s-%s-" % (p, kind))]
            if not ms:
                continue
            sums = []
            for m in ms:
                rep = read_json(os.path.join(directory, "report-%s.json" % m["label"]), {})
                if rep.get("projects"):
                    sums.append(sum(x["duration"] for x in rep["projects"]))
            rows.append(["%s%s" % (p, " (default)" if p == "4" else ""),
                         "fresh backend (stack init + up)" if kind == "fresh" else "no-change re-up",
                         "**%s**" % fmt_s(median([m["wall_s"] for m in ms])),
                         "%s–%s" % (fmt_s(min(m["wall_s"] for m in ms)), fmt_s(max(m["wall_s"] for m in ms))),
                         fmt_s(median(sums)), fmt_s(median([m["tree_cpu_s"] for m in ms])),
                         fmt_mib(median([m["self_peak_rss_kb"] for m in ms])),
                         fmt_x(median([other_cores(m) for m in ms]), 1),
                         "ok" if all(m["exit"] == 0 for m in ms) else "**FAILED**", len(ms)])
    out.append(table(["parallelism", "run", "wall (median)", "range", "sum of project durations",
                      "CPU (runner + pulumi)", "runner peak RSS", "other work (cores)", "exit", "runs"], rows))
    out.append("")
    walls = {}
    cpus = {}
    for p in ("1", "4"):
        for kind in ("fresh", "reup"):
            ms = [m for m in measures if m["label"].startswith("p%s-%s-" % (p, kind))]
            walls[(p, kind)] = median([m["wall_s"] for m in ms])
            cpus[(p, kind)] = median([m["tree_cpu_s"] for m in ms])
    if all(walls.get((p, k)) for p in ("1", "4") for k in ("fresh", "reup")):
        nproc = MACHINE.get("nproc") or 1
        text = "Parallelism 4 against 1: %.2f× on a fresh backend, %.2f× for the no-change re-up." % (
            walls[("1", "fresh")] / walls[("4", "fresh")], walls[("1", "reup")] / walls[("4", "reup")])
        busy = cpus[("1", "fresh")] / walls[("1", "fresh")]
        if busy > 0.8:
            text += (
                " The real CLI is CPU-bound here: at parallelism 1 the run keeps %.1f cores busy, and a "
                "fresh `up` of the 6 projects needs about %s of CPU (runner and every `pulumi`, language "
                "host included), so on %s cores no schedule can finish it in less than about %s, whatever "
                "the graph allows." % (busy, fmt_s(cpus[("4", "fresh")]), nproc, fmt_s(cpus[("4", "fresh")] / nproc)))
            other = median([other_cores(m) for m in measures])
            if other is not None and other >= 0.2:
                text += (" And fewer than %s cores were free: other work took %s cores on average during "
                         "these runs (column above)." % (nproc, fmt_x(other, 1)))
        out.append(text + "\n")
    return "\n".join(out)


def render_summary(sched, rule, prio, procs, scale_rows, scale_settings, stream_measures, stream_settings, e2e_dir):
    items = []
    for r in sched:
        if r.get("ratio") is None:
            continue
        items.append("`%s` with %s: wall / dependency-only critical path **%.3f** (%s), %.1f× faster than "
                     "one after another (MARA's strategy)" % (
            r["graph"]["provider"], CLI_NAMES.get(r["cli"], r["cli"]), r["ratio_deps"],
            "meets ≤ 1.03" if r["ratio_deps"] <= 1.03 else "above 1.03", r["speedup"]))
    if rule and rule["cluster"]["wall"] is not None and rule["barrier"]["wall"] is not None:
        cp = rule["cp_deps"]
        items.append("`mara` with `sleep-pulumi` (sh), cluster rule against MARA's barrier, alternating runs "
                     "(load average %s): wall / dependency-only critical path **%.3f** against %.3f (best "
                     "runs %.3f / %.3f)" % (
                         fmt_x(median([rule["cluster"]["load"], rule["barrier"]["load"]]), 1),
                         rule["cluster"]["wall"] / cp, rule["barrier"]["wall"] / cp,
                         rule["cluster"]["best"] / cp, rule["barrier"]["best"] / cp))
    if prio and prio["critical"] and prio["declaration"]:
        projects = prio["graph"]["projects"]
        sleeps = [p["sleep"] for p in projects]
        bound = max(critical_path(projects, sleeps, "dependencies"), sum(sleeps) / 4)
        items.append("start priority at parallelism 4 on a random %d-project graph: critical path first **%.3f** "
                     "of the lower bound, declaration order %.3f" % (
                         len(projects), median(prio["critical"]) / bound, median(prio["declaration"]) / bound))
    for variant, label in (("nohooks", "without hooks"), ("hooks", "with the kubeconfig hook")):
        data = procs.get(variant)
        if not data:
            continue
        per = {}
        for op, rounds in data["ops"].items():
            per[op] = median([r["total"] for r in rounds]) / data["projects"]
        items.append("`pulumi` processes per project (`local`, %s): %s" % (
            label, ", ".join("%s %.2f" % (op, per[op]) for op in
                             ("up-fresh", "up-existing", "preview", "refresh", "destroy") if op in per)))
    shows = [r for r in scale_rows if r["label"].startswith("runner show") and r["n"] == scale_settings.get("n")]
    validates = [r for r in scale_rows if r["label"].startswith("runner validate")]
    if shows:
        items.append("%s projects: `show --format json` %s (peak %s), `validate` %s" % (
            scale_settings.get("n"), fmt_s(median([r["wall_s"] for r in shows])),
            fmt_mib(median([r["peak_rss_kb"] for r in shows])), fmt_s(median([r["wall_s"] for r in validates]))))
    timed = [m for m in stream_measures if m["label"].startswith("run-")]
    if timed:
        items.append("streaming 16 × %s: runner peak RSS %s, wall %s" % (
            human_bytes(stream_settings.get("bytes")), fmt_mib(median([m["self_peak_rss_kb"] for m in timed])),
            fmt_s(median([m["wall_s"] for m in timed]))))
    measures = read_jsonl(os.path.join(e2e_dir, "measure.jsonl"))
    if measures:
        def w(prefix):
            return median([m["wall_s"] for m in measures if m["label"].startswith(prefix)])
        items.append("real `local` provider, fresh backend: %s at parallelism 1, %s at 4; no-change re-up: %s / %s" % (
            fmt_s(w("p1-fresh-")), fmt_s(w("p4-fresh-")), fmt_s(w("p1-reup-")), fmt_s(w("p4-reup-"))))
    if not items:
        return ""
    return "## Summary\n\n" + "\n".join("- " + item for item in items) + "\n"


MACHINE = {}


HAND_MEASURED = "## 6. "


def hand_measured_sections(output):
    """Section 6 (cold builds of the test servers, CI's cost) is measured by hand on a fresh
    machine, and section 7 by benches/skip_unchanged.sh, not by this script: they are carried
    over from the file being rewritten."""
    try:
        with open(output, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return ""
    start = text.find("\n" + HAND_MEASURED)
    return text[start + 1:] if start >= 0 else ""


def main():
    results_dir, output = sys.argv[1], sys.argv[2]
    machine = read_json(os.path.join(results_dir, "machine.json"), {})
    MACHINE.update(machine)
    runs = machine.get("runs", 3)

    fake_rows = read_jsonl(os.path.join(results_dir, "fake-version.jsonl"))
    fake_version = {
        "n": len([r for r in fake_rows if r["label"] == "direct"]),
        "direct": median([r["wall_s"] for r in fake_rows if r["label"] == "direct"]),
        "on_path": median([r["wall_s"] for r in fake_rows if r["label"] == "on-path"]),
        "on_path_note": machine.get("python_on_path_note", ""),
        "sleep": median([r["wall_s"] for r in fake_rows if r["label"] == "sleep-cli"]),
    }

    sched = []
    for name in ("mara", "wide", "chain", "mara-sh", "wide-sh", "chain-sh"):
        r = analyse_sched(os.path.join(results_dir, "sched", name))
        if r:
            sched.append(r)
    procs = analyse_procs(os.path.join(results_dir, "procs"))
    scale_rows = read_jsonl(os.path.join(results_dir, "scale", "time.jsonl"))
    scale_settings = read_json(os.path.join(results_dir, "scale", "settings.json"), {})
    stream_measures = read_jsonl(os.path.join(results_dir, "stream", "measure.jsonl"))
    stream_sizes = read_jsonl(os.path.join(results_dir, "stream", "logsize.jsonl"))
    stream_settings = read_json(os.path.join(results_dir, "stream", "settings.json"), {})

    doc = []
    doc.append("# Benchmarks\n")
    doc.append("Generated by `benches/run.sh`; do not edit by hand. To reproduce:\n")
    doc.append("```sh\nbash benches/run.sh          # BENCH_RUNS=5 for more repetitions (default 3)\n```\n")
    doc.append(
        "It builds `cargo build --release`, runs every benchmark against `target/release/runner` in "
        "throwaway repositories under `$TMPDIR`, and rewrites this file. Every figure is a median of "
        "%d runs unless a table says otherwise. The machine is shared: other work running at the same "
        "time shows up in the load averages below and makes wall times noisier.\n" % runs)
    doc.append("## Machine\n")
    doc.append(machine_section(machine) + "\n")
    rule = analyse_rule(os.path.join(results_dir, "rule"))
    prio = analyse_prio(os.path.join(results_dir, "prio"))
    doc.append(render_summary(sched, rule, prio, procs, scale_rows, scale_settings, stream_measures, stream_settings,
                              os.path.join(results_dir, "e2e")))
    doc.append(render_sched(sched, fake_version, runs))
    doc.append(render_rule(rule))
    doc.append(render_prio(prio))
    mara = next((r for r in sched if r["name"] == "mara"), None)
    doc.append(render_mara_assumptions(mara))
    doc.append(render_procs(procs, machine.get("proc_rounds", runs)))
    doc.append(render_scale(scale_rows, read_jsonl(os.path.join(results_dir, "scale", "up.jsonl")), scale_settings))
    doc.append(render_stream(stream_measures, stream_sizes, stream_settings, runs))
    doc.append(render_e2e(os.path.join(results_dir, "e2e"), runs))
    doc.append(hand_measured_sections(output))
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(doc).rstrip() + "\n")


if __name__ == "__main__":
    main()
