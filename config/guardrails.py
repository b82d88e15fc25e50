"""The `guardrails:` settings: topic focus, prompt injection and
moderation, each off unless enabled, each with its own timeout and fail-open/closed choice."""

from __future__ import annotations

from dataclasses import dataclass

from replyguard.config.checks import boolean, http_url, integer, optional, section, setting, string

__all__ = ["GuardrailsSettings", "JudgeSettings", "ModerationSettings",
           "PromptInjectionSettings", "TopicSettings", "MAX_BLOCK_MESSAGE"]  # fmt: skip

#: Longest custom block message, in characters.
MAX_BLOCK_MESSAGE = 500
_ON_ERROR = string(choices=("allow", "block"), noun="choice")


def _timeout() -> int:
    return setting(2000, integer(10, 120_000))


@dataclass(frozen=True, slots=True)
class JudgeSettings:
    """An OpenAI-compatible chat completions endpoint asked a fixed yes/no question.

    `base_url`: http(s) URL ending before `/chat/completions`; None = the upstream itself.
    `api_key`: Bearer key; None = the upstream's `api_key`, else the client's `Authorization`.
    `model`: the model asked; None = the model the client's request names.
    """

    base_url: str | None = setting(None, optional(http_url))
    api_key: str | None = setting(None, string(nullable=True, secret=True), secret=True)
    model: str | None = setting(None, string(nullable=True))


@dataclass(frozen=True, slots=True)
class TopicSettings:
    """Blocks turns unrelated to `site_name` (the site's public purpose: judged by the
    site name only, never by the sources). `judge` answers the question."""

    enabled: bool = setting(False, boolean)
    site_name: str | None = setting(None, string(nullable=True, max_chars=200))
    judge: JudgeSettings = section(JudgeSettings)
    timeout_ms: int = _timeout()
    on_error: str = setting("allow", _ON_ERROR)

    def problems(self) -> list[tuple[str, str]]:
        """Cross-field rules: an enabled topic check needs the site name."""
        if self.enabled and not self.site_name:
            return [("site_name", "required when the topic check is enabled")]
        return []


@dataclass(frozen=True, slots=True)
class PromptInjectionSettings:
    """The built-in local patterns (always on when enabled; a match blocks at once) and, with
    `use_judge`, a judge asked about the message too."""

    enabled: bool = setting(False, boolean)
    use_judge: bool = setting(False, boolean)
    judge: JudgeSettings = section(JudgeSettings)
    timeout_ms: int = _timeout()
    on_error: str = setting("allow", _ON_ERROR)


@dataclass(frozen=True, slots=True)
class ModerationSettings:
    """An OpenAI-compatible `/v1/moderations` endpoint. `base_url`: None = the upstream.
    `input`: check the turn before the model; `output`: check each reply sentence before
    release (a flagged sentence is removed)."""

    enabled: bool = setting(False, boolean)
    base_url: str | None = setting(None, optional(http_url))
    api_key: str | None = setting(None, string(nullable=True, secret=True), secret=True)
    model: str = setting("omni-moderation-latest", string())
    input: bool = setting(True, boolean)
    output: bool = setting(True, boolean)
    timeout_ms: int = _timeout()
    on_error: str = setting("allow", _ON_ERROR)


@dataclass(frozen=True, slots=True)
class GuardrailsSettings:
    """`guardrails:`. `block_message`: what a blocked turn is told instead of the defaults
    (at most 500 characters). `window_chars`: external checks read long messages in windows of
    this many characters (every window is checked; nothing is cut off). `max_windows`: a
    message needing more windows than this is not sent to the external checks at all: each
    counts it as a failed check (kind `too_long`) and follows its `on_error`."""

    topic: TopicSettings = section(TopicSettings)
    prompt_injection: PromptInjectionSettings = section(PromptInjectionSettings)
    moderation: ModerationSettings = section(ModerationSettings)
    block_message: str | None = setting(
        None, string(nullable=True, max_chars=MAX_BLOCK_MESSAGE))
    window_chars: int = setting(8000, integer(500, 1_000_000))
    max_windows: int = setting(64, integer(1, 10_000))

    def enabled(self) -> bool:
        """Is any check on?"""
        return self.topic.enabled or self.prompt_injection.enabled or self.moderation.enabled
