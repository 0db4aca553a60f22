"""Every request (health probes and metric scrapes aside) marks the process active as it begins
and as it ends, so the embedded engine's index build, which stops the whole process, waits for
a quiet spell (service/stores/activity.py)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from service.api.http.guards import OPS_PATHS
from service.stores.activity import PROCESS_ACTIVITY, Activity


class MarksActivity:
    """Plain ASGI: touches `activity` before and after each request outside OPS_PATHS (a
    stream held open, as an MCP client's, counts where it begins and ends, not meanwhile)."""

    def __init__(self, app: ASGIApp, activity: Activity = PROCESS_ACTIVITY) -> None:
        self.app = app
        self.activity = activity

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in OPS_PATHS:
            return await self.app(scope, receive, send)
        self.activity.touch()
        try:
            await self.app(scope, receive, send)
        finally:
            self.activity.touch()
