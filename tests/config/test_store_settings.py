"""The `store` and `records` settings: store URLs (credentials never shown), the password
from the environment, redactable fields."""

from __future__ import annotations

import pytest

from replyguard.config.errors import ConfigError
from replyguard.config.settings import load_settings


def errors_of(**env: str) -> list[str]:
    with pytest.raises(ConfigError) as caught:
        load_settings(None, env=env)
    return caught.value.errors


@pytest.mark.parametrize(("url", "kept"), [
    ("sqlite:///replyguard.db", "sqlite:///replyguard.db"),
    ("sqlite:////var/lib/replyguard/rg.db", "sqlite:////var/lib/replyguard/rg.db"),
    ("postgresql://rg:pw@db:5432/rg", "postgresql://rg:pw@db:5432/rg"),
    ("none", None),
])
def test_store_urls(url: str, kept: str | None) -> None:
    assert load_settings(None, env={"REPLYGUARD_STORE_URL": url}).store.url == kept


@pytest.mark.parametrize(("url", "error"), [
    ("mysql://rg:s3cr3t@db/rg", "REPLYGUARD_STORE_URL: 'mysql://***@db/rg' is not a store URL "
                                "(sqlite:///path, postgresql://host/database, or none)"),
    ("sqlite:///", "REPLYGUARD_STORE_URL: 'sqlite:///' is not a store URL (sqlite:///path, "
                   "postgresql://host/database, or none)"),
])
def test_a_wrong_store_url_is_named_without_its_credentials(url: str, error: str) -> None:
    assert errors_of(REPLYGUARD_STORE_URL=url) == [error]


def test_the_password_from_the_environment_is_never_in_the_settings_repr() -> None:
    settings = load_settings(None, env={"REPLYGUARD_STORE_PASSWORD": "s3cr3t",
                                        "REPLYGUARD_STORE_URL": "postgresql://rg:pw2@db/rg"})
    assert settings.store.password == "s3cr3t"
    assert "s3cr3t" not in repr(settings) and "pw2" not in repr(settings)


def test_records_settings() -> None:
    records = load_settings(None, env={"REPLYGUARD_RECORDS_REDACT": "model,text",
                                       "REPLYGUARD_RECORDS_TEXT": "screened",
                                       "REPLYGUARD_RECORDS_RETENTION_DAYS": "7"}).records
    assert (records.redact, records.text, records.retention_days) == (
        ("model", "text"), "screened", 7)
    assert errors_of(REPLYGUARD_RECORDS_REDACT="model,prompt") == [
        "REPLYGUARD_RECORDS_REDACT[1]: unknown field 'prompt' (known: guardrail, key_id, "
        "model, request_id, route, tenant, text)"]
    assert errors_of(REPLYGUARD_RECORDS_TEXT="original") == [
        "REPLYGUARD_RECORDS_TEXT: unknown text mode 'original' (known: none, screened)"]
