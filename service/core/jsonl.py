"""JSON Lines from a byte stream: numbered lines, each bounded, in constant memory."""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from service.errors import MnemographError, PayloadTooLarge


async def numbered_lines(
    chunks: AsyncIterable[bytes], max_line_bytes: int
) -> AsyncIterator[tuple[int, bytes | MnemographError]]:
    """(line number from 1, line without its newline); a line longer than `max_line_bytes` is
    reported as `PayloadTooLarge` in its place and skipped without being held in memory."""
    number = 0
    pending = bytearray()
    oversized = False
    async for chunk in chunks:
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            number += 1
            if oversized or len(pending) + end - start > max_line_bytes:
                yield number, _too_long(max_line_bytes)
            else:
                pending += chunk[start:end]
                yield number, bytes(pending)
            pending.clear()
            oversized = False
            start = end + 1
        if not oversized:
            pending += chunk[start:]
            if len(pending) > max_line_bytes:
                oversized = True
                pending.clear()
    if pending or oversized:
        yield number + 1, _too_long(max_line_bytes) if oversized else bytes(pending)


def _too_long(max_line_bytes: int) -> PayloadTooLarge:
    return PayloadTooLarge(f"Line is over {max_line_bytes} bytes (limits.max_import_line_bytes)")
