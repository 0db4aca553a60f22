"""Logging for every entry point: to stderr (stdout carries the stdio transport), at the
configured level. Kept apart from the composition root so light commands start fast."""

from __future__ import annotations

import logging
import sys

from service.config import Settings


def configure_logging(settings: Settings) -> None:
    """Logs go to stderr (stdout carries the stdio transport)."""
    logging.basicConfig(
        level=settings.log_level,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # httpx logs every request at INFO: noise for the CLI's probes and the bridge's relaying.
    if settings.log_level != "DEBUG":
        logging.getLogger("httpx").setLevel(logging.WARNING)
