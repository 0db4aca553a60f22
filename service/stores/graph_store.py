"""Neo4j access: named statements of the Cypher library, schema migrations, a namespace's
keyword indexes, and driver error translation.

With the Cypher library, the only modules that import `neo4j`. Values leave it as plain Python
(datetimes are aware UTC).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, LiteralString, NoReturn, TypeVar, cast

from neo4j import (
    READ_ACCESS,
    WRITE_ACCESS,
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncSession,
    Record,
    unit_of_work,
)
from neo4j import exceptions as neo4j_errors
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from service.config import Neo4jSettings
from service.errors import BackendUnavailable, Conflict, MnemographError
from service.retry import retrying
from service.stores.cypher_library import CypherLibrary, literal, namespace_scope
from service.stores.link_graph import LinkGraph
from service.stores.link_graphs import LinkGraphs
from service.stores.neo4j_values import plain_row

log = logging.getLogger(__name__)

T = TypeVar("T")
RACE_ATTEMPTS = 4
ENTITY_NOT_FOUND = "Neo.ClientError.Statement.EntityNotFound"
NO_SUCH_INDEX = "no such fulltext schema index"
AWAIT_INDEX: LiteralString = "CALL db.awaitIndex($index, 300)"
KEYWORD_INDEXES = ("memory_fulltext__", "memory_context_fulltext__")  # + the namespace
Row = dict[str, Any]


@dataclass
class Tx:
    """A managed transaction that runs named statements (`marked`: one of them marks contexts
    pending)."""

    _tx: AsyncManagedTransaction
    _library: CypherLibrary
    marked: bool = False

    async def run(self, query: str, /, **params: Any) -> list[Row]:
        result = await self._tx.run(self._library.text(query), self._library.params(query, params))
        self.marked = self.marked or query in self._library.marking_context
        return [plain_row(record) async for record in result]


class GraphStore:
    """An async Neo4j driver bound to one database and the Cypher library."""

    def __init__(self, settings: Neo4jSettings, uri: str, library: CypherLibrary) -> None:
        self._settings = settings
        self._uri = uri
        self._library = library
        self._marked_listeners: list[Callable[[], object]] = []
        self._keyword_indexed: set[str] = set()
        self._keyword_indexing = asyncio.Lock()
        self._link_graphs = LinkGraphs(
            self.read_once, self.read_together, settings.link_graph_items
        )
        password = settings.password.get_secret_value()
        # The driver's factories and records are partially typed: typed here, at the boundary.
        graph_database: Any = AsyncGraphDatabase
        self._driver: AsyncDriver = graph_database.driver(
            uri,
            auth=(settings.user, password) if password else None,
            max_connection_pool_size=50,
            connection_acquisition_timeout=10.0,
            connection_timeout=5.0,
            max_transaction_retry_time=settings.retry_time_s,
            notifications_min_severity="OFF",
        )

    @property
    def uri(self) -> str:
        return self._uri

    async def close(self) -> None:
        await self._link_graphs.close()
        await self._driver.close()

    async def check(self) -> None:
        """Raise `BackendUnavailable` unless Neo4j answers a trivial query."""
        await self.read("health_check")

    async def read(self, query: str, /, **params: Any) -> list[Row]:
        """A read in an auto-commit transaction: one round trip, where a managed transaction
        takes two (its COMMIT: 0.56 ms of a trivial read's 2.1 on this machine). A keyword read
        first makes its namespace's fulltext indexes if they are missing."""
        if query not in self._library.keyword_reads:
            return await self._auto_commit(query, params, READ_ACCESS)
        namespace: str = params["namespace"]
        await self.ensure_keyword_indexes(namespace)
        try:
            return await self._auto_commit(query, params, READ_ACCESS)
        except neo4j_errors.ClientError as exc:
            if NO_SUCH_INDEX not in (exc.message or ""):
                raise
        self._keyword_indexed.discard(namespace)  # dropped since: made again
        await self.ensure_keyword_indexes(namespace)
        return await self._auto_commit(query, params, READ_ACCESS)

    async def link_graph(self, namespace: str) -> LinkGraph | None:
        """The namespace's memories and links in process, when that snapshot is up to date
        (one version read), for the graph walk; None: walk in Neo4j."""
        return await self._link_graphs.current(namespace)

    @property
    def link_graphs(self) -> LinkGraphs:
        """The link graph snapshots this store holds, with their counts (metrics)."""
        return self._link_graphs

    async def read_once(self, query: str, /, **params: Any) -> list[Row]:
        """A read in one attempt, for what only saves time (a failure costs no retries)."""
        try:
            async with self._session(READ_ACCESS) as session:
                query_text = self._library.query(query)
                result = await session.run(query_text, self._library.params(query, params))
                records = (await result.to_eager_result()).records
        except Exception as exc:
            _reraise(exc)
        return [plain_row(record) for record in records]

    async def read_together(
        self, queries: Sequence[tuple[str, Mapping[str, Any]]]
    ) -> list[list[Row]]:
        """Read statements in one transaction (one cluster member answers); each one's rows."""

        async def work(tx: AsyncManagedTransaction) -> list[list[Row]]:
            named = Tx(tx, self._library)
            return [await named.run(name, **params) for name, params in queries]

        try:
            async with self._session(READ_ACCESS) as session:
                return await session.execute_read(work)
        except Exception as exc:
            _reraise(exc)

    async def ensure_keyword_indexes(self, namespace: str) -> None:
        """Create the two fulltext indexes of `namespace` unless this store knows they exist,
        and wait until they are online (a few tens of ms for a new namespace)."""
        if namespace in self._keyword_indexed:
            return
        async with self._keyword_indexing:
            if namespace in self._keyword_indexed:
                return
            scope = namespace_scope(namespace)
            try:
                async with self._session() as session:
                    for statement in self._library.keyword_schema(namespace):
                        await _create_schema(session, statement)
                    for index in (scope["text_index"], scope["context_index"]):
                        await (await session.run(AWAIT_INDEX, index=index)).consume()
            except Exception as exc:
                _reraise(exc)
            self._keyword_indexed.add(namespace)

    async def drop_empty_keyword_indexes(self) -> int:
        """Drop the fulltext indexes of the namespaces that hold no memory (a namespace's next
        keyword read makes them again); how many were dropped."""
        names = [name for name in await self.index_states() if name.startswith(KEYWORD_INDEXES)]
        namespaces = sorted({name.split("__", 1)[1] for name in names})
        rows = await self.read("namespaces_without_memories", namespaces=namespaces)
        empty = set(rows[0]["empty"])
        try:
            async with self._session() as session:
                for namespace in sorted(empty):
                    self._keyword_indexed.discard(namespace)
                    for statement in self._library.keyword_drops(namespace):
                        await (await session.run(statement)).consume()
        except Exception as exc:
            _reraise(exc)
        return sum(1 for name in names if name.split("__", 1)[1] in empty)

    async def keyword_index_state(self, namespace: str) -> tuple[str, str]:
        """The name and state (ONLINE, POPULATING, FAILED) of the fulltext index of the
        memories' own text in `namespace`, made if missing."""
        await self.ensure_keyword_indexes(namespace)
        name = namespace_scope(namespace)["text_index"]
        return name, (await self.index_states([name])).get(name, "MISSING")

    async def write(self, query: str, /, **params: Any) -> list[Row]:
        """One write statement in an auto-commit transaction (one round trip, as `read`), on
        the leader of a cluster; several statements that must commit together: `transaction`."""
        rows = await self._auto_commit(query, params, WRITE_ACCESS)
        if query in self._library.marking_context:
            self._context_marked()
        return rows

    def on_context_marked(self, listener: Callable[[], object]) -> None:
        """Call `listener` after each committed write that marked contexts pending."""
        self._marked_listeners.append(listener)

    def _context_marked(self) -> None:
        for listener in self._marked_listeners:
            listener()

    async def _auto_commit(self, name: str, params: Mapping[str, Any], mode: str) -> list[Row]:
        started = time.perf_counter()
        try:
            records = await self._run_with_retries(name, params, mode)
        except Exception as exc:
            _reraise(exc)
        log.debug("%s %s took %.1f ms", mode, name, (time.perf_counter() - started) * 1000)
        return [plain_row(record) for record in records]

    async def _run_with_retries(
        self, name: str, params: Mapping[str, Any], mode: str
    ) -> list[Record]:
        """Transient failures retried (`may_retry`) by the one retry policy: pauses of 1, 2, 4
        ... s, for `retry_time_s`."""
        async for attempt in retrying(
            f"{mode} {name}",
            lambda exc: may_retry(exc, mode),
            self._settings.retry_time_s,
            first_wait_s=1.0,
            max_wait_s=30.0,
            logger=log,
        ):
            with attempt:
                async with self._session(mode) as session:
                    query = self._library.query(name)
                    result = await session.run(query, self._library.params(name, params))
                    return (await result.to_eager_result()).records
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _session(self, access_mode: str = WRITE_ACCESS) -> AsyncSession:
        """A session in the causal chain of every statement this store runs (the driver's
        bookmark manager), so a read routed to another cluster member sees earlier writes."""
        driver: Any = self._driver
        return driver.session(
            database=self._settings.database,
            default_access_mode=access_mode,
            bookmark_manager=driver.execute_query_bookmark_manager,
        )

    async def transaction(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Run `work` in one managed write transaction (retried by the driver if transient).
        A unique-constraint violation is a race with a writer that created the same memory
        first, and a node gone while it was written one with a writer that deleted it: `work`
        runs again and reads what that writer committed (a save becomes an update, a link to a
        deleted memory is not found); a constraint violation that persists is a `Conflict`."""

        marked = False

        @unit_of_work(timeout=self._library.timeout_s)
        async def unit(tx: AsyncManagedTransaction) -> T:
            nonlocal marked
            named = Tx(tx, self._library)
            done = await work(named)
            marked = named.marked
            return done

        try:
            async for attempt in AsyncRetrying(
                retry=retry_if_exception(raced),
                stop=stop_after_attempt(RACE_ATTEMPTS),
                reraise=True,
            ):
                with attempt:
                    async with self._session() as session:
                        done = await session.execute_write(unit)
                    if marked:
                        self._context_marked()
                    return done
        except MnemographError:
            raise
        except Exception as exc:
            _reraise(exc)
        raise AssertionError("unreachable: tenacity returns or raises")

    async def explain(self, query_name: str, /, **params: Any) -> dict[str, Any]:
        """The EXPLAIN plan of a named statement (operators and their details)."""
        query = self._library.query(query_name)
        text = literal("EXPLAIN " + str(query.text))
        async with self._session() as session:
            result = await session.run(text, self._library.params(query_name, params))
            summary = await result.consume()
        plan: dict[str, Any] | None = cast(Any, summary).plan
        return plan or {}

    async def migrate(self) -> list[str]:
        """Apply schema files not recorded yet (idempotent); after any, all graph versions move."""
        applied: list[str] = []
        try:
            for name, statements in self._library.migrations():
                checksum = hashlib.sha256("\n;".join(statements).encode()).hexdigest()
                rows = await self.read("migration_applied", name=name)
                if rows and rows[0]["checksum"] == checksum:
                    continue
                applied.append(name)  # a statement may have run even if a later one fails
                for statement in statements:
                    try:
                        async with self._session() as session:
                            await (await session.run(statement)).consume()
                    except Exception as exc:
                        _reraise(exc)
                await self.write("migration_record", name=name, checksum=checksum)
                log.info("applied schema migration %s", name)
        finally:
            if applied:
                await self.write("graph_versions_move")
        await self._await_indexes()
        return applied

    async def _await_indexes(self) -> None:
        async with self._session() as session:
            await (await session.run("CALL db.awaitIndexes(300)")).consume()

    async def index_states(self, names: list[str] | None = None) -> dict[str, str]:
        """Name → state (ONLINE, POPULATING, FAILED) of every index, or of those `names`."""
        try:
            async with self._session() as session:
                result = await session.run(
                    "SHOW INDEXES YIELD name, state WHERE $names IS NULL OR name IN $names "
                    "RETURN name, state",
                    names=names,
                )
                return {record["name"]: record["state"] async for record in result}
        except Exception as exc:
            _reraise(exc)


async def _create_schema(session: AsyncSession, statement: LiteralString) -> None:
    """Run one `CREATE ... IF NOT EXISTS`; another process that created the same rule at the
    same moment is no failure."""
    try:
        await (await session.run(statement)).consume()
    except neo4j_errors.ClientError as exc:
        code = exc.code or ""
        if not (code.startswith("Neo.ClientError.Schema.") and code.endswith("AlreadyExists")):
            raise


def may_retry(exc: BaseException, mode: str) -> bool:
    """Whether an auto-commit statement may run again: a read on any transient failure; a write
    only when the server reports a transient error or a node deleted under it (it rolled the
    statement back). A write whose connection failed may have committed, and running it again
    could apply it twice."""
    if deleted_meanwhile(exc):
        return True
    if mode == READ_ACCESS:
        return isinstance(exc, neo4j_errors.Neo4jError | neo4j_errors.DriverError) and (
            exc.is_retryable()
        )
    return isinstance(exc, neo4j_errors.Neo4jError) and exc.is_retryable()


def deleted_meanwhile(exc: BaseException) -> bool:
    """A statement found a node that a concurrent transaction deleted before it wrote to it:
    run again, it no longer finds the node."""
    return isinstance(exc, neo4j_errors.Neo4jError) and exc.code == ENTITY_NOT_FOUND


def raced(exc: BaseException) -> bool:
    """A transaction lost a race with a concurrent one: it created what that one created first
    (a unique constraint) or used a node that one deleted. Run again, it reads what they did."""
    return isinstance(exc, neo4j_errors.ConstraintError) or deleted_meanwhile(exc)


def _reraise(exc: Exception) -> NoReturn:
    translated = _translate(exc)
    if translated is exc:
        raise exc
    raise translated from exc


def _translate(exc: Exception) -> Exception:
    """A driver exception as the error a client sees; unknown ones stay as they are."""
    if isinstance(exc, MnemographError):
        return exc
    if isinstance(exc, neo4j_errors.ConstraintError):
        return Conflict(f"A memory with that key already exists ({exc.message})")
    if isinstance(
        exc,
        neo4j_errors.ServiceUnavailable
        | neo4j_errors.SessionExpired
        | neo4j_errors.AuthError
        | neo4j_errors.TransientError
        | OSError,
    ):
        return BackendUnavailable("neo4j", type(exc).__name__)
    return exc
