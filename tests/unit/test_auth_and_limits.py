"""Keys and the rate limit as pure units: configuration never echoes a key, keys are distinct,
the token bucket admits exactly its burst and rate, and `serve` refuses an open address."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from service.api.http.guards import allowed
from service.api.ratelimit import RateLimiter, retry_after
from service.auth import Authenticator, Principal
from service.cli import main as cli
from service.config import AuthSettings, Settings
from tests.fake_clock import Clock


def test_a_refused_key_entry_is_never_echoed_in_the_error() -> None:
    with pytest.raises(ValidationError) as caught:
        Settings.model_validate({"auth": {"api_keys": "s3cr3t-value:team:owner"}})
    assert "s3cr3t-value" not in str(caught.value)
    assert "auth.api_keys.0.role" in str(caught.value)


def test_a_key_listed_twice_or_an_invalid_namespace_is_refused() -> None:
    with pytest.raises(ValidationError, match="listed more than once"):
        AuthSettings.model_validate({"api_keys": "k:a:reader,k:b:admin"})
    with pytest.raises(ValidationError, match="namespace"):
        AuthSettings.model_validate({"api_keys": "k:bad namespace:reader"})
    with pytest.raises(ValidationError, match="key"):
        AuthSettings.model_validate({"api_keys": ":team:reader"})


def test_bearer_wins_over_x_api_key_and_blank_keys_count_as_missing() -> None:
    auth = Authenticator(AuthSettings.model_validate({"api_keys": "a:one:reader,b:two:admin"}))
    both = {"Authorization": "Bearer b", "X-API-Key": "a"}
    assert auth.authenticate(both) == Principal("two", "admin")
    with pytest.raises(Exception, match="Missing API key"):
        auth.authenticate({"Authorization": "Bearer   "})
    with pytest.raises(Exception, match="Invalid API key"):
        auth.authenticate({"X-API-Key": "a "})


def test_the_bucket_admits_its_burst_then_one_request_per_token() -> None:
    clock = Clock()
    limiter = RateLimiter(rate_per_s=2.0, burst=3, clock=clock)
    assert [limiter.acquire("k") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.acquire("k") == 0.5
    assert limiter.acquire("other") == 0.0
    clock.now += 0.5
    assert limiter.acquire("k") == 0.0
    assert limiter.acquire("k") == 0.5
    clock.now += 60
    assert [limiter.acquire("k") for _ in range(4)] == [0.0, 0.0, 0.0, 0.5]


def test_a_zero_rate_turns_the_limit_off_and_retry_after_is_whole_seconds() -> None:
    limiter = RateLimiter(rate_per_s=0, burst=1)
    assert {limiter.acquire("k") for _ in range(100)} == {0.0}
    assert [retry_after(w) for w in (0.001, 1.0, 1.01, 7.5)] == [1, 1, 2, 8]


@given(
    rate=st.floats(min_value=0.1, max_value=50),
    burst=st.integers(min_value=1, max_value=20),
    gaps=st.lists(st.floats(min_value=0, max_value=2), min_size=1, max_size=200),
)
def test_admitted_requests_never_exceed_burst_plus_rate_times_elapsed(
    rate: float, burst: int, gaps: list[float]
) -> None:
    clock = Clock()
    limiter = RateLimiter(rate_per_s=rate, burst=burst, clock=clock)
    admitted = 0
    for gap in gaps:
        clock.now += gap
        wait = limiter.acquire("k")
        assert wait >= 0
        admitted += wait == 0
    assert admitted <= burst + rate * sum(gaps) + 1e-6


@given(st.text(max_size=40) | st.from_regex(r"127\.0\.0\.1:[0-9]{0,6}", fullmatch=True))
def test_only_listed_hosts_or_their_numeric_ports_are_allowed(host: str) -> None:
    patterns = ["127.0.0.1", "127.0.0.1:*"]
    expected = re.fullmatch(r"127\.0\.0\.1(:[0-9]+)?", host) is not None
    assert allowed(host, patterns) == expected


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "mnemo.example"])
def test_serve_refuses_an_open_address_without_keys(
    host: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("MNEMO_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("MNEMO_HTTP__HOST", host)
    monkeypatch.setenv("MNEMO_NEO4J__URI", "bolt://127.0.0.1:1")
    monkeypatch.setenv("MNEMO_QDRANT__URL", "http://127.0.0.1:1")
    assert cli.main(["serve"]) == 2
    assert capsys.readouterr().err.strip() == (
        f"Refusing to listen on {host} without API keys. Configure MNEMO_AUTH__API_KEYS, "
        "or set MNEMO_AUTH__ALLOW_ANONYMOUS=true."
    )
