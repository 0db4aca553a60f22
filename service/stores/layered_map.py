"""A read-only map made of a small top layer over a base it shares with the maps it was made
from: how a link graph snapshot advanced by a write shares the snapshot before it, so that an
advance copies the write's entries and the top layer, never the whole map."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from math import isqrt
from typing import TypeVar, overload

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

MIN_TOP = 64  # a top layer is folded into a new base once it holds more than this and √base


class LayeredMap(Mapping[K, V]):
    """`top` read over `base`; neither is ever changed once the map holds it. The top layer
    stays within the square root of the base's entries (at least `MIN_TOP`), so an update costs
    that many entries, and folding it into a new base, once in that many updates, costs the
    base's."""

    __slots__ = ("_length", "base", "top")

    def __init__(self, base: dict[K, V], top: dict[K, V] | None = None) -> None:
        self.base = base
        self.top: dict[K, V] = top if top is not None else {}
        self._length = len(base) + sum(1 for key in self.top if key not in base)

    def updated(self, changes: Mapping[K, V]) -> LayeredMap[K, V]:
        """This map with `changes` over it."""
        top = {**self.top, **changes}
        if len(top) > max(MIN_TOP, isqrt(len(self.base))):
            return LayeredMap({**self.base, **top})
        return LayeredMap(self.base, top)

    def __getitem__(self, key: K) -> V:
        top = self.top
        return top[key] if key in top else self.base[key]

    @overload
    def get(self, key: K, /) -> V | None: ...
    @overload
    def get(self, key: K, default: V | T, /) -> V | T: ...
    def get(self, key: K, default: V | T | None = None, /) -> V | T | None:
        top = self.top
        return top[key] if key in top else self.base.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.top or key in self.base

    def __iter__(self) -> Iterator[K]:
        top = self.top
        yield from (key for key in self.base if key not in top)
        yield from top

    def __len__(self) -> int:
        return self._length

    def __repr__(self) -> str:
        return f"LayeredMap({len(self.base)} in its base, {len(self.top)} over it)"
