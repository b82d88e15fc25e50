"""The Anthropic Messages route, `POST /v1/messages`, screened both ways.

Request: `system` and every message's blocks screened as a chat request is (the last user
turn as the turn; `tool_result` content, assistant blocks and every other string masked);
a withheld turn or an exact reply is answered directly as an Anthropic message (or its
events), with no upstream call. Reply: screened by the Messages adapter
(proxy.api_messages), whole or streamed. Errors are in Anthropic's shape.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import replace
from functools import partial
from typing import Any

import aiohttp
import orjson
from aiohttp import web

from replyguard.config.settings import Settings
from replyguard.engine.context import read_context
from replyguard.engine.reply import ScreeningError
from replyguard.engine.request import RequestVerdict, screen_request
from replyguard.engine.request_fields import NestingTooDeep, screen_value
from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import screen_text
from replyguard.engine.screen_cache import ScreenCache
from replyguard.engine.tools import CompiledTools
from replyguard.proxy.api_messages import error_body, message_events, screen_message
from replyguard.proxy.api_messages_stream import MessageStream
from replyguard.proxy.body import read_json
from replyguard.proxy.completions import _screen_maker, compiled_rules, compiled_tools
from replyguard.proxy.counts import add_counts
from replyguard.proxy.direct import SSE_HEADERS
from replyguard.proxy.errors import BadRequest, ProxyError, ScreeningFailed, UpstreamError
from replyguard.proxy.overload import count_fault
from replyguard.proxy.permissions import CallFilter, offered_tools
from replyguard.proxy.record import RECORD
from replyguard.proxy.relay import relay
from replyguard.proxy.reply_keys import ChunkShapeError
from replyguard.proxy.request_side import other_fields
from replyguard.proxy.sse import encode_event
from replyguard.proxy.state import METRICS, OFFLOAD, SCREEN_CACHE, SESSION, SETTINGS, prepare
from replyguard.proxy.upstream import error_from_status, fault, returned_headers

__all__ = ["FORWARDED", "RETURNED", "answer", "messages", "reply_message", "upstream_headers",
           "verdict_messages"]

#: Client headers sent on to a Messages upstream (besides the key, see `upstream_headers`).
FORWARDED = ("anthropic-version", "anthropic-beta", "user-agent", "accept")
#: Anthropic's upstream response headers sent back (besides `upstream.RETURNED`): its request
#: id and rate limits.
RETURNED = ("request-id", "anthropic-ratelimit-requests-limit",
            "anthropic-ratelimit-requests-remaining", "anthropic-ratelimit-requests-reset",
            "anthropic-ratelimit-tokens-limit", "anthropic-ratelimit-tokens-remaining",
            "anthropic-ratelimit-tokens-reset", "anthropic-ratelimit-input-tokens-limit",
            "anthropic-ratelimit-input-tokens-remaining", "anthropic-ratelimit-input-tokens-reset",
            "anthropic-ratelimit-output-tokens-limit",
            "anthropic-ratelimit-output-tokens-remaining",
            "anthropic-ratelimit-output-tokens-reset")
#: Blocks whose `source` is media (an image, a PDF): forwarded as they are.
_MEDIA_BLOCKS = frozenset({"image", "document"})


def upstream_headers(request: web.Request, settings: Settings) -> dict[str, str]:
    """Headers for the Messages upstream: `upstream.anthropic_api_key` as `x-api-key` when
    set, else the client's `x-api-key` (or its `Authorization`), and the Anthropic headers
    the client sent (`anthropic-version`, `anthropic-beta`). `upstream.api_key` (the OpenAI
    upstream's) is never sent."""
    headers = {"Content-Type": "application/json"}
    given = request.headers.get
    if settings.upstream.anthropic_api_key:
        headers["x-api-key"] = settings.upstream.anthropic_api_key
    elif (key := given("x-api-key")) is not None:
        headers["x-api-key"] = key
    elif (auth := given("Authorization")) is not None:
        headers["Authorization"] = auth
    for name in FORWARDED:
        if (value := given(name)) is not None:
            headers[name] = value
    return headers


async def messages(request: web.Request) -> web.StreamResponse:
    """`POST /v1/messages`: any error is answered in Anthropic's shape."""
    try:
        return await _messages(request)
    except ProxyError as exc:
        response = web.Response(body=orjson.dumps(error_body(exc)), status=exc.status,
                                content_type="application/json", headers=exc.headers)
        if exc.close:
            response.force_close()
        return response


# ---------------------------------------------------------------- the request

def _chat_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request as chat messages for the request screen: `system` first (as a system
    message), then each message with its blocks as content parts (media blocks' `source`
    under `file`, which the screen passes as it is)."""
    system = body.get("system")
    given = body.get("messages")
    if not isinstance(given, list) or not given or not all(
            isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in given):
        raise BadRequest("'messages' must be a non-empty list of user and assistant messages",
                         param="messages", code="invalid_messages")
    out = [] if system is None else [{"role": "system", "content": _content(system, "system")}]
    for message in given:
        out.append({**message, "content": _content(message.get("content"), "messages")})
    return out


def _content(content: Any, param: str) -> Any:
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not all(
            isinstance(b, dict) and isinstance(b.get("text", ""), str) for b in content):
        raise BadRequest(f"'{param}' content must be a string or a list of content blocks "
                         "(objects whose 'text', if any, is a string)", param=param,
                         code="invalid_messages")
    return [_media_in(b) if b.get("type") in _MEDIA_BLOCKS else b for b in content]


def _media_in(block: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in block.items() if k != "source"}
    if "source" in block:
        out["file"] = block["source"]
    return out


def _media_out(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    return [{**{k: v for k, v in b.items() if k != "file"}, "source": b["file"]}
            if isinstance(b, dict) and b.get("type") in _MEDIA_BLOCKS and "file" in b else b
            for b in content]


def _as_chat(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as chat messages for the turn context (engine.context): an assistant's
    `tool_use` blocks as `tool_calls`, a user message's `tool_result` blocks as `tool`
    messages before what else it says (the person's turn stays the last user message)."""
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            out.append(message)
            continue
        kinds = [b.get("type") for b in content]
        if message.get("role") == "assistant" and "tool_use" in kinds:
            calls = [{"id": b.get("id"), "type": "function",
                      "function": {"name": b.get("name"), "arguments": b.get("input")}}
                     for b in content if b.get("type") == "tool_use"]
            out.append({"role": "assistant", "tool_calls": calls,
                        "content": [b for b in content if b.get("type") != "tool_use"]})
        elif message.get("role") == "user" and "tool_result" in kinds:
            out += [{"role": "tool", "tool_call_id": b.get("tool_use_id"),
                     "content": b.get("content")}
                    for b in content if b.get("type") == "tool_result"]
            rest = [b for b in content if b.get("type") != "tool_result"]
            if rest:
                out.append({**message, "content": rest})
        else:
            out.append(message)
    return out


def verdict_messages(body: dict[str, Any], rules: CompiledRules,
                     tools: CompiledTools | None = None, cache: ScreenCache | None = None
                     ) -> tuple[RequestVerdict, dict[str, Any]]:
    """Screen a Messages request: the verdict (engine.screen_request on the request as chat
    messages, its turn context read with the tool calls and results as chat has them) and
    the fields to forward in place of the client's (`system`, `messages` and every other
    field, screened). Raises BadRequest for a shape that cannot be screened."""
    chat = _chat_messages(body)
    try:
        fields = other_fields(body, rules, cache, ("messages", "system"))
        verdict = screen_request(chat, rules, tools.writes if tools is not None else None,
                                 cache)
    except NestingTooDeep:
        raise BadRequest("the request is nested too deep to be screened",
                         code="invalid_request") from None
    writes = tools.writes if tools is not None else None
    verdict = replace(verdict, context=read_context(_as_chat(chat), writes))
    if verdict.kind != "forward":
        return verdict, fields
    screened = [{**m, "content": _media_out(m.get("content"))} for m in verdict.messages]
    if "system" in body:
        fields["system"] = screened.pop(0)["content"]
    fields["messages"] = screened
    return verdict, fields


async def _verdict(request: web.Request, body: dict[str, Any], rules: CompiledRules,
                   tools: CompiledTools | None) -> tuple[RequestVerdict, dict[str, Any]]:
    """The request screened (in the offload's worker for a long one); fail closed."""
    app = request.app
    try:
        return await app[OFFLOAD].run(request.content_length or 0, verdict_messages, body,
                                      rules, tools, app[SCREEN_CACHE])
    except ProxyError:
        raise
    except Exception as exc:
        app[METRICS].screening_errors.labels("request").inc()
        raise ScreeningFailed(f"screening the request failed ({type(exc).__name__}); nothing "
                              "was sent upstream") from exc


# ---------------------------------------------------------------- the route

async def _messages(request: web.Request) -> web.StreamResponse:
    app = request.app
    settings, record = app[SETTINGS], request[RECORD]
    body = await read_json(request, settings.limits.max_body_bytes)
    rules = compiled_rules(request)
    tools, refusing = compiled_tools(request, rules.language)
    verdict, fields = await _verdict(request, body, rules, tools)
    add_counts(record.counts, verdict.counts)
    record.verdict = verdict.kind
    if verdict.kind != "forward":
        assert verdict.reply is not None
        return await answer(request, body, verdict.reply)
    forward = {**body, **fields}
    if tools is not None:
        forward = offered_tools(tools, forward)
    make_screen = _screen_maker(settings, "chat", verdict, rules, tools, False)
    screen_input = partial(screen_value, rules=rules)
    calls = CallFilter(tools) if tools is not None and refusing else None
    return await _forward(request, settings, forward, body.get("stream") is True,
                          partial(MessageStream, make_screen, screen_input, calls),
                          partial(screen_message, make_screen=make_screen,
                                  screen_input=screen_input, calls=calls))


async def _forward(request: web.Request, settings: Settings, forward: dict[str, Any],
                   stream: bool, make_stream: Any, screen_whole: Any) -> web.StreamResponse:
    """Send the request upstream (`<upstream.anthropic_base_url>/v1/messages`) and its
    answer back, screened."""
    metrics, record = request.app[METRICS], request[RECORD]
    base = settings.upstream.anthropic_base_url
    url = f"{base}/v1/messages"
    started = time.perf_counter()
    answered = False
    try:
        async with request.app[SESSION].post(url, data=orjson.dumps(forward),
                                             allow_redirects=False,
                                             headers=upstream_headers(request, settings)
                                             ) as upstream:
            answered = True
            metrics.upstream_latency_by(record.route).observe(time.perf_counter() - started)
            if upstream.status >= 400:
                return await _refused(request, upstream)
            if upstream.content_type == "text/event-stream":
                screen = make_stream()
                record.outcome = "ok"
                metrics.active_streams.inc()
                try:
                    return await relay(request, upstream, screen, record,
                                       returned_headers(upstream, RETURNED),
                                       settings.limits.max_response_bytes, None,
                                       request.app[OFFLOAD])
                finally:
                    metrics.active_streams.dec()
                    add_counts(record.counts, screen.counts())
            return await _whole_reply(request, upstream, stream, screen_whole)
    except Exception as exc:
        if answered:
            raise
        failed = fault(exc, base)
        count_fault(metrics, failed)
        raise failed from None


async def _refused(request: web.Request, upstream: aiohttp.ClientResponse) -> web.Response:
    """An upstream error status as the client's Anthropic error (its text masked)."""
    request.app[METRICS].upstream_errors_by(f"http_{upstream.status // 100}xx").inc()
    rules = compiled_rules(request)
    error = await error_from_status(upstream,
                                    request.app[SETTINGS].upstream.anthropic_base_url,
                                    lambda text: screen_text(text, rules, "tool").text)
    if isinstance(error, bytes):
        inner = orjson.loads(error)["error"]
        error = ProxyError(inner.get("message") or "", status=upstream.status)
        body = error_body(error)
        if inner.get("type"):
            body["error"]["type"] = inner["type"]
        return web.Response(body=orjson.dumps(body), status=upstream.status,
                            headers=returned_headers(upstream, RETURNED),
                            content_type="application/json")
    raise error


async def _whole_reply(request: web.Request, upstream: aiohttp.ClientResponse, stream: bool,
                       screen_whole: Any) -> web.StreamResponse:
    """A whole message, read (within the limit) and screened; streamed when the client asked
    for a stream and the upstream answered whole."""
    record, limit = request[RECORD], request.app[SETTINGS].limits.max_response_bytes
    try:
        raw = await upstream.content.read(limit + 1)
    except (aiohttp.ClientError, TimeoutError) as exc:
        raise fault(exc, str(upstream.url), answered=True) from None
    if len(raw) > limit:
        raise UpstreamError(f"the upstream's reply is over the limit of {limit} bytes",
                            code="upstream_too_large")
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict) or parsed.get("type") != "message":
        raise UpstreamError("the upstream answered with something that is not a message",
                            code="upstream_protocol")
    try:
        screened, counts = await request.app[OFFLOAD].run(len(raw), screen_whole, parsed)
    except ChunkShapeError as exc:
        raise UpstreamError(f"{exc}; nothing of the reply was sent",
                            code="upstream_protocol") from exc
    except ScreeningError as exc:
        request.app[METRICS].screening_errors.labels("reply").inc()
        raise ScreeningFailed("screening the reply failed; nothing of it was sent") from exc
    add_counts(record.counts, counts)
    headers = returned_headers(upstream, RETURNED)
    if stream:
        return await _stream(request, screened, headers)
    return web.Response(body=orjson.dumps(screened), headers=headers,
                        content_type="application/json")


# ---------------------------------------------------------------- direct answers

def reply_message(body: dict[str, Any], text: str) -> dict[str, Any]:
    """A whole Anthropic message saying `text` (a reply ReplyGuard gives itself)."""
    model = body.get("model") if isinstance(body.get("model"), str) else "replyguard"
    return {"id": f"msg_rg{secrets.token_hex(12)}", "type": "message", "role": "assistant",
            "model": model, "content": [{"type": "text", "text": text}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0}}


async def _stream(request: web.Request, message: dict[str, Any],
                  headers: dict[str, str] | None = None) -> web.StreamResponse:
    response = web.StreamResponse(status=200, headers={**SSE_HEADERS, **(headers or {})})
    await prepare(request, response)
    await response.write(b"".join(encode_event(orjson.dumps(data), name)
                                  for name, data in message_events(message)))
    await response.write_eof()
    return response


async def answer(request: web.Request, body: dict[str, Any], text: str) -> web.StreamResponse:
    """Answer with `text` as the whole reply, as the events that stream it if asked."""
    message = reply_message(body, text)
    if body.get("stream") is True:
        return await _stream(request, message)
    return web.json_response(message, dumps=lambda o: orjson.dumps(o).decode())

