#!/usr/bin/env python3
"""Runs a command in a real pseudo-terminal and answers its prompts, like a person would.

usage: drive-pty.py SCRIPT.json -- COMMAND [ARGS...]
SCRIPT.json: [{"expect": "regex", "send": "text"}, ...]; "\\r" in `send` presses Enter.
Prints the whole transcript, then exits with the command's exit code (124 when a step times out).
"""
import json
import os
import pty
import re
import select
import sys
import time

STEP_TIMEOUT = 120.0


def main():
    split = sys.argv.index("--")
    steps = json.load(open(sys.argv[1]))
    command = sys.argv[split + 1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(command[0], command)
    transcript = b""
    seen = 0

    def read_some(timeout):
        nonlocal transcript
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        transcript += chunk
        return True

    for step in steps:
        pattern = re.compile(step["expect"].encode())
        deadline = time.time() + STEP_TIMEOUT
        while True:
            match = pattern.search(transcript, seen)
            if match:
                seen = match.end()
                break
            if time.time() > deadline or not read_some(0.2):
                sys.stdout.write(transcript.decode(errors="replace"))
                sys.stdout.write("\n[drive-pty] timed out waiting for %r\n" % step["expect"])
                os.kill(pid, 9)
                sys.exit(124)
        time.sleep(0.1)
        os.write(fd, step["send"].encode())
    while read_some(0.5):
        pass
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(transcript.decode(errors="replace"))
    sys.exit(os.waitstatus_to_exitcode(status))


main()
