"""The request side of the completion routes: the body's shape checked, and every string the
upstream would be sent screened (the messages or prompts and a legacy `suffix` as the turn;
every other field's strings, at any depth, as the application's text) before anything is
forwarded. A shape that cannot be screened is a 400.
"""

from __future__ import annotations

from typing import Any

from replyguard.engine.prompts import screen_prompts
from replyguard.engine.request import RequestVerdict, screen_request
from replyguard.engine.request_fields import ID_FIELDS, MAX_DEPTH, NestingTooDeep, screen_fields
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen_cache import ScreenCache
from replyguard.engine.tools import CompiledTools
from replyguard.proxy.errors import BadRequest

#: The fields screened beside the messages or prompt, and what is said of one of a shape
#: that cannot be screened.
_ID_SHAPE = "must be a string"
_PREDICTION_SHAPE = ("'prediction' must be an object whose 'content' is a string or a list of "
                     "text parts (other content cannot be screened)")


_CONTENT_SHAPE = ("a message's 'content' must be a string, a list of content parts (objects "
                  "whose 'text', if any, is a string) or null; other content cannot be screened")


def _screenable_content(content: object) -> bool:
    """Content `engine.screen_request` can screen whole: a string, null, or a list of part
    objects whose `text` (where there is one) is a string. Anything else (a number, a bare
    string in a list, a part with a number for its text) would be forwarded unscreened."""
    if content is None or isinstance(content, str):
        return True
    return isinstance(content, list) and all(
        isinstance(part, dict) and isinstance(part.get("text", ""), str) for part in content)


def check_output_kinds(body: dict[str, Any]) -> None:
    """Refuse a request for spoken output (`modalities` with "audio", or an `audio` object):
    the audio cannot be screened, and a transcript screened alone would not change what is
    said to the listener (fail closed)."""
    modalities = body.get("modalities")
    asks = isinstance(modalities, list | str) and "audio" in modalities
    if asks or body.get("audio") is not None:
        raise BadRequest("audio output cannot be screened by ReplyGuard: the spoken words would "
                         "reach the listener unscreened; ask for text only (modalities: "
                         "[\"text\"], no 'audio')", param="modalities" if asks else "audio",
                         code="unscreenable_output")


def other_fields(body: dict[str, Any], rules: CompiledRules, cache: ScreenCache | None,
                 screened: tuple[str, ...]) -> dict[str, Any]:
    """Every top-level field of `body` but `model` and `screened` (the fields the route
    screens as the turn), screened (engine.request_fields: each string at any depth masked,
    withhold acting as redact, not counted): the fields to forward in place of the client's.
    Raises BadRequest for an end-user id or a `prediction` of a shape that cannot be
    screened, or a field nested too deep."""
    for name in ID_FIELDS:
        value = body.get(name)
        if value is not None and not isinstance(value, str):
            raise BadRequest(f"'{name}' {_ID_SHAPE}", param=name, code="invalid_request")
    prediction = body.get("prediction")
    if prediction is not None:
        content = prediction.get("content") if isinstance(prediction, dict) else None
        if not isinstance(content, str) and not (isinstance(content, list) and all(
                isinstance(part, dict) and isinstance(part.get("text"), str)
                for part in content)):
            raise BadRequest(_PREDICTION_SHAPE, param="prediction", code="invalid_prediction")
    try:
        return screen_fields(body, rules, cache, screened)
    except NestingTooDeep:
        raise _too_deep() from None


def _too_deep() -> BadRequest:
    return BadRequest(f"the request is nested deeper than {MAX_DEPTH} objects and lists; it "
                      "cannot be screened", code="invalid_request")


def verdict_chat(body: dict[str, Any], rules: CompiledRules,
                 tools: CompiledTools | None = None, cache: ScreenCache | None = None
                 ) -> tuple[RequestVerdict, dict[str, Any]]:
    """Screen a chat request: its other fields, then its messages (engine.screen_request,
    every string of each message included). Returns the verdict and the fields to forward
    in place of the client's."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("'messages' must be a non-empty list of messages", param="messages",
                         code="invalid_messages")
    for message in messages:
        if not isinstance(message, dict):
            raise BadRequest("each entry of 'messages' must be an object", param="messages",
                             code="invalid_messages")
        if not _screenable_content(message.get("content")):
            raise BadRequest(_CONTENT_SHAPE, param="messages", code="invalid_messages")
        name = message.get("name")
        if name is not None and not isinstance(name, str):
            raise BadRequest("a message's 'name' must be a string", param="messages",
                             code="invalid_messages")
    fields = other_fields(body, rules, cache, ("messages",))
    try:
        verdict = screen_request(messages, rules, tools.writes if tools is not None else None,
                                 cache)
    except NestingTooDeep:
        raise _too_deep() from None
    return verdict, fields


def verdict_text(body: dict[str, Any], rules: CompiledRules,
                 cache: ScreenCache | None = None) -> tuple[RequestVerdict, dict[str, Any]]:
    """Screen a legacy completions request: each prompt as a turn, and `suffix` (the text
    after the insertion point) as part of the prompt (engine.prompts). Then the other
    fields. Returns the verdict (its messages: one user message per screened prompt) and the
    fields to forward in place of the client's."""
    prompt = body.get("prompt")
    prompts = [prompt] if isinstance(prompt, str) else prompt
    if not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts):
        raise BadRequest("'prompt' must be a string or a list of strings (token prompts cannot "
                         "be screened)", param="prompt", code="invalid_prompt")
    suffix = body.get("suffix")
    if suffix is not None and not isinstance(suffix, str):
        raise BadRequest(f"'suffix' {_ID_SHAPE}", param="suffix", code="invalid_request")
    fields = other_fields(body, rules, cache, ("prompt", "suffix"))
    verdict, screened_suffix = screen_prompts(prompts, suffix, rules)
    if verdict.kind == "withhold":
        return verdict, {}
    if screened_suffix is not None:
        fields["suffix"] = screened_suffix
    return verdict, fields
