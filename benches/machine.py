#!/usr/bin/env python3
"""Describes the machine for BENCHMARKS.md, merging into a JSON file (standard library only).

    machine.py FILE [--pulumi PROGRAM] [--set KEY=VALUE ...] [--load KEY]

Without --set/--load it records nproc, memory, CPU model, OS, kernel, rustc, Python and (with
--pulumi) the real CLI's version; --load KEY stores the current load averages under KEY.
"""

import argparse
import json
import os
import platform
import subprocess


def first_line(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60).stdout.strip()
        return out.splitlines()[0] if out else "n/a"
    except (OSError, subprocess.SubprocessError):
        return "n/a"


def describe(pulumi):
    info = {"nproc": os.cpu_count()}
    try:
        info["nproc"] = int(first_line(["nproc"]))
    except ValueError:
        pass
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    kb = int(line.split()[1])
                    info["memory"] = "%.1f GiB" % (kb / 1048576.0)
    except OSError:
        info["memory"] = "n/a"
    info["cpu_model"] = "n/a"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu_model"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info["os"] = "n/a"
    try:
        with open("/etc/os-release", encoding="utf-8") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    info["os"] = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    info["kernel"] = platform.release()
    info["rustc"] = first_line(["rustc", "--version"])
    info["pulumi"] = first_line([pulumi, "version"]) if pulumi else "not available"
    info["python"] = "Python " + platform.python_version()
    return info


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--pulumi")
    parser.add_argument("--set", action="append", default=[])
    parser.add_argument("--load")
    args = parser.parse_args()
    try:
        with open(args.file, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = {}
    if not args.set and not args.load:
        data.update(describe(args.pulumi))
    for item in args.set:
        key, _, value = item.partition("=")
        try:
            data[key] = json.loads(value)
        except ValueError:
            data[key] = value
    if args.load:
        data[args.load] = " ".join("%.2f" % v for v in os.getloadavg())
    with open(args.file, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
