"""Settings parsing and the error envelope."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from service.auth import Authenticator, Principal
from service.config import AuthSettings, EmbeddingSettings, Settings, unknown_env_variables
from service.errors import (
    Forbidden,
    InvalidParameter,
    NotFound,
    Unauthorized,
    error_envelope,
    invalid_from_validation,
)


def test_api_keys_parse_from_comma_separated_entries() -> None:
    auth = AuthSettings.model_validate({"api_keys": "k1:team-a:writer, k2:team-b:admin"})
    assert [(k.key.get_secret_value(), k.namespace, k.role) for k in auth.api_keys] == [
        ("k1", "team-a", "writer"),
        ("k2", "team-b", "admin"),
    ]


def test_api_keys_parse_from_a_json_list() -> None:
    auth = AuthSettings.model_validate({"api_keys": '["k1:ns:reader"]'})
    assert auth.api_keys[0].role == "reader"


def test_api_keys_with_an_unknown_role_are_refused() -> None:
    with pytest.raises(ValidationError):
        AuthSettings.model_validate({"api_keys": "k1:ns:owner"})


def test_nested_environment_variables_configure_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_HTTP__PORT", "9090")
    monkeypatch.setenv("MNEMO_MEMORY__ENABLED", "false")
    settings = Settings()
    assert settings.http.port == 9090
    assert settings.memory.enabled is False


def test_a_model_file_is_named_by_the_model_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMO_EMBEDDING__MODEL", "minilm-int8")
    monkeypatch.setenv("MNEMO_EMBEDDING__MODEL_FILE", "/models/minilm-int8.onnx")
    embedding = Settings().embedding
    assert (embedding.model, str(embedding.model_file)) == (
        "minilm-int8",
        "/models/minilm-int8.onnx",
    )


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"model_file": "variant.onnx"},
            "embedding.model: must name the model file's variant, not 'all-MiniLM-L6-v2' "
            "(its vectors differ, so they go in a collection of their own)",
        ),
        (
            {"model": "minilm-int8"},
            "embedding.model: the local provider runs 'all-MiniLM-L6-v2' unless "
            "embedding.model_file names another export of it",
        ),
        (
            {"provider": "openai-compatible", "model": "m", "model_file": "variant.onnx"},
            "embedding.model_file: allowed only with embedding.provider 'local'",
        ),
    ],
)
def test_model_files_and_names_that_disagree_are_refused(
    fields: dict[str, str], message: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        EmbeddingSettings.model_validate(fields)
    assert [error["msg"] for error in refused.value.errors()] == [f"Value error, {message}"]


def test_unknown_mnemo_variables_are_reported() -> None:
    environ = {
        "MNEMO_HTTP__PORT": "1",
        "MNEMO_HTTP__PROT": "1",
        "MNEMO_SEARCH__MIN_VECTOR_SCORE": "0.1",
        "MNEMO_TEST_NEO4J_URI": "bolt://x",
        "MNEMO_CONFIG": "x.toml",
        "OTHER": "1",
    }
    assert unknown_env_variables(environ) == ["MNEMO_HTTP__PROT"]


def test_error_envelope_repeats_message_as_error_and_adds_empty_lists() -> None:
    envelope = error_envelope(InvalidParameter("bad"), ["results"])
    assert envelope == {
        "success": False,
        "error_type": "invalid_parameter",
        "message": "bad",
        "error": "bad",
        "results": [],
    }
    assert NotFound("x").http_status == 404


def test_validation_errors_name_the_parameter_and_the_rule() -> None:
    errors = [
        {
            "loc": ("body", "limit"),
            "type": "less_than_equal",
            "input": 500,
            "msg": "Input should be less than or equal to 100",
        }
    ]
    assert invalid_from_validation(errors).message == (
        "Invalid limit value: 500. Input should be less than or equal to 100"
    )
    missing = [{"loc": ("query",), "type": "missing", "msg": "Field required"}]
    assert invalid_from_validation(missing).message == "Missing required parameter 'query'"
    http_missing = [{"loc": ("body", "query"), "type": "missing", "msg": "Field required"}]
    assert invalid_from_validation(http_missing).message == "Missing required parameter 'query'"
    no_body = [{"loc": ("body",), "type": "missing", "msg": "Field required"}]
    assert invalid_from_validation(no_body).message == (
        "Invalid request body: must be a JSON object, sent as application/json"
    )


def test_validation_errors_leave_out_pydantic_branch_names() -> None:
    union = [
        {
            "loc": ("type", "constrained-str"),
            "type": "string_pattern_mismatch",
            "input": "A B",
            "msg": "String should match pattern '^[a-z0-9_-]{1,64}$'",
        }
    ]
    assert invalid_from_validation(union).message == (
        "Invalid type value: 'A B'. String should match pattern '^[a-z0-9_-]{1,64}$'"
    )
    item = [{"loc": ("keywords", "list[str]", 2), "type": "string_type", "input": 5, "msg": "x"}]
    assert invalid_from_validation(item).message == "Invalid keywords.2 value: 5. x"
    not_json = [{"loc": ("body", 1), "type": "json_invalid", "msg": "JSON decode error"}]
    assert invalid_from_validation(not_json).message == "Invalid request body: JSON decode error"


def test_auth_off_makes_every_caller_admin_of_default() -> None:
    assert Authenticator(AuthSettings()).authenticate({}) == Principal("default", "admin")


def test_keys_map_to_their_namespace_and_role() -> None:
    auth = Authenticator(AuthSettings.model_validate({"api_keys": "secret:team:writer"}))
    assert auth.authenticate({"Authorization": "Bearer secret"}) == Principal("team", "writer")
    assert auth.authenticate({"X-API-Key": "secret"}) == Principal("team", "writer")
    with pytest.raises(Unauthorized):
        auth.authenticate({})
    with pytest.raises(Unauthorized):
        auth.authenticate({"X-API-Key": "wrong"})


def test_only_admins_choose_another_namespace_and_roles_are_ordered() -> None:
    writer = Principal("team", "writer")
    assert writer.namespace_for(None) == "team"
    with pytest.raises(Forbidden):
        writer.namespace_for("other")
    with pytest.raises(Forbidden):
        Principal("team", "reader").require("writer")
    assert Principal("team", "admin").namespace_for("other") == "other"
