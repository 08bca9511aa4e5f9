"""Wait until a server answers ``/health`` (first_run.sh); exit 1 if its process ends first
or it takes longer than the install and start may (Python's standard library only: run by
Debian's python3 before the project is installed)."""

from __future__ import annotations

import os
import sys
import time
import urllib.request

LIMIT_SEC = 1200  # pip downloads the dependencies on a machine that never had them


def main(url: str, pid: int) -> int:
    start = time.monotonic()
    deadline = start + LIMIT_SEC
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                if answer.status == 200:
                    print(f"first run: the server answers after "
                          f"{time.monotonic() - start:.0f} s")
                    return 0
        except OSError:
            pass
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            print("first run: README's first command ended before the server answered",
                  file=sys.stderr)
            return 1
        time.sleep(1)  # a poll of a process that may take minutes to install
    print(f"first run: no answer from {url} within {LIMIT_SEC} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2])))
