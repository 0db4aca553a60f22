"""`mnemograph serve`: the daemon that owns the stores. It locks the data folder before anything
opens, serves HTTP + MCP, publishes its discovery file once it listens and withdraws it on exit."""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any

import uvicorn

from service.api.http.app import create_app
from service.config import Settings
from service.daemon.http_protocol import EnvelopeHttpToolsProtocol
from service.data_folder import discovery, lock
from service.logs import QuerylessAccessFilter

log = logging.getLogger(__name__)


class DaemonServer(uvicorn.Server):
    """uvicorn's server, plus the discovery file while it serves."""

    def __init__(self, config: uvicorn.Config, settings: Settings) -> None:
        super().__init__(config)
        self._settings = settings
        self._started_at = time.time()

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        if self.started:
            url = self._settings.client().url
            discovery.write(self._settings.data_dir, url, self._started_at)
            log.info("serving %s; data folder %s", url, self._settings.data_dir)

    async def shutdown(self, sockets: Any = None) -> None:
        try:
            await super().shutdown(sockets)
        finally:
            # uvicorn re-raises SIGTERM after this returns, so nothing after run() would run.
            discovery.remove(self._settings.data_dir, os.getpid())


def serve(settings: Settings) -> int:
    """Run the daemon until SIGTERM/SIGINT; stores close (and flush) in the app's lifespan."""
    url = settings.client().url
    print(f"mnemograph: data folder {settings.data_dir}; serving {url}", file=sys.stderr)
    if not settings.uses_local_stores:
        return _run(settings)
    with lock.owning(settings.data_dir, "serve", url):
        return _run(settings)


def _run(settings: Settings) -> int:
    server = DaemonServer(uvicorn_config(settings), settings)
    server.run()
    return 0


def uvicorn_config(settings: Settings) -> uvicorn.Config:
    """The server's configuration, with the access log's query strings cut off."""
    config = uvicorn.Config(
        create_app(settings),
        host=settings.http.host,
        port=settings.http.port,
        log_level=settings.log_level.lower(),
        loop="uvloop",  # named: when missing, start-up fails (no silent fallback to asyncio)
        http=EnvelopeHttpToolsProtocol,
        limit_concurrency=512,
        timeout_graceful_shutdown=10,
    )
    # uvicorn configures its loggers when the config is made; the filter goes on after that.
    logging.getLogger("uvicorn.access").addFilter(QuerylessAccessFilter())
    return config
