"""Progress bars for long CLI work: on stderr, gone when done, off unless stderr is a terminal."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TransferSpeedColumn,
)


def bytes_progress() -> Progress:
    """A bar that counts bytes and their rate."""
    return progress(DownloadColumn(), TransferSpeedColumn())


def progress(*columns: ProgressColumn) -> Progress:
    """A bar on stderr with these columns after it, gone when done; off unless stderr is a
    terminal."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        *columns,
        console=Console(stderr=True),
        transient=True,
        disable=not sys.stderr.isatty(),
    )
