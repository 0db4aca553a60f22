"""Input models of the tools that take refs or act on a namespace: memory_get, memory_link,
memory_delete, memory_timeline, memory_stats and memory_cleanup (docs/contract.md §4)."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from service.core.inputs import ToolInput
from service.core.models import LinkTypeParam, TermParam, WeightParam
from service.core.scalars import Flag
from service.core.sorting import SortLinksParam
from service.core.upkeep.lifecycle import AnchorParam, DryRunParam, ForceParam, WindowParam

IdsParam = Annotated[
    list[str],
    Field(description="Memory ids.", examples=[["0b6f3c9e-8f1e-4c55-9a57-2f1d7f0c1a2b"]]),
]
KeysParam = Annotated[
    list[str], Field(description="Memory keys.", examples=[["decision:use-sql-js:1a2b3c4d"]])
]
OneKeyParam = Annotated[
    str | None, Field(description="One memory key.", examples=["decision:use-sql-js:1a2b3c4d"])
]
RemoveParam = Annotated[Flag, Field(description="Remove the link instead.", examples=[False])]


class GetInput(ToolInput):
    """Parameters of memory_get: ids and/or keys (with `key`, at least one ref)."""

    nullable = ("ids", "keys")

    ids: IdsParam = Field(default_factory=list[str])
    keys: KeysParam = Field(default_factory=list[str])
    key: OneKeyParam = None
    sortLinks: SortLinksParam = True


class DeleteInput(ToolInput):
    """Parameters of memory_delete: ids and/or keys."""

    nullable = ("ids", "keys")

    ids: IdsParam = Field(default_factory=list[str])
    keys: KeysParam = Field(default_factory=list[str])


class LinkInput(ToolInput):
    """Parameters of memory_link: the two memories (`from` and `to`) and the link."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: Annotated[
        str,
        Field(
            alias="from",
            description="Source memory id or key.",
            examples=["decision:use-sql-js:1a2b3c4d"],
        ),
    ]
    to: Annotated[
        str,
        Field(description="Target memory id or key.", examples=["design:storage-layer:5e6f7a8b"]),
    ]
    weight: WeightParam = 0.5
    type: LinkTypeParam = "related"
    term: TermParam = None
    remove: RemoveParam = False


class TimelineInput(ToolInput):
    """Parameters of memory_timeline."""

    memoryId: AnchorParam
    window: WindowParam = 5
    sortLinks: SortLinksParam = True


class StatsInput(ToolInput):
    """memory_stats takes no parameter (but the namespace)."""


class CleanupInput(ToolInput):
    """Parameters of memory_cleanup (an empty HTTP body or none at all means the defaults)."""

    force: ForceParam = False
    dry_run: DryRunParam = False
