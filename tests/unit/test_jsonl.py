"""numbered_lines: lines split across chunks, blank and final lines, oversized lines skipped."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from service.core.jsonl import numbered_lines
from service.errors import MnemographError, PayloadTooLarge


async def stream(chunks: Sequence[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def lines(chunks: Sequence[bytes], limit: int = 10) -> list[tuple[int, bytes | str]]:
    def shown(value: bytes | MnemographError) -> bytes | str:
        return value.error_type if isinstance(value, MnemographError) else value

    return [(n, shown(value)) async for n, value in numbered_lines(stream(chunks), limit)]


async def test_lines_split_across_chunks_come_out_whole_and_numbered() -> None:
    assert await lines([b'{"a"', b': 1}\n{"b": 2}\n\n', b"last"]) == [
        (1, b'{"a": 1}'),
        (2, b'{"b": 2}'),
        (3, b""),
        (4, b"last"),
    ]


async def test_a_line_over_the_limit_is_reported_in_its_place_and_the_next_one_is_read() -> None:
    assert await lines([b"short\n0123456", b"789ABCDEF", b"GHI\nok\n"]) == [
        (1, b"short"),
        (2, PayloadTooLarge.error_type),
        (3, b"ok"),
    ]
    assert await lines([b"0123456789A\nok"]) == [(1, "payload_too_large"), (2, b"ok")]
    assert await lines([b"0123456789ABC"]) == [(1, "payload_too_large")]


async def test_a_line_of_exactly_the_limit_is_kept() -> None:
    assert await lines([b"0123456789\n"]) == [(1, b"0123456789")]
    assert await lines([]) == []
