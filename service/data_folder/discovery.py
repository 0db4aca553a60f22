"""The discovery file `<data_dir>/daemon.json`: the running daemon's pid, URL, start time and data
folder, written once it serves and removed on a clean exit. It is stale unless its pid still
holds the data folder's lock: a dead daemon's pid may since belong to another process."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

from service.data_folder import lock
from service.processes import alive

DISCOVERY_FILE = "daemon.json"


@dataclass(frozen=True)
class DaemonInfo:
    pid: int
    url: str
    started_at: float
    data_dir: str

    @property
    def uptime_s(self) -> float:
        return max(0.0, time.time() - self.started_at)


def write(data_dir: Path, url: str, started_at: float) -> DaemonInfo:
    """Publish this process as the folder's daemon (atomically: readers never see half a file)."""
    info = DaemonInfo(pid=os.getpid(), url=url, started_at=started_at, data_dir=str(data_dir))
    target = data_dir / DISCOVERY_FILE
    data_dir.mkdir(parents=True, exist_ok=True)  # with both stores remote, nothing made it yet
    partial = target.with_suffix(f".{os.getpid()}.tmp")
    partial.write_text(json.dumps(asdict(info)))
    partial.replace(target)
    return info


def read(data_dir: Path) -> DaemonInfo | None:
    """The published daemon, or None when there is no readable discovery file."""
    try:
        record: object = json.loads((data_dir / DISCOVERY_FILE).read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    fields = cast(dict[str, object], record)
    pid, url, started = fields.get("pid"), fields.get("url"), fields.get("started_at")
    if not (isinstance(pid, int) and isinstance(url, str) and isinstance(started, int | float)):
        return None
    return DaemonInfo(pid, url, float(started), str(fields.get("data_dir", data_dir)))


def remove(data_dir: Path, pid: int) -> None:
    """Withdraw the discovery file if it still names `pid` (a successor's file is left alone)."""
    info = read(data_dir)
    if info is not None and info.pid == pid:
        (data_dir / DISCOVERY_FILE).unlink(missing_ok=True)


def running(data_dir: Path) -> DaemonInfo | None:
    """The published daemon if it still runs: its pid alive and the owner of the data folder."""
    info = read(data_dir)
    if info is None or not alive(info.pid):
        return None
    owner = lock.holder(data_dir)
    return info if owner is not None and owner.pid == info.pid else None
