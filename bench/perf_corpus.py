"""The latency benchmark's data: memories an agent keeps (incidents, decisions, meeting notes,
people, plans) from templates over a seeded vocabulary, about 40 words each, linked with
power-law degrees averaging 4; and distinct queries in the same words, for every series."""

from __future__ import annotations

import bisect
import itertools
import random
from collections.abc import Callable, Iterator
from typing import Any

NAMES = (
    "Ana", "Ben", "Carla", "Dev", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kemal",
    "Lena", "Marco", "Nadia", "Oskar", "Priya", "Quinn", "Rosa", "Samir", "Tessa", "Umar", "Vera",
    "Wes", "Yara", "Zane", "Bianca", "Cyril", "Dalia", "Emil", "Freya", "Noor", "Otto", "Pia",
)  # fmt: skip
CITIES = (
    "Lisbon", "Montreal", "Osaka", "Nairobi", "Krakow", "Denver", "Melbourne", "Helsinki",
    "Valencia", "Seoul", "Austin", "Porto", "Dublin", "Cape Town", "Lyon", "Tallinn",
)  # fmt: skip
COMPANIES = (
    "Northwind Health", "Globex", "Initech", "Umbrella Labs", "Stark Freight", "Acme Retail",
    "Blue Harbor Bank", "Vandelay Imports", "Hooli", "Wayne Logistics",
)  # fmt: skip
FOODS = ("curry", "sushi", "tacos", "ramen", "falafel", "pizza", "dumplings", "salads", "pho")
COMPONENTS = (
    "login service", "billing worker", "search cluster", "payment gateway", "mobile app",
    "nightly backup", "feature flag store", "recommendation model", "CSV importer", "audit log",
    "email sender", "rate limiter", "session cache", "graph index", "vector index",
    "deploy pipeline", "metrics dashboard", "invoice generator", "onboarding flow",
    "notification queue", "report exporter", "image resizer", "pricing engine", "webhook relay",
    "customer portal", "data warehouse", "fraud detector", "chat widget", "sync daemon",
    "translation service", "map tiles server", "API gateway", "token issuer", "job scheduler",
)  # fmt: skip
PROBLEMS = (
    ("timed out under load", "time out"), ("returned stale results", "return stale data"),
    ("leaked memory over a week", "leak memory"), ("rejected valid tokens", "reject tokens"),
    ("doubled its latency", "get slower"), ("dropped messages during deploys", "lose messages"),
    ("crashed on empty input", "crash"), ("lost writes after a failover", "lose writes"),
    ("sent duplicate emails", "send duplicates"), ("filled the disk with logs", "fill the disk"),
    ("ignored the retry limit", "retry forever"), ("showed the wrong currency", "misprice"),
    ("locked the accounts table", "lock the database"), ("skipped half the rows", "skip rows"),
)  # fmt: skip
CAUSES = (
    "a missing index on the customers table", "an expired TLS certificate",
    "a retry storm from old mobile clients", "the new analyzer settings",
    "a race between two workers", "clock skew between the nodes", "an unbounded cache",
    "a typo in the staging config", "a connection pool of only four", "a slow DNS resolver",
    "a library upgrade that changed defaults", "daylight saving time", "a full message queue",
    "a forgotten feature flag", "a schema migration that ran twice",
)  # fmt: skip
FIXES = (
    "added a circuit breaker", "moved the job to a queue", "pinned the library version",
    "raised the pool size to forty", "cached the lookups for a minute",
    "split the batch into chunks", "added an alert on the error rate", "rolled back the release",
    "rewrote the query with a join", "made the handler idempotent", "rotated the certificate",
    "set a timeout of two seconds", "added a dead letter queue", "sharded the table by tenant",
)  # fmt: skip
TOOLS = (
    "Postgres", "Redis", "Kafka", "Neo4j", "Qdrant", "S3", "Terraform", "Grafana", "RabbitMQ",
    "Elasticsearch", "SQLite", "gRPC", "GraphQL", "Celery", "Temporal", "ClickHouse", "Vault",
)  # fmt: skip
REASONS = (
    "it keeps the operations simple", "the team already knows it", "it scales past our peak",
    "the license is friendlier", "it has managed hosting in our region", "it cut costs by half",
    "the latency tests came out better", "it supports transactions across tables",
    "it needs no native dependencies", "the vendor offers a support contract",
)  # fmt: skip
TEAMS = ("platform", "payments", "search", "mobile", "data", "security", "growth", "support")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
MONTHS = ("January", "March", "April", "June", "September", "October", "November")
METRICS = ("error rate", "p95 latency", "queue depth", "disk usage", "conversion rate", "cost")
ACTIONS = (
    "remove the old endpoints", "add load tests", "document the failure modes",
    "move the secrets to the vault", "turn on tracing", "write a migration guide",
    "review the access rights", "add a canary stage", "tune the cache sizes",
)  # fmt: skip

