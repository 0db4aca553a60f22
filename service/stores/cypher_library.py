"""The Cypher library: every statement of `cypher/*.cypher` by name, its fragments included, the
schema migrations, and the template of a namespace's keyword indexes. Cypher comes from the
project's own files only."""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, LiteralString, cast

from neo4j import Query

from service.config import NAMESPACE_PATTERN
from service.resources import resource_dir

CYPHER_ROOT = resource_dir("cypher")
CONTEXT_MARK = "context_since = coalesce("  # set by every statement that marks contexts pending
NAMESPACE_SCOPE = ("$namespace_label", "$text_index", "$context_index")
KEYWORD_INDEXES = ("$text_index", "$context_index")


def namespace_scope(namespace: str) -> dict[str, str]:
    """The label of a namespace's memories and the names of its two fulltext indexes, which
    Lucene's BM25 statistics then count alone (cypher/namespace/keyword_indexes.cypher)."""
    return {
        "namespace_label": f"NS_{namespace}",
        "text_index": f"memory_fulltext__{namespace}",
        "context_index": f"memory_context_fulltext__{namespace}",
    }


class CypherLibrary:
    """Every statement of `cypher/*.cypher` by file name; loaded once, a missing name fails fast.
    A line `// @include NAME` stands for `cypher/fragments/NAME.cypher`, indented as it is."""

    def __init__(self, root: Path = CYPHER_ROOT, timeout_s: float | None = None) -> None:
        if not root.is_dir():
            raise FileNotFoundError(f"Cypher folder not found: {root}")
        self.root = root
        self.timeout_s = timeout_s
        fragments = {path.stem: path.read_text() for path in root.glob("fragments/*.cypher")}
        self._queries: dict[str, LiteralString] = {
            path.stem: literal(with_fragments(path.read_text(), fragments))
            for path in root.glob("*.cypher")
        }
        self.marking_context = frozenset(
            name for name, text in self._queries.items() if CONTEXT_MARK in _strip_comments(text)
        )
        self.namespace_scoped = self._using(NAMESPACE_SCOPE)
        self.keyword_reads = self._using(KEYWORD_INDEXES)

    def _using(self, parameters: tuple[str, ...]) -> frozenset[str]:
        """The statements that use any of `parameters`."""
        return frozenset(
            name
            for name, text in self._queries.items()
            if any(parameter in _strip_comments(text) for parameter in parameters)
        )

    def params(self, name: str, params: Mapping[str, Any]) -> dict[str, Any]:
        """`params`, and for a statement scoped to a namespace its label and index names."""
        if name not in self.namespace_scoped:
            return dict(params)
        return {**params, **namespace_scope(params["namespace"])}

    @functools.cached_property
    def _keyword_schema(self) -> str:
        return (self.root / "namespace" / "keyword_indexes.cypher").read_text()

    def keyword_schema(self, namespace: str) -> list[LiteralString]:
        """The statements that create the fulltext indexes of `namespace`, if missing."""
        if re.fullmatch(NAMESPACE_PATTERN, namespace) is None:
            raise ValueError(f"Invalid namespace value: {namespace!r}")
        text = _strip_comments(self._keyword_schema).replace("<namespace>", namespace)
        return [literal(part.strip()) for part in text.split(";") if part.strip()]

    def keyword_drops(self, namespace: str) -> list[LiteralString]:
        """The statements that drop the fulltext indexes of `namespace`, if present."""
        if re.fullmatch(NAMESPACE_PATTERN, namespace) is None:
            raise ValueError(f"Invalid namespace value: {namespace!r}")
        scope = namespace_scope(namespace)
        return [
            literal(f"DROP INDEX `{scope[index]}` IF EXISTS")
            for index in ("text_index", "context_index")
        ]

    def text(self, name: str) -> LiteralString:
        try:
            return self._queries[name]
        except KeyError:
            raise KeyError(f"no Cypher statement named {name!r} in {self.root}") from None

    def query(self, name: str) -> Query:
        """The statement tagged with its name (visible in Neo4j's query log), with the server-side
        time limit of its transaction."""
        return Query(self.text(name), metadata={"query": name}, timeout=self.timeout_s)

    def migrations(self) -> list[tuple[str, list[LiteralString]]]:
        """Schema files in order, each split into its statements."""
        result: list[tuple[str, list[LiteralString]]] = []
        for path in sorted((self.root / "schema").glob("*.cypher")):
            statements: list[LiteralString] = [
                literal(part.strip())
                for part in _strip_comments(path.read_text()).split(";")
                if part.strip()
            ]
            result.append((path.stem, statements))
        return result


def literal(text: str) -> LiteralString:
    """The one sanctioned cast: Cypher comes from the project's own files, never from users."""
    return cast(LiteralString, text)


_INCLUDE = re.compile(r"^( *)// @include (\w+)$", re.MULTILINE)


def with_fragments(text: str, fragments: dict[str, str]) -> str:
    """The statement with each `// @include NAME` line replaced by that fragment, indented."""

    def fragment(match: re.Match[str]) -> str:
        indent, name = match.groups()
        if name not in fragments:
            raise KeyError(f"no Cypher fragment named {name!r}")
        return "\n".join(indent + line for line in fragments[name].rstrip("\n").splitlines())

    return _INCLUDE.sub(fragment, text)


def _strip_comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
