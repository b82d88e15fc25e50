"""The request screen: an OpenAI `messages` list in, a verdict out (forward, withhold, exact).

The last user message is the turn. Earlier user messages are screened again but not counted again,
and one holding a withheld value is dropped from what is forwarded. Tool results are screened with
withhold acting as redact (a tool message cannot be dropped). Content may be a string or a list of
parts. A message's `name` is screened too, withhold acting as redact (a name is the application's
label, not what the person typed), and so is every other string of a message, at any depth
(engine.request_fields), uncounted. A turn holding a withheld class reaches no model: the client
gets a fixed reply (`WITHHELD_REPLY`) asking to send it again without those details.
`reply_exactly.when_asked` answers with `say`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from replyguard.engine.context import TurnContext, content_text, read_context
from replyguard.engine.reply import EXACT_REPLY
from replyguard.engine.request_fields import MEDIA_KEYS, PLAIN, screen_value
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import Screened, Side, screen_text
from replyguard.engine.screen_cache import ScreenCache

Verdict = Literal["forward", "withhold", "exact"]

#: The reply to a withheld turn, in each language the product reads.
WITHHELD_REPLY: Mapping[str, str] = {
    "en": "That message held details I can't take here, so I haven't read it or done anything. "
    "Please send it again without them.",
    "pt-BR": "Essa mensagem tinha dados que não posso receber aqui, então não a li nem fiz "
    "nada. Envie de novo sem eles, por favor.",
}


@dataclass(frozen=True, slots=True)
class RequestVerdict:
    """What to do with a request.

    `kind`: "forward" (send `messages`, the screened copy, upstream), "withhold" or "exact"
    (answer with `reply`, call nothing). `counts`: the counts the turn reports.
    `withheld`: the classes that made the turn withheld. `context`: the turn context read
    from the original messages, for the reply screen.
    """

    kind: Verdict
    messages: list[dict[str, Any]]
    reply: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    withheld: tuple[str, ...] = ()
    context: TurnContext = field(default_factory=TurnContext)


def _screen(text: str, rules: CompiledRules, side: Side, cache: ScreenCache | None,
            look: bool) -> Screened:
    """`screen_text`, through `cache` when there is one (looked in only when `look`)."""
    if cache is None:
        return screen_text(text, rules, side)
    return cache.screen(text, rules, side, look=look)


def _screen_content(content: object, rules: CompiledRules, side: Side,
                    cache: ScreenCache | None = None, look: bool = False
                    ) -> tuple[object, Mapping[str, int], tuple[str, ...]]:
    """Screen a message content (string or parts); returns (content, counts, withheld).

    Every part with a string `text` has it screened as `side`, whatever its `type` (`text`,
    `input_text`, ...); every other string of a part (a refusal part's `refusal`, ...) is
    screened as the application's text (engine.request_fields: masked, not counted), but for
    media (`MEDIA_KEYS`: images, audio, files), which pass as they are."""
    if isinstance(content, str):
        screened = _screen(content, rules, side, cache, look)
        return screened.text, screened.counts, screened.withheld
    counts: Counter[str] = Counter()
    withheld: set[str] = set()
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                rest = screen_value(part, rules, cache, look, _PART_KEPT)
                if isinstance(part.get("text"), str):
                    screened = _screen(part["text"], rules, side, cache, look)
                    counts.update(screened.counts)
                    withheld.update(screened.withheld)
                    rest = {**rest, "text": screened.text}
                parts.append(rest)
            else:
                parts.append(part)
        if withheld:
            counts = Counter({k: v for k, v in counts.items() if k != "reply_pd_withheld"})
            counts["reply_pd_withheld"] = 1
        return parts, counts, tuple(sorted(withheld))
    return content, counts, ()


#: The keys of a content part not walked as other text: its `text` (screened as the message
#: is) and media.
_PART_KEPT = frozenset({"text", *MEDIA_KEYS})
#: The keys of a message not walked as other text: screened as their own (content, counted
#: as the role is; a name, counted with its message).
_MESSAGE_KEPT = frozenset({"content", "name"})
#: The keys of a message that holds nothing else to walk when its role is a known one.
_BARE = frozenset({"role", *_MESSAGE_KEPT})


def _other_keys(message: Mapping[str, Any], rules: CompiledRules, cache: ScreenCache | None,
                look: bool) -> Mapping[str, Any]:
    """`message` with every string beside its content and name screened (engine.request_fields:
    masked, not counted); the message itself, without a walk, when it holds nothing but a
    known role, content and a name (most messages)."""
    role = message.get("role")
    if message.keys() <= _BARE and (role is None or isinstance(role, str) and role in PLAIN):
        return message
    return screen_value(message, rules, cache, look, _MESSAGE_KEPT)


def _screen_name(name: str, rules: CompiledRules, cache: ScreenCache | None,
                 look: bool) -> Screened:
    """A message's `name`, screened with withhold acting as redact: the name is the
    application's label for a participant (often an email address), not the turn the person
    typed, so asking them to send it again without it could not help."""
    return _screen(name, rules, "tool", cache, look)


def _screen_other(message: Mapping[str, Any], rules: CompiledRules,
                  cache: ScreenCache | None = None, look: bool = False) -> dict[str, Any]:
    """A system, developer or assistant message, screened like a tool result (masked, never
    dropped, not counted): its content and `name`, and every other string in it at any
    depth (engine.request_fields): an assistant's refusal and reasoning of any shape, the
    tool calls a client sends back (arguments as a string or an object, a custom tool's
    input, a legacy `function_call`). An operator's prompt with a card number in it does not
    reach the model either."""
    out = dict(_other_keys(message, rules, cache, look))
    if "content" in out:
        out["content"] = _screen_content(out["content"], rules, "tool", cache, look)[0]
    if isinstance(out.get("name"), str):
        out["name"] = _screen_name(out["name"], rules, cache, look).text
    return out


def _last(messages: Sequence[Mapping[str, Any]], role: str) -> int:
    """Index of the last message of `role`, -1 when there is none."""
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, Mapping) and message.get("role") == role:
            return i
    return -1


def screen_request(
    messages: Sequence[Mapping[str, Any]],
    rules: CompiledRules,
    writes: Collection[str] | None = None,
    cache: ScreenCache | None = None,
) -> RequestVerdict:
    """Screen an OpenAI chat `messages` list (each a dict with `role` and `content`).

    Returns a RequestVerdict; the input is never mutated. `writes` names the tools that
    write (None: every tool). Non-dict entries are passed through untouched.

    Counted: only what this request adds to the conversation, since clients resend it whole:
    the last user turn unless an assistant message follows it (then the turn was counted by
    the request that first carried it), and the tool results after the last assistant message.

    `cache` (one per server, engine.screen_cache): every text screened is stored in it, and
    the messages before what this request adds (the history and system prompt a client
    resends) are looked up in it first, so a conversation's earlier turns are screened once.
    The verdict and counts are the same with or without it.
    """
    last_user = _last(messages, "user")
    new_from = max(last_user, _last(messages, "assistant"))  # what this request adds
    context = read_context(messages, writes)
    counts: Counter[str] = Counter()
    forwarded: list[dict[str, Any]] = []
    turn_withheld: tuple[str, ...] = ()
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping):
            forwarded.append(message)
            continue
        role = message.get("role")
        if role not in ("user", "tool", "function"):
            forwarded.append(_screen_other(message, rules, cache, i < new_from))
            continue
        side: Side = "turn" if role == "user" else "tool"
        content, message_counts, withheld = _screen_content(
            message.get("content"), rules, side, cache, i < new_from)
        if i == last_user:
            turn_withheld = withheld
        counted = i >= new_from and (i == last_user or role != "user")  # or a result
        if message_counts and counted:
            counts.update(message_counts)
        if withheld and role == "user":
            continue  # an earlier withheld turn is dropped; the last one withholds the request
        out = {**_other_keys(message, rules, cache, i < new_from), "content": content}
        name = message.get("name")
        if isinstance(name, str):
            screened = _screen_name(name, rules, cache, i < new_from)
            out["name"] = screened.text
            if screened.counts and counted:  # a name is counted with its message
                counts.update(screened.counts)
        forwarded.append(out)
    if turn_withheld:
        return RequestVerdict("withhold", [], WITHHELD_REPLY[rules.language], dict(counts),
                              turn_withheld, context)
    say = _exact_reply(messages, last_user, rules)
    if say is not None:
        counts[EXACT_REPLY] += 1
        return RequestVerdict("exact", [], say, dict(counts), (), context)
    return RequestVerdict("forward", forwarded, None, dict(counts), (), context)


def _exact_reply(messages: Sequence[Mapping[str, Any]], last_user: int,
                 rules: CompiledRules) -> str | None:
    """The exact reply the last user turn asks for (`reply_exactly.when_asked`), if any."""
    if last_user < 0 or not rules.asked:
        return None
    folded = rules.words(content_text(messages[last_user].get("content")))
    for pattern, entry in rules.asked:
        if pattern.search(folded):
            return entry.say
    return None