Memory = dict[str, Any]
Template = Callable[[random.Random], tuple[str, str, str]]  # type, title, content


def _pick(rng: random.Random, values: tuple[str, ...]) -> str:
    return values[rng.randrange(len(values))]


def _incident(rng: random.Random) -> tuple[str, str, str]:
    component, (problem, _) = _pick(rng, COMPONENTS), PROBLEMS[rng.randrange(len(PROBLEMS))]
    name, other = _pick(rng, NAMES), _pick(rng, NAMES)
    content = (
        f"{name} reported that the {component} {problem} on {_pick(rng, WEEKDAYS)}. The root "
        f"cause was {_pick(rng, CAUSES)}. The {_pick(rng, TEAMS)} team {_pick(rng, FIXES)}, and "
        f"{other} will check the {_pick(rng, METRICS)} again next week before closing ticket "
        f"OPS-{rng.randrange(100, 9999)}."
    )
    return "bugfix", f"{component} {problem}", content


def _decision(rng: random.Random) -> tuple[str, str, str]:
    component, tool, other = _pick(rng, COMPONENTS), _pick(rng, TOOLS), _pick(rng, TOOLS)
    content = (
        f"We decided to use {tool} for the {component} instead of {other} because "
        f"{_pick(rng, REASONS)}. {_pick(rng, NAMES)} wrote the proposal, the "
        f"{_pick(rng, TEAMS)} team agreed on {_pick(rng, WEEKDAYS)}, and the migration should "
        f"be finished before the {_pick(rng, MONTHS)} release."
    )
    return "decision", f"{tool} for the {component}", content


def _meeting(rng: random.Random) -> tuple[str, str, str]:
    team, component = _pick(rng, TEAMS), _pick(rng, COMPONENTS)
    content = (
        f"Notes from the {team} sync on {_pick(rng, WEEKDAYS)}: {_pick(rng, NAMES)} showed that "
        f"the {component} {PROBLEMS[rng.randrange(len(PROBLEMS))][0]} twice this month. "
        f"{_pick(rng, NAMES)} suggested that we {_pick(rng, ACTIONS)} first; "
        f"{_pick(rng, NAMES)} owns the next steps and reports back on the {_pick(rng, METRICS)}."
    )
    return "note", f"{team} sync about the {component}", content


def _person(rng: random.Random) -> tuple[str, str, str]:
    name, component = _pick(rng, NAMES), _pick(rng, COMPONENTS)
    content = (
        f"{name} joined from {_pick(rng, COMPANIES)}, lives in {_pick(rng, CITIES)} and works "
        f"remotely on {_pick(rng, WEEKDAYS)}s. {name} prefers {_pick(rng, FOODS)} for team "
        f"lunches. Ask {name} before changing the {component}: the first version was written by "
        f"{name} in {rng.randrange(2015, 2026)}."
    )
    return "observation", f"about {name}", content


def _plan(rng: random.Random) -> tuple[str, str, str]:
    component, month = _pick(rng, COMPONENTS), _pick(rng, MONTHS)
    content = (
        f"Before the {month} release we need to {_pick(rng, ACTIONS)} in the {component}, "
        f"update the runbook of the {_pick(rng, COMPONENTS)}, and tell {_pick(rng, NAMES)} in "
        f"{_pick(rng, CITIES)} about the new {_pick(rng, METRICS)} alerts. Budget owner: "
        f"{_pick(rng, NAMES)} from the {_pick(rng, TEAMS)} team."
    )
    return "feature", f"{month} release plan for the {component}", content


