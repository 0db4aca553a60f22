"""The memory switch (`memory.enabled`, seed 001): while it is off, every memory tool refuses
with the same message."""

from __future__ import annotations

from service.config import Settings
from service.errors import MemoryDisabled


def require_enabled(settings: Settings) -> None:
    """Raise `MemoryDisabled` unless memory is enabled."""
    if not settings.memory.enabled:
        raise MemoryDisabled(
            "Memory system is not enabled. Set memory.enabled=true in "
            f"{settings.config_file} or MNEMO_MEMORY__ENABLED=true"
        )
