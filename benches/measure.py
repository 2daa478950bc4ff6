#!/usr/bin/env python3
"""Runs one command and appends what it cost as a JSON line (standard library only).

    measure.py --out FILE.jsonl --label NAME [--cwd DIR] [--stdout F] [--stderr F] -- CMD ARGS...

Fields: label, exit, wall_s (fork to exit), self_peak_rss_kb (the command's own VmHWM, read from
/proc while it runs, so children do not count), self_cpu_s (its own user+system time, last value
read from /proc), tree_cpu_s (wait4's rusage: the CPU time of the command and every descendant it
waited for), machine_busy_s (CPU time the whole machine spent meanwhile, from /proc/stat, to see
other work sharing it). wait4's ru_maxrss is left out: it counts the forked Python before `exec`.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def system_ticks():
    """(busy, idle) clock ticks of the whole machine so far, from the `cpu` line of /proc/stat."""
    try:
        with open("/proc/stat", encoding="utf-8") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle, iowait
    busy = sum(fields[:8]) - idle  # user nice system idle iowait irq softirq steal
    return busy, idle


def read_self(pid):
    """(VmHWM in kB, user+system seconds) of a live process, or None when it is gone."""
    try:
        with open("/proc/%d/status" % pid, encoding="utf-8") as f:
            hwm = None
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
                    break
        with open("/proc/%d/stat" % pid, encoding="utf-8") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
    except (OSError, ValueError, IndexError):
        return None
    if hwm is None:  # a zombie has no memory fields
        return None
    return hwm, cpu


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--label", required=True)
    parser.add_argument("--cwd")
    parser.add_argument("--stdout", default=os.devnull)
    parser.add_argument("--stderr", default=os.devnull)
    parser.add_argument("--interval", type=float, default=0.01)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command and args.command[0] == "--" else args.command
    if not command:
        parser.error("no command given")

    with open(args.stdout, "wb") as out, open(args.stderr, "wb") as err:
        ticks_before = system_ticks()
        started = time.monotonic()
        child = subprocess.Popen(command, cwd=args.cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        ended = {}

        def reap():  # a blocking wait4, so the end time is exact whatever the polling interval
            pid, status, usage = os.wait4(child.pid, 0)
            ended.update(at=time.monotonic(), status=status, usage=usage)

        waiter = threading.Thread(target=reap)
        waiter.start()
        peak, cpu = 0, 0.0
        while waiter.is_alive():
            seen = read_self(child.pid)
            if seen is not None:
                peak, cpu = max(peak, seen[0]), max(cpu, seen[1])
            waiter.join(args.interval)
        wall = ended["at"] - started
        ticks_after = system_ticks()
        status, usage = ended["status"], ended["usage"]
    child.returncode = os.waitstatus_to_exitcode(status)
    record = {
        "label": args.label,
        # The 1-minute load average as the command ended: other work competing for the CPUs.
        "load_1m": round(os.getloadavg()[0], 2),
        "exit": child.returncode,
        "wall_s": round(wall, 4),
        "self_peak_rss_kb": peak,
        "self_cpu_s": round(cpu, 3),
        "tree_cpu_s": round(usage.ru_utime + usage.ru_stime, 3),
    }
    if ticks_before and ticks_after:
        # Everything the machine's CPUs did meanwhile, this command or not: what is left after
        # subtracting tree_cpu_s is other work sharing the machine.
        record["machine_busy_s"] = round((ticks_after[0] - ticks_before[0]) / CLOCK_TICKS, 2)
    with open(args.out, "a", encoding="utf-8") as f:
        f.write(json.dumps(record) + "\n")
    if child.returncode != 0:
        sys.stderr.write("measure.py: %s exited with %s\n" % (args.label, child.returncode))
    sys.exit(0)


if __name__ == "__main__":
    main()
