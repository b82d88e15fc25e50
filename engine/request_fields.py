"""Every string a request sends upstream beside the texts screened as the turn (message
content, a legacy `prompt` and `suffix`, an embeddings `input`): top-level fields (`user`,
`metadata`, `tools`, `stop`, `response_format`, `prediction`, ...) and a message's other keys.

They are the application's text, not the turn the person typed, and many are resent with
every request: screened like a system prompt or a tool result, masked,
withhold acting as redact (asking the person to send them again could not help), never
counted. Walked at any depth through objects and lists; object keys (the JSON's schema) are
not screened, numbers, booleans and null pass. Nothing changed, nothing copied.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import screen_text
from replyguard.engine.screen_cache import ScreenCache

#: Top-level string fields that name the end user (often an email address).
ID_FIELDS = ("user", "safety_identifier")
#: Top-level fields forwarded as they are: the model's name, chosen by the application from
#: the upstream's list (never the person's text).
UNSCREENED_FIELDS = frozenset({"model"})
#: Keys of a content part whose value is media (an image's URL or data, audio, a file; the
#: Responses API's `input_file` part holds its data in `file_data`): forwarded as they are,
#: since ReplyGuard reads text only (docs/screening.md, "Not screened").
MEDIA_KEYS = frozenset({"image_url", "input_audio", "file", "file_data"})
#: Values of the enumerations a request is made of (roles, part and tool types, tool choice,
#: JSON Schema types, efforts): fixed words in which no detector finds anything (a test checks
#: each), so passing them without a look-up gives what screening them would.
PLAIN = frozenset({
    "system", "developer", "user", "assistant", "tool", "function", "custom",
    "text", "input_text", "output_text", "refusal", "image_url", "input_audio", "file",
    "content", "auto", "none", "required", "any", "low", "medium", "high", "minimal",
    "default", "flex", "priority", "scale", "json_object", "json_schema", "grammar", "lark",
    "regex", "object", "array", "string", "number", "integer", "boolean", "null",
    "reasoning.text", "reasoning.summary", "reasoning.encrypted", "summary", "concise",
    "detailed", "wav", "mp3", "pcm16", "ephemeral",
})
#: Deepest nesting of objects and lists walked; a body nested deeper cannot be screened.
MAX_DEPTH = 128


_CONTAINERS = (dict, list)


class NestingTooDeep(ValueError):
    """A request value nested deeper than `MAX_DEPTH` objects or lists: not screened, so it
    must not be forwarded."""


def password_label(key: object) -> str | None:
    """`key: ` when a JSON key may name a password (`password`, `db_password`, `dbPassword`,
    `passwd`, `pwd`, `senha`): its string value is then read after it, as the password
    detector reads a label and its value in text (`{"password": "S3cret!"}`), else None."""
    if not isinstance(key, str) or len(key) > 64 or "\n" in key:
        return None
    lowered = key.lower()
    if "pass" in lowered or "pwd" in lowered or "senha" in lowered:
        return f"{key}: "
    return None


def field_label(holder: Mapping[str, Any], key: str) -> str | None:
    """`password_label` of an object's `key`, or, for its `value`, of the name it holds
    (`{"name": "DB_PASSWORD", "value": "..."}`, as Kubernetes and many configs write it)."""
    label = password_label(key)
    if label is None and key == "value":
        named = holder.get("name", holder.get("key"))
        label = password_label(named) if isinstance(named, str) else None
    return label


def read_after(label: str | None, value: str, screen: Callable[[str], str]) -> str:
    """`screen(value)`, or with `label` (`password_label`) `screen(label + value)` without
    the label (all of it when the label did not come back as it was). The value is read in
    quotes, as the document holds it (`password: "sunshine"`: a string given to a password's
    name is one whatever it looks like; in `'` when it holds a `"`), unless quotes of both
    kinds, a line break or a backslash at its end would end them early."""
    if label is None:
        return screen(value)
    quote = ('"' if '"' not in value else "'" if "'" not in value else "")
    if "\n" in value or value.endswith("\\"):
        quote = ""
    before = label + quote
    out = screen(before + value + quote)
    if not out.startswith(before) or not out.endswith(quote):
        return out
    out = out[len(before) : len(out) - len(quote)]
    return value if out == value else out


def _screen(text: str, rules: CompiledRules, cache: ScreenCache | None, look: bool) -> str:
    if text in PLAIN:
        return text
    if cache is None:
        screened = screen_text(text, rules, "tool").text
    else:
        screened = cache.screen(text, rules, "tool", look=look).text
    return text if screened == text else screened


def screen_value(value: Any, rules: CompiledRules, cache: ScreenCache | None = None,
                 look: bool = True, skip: Collection[str] = (), _depth: int = 0) -> Any:
    """`value` (a JSON value) with every string in it screened as the application's text:
    masked, withhold acting as redact, not counted. An object's keys are not screened; its
    keys in `skip` are left as they are. The same object is returned when no string in it
    changed (and each unchanged object or list inside it); the input is never mutated.

    `cache` (engine.screen_cache): each string is stored in it, and looked up first when
    `look`. Raises NestingTooDeep past `MAX_DEPTH` levels.
    """
    if isinstance(value, str):
        return _screen(value, rules, cache, look)
    if not isinstance(value, _CONTAINERS):
        return value  # a number, a boolean, null
    if _depth >= MAX_DEPTH:
        raise NestingTooDeep(f"nested deeper than {MAX_DEPTH} objects and lists")
    if isinstance(value, dict):
        return _screen_dict(value, rules, cache, look, skip, _depth)
    items: list[Any] | None = None
    for i, item in enumerate(value):
        screened = screen_value(item, rules, cache, look, (), _depth + 1)
        if screened is not item:
            if items is None:
                items = list(value)
            items[i] = screened
    return value if items is None else items


def _screen_dict(value: dict[str, Any], rules: CompiledRules, cache: ScreenCache | None,
                 look: bool, skip: Collection[str], depth: int) -> dict[str, Any]:
    """`screen_value` of an object: the same object when no string in it changed."""
    out: dict[str, Any] | None = None
    for key, item in value.items():
        if key in skip:
            continue
        if isinstance(item, str):
            screened = read_after(field_label(value, key), item,
                                  lambda text: _screen(text, rules, cache, look))
        elif isinstance(item, _CONTAINERS):
            screened = screen_value(item, rules, cache, look, (), depth + 1)
        else:
            continue
        if screened is not item:
            if out is None:
                out = dict(value)
            out[key] = screened
    return value if out is None else out


def screen_fields(body: Mapping[str, Any], rules: CompiledRules,
                  cache: ScreenCache | None = None, skip: Collection[str] = ()
                  ) -> dict[str, Any]:
    """The top-level fields of `body` that screening changes, screened (`screen_value`):
    every field but `model` (UNSCREENED_FIELDS) and those in `skip` (the ones the caller
    screens itself: `messages`, `prompt`, `suffix`, `input`). Returns the fields to send in
    place of the client's, {} when no string in the others changed; the input is not
    mutated. Each string is looked up in `cache` first (a `tools` list resent with every
    request is screened once). Raises NestingTooDeep for a value nested too deep.

    Shapes are the caller's to check (the proxy refuses a `user` that is not a string, ...).
    """
    out: dict[str, Any] = {}
    for name, value in body.items():
        if name in skip or name in UNSCREENED_FIELDS:
            continue
        screened = screen_value(value, rules, cache)
        if screened is not value:
            out[name] = screened
    return out
