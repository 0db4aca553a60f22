"""The data folder's one owner: an exclusive OS lock (flock) on `<data_dir>/mnemograph.lock`, taken
before anything in the folder is opened and released by the OS when the owner dies, even by kill -9.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Generator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from service.data_folder import folder_id

LOCK_FILE = "mnemograph.lock"
# Exit status of a command turned away because another process owns the data folder.
BUSY_EXIT = 75


@dataclass(frozen=True)
class Holder:
    """Who owns a data folder, as the owner wrote it into the lock file."""

    pid: int | None
    command: str
    url: str = ""


class DataFolderBusy(Exception):
    """Another process owns the data folder; `str()` is the one line to show."""

    def __init__(self, data_dir: Path, holder: Holder) -> None:
        super().__init__(busy_message(data_dir, holder))
        self.data_dir = data_dir
        self.holder = holder


@dataclass
class _Held:
    fd: int
    count: int


# Locks this process holds, by folder: taking one again nests (the CLI, then open_runtime).
_held: dict[Path, _Held] = {}


def acquire(data_dir: Path, command: str, url: str = "") -> None:
    """Own `data_dir` (created if missing, given an id if it has none) or raise `DataFolderBusy`
    at once, without waiting."""
    key = data_dir.absolute()
    if (held := _held.get(key)) is not None:
        held.count += 1
        return
    key.mkdir(parents=True, exist_ok=True)
    fd = os.open(key / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise DataFolderBusy(key, _read_holder(key / LOCK_FILE)) from None
    record = json.dumps({"pid": os.getpid(), "command": command, "url": url}).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, record, 0)
    _held[key] = _Held(fd, 1)
    folder_id.ensure(key)


def release(data_dir: Path) -> None:
    """Give up one hold; the last one clears the record and unlocks the folder."""
    key = data_dir.absolute()
    held = _held[key]
    held.count -= 1
    if held.count:
        return
    del _held[key]
    os.ftruncate(held.fd, 0)
    fcntl.flock(held.fd, fcntl.LOCK_UN)
    os.close(held.fd)


@contextmanager
def owning(data_dir: Path, command: str, url: str = "") -> Generator[None]:
    """Hold the data folder's lock for the duration of the block."""
    acquire(data_dir, command, url)
    try:
        yield
    finally:
        release(data_dir)


def holder(data_dir: Path) -> Holder | None:
    """Who owns `data_dir` right now (this process included), or None when nobody does."""
    path = data_dir.absolute() / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return _read_holder(path)
    finally:
        os.close(fd)
    return None


def _read_holder(path: Path, wait_s: float = 0.5) -> Holder:
    """The owner's record; a new owner writes it just after locking, so wait briefly for it."""
    deadline = time.monotonic() + wait_s
    while (found := _parse_holder(path)) is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return found or Holder(pid=None, command="")


def _parse_holder(path: Path) -> Holder | None:
    try:
        record: object = json.loads(path.read_text() or "null")
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    fields = cast(dict[str, object], record)
    pid = fields.get("pid")
    return Holder(
        pid=pid if isinstance(pid, int) else None,
        command=str(fields.get("command", "")),
        url=str(fields.get("url", "")),
    )


def busy_message(data_dir: Path, holder: Holder) -> str:
    """One line: who owns the folder and what to do instead."""
    who = f"pid {holder.pid}" if holder.pid is not None else "another process"
    if holder.command == "serve":
        at = f", {holder.url}" if holder.url else ""
        return (
            f"mnemograph: the data folder {data_dir} is owned by `mnemograph serve` ({who}{at}). "
            "Use `mnemograph mcp` (it relays to that server) or its HTTP API, "
            "or stop it first with `mnemograph daemon stop`."
        )
    command = f"`mnemograph {holder.command}`" if holder.command else "a mnemograph process"
    stop = f"kill {holder.pid}" if holder.pid is not None else "stop it"
    return (
        f"mnemograph: the data folder {data_dir} is owned by {command} ({who}). "
        f"Wait for it to finish or stop it ({stop}), or set MNEMO_DATA_DIR to another folder."
    )
