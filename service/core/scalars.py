"""Validators of single values where lax parsing would change what a caller sent: booleans
that take only true or false, numbers that refuse them, moments UTC can hold, metadata the
stores can hold, and parameters whose error message the seeds fix."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, AwareDatetime, BeforeValidator
from pydantic_core import PydanticCustomError

from service.core.json_text import METADATA_DEPTH, storable_problem
from service.errors import SEEDED_MESSAGE, InvalidParameter

T = TypeVar("T")


def strict_flag(value: object) -> object:
    """A boolean parameter takes true or false, or their strings (any case) from a query
    string: never "yes", 1 or "1", which lax parsing would read as true (as sortLinks, §3)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise PydanticCustomError("flag", "Must be true or false")


Flag = Annotated[bool, BeforeValidator(strict_flag)]


def not_a_flag(value: object) -> object:
    """A number parameter never takes true or false, which lax parsing reads as 1 and 0."""
    if isinstance(value, bool):
        raise PydanticCustomError("number", "Must be a number, not true or false")
    return value


# For a number parameter: Annotated[int, Field(...), NotAFlag]; its bounds before the validator,
# or JSON Schema does not show them.
NotAFlag = BeforeValidator(not_a_flag)


def in_utc(value: datetime) -> datetime:
    """An aware moment as UTC; one that UTC cannot reach (0001-01-01T00:00+14:00) is refused."""
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise PydanticCustomError(
            "moment", "Must be a moment between years 1 and 9999 in UTC"
        ) from None


# An ISO datetime with its zone, held as UTC (as Neo4j stores it).
Moment = Annotated[AwareDatetime, AfterValidator(in_utc)]


def storable_metadata(value: dict[str, Any]) -> dict[str, Any]:
    """Metadata the stores can hold: no NaN or Infinity, no lone surrogate, bounded nesting."""
    if (problem := storable_problem(value, METADATA_DEPTH)) is not None:
        raise PydanticCustomError("metadata", "{problem}", {"problem": problem})
    return value


def seeded(parse: Callable[[object], T]) -> BeforeValidator:
    """The validator of a parameter that `parse` reads, keeping the exact message of its
    `InvalidParameter` (fixed by the seeds, §2) for `invalid_from_validation`."""

    def validate(value: object) -> T:
        try:
            return parse(value)
        except InvalidParameter as exc:
            raise PydanticCustomError(
                SEEDED_MESSAGE, "{message}", {"message": exc.message}
            ) from None

    return BeforeValidator(validate)
