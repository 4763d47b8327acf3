#!/usr/bin/env python3
"""Runs a test command and stops it at its first failure, for Tests/Mutation/run.sh.

    first_failure.py TIMEOUT LOG COMMAND...

Runs COMMAND in a session of its own, appends its output to LOG, and ends every process of that
session (SIGKILL) at the first line that reports a failed test or error, or after TIMEOUT seconds.
Exits 0 when the command passed, 1 when a test failed or the command exited non-zero (a
crash), 124 on the timeout.
"""
import os
import re
import signal
import subprocess
import sys
import threading

FAILURE = re.compile(r"(: error: |' failed \(|Fatal error|Test run .* failed)")


def main(arguments):
    if len(arguments) < 3:
        sys.exit(__doc__)
    timeout, log_path, command = float(arguments[0]), arguments[1], arguments[2:]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               start_new_session=True)
    timed_out = threading.Event()

    def stop():
        # `swift test` starts the test binary in a process group of its own, in the same
        # session: end every process of the session.
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                if os.getsid(int(entry)) == process.pid:
                    os.kill(int(entry), signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def expire():
        timed_out.set()
        stop()

    timer = threading.Timer(timeout, expire)
    timer.start()
    failed = False
    with open(log_path, "ab") as log:
        for line in process.stdout:
            log.write(line)
            if FAILURE.search(line.decode("utf-8", "replace")):
                failed = True
                stop()
                break
    timer.cancel()
    status = process.wait()
    stop()
    if timed_out.is_set():
        return 124
    return 1 if failed or status != 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
