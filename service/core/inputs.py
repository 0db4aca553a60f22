"""The base of every tool's input model: unknown fields are refused, and a null list or object
field stands for an absent one (so its default applies), on HTTP as over MCP."""

from __future__ import annotations

from typing import Any, ClassVar, cast

from pydantic import BaseModel, ConfigDict, model_validator


class ToolInput(BaseModel):
    """A tool's parameters; `nullable` names the fields whose null means absent."""

    model_config = ConfigDict(extra="forbid")

    nullable: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def null_means_absent(cls, data: Any) -> Any:
        return drop_nulls(data, cls.nullable)


def drop_nulls(data: Any, fields: tuple[str, ...]) -> Any:
    """`data` without the given fields where they are null (so their defaults apply)."""
    if not isinstance(data, dict):
        return data
    items = cast(dict[str, Any], data)
    return {name: value for name, value in items.items() if not (name in fields and value is None)}
