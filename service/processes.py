"""Whether a process still runs, for pid files of the local Neo4j and the daemon: the one
check both use (a zombie, dead but not yet reaped, counts as dead)."""

from __future__ import annotations

import os
from pathlib import Path


def alive(pid: int) -> bool:
    """Whether `pid` runs; a zombie (dead, not yet reaped by its parent) counts as dead."""
    try:
        waited, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        waited = 0
    if waited == pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # no /proc (macOS): trust kill(pid, 0)
        return False
    return stat.rpartition(")")[2].split()[:1] == ["Z"]
