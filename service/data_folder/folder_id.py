"""A data folder's identity: a random id in `<data_dir>/folder.id`, written by the folder's first
owner. `serve` reports it in `/healthz`, so a client can tell whether the server answering on its
port serves its folder or another one; a random id tells a caller nothing about the folder."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

FOLDER_ID_FILE = "folder.id"


def read(data_dir: Path) -> str | None:
    """The folder's id, or None when no owner has opened it yet."""
    try:
        text = (data_dir / FOLDER_ID_FILE).read_text().strip()
    except OSError:
        return None
    return text or None


def ensure(data_dir: Path) -> str:
    """The folder's id, written first if it has none (the caller owns the folder)."""
    if (existing := read(data_dir)) is not None:
        return existing
    new_id = str(uuid.uuid4())
    partial = data_dir / f".{FOLDER_ID_FILE}.{os.getpid()}.tmp"
    partial.write_text(new_id + "\n")
    partial.replace(data_dir / FOLDER_ID_FILE)
    return new_id
