"""The configured limits in the published schemas: a parameter that a `limits.*` setting bounds
states that bound, in the MCP input schemas and the OpenAPI request bodies alike."""

from __future__ import annotations

from typing import Any

from service.config import LimitsSettings

# parameter -> (JSON Schema keyword, the setting). `content` is bounded in UTF-8 bytes; as
# characters never outnumber bytes, maxLength at the byte limit refuses nothing the server takes.
LIMITED: dict[str, tuple[str, str]] = {
    "content": ("maxLength", "max_content_bytes"),
    "links": ("maxItems", "max_links_per_save"),
    "ids": ("maxItems", "max_refs"),
    "keys": ("maxItems", "max_refs"),
    "memories": ("maxItems", "max_batch"),
}
_TYPE_OF = {"maxLength": "string", "maxItems": "array"}


def state_limits(properties: dict[str, Any], limits: LimitsSettings) -> None:
    """Write each configured bound into the parameters (`properties` of an input schema) it
    applies to, on the non-null branch of a nullable one."""
    for name, (keyword, setting) in LIMITED.items():
        prop = properties.get(name)
        if prop is None:
            continue
        for branch in prop.get("anyOf", [prop]):
            if branch.get("type") == _TYPE_OF[keyword]:
                branch[keyword] = getattr(limits, setting)
