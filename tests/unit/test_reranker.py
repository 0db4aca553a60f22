"""The cross-encoder's relevance mapping and its setting's bounds."""

from __future__ import annotations

import math

import pytest
from pydantic import ValidationError

from service.config import FusionSettings, Settings
from service.stores.reranker import logistic


def test_logistic_maps_logits_into_zero_one_without_overflow() -> None:
    assert logistic(0.0) == 0.5
    assert logistic(2.0) == pytest.approx(1 / (1 + math.exp(-2.0)), rel=1e-12)
    assert logistic(-2.0) == pytest.approx(1 - logistic(2.0), rel=1e-12)
    assert logistic(-1000.0) == 0.0
    assert logistic(1000.0) == 1.0


def test_rerank_top_is_off_by_default_and_bounded() -> None:
    assert FusionSettings().rerank_top == 0
    with pytest.raises(ValidationError, match="rerank_top"):
        FusionSettings(rerank_top=101)
    with pytest.raises(ValidationError, match="rerank_top"):
        FusionSettings(rerank_top=-1)


def test_rerank_top_is_set_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_SEARCH__FUSION__RERANK_TOP", "20")
    assert Settings().search.fusion.rerank_top == 20
