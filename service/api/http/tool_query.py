"""The query parameters of a GET route taken from its tool's input model: each field's name,
description, bounds and default as the model declares them, in a form a query string carries."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Depends, Query
from pydantic import ValidationError
from pydantic.fields import FieldInfo

from service.api.http.deps import NamespaceQuery, split_values
from service.core.inputs import ToolInput
from service.core.search_inputs import checked_filters
from service.errors import invalid_from_validation

M = TypeVar("M", bound=ToolInput)

# The fields a query string cannot carry as the model types them, in the form it can: the
# filters repeated or comma-separated (checked as `checked_filters` says), keywords one string.
QUERY_FORMS: dict[str, Any] = {"type": list[str] | None, "tags": list[str] | None, "keywords": str}


@dataclass(frozen=True)
class ToolQuery(Generic[M]):
    """A tool called by GET: its parameters, and the namespace asked for (admin keys only)."""

    params: M
    namespace: str | None


def tool_query(model: type[M]) -> Any:
    """A dependency that reads `model`'s fields, then `namespace`, from the query string."""

    async def read(**values: Any) -> ToolQuery[M]:  # a coroutine: no thread pool (deps.py)
        namespace = values.pop("namespace")
        return ToolQuery(from_query(model, values), namespace)

    parameters = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=field.get_default() if not field.is_required() else inspect.Parameter.empty,
            annotation=_query_parameter(name, field),
        )
        for name, field in model.model_fields.items()
    ]
    namespace = inspect.Parameter(
        "namespace", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=NamespaceQuery
    )
    read.__signature__ = inspect.Signature([*parameters, namespace])  # type: ignore[attr-defined]
    return Depends(read)


def from_query(model: type[M], values: dict[str, Any]) -> M:
    """The model from query values, its filters split and checked first."""
    filters = checked_filters(split_values(values.get("type")), split_values(values.get("tags")))
    for name, given in (("type", filters.types), ("tags", filters.tags)):
        if name in values:
            values[name] = list(given) or None
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise invalid_from_validation(exc.errors()) from exc


def _query_parameter(name: str, field: FieldInfo) -> Any:
    """The field as a query parameter: its type and constraints (or its form in QUERY_FORMS)
    and its description; its examples stay in the model."""
    form = (QUERY_FORMS[name],) if name in QUERY_FORMS else (field.annotation, *field.metadata)
    return Annotated[(*form, Query(description=field.description))]
