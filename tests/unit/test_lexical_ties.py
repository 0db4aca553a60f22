"""Equal BM25 scores rank newest first, then by id, whatever order Lucene returned them in."""

from __future__ import annotations

from service.core.read.channels import ties_newest_first


def test_equal_scores_rank_newest_first_then_by_id() -> None:
    hits = [("a", 0.5, 100), ("b", 0.7, 50), ("c", 0.5, 300), ("e", 0.5, None), ("d", 0.5, 300)]
    assert ties_newest_first(hits) == [
        ("b", 0.7, 50),
        ("c", 0.5, 300),
        ("d", 0.5, 300),
        ("a", 0.5, 100),
        ("e", 0.5, None),
    ]
