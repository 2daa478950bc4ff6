#!/usr/bin/env python3
"""Runs a command in a real pseudo-terminal and answers its prompts, like a person would.

usage: drive-pty.py SCRIPT.json -- COMMAND [ARGS...]
SCRIPT.json: [{"expect": "regex", "send": "text"}, ...]; "\\r" in `send` presses Enter and
"\\u0003" is Ctrl-C (the terminal turns it into SIGINT, as a keyboard would).
The terminal is DRIVE_PTY_COLUMNS wide (default 160). Prints the whole transcript, then one line
`[drive-pty] terminal after exit: echo=on|off icanon=on|off` read from the terminal once the
command has exited (what a shell prompt would find), then exits with the command's exit code
(124 when a step times out).
"""
import fcntl
import json
import os
import re
import select
import struct
import sys
import termios
import time

STEP_TIMEOUT = 120.0


def spawn(command, columns):
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        os.close(master)
        os.close(slave)
        os.execvp(command[0], command)
    # The parent keeps the slave open: after the command exits, its settings are still readable.
    return pid, master, slave


def main():
    split = sys.argv.index("--")
    steps = json.load(open(sys.argv[1]))
    command = sys.argv[split + 1:]
    pid, fd, slave = spawn(command, int(os.environ.get("DRIVE_PTY_COLUMNS", "160")))
    transcript = b""
    seen = 0
    exited = None

    def child_exited():
        nonlocal exited
        if exited is None:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                exited = status
        return exited is not None

    def read_some(timeout):
        """False once nothing more can come: no data and the command has exited."""
        nonlocal transcript
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return not child_exited()
        try:
            chunk = os.read(fd, 65536)
        except OSError:
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
        time.sleep(step.get("delay", 0.1))
        os.write(fd, step["send"].encode())
    deadline = time.time() + STEP_TIMEOUT
    while read_some(0.2) and time.time() < deadline:
        pass
    if exited is None:
        _, exited = os.waitpid(pid, 0)
    while read_some(0.1):
        pass
    lflag = termios.tcgetattr(slave)[3]
    on = lambda flag: "on" if lflag & flag else "off"
    sys.stdout.write(transcript.decode(errors="replace"))
    sys.stdout.write("\n[drive-pty] terminal after exit: echo=%s icanon=%s\n" % (on(termios.ECHO), on(termios.ICANON)))
    sys.exit(os.waitstatus_to_exitcode(exited))


main()
