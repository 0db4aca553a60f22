"""Logging for every entry point: to stderr (stdout carries the stdio transport), at the
configured level, each line with the id of the request it belongs to (`-` outside requests).
Kept apart from the composition root so light commands start fast."""

from __future__ import annotations

import logging
import sys
from contextvars import ContextVar

REQUEST_ID: ContextVar[str] = ContextVar("request_id", default="")


class RequestIdFilter(logging.Filter):
    """Stamps each record with the current request id."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get() or "-"
        return True


class QuerylessAccessFilter(logging.Filter):
    """Cuts the query string off uvicorn's access lines: search text and keywords travel there,
    and logs never hold payloads. Its records' args are (client, method, path, version,
    status)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            record.args = (args[0], args[1], args[2].split("?", 1)[0], args[3], args[4])
        return True


def configure_logging(level: str) -> None:
    """Logs go to stderr (stdout carries the stdio transport), at `level` (Settings.log_level)."""
    logging.basicConfig(
        level=level,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s",
    )
    for handler in logging.getLogger().handlers:
        handler.addFilter(RequestIdFilter())
    # httpx logs every request at INFO: noise from the embedding provider and the Qdrant client.
    if level != "DEBUG":
        logging.getLogger("httpx").setLevel(logging.WARNING)