TEMPLATES: tuple[Template, ...] = (_incident, _decision, _meeting, _person, _plan)


def _degree_sampler(mean: float, cap: int) -> Callable[[random.Random], int]:
    """Out-degrees with P(d) ∝ d^-a on 1..cap, `a` chosen so that the mean is `mean`."""

    def distribution(a: float) -> list[float]:
        weights = [0.0, *(d**-a for d in range(1, cap + 1))]
        total = sum(weights)
        return [w / total for w in weights]

    low, high = 1.01, 4.0
    for _ in range(50):
        a = (low + high) / 2
        if sum(d * p for d, p in enumerate(distribution(a))) > mean:
            low = a
        else:
            high = a
    cumulative = list(itertools.accumulate(distribution((low + high) / 2)))
    return lambda rng: min(cap, bisect.bisect_left(cumulative, rng.random()))


def memory_text(rng: random.Random) -> tuple[str, str, str]:
    """One memory's (type, title, content) from a random template."""
    return TEMPLATES[rng.randrange(len(TEMPLATES))](rng)


def corpus(size: int, seed: int = 13, mean_links: float = 4.0) -> Iterator[Memory]:
    """memory_save bodies `m-000000`… in order; each links only to earlier memories, its targets
    drawn by preferential attachment (in-degrees follow a power law as well)."""
    rng = random.Random(seed)
    degree = _degree_sampler(mean_links, 200)
    endpoints: list[int] = []  # every link target so far: popular memories are drawn more
    for index in range(size):
        kind, title, content = memory_text(rng)
        targets: set[int] = set()
        for _ in range(min(degree(rng), index)):
            pool_pick = endpoints and rng.random() < 0.5
            targets.add(rng.choice(endpoints) if pool_pick else rng.randrange(index))
        endpoints.extend(targets)
        yield {
            "key": f"m-{index:06d}",
            "type": kind,
            "title": title,
            "content": content,
            "tags": [_pick(rng, TEAMS)],
            "score": float(rng.randrange(101)),
            "links": [
                {"key": f"m-{t:06d}", "weight": round(rng.uniform(0.1, 1.0), 2)}
                for t in sorted(targets)
            ],
        }


def queries(count: int, seed: int, taken: set[str]) -> list[str]:
    """`count` questions none of which is in `taken` (which grows): every series gets its own."""
    rng = random.Random(seed)
    forms: tuple[Callable[[], str], ...] = (
        lambda: (
            f"why did the {_pick(rng, COMPONENTS)} {PROBLEMS[rng.randrange(len(PROBLEMS))][1]}?"
        ),
        lambda: f"what did we decide about {_pick(rng, TOOLS)} for the {_pick(rng, COMPONENTS)}",
        lambda: f"who owns the {_pick(rng, METRICS)} of the {_pick(rng, COMPONENTS)}",
        lambda: f"{_pick(rng, NAMES)} {_pick(rng, COMPONENTS)} {_pick(rng, MONTHS)} release",
        lambda: f"{_pick(rng, CAUSES)} in the {_pick(rng, COMPONENTS)}",
        lambda: f"where does {_pick(rng, NAMES)} live and what food does {_pick(rng, NAMES)} like",
    )
    found: list[str] = []
    for _ in range(count * 100):
        if len(found) == count:
            return found
        text = forms[rng.randrange(len(forms))]()
        if text not in taken:
            taken.add(text)
            found.append(text)
    raise ValueError(f"only {len(found)} distinct queries for seed {seed}")


def hybrid_queries(warm_up: int, count: int, taken: set[str]) -> tuple[list[str], list[str]]:
    """The warm-up queries and the hybrid series' queries of `make bench`, drawn first (its peer,
    bench/peer_graphiti.py, is asked the same ones)."""
    return queries(warm_up, 50, taken), queries(count, 100, taken)
