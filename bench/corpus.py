"""Generated evaluation data (no data set is downloaded): a quality corpus with known relevant
memories per query, and a large synthetic corpus for latency runs."""

from __future__ import annotations

import random
from dataclasses import dataclass

from service.core.models import LinkSpec, SaveInput

# (core memory, paraphrased query sharing few words with it, context reachable only by link)
TOPICS: list[tuple[str, str, str]] = [
    (
        "The login service rejects refresh tokens after fifteen minutes.",
        "why do users get signed out so quickly?",
        "Ticket OPS-311 reopened twice in March.",
    ),
    (
        "We picked Neo4j to keep memories and their weighted links.",
        "which graph database stores the knowledge?",
        "Vendor call notes from Tuesday.",
    ),
    (
        "Nightly backups of the main database are copied to cold storage in Frankfurt.",
        "where do our archived snapshots end up?",
        "Budget line 42 was approved by finance.",
    ),
    (
        "The payment worker retries a failed card charge three times with exponential delay.",
        "how often is a declined purchase attempted again?",
        "Pager rotation moves to Dana next week.",
    ),
    (
        "Search latency doubled after the analyzer change in the fulltext index.",
        "what made queries slower recently?",
        "Bench numbers are stored in the wiki page Perf-7.",
    ),
    (
        "Mobile app crashes on startup when the locale is Turkish because of dotted i.",
        "phone client dies at launch for some language settings",
        "Release 4.2.1 hotfix branch.",
    ),
    (
        "Kubernetes pods are evicted when memory requests exceed node limits.",
        "why are containers getting killed by the cluster?",
        "Capacity spreadsheet Q3 tab.",
    ),
    (
        "The recommendation model is retrained every Sunday on the last ninety days of clicks.",
        "how fresh is the data behind suggestions?",
        "Data science sync minutes, item 5.",
    ),
    (
        "Invoices are generated as PDF and emailed to customers on the first of the month.",
        "when do clients receive their bills?",
        "Template owner is the billing guild.",
    ),
    (
        "Feature flags are stored in Redis and cached in each process for thirty seconds.",
        "how quickly does toggling an experiment take effect?",
        "Ops checklist step 12.",
    ),
    (
        "The CSV importer rejects files larger than fifty megabytes.",
        "what is the maximum spreadsheet upload size?",
        "Support macro SUP-88 answers this.",
    ),
    (
        "Our API rate limit is one hundred requests per minute per key.",
        "how many calls can a client make before being throttled?",
        "Partner agreement annex B.",
    ),
    (
        "Dark mode colors come from the design tokens package version three.",
        "where are the night theme palette values defined?",
        "Figma file owned by Lea.",
    ),
    (
        "The search cluster runs three shards with one replica each.",
        "how is the index partitioned across machines?",
        "Terraform module infra/search.",
    ),
    (
        "Emails bounce when the customer domain has no MX record.",
        "why do some outgoing messages fail to deliver?",
        "Mailgun dashboard screenshot.",
    ),
    (
        "Audit logs are retained for seven years to satisfy the banking regulator.",
        "how long must we keep compliance records?",
        "Legal memo 2024-11.",
    ),
]

WORDS = (
    "graph",
    "memory",
    "agent",
    "vector",
    "index",
    "latency",
    "cache",
    "token",
    "queue",
    "shard",
    "replica",
    "schema",
    "cluster",
    "deploy",
    "release",
    "backup",
    "restore",
    "search",
    "ranking",
    "model",
    "embedding",
    "link",
    "weight",
    "score",
    "session",
    "timeline",
    "audit",
    "billing",
    "invoice",
    "payment",
    "login",
    "oauth",
    "policy",
    "export",
    "import",
    "metric",
    "alert",
)


@dataclass(frozen=True)
class QualityCase:
    query: str
    relevant: tuple[str, ...]  # keys


def quality_corpus(
    distractors: int = 200, seed: int = 11
) -> tuple[list[SaveInput], list[QualityCase]]:
    """Each topic: a core memory, a context memory linked from it, and its paraphrased query."""
    rng = random.Random(seed)
    items: list[SaveInput] = []
    cases: list[QualityCase] = []
    for index, (core, query, context) in enumerate(TOPICS):
        core_key, context_key = f"topic-{index}", f"context-{index}"
        items.append(SaveInput(key=context_key, content=context, score=50))
        items.append(
            SaveInput(
                key=core_key, content=core, score=70, links=[LinkSpec(key=context_key, weight=0.8)]
            )
        )
        cases.append(QualityCase(query, (core_key, context_key)))
    for index in range(distractors):
        text = " ".join(rng.choice(WORDS) for _ in range(12))
        items.append(SaveInput(key=f"noise-{index}", content=text))
    return items, cases


def synthetic_corpus(count: int, links_per_memory: int = 4, seed: int = 5) -> list[SaveInput]:
    """`count` memories of random words with on average `links_per_memory` links each."""
    rng = random.Random(seed)
    items: list[SaveInput] = []
    for index in range(count):
        words = [rng.choice(WORDS) for _ in range(rng.randrange(8, 17))]
        links = [
            LinkSpec(key=f"m-{rng.randrange(count)}", weight=round(rng.random(), 2))
            for _ in range(rng.randrange(2 * links_per_memory + 1))
        ]
        items.append(
            SaveInput(
                key=f"m-{index}",
                title=" ".join(words[:4]),
                content=" ".join(words),
                type=rng.choice(["note", "decision", "design", "bugfix"]),
                tags=[rng.choice(WORDS)],
                score=float(rng.randrange(101)),
                links=links,
            )
        )
    return items


def synthetic_queries(count: int, seed: int = 9) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randrange(2, 6))) for _ in range(count)]
