"""A scripted upstream for the demo, the proxy's tests and benchmarks: Chat Completions, the
Responses API (proxy.fake_apis) and Anthropic's Messages API (stream or not, each in its own
wire format), legacy Completions, Embeddings, Models and Moderations, with faults (error
status, delays, dropped streams) scripted per reply."""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import itertools
import re
import struct
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson
from aiohttp import web

from replyguard.proxy import fake_apis
from replyguard.proxy.sse import DONE, encode_event

__all__ = ["SHOP_SCRIPT", "Reply", "Script", "ScriptedUpstream", "fake_embedding", "seed_script"]


@dataclass(frozen=True)
class Reply:
    """What the fake model answers to one request, plus the faults to inject for tests.

    `tool_calls`: each {"name": str, "arguments": dict | str}; a dict is sent as compact JSON and
    ids are generated "call_<n>". `finish_reason` defaults to "tool_calls" when there are tool
    calls, else "stop". `status` != 200 answers an OpenAI-style error with that status.
    `delay_s` waits before answering; `chunk_delay_s` waits between stream chunks; `drop_after`
    aborts a stream's connection once that many content chunks were written (no [DONE]);
    `chunk_chars` overrides the upstream's content chunk size (in characters). `reasoning`:
    the model's reasoning, sent by the Responses API as a reasoning item's summary and by
    the Messages API as a (signed) thinking block, not by chat.
    """

    content: str = ""
    tool_calls: tuple[dict, ...] = ()
    finish_reason: str | None = None
    status: int = 200
    delay_s: float = 0.0
    chunk_delay_s: float = 0.0
    drop_after: int | None = None
    chunk_chars: int | None = None
    reasoning: str = ""

    @property
    def finish(self) -> str:
        """The finish_reason sent: the explicit one, else "tool_calls" or "stop"."""
        return self.finish_reason or ("tool_calls" if self.tool_calls else "stop")


Script = Callable[[list[dict]], Reply]
"""The fake model: the request's messages in, the Reply out."""

SHOP_SCRIPT: dict[str, tuple[dict | None, str]] = {
    "zork": (None, ""),
    "my card is **** 1111, is it on file?": (
        None,
        "Your card 4111 1111 1111 1111 is on file; the card 4111 1111 1111 1112 is not.",
    ),
    "the parcel for 4412 vanished": (
        {"name": "refund_card", "arguments": {"order_id": "4412", "amount": 12.50}},
        "I've refunded 12.50 pounds for order 4412. It is a guaranteed refund.",
    ),
    "charge my card on file for order 4412": (
        {"name": "charge_card", "arguments": {"order_id": "4412",
                                              "card": "4111 1111 1111 1111"}},
        "Done: order 4412 is charged.",
    ),
}
"""The shop's script: last user turn -> (tool call or None, reply text)."""


def _text(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def seed_script(script: Mapping[str, tuple[dict | None, str]], *, echo: bool = False
                ) -> Script:
    """The scripted model: keyed by the last user message's content; if the conversation ends with
    the user message and a call is given, answer with that tool call; else the reply text.
    Unknown turn -> Reply(content=""), or with `echo` the turn said back (`You said: ...`):
    what the proxy then releases shows its reply screen at work."""

    def model(messages: list[dict]) -> Reply:
        users = [m for m in messages if m.get("role") == "user"]
        said = _text(users[-1].get("content")) if users else ""
        entry = script.get(said)
        if entry is None:
            return Reply(content=f"You said: {said}") if echo and said else Reply()
        call, reply = entry
        if messages[-1].get("role") == "user" and call:
            return Reply(tool_calls=(call,))
        return Reply(content=reply)

    return model


_ERRORS = {  # status -> (type, code), as OpenAI sends them
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def _error(status: int, message: str, param: str | None = None) -> web.Response:
    kind, code = _ERRORS.get(status, ("server_error", None))
    err = {"message": message, "type": kind, "param": param, "code": code}
    return _json({"error": err}, status)


def _json(obj: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(obj), status=status, content_type="application/json")


def _n(body: dict) -> int | web.Response:
    n = body.get("n")
    if n is None:
        return 1
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return _error(400, f"{n!r} is not valid for 'n': it must be an integer >= 1.", "n")
    return n


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), max(size, 1))]


def _words(text: str) -> int:
    return len(text.split())


def fake_embedding(item: str | list[int]) -> list[float]:
    """A deterministic unit vector of dimension 8 from SHA-256 of the input (float32 values, so
    the "float" and "base64" encodings give the same numbers)."""
    key = item.encode("utf-8") if isinstance(item, str) else orjson.dumps(item)
    raw = [u / 2**31 - 1.0 for u in struct.unpack("<8I", hashlib.sha256(key).digest())]
    norm = sum(x * x for x in raw) ** 0.5 or 1.0
    return list(struct.unpack("<8f", struct.pack("<8f", *(x / norm for x in raw))))


_CATEGORIES = (
    "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit",
    "illicit/violent", "self-harm", "self-harm/instructions", "self-harm/intent", "sexual",
    "sexual/minors", "violence", "violence/graphic",
)  # fmt: skip
_KILL = re.compile(r"\bkill\b", re.IGNORECASE)
Events = list[list[tuple[dict, bool]]]  # per choice: (choice object, is a content chunk)


class ScriptedUpstream:
    """An OpenAI-compatible server answering from `script`.

    Records `seen` (each valid request body, in order, for chat, Responses, Messages,
    completions, embeddings and moderations), `seen_auth` (the Authorization header of each,
    on Messages the `x-api-key` one when sent, in step with `seen`), `last_user_turns` (the
    last user message of each chat, Responses or Messages request: what the model was given)
    and
    `cancelled` (streams whose client went away before the end). Responses carry `model` as
    given here, whatever the request asked; `created` fixes the timestamp (default: now).
    """

    def __init__(
        self,
        script: Script,
        *,
        chunk_chars: int = 4,
        model: str = "gpt-4o-mini",
        created: int | None = None,
    ) -> None:
        self.script = script
        self.chunk_chars = chunk_chars
        self.model = model
        self.created = created
        self.seen: list[dict] = []
        self.seen_auth: list[str | None] = []
        self.last_user_turns: list[str] = []
        self.cancelled = 0
        self._ids = itertools.count(1)
        self._calls = itertools.count(1)
        self._runner: web.AppRunner | None = None

    def app(self) -> web.Application:
        """A fresh aiohttp application serving the /v1 routes (for `aiohttp_client`)."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/responses", self._responses)
        app.router.add_post("/v1/messages", self._messages)
        app.router.add_post("/v1/completions", self._completions)
        app.router.add_post("/v1/embeddings", self._embeddings)
        app.router.add_post("/v1/moderations", self._moderations)
        app.router.add_get("/v1/models", self._models)
        return app

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve on host:port (0: any free port); return the base URL "http://host:port/v1"."""
        self._runner = web.AppRunner(self.app(), access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        port = self._runner.addresses[0][1]
        return f"http://{host}:{port}/v1"

    async def close(self) -> None:
        """Stop serving (a no-op if not started)."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def _head(self, prefix: str, obj: str) -> dict:
        created = self.created if self.created is not None else int(time.time())
        return {
            "id": f"{prefix}-{next(self._ids)}", "object": obj, "created": created,
            "model": self.model, "system_fingerprint": "fp_fake",
        }  # fmt: skip

    async def _body(self, request: web.Request, key: str | None = None
                    ) -> dict | web.Response:
        try:
            body = orjson.loads(await request.read())
        except orjson.JSONDecodeError:
            return _error(400, "We could not parse the JSON body of your request.")
        if not isinstance(body, dict):
            return _error(400, "The request body must be a JSON object.")
        self.seen.append(body)
        given = request.headers.get(key) if key is not None else None
        self.seen_auth.append(given or request.headers.get("Authorization"))
        return body

    async def _fault(self, reply: Reply) -> web.Response | None:
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            return _error(reply.status, f"Scripted fault: status {reply.status}.")
        return None

    def _calls_of(self, reply: Reply) -> list[dict]:
        out = []
        for call in reply.tool_calls:
            args = call.get("arguments", {})
            args = args if isinstance(args, str) else orjson.dumps(args).decode()
            fn = {"name": call["name"], "arguments": args}
            out.append({"id": f"call_{next(self._calls)}", "type": "function", "function": fn})
        return out

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        messages = body.get("messages")
        if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
            return _error(400, "'messages' must be a list of message objects.", "messages")
        if isinstance(n := _n(body), web.Response):
            return n
        users = [m for m in messages if m.get("role") == "user"]
        self.last_user_turns.append(_text(users[-1].get("content")) if users else "")
        reply = self.script(messages)
        if (fault := await self._fault(reply)) is not None:
            return fault
        calls = [self._calls_of(reply) for _ in range(n)]
        sent = n * (_words(reply.content) + sum(_words(str(c)) for c in reply.tool_calls))
        usage = self._usage(sum(_words(_text(m.get("content"))) for m in messages), sent)
        head = self._head("chatcmpl", "chat.completion")
        if body.get("stream"):
            size = reply.chunk_chars or self.chunk_chars
            events = [self._chat_deltas(i, reply, calls[i], size) for i in range(n)]
            head["object"] = "chat.completion.chunk"
            return await self._stream(request, body, reply, head, events, usage)
        choices = []
        for i in range(n):
            message: dict = {"role": "assistant", "content": reply.content}
            if calls[i]:
                message["content"] = reply.content or None
                message["tool_calls"] = calls[i]
            message["refusal"] = None
            choice = {"index": i, "message": message, "logprobs": None}
            choices.append(choice | {"finish_reason": reply.finish})
        return _json(head | {"choices": choices, "usage": usage})

    @staticmethod
    def _chat_deltas(i: int, reply: Reply, calls: list[dict], size: int) -> list:
        def choice(delta: dict, finish: str | None = None) -> dict:
            return {"index": i, "delta": delta, "logprobs": None, "finish_reason": finish}

        out = [(choice({"role": "assistant", "content": ""}), False)]
        out += [(choice({"content": p}), True) for p in _pieces(reply.content, size)]
        for k, call in enumerate(calls):
            first = call | {"function": {"name": call["function"]["name"], "arguments": ""}}
            out.append((choice({"tool_calls": [{"index": k} | first]}), False))
            for p in _pieces(call["function"]["arguments"], size):
                frag = {"index": k, "function": {"arguments": p}}
                out.append((choice({"tool_calls": [frag]}), False))
        return out + [(choice({}, reply.finish), False)]

    @staticmethod
    def _usage(prompt: int, completion: int) -> dict:
        total = prompt + completion
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}

    async def _stream(
        self, request: web.Request, body: dict, reply: Reply, head: dict, events: Events,
        usage: dict,
    ) -> web.StreamResponse:  # fmt: skip
        """Write the choices' chunks interleaved, each with its own write, then usage and [DONE]."""
        with_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        chunks = [
            (head | {"choices": [choice]} | ({"usage": None} if with_usage else {}), content)
            for row in itertools.zip_longest(*events) for choice, content in filter(None, row)
        ]  # fmt: skip
        if with_usage:
            chunks.append((head | {"choices": [], "usage": usage}, False))
        sse = [(encode_event(orjson.dumps(chunk)), content) for chunk, content in chunks]
        return await self._write(request, reply, [*sse, (DONE, False)])

    async def _write(self, request: web.Request, reply: Reply,
                     events: list[tuple[bytes, bool]]) -> web.StreamResponse:
        """Write a stream's events (bytes, whether it carries reply text), each with its own
        write, the reply's faults applied (`drop_after` counts the text-carrying ones)."""
        resp = web.StreamResponse(headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        resp.content_type = "text/event-stream"
        written = 0
        try:
            await resp.prepare(request)
            for j, (data, content) in enumerate(events):
                if reply.drop_after is not None and written >= reply.drop_after:
                    if request.transport is not None:
                        request.transport.abort()
                    return resp
                if j and reply.chunk_delay_s:
                    await asyncio.sleep(reply.chunk_delay_s)
                await resp.write(data)
                written += content
            await resp.write_eof()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        except ConnectionResetError:  # the client went away: nothing left to write to
            self.cancelled += 1
        return resp

    async def _responses(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        messages = fake_apis.responses_chat(body)
        if isinstance(messages, str):
            return _error(400, messages, "input")
        return await self._api(request, body, messages, anthropic=False)

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request, "x-api-key")
        if isinstance(body, web.Response):
            return body
        messages = fake_apis.messages_chat(body)
        if isinstance(messages, str):
            return _json(fake_apis.anthropic_error(400, messages), 400)
        return await self._api(request, body, messages, anthropic=True)

    async def _api(self, request: web.Request, body: dict, messages: list[dict], *,
                   anthropic: bool) -> web.StreamResponse:
        """A Responses or Messages request, read as chat `messages`, answered in its API's
        shape: whole, or its event stream when `stream` is true."""
        users = [m for m in messages if m.get("role") == "user"]
        self.last_user_turns.append(_text(users[-1].get("content")) if users else "")
        reply = self.script(messages)
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            text = f"Scripted fault: status {reply.status}."
            return _json(fake_apis.anthropic_error(reply.status, text), reply.status) \
                if anthropic else _error(reply.status, text)
        sent = _words(reply.content) + _words(reply.reasoning) + \
            sum(_words(str(c)) for c in reply.tool_calls)
        usage = (sum(_words(_text(m.get("content"))) for m in messages), sent)
        size = reply.chunk_chars or self.chunk_chars

        def ids() -> int:
            return next(self._ids)

        def pieces(text: str) -> list[str]:
            return _pieces(text, size)

        if anthropic:
            whole = fake_apis.message(body, reply, ids, usage)
            events = fake_apis.message_events
        else:
            whole = fake_apis.response(body, reply, self.model, ids, self.created, usage)
            events = fake_apis.response_events
        if body.get("stream") is True:
            return await self._write(request, reply, events(whole, pieces))
        return _json(whole)

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        if isinstance(n := _n(body), web.Response):
            return n
        prompt = body.get("prompt", "")
        prompts = [prompt] if isinstance(prompt, str) else [str(p) for p in prompt]
        replies = [self.script([{"role": "user", "content": p}]) for p in prompts]
        if (fault := await self._fault(replies[0])) is not None:
            return fault
        size = replies[0].chunk_chars or self.chunk_chars
        pairs = [(r, i * n + j) for i, r in enumerate(replies) for j in range(n)]
        usage = self._usage(sum(map(_words, prompts)), sum(_words(r.content) for r, _ in pairs))
        head = self._head("cmpl", "text_completion")

        def choice(text: str, k: int, finish: str | None) -> dict:
            return {"text": text, "index": k, "logprobs": None, "finish_reason": finish}

        if body.get("stream"):
            events = [
                [(choice(p, k, None), True) for p in _pieces(r.content, size)]
                + [(choice("", k, r.finish), False)]
                for r, k in pairs
            ]
            return await self._stream(request, body, replies[0], head, events, usage)
        choices = [choice(r.content, k, r.finish) for r, k in pairs]
        return _json(head | {"choices": choices, "usage": usage})

    async def _embeddings(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        given = body.get("input", "")
        one = isinstance(given, str) or (bool(given) and isinstance(given[0], int))
        items = [given] if one else given
        data = []
        for i, item in enumerate(items):
            vec: Any = fake_embedding(item)
            if body.get("encoding_format") == "base64":
                vec = base64.b64encode(struct.pack("<8f", *vec)).decode()
            data.append({"object": "embedding", "index": i, "embedding": vec})
        tokens = sum(_words(x) if isinstance(x, str) else len(x) for x in items)
        model = body.get("model") or "text-embedding-3-small"
        usage = {"prompt_tokens": tokens, "total_tokens": tokens}
        return _json({"object": "list", "data": data, "model": model, "usage": usage})

    async def _moderations(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        given = body.get("input", "")
        parts = [given] if isinstance(given, str) else given
        texts = [x if isinstance(x, str) else _text([x]) for x in parts]
        results = []
        for text in texts:
            hit = bool(_KILL.search(text))
            cats = {c: hit and c == "violence" for c in _CATEGORIES}
            scores = {c: (0.97 if cats[c] else 0.0001) for c in _CATEGORIES}
            types = {c: ["text"] for c in _CATEGORIES}
            results.append({
                "flagged": hit, "categories": cats, "category_scores": scores,
                "category_applied_input_types": types,
            })  # fmt: skip
        model = body.get("model") or "omni-moderation-latest"
        return _json({"id": f"modr-{next(self._ids)}", "model": model, "results": results})

    async def _models(self, request: web.Request) -> web.Response:
        model = {"id": self.model, "object": "model", "created": 1700000000, "owned_by": "system"}
        return _json({"object": "list", "data": [model]})


def main(argv: list[str] | None = None) -> None:
    """`replyguard fake-upstream --port 9000`: serve the shop's script, any other turn echoed
    back, until Ctrl-C: chat completions and the Responses API under `/v1`, Anthropic's
    Messages API at `/v1/messages` (its root is the server's). Each user turn it receives is
    printed (`received: ...`): what the proxy forwarded."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--chunk-chars", type=int, default=4)
    args = parser.parse_args(argv)
    script = seed_script(SHOP_SCRIPT, echo=True)

    def shown(messages: list[dict]) -> Reply:
        """The script's reply, each turn received printed first (what the proxy forwarded)."""
        users = [m for m in messages if m.get("role") == "user"]
        print(f"received: {_text(users[-1].get('content')) if users else ''}", flush=True)
        return script(messages)

    upstream = ScriptedUpstream(shown, chunk_chars=max(1, args.chunk_chars))
    print(f"fake upstream: http://{args.host}:{args.port}/v1 (Anthropic Messages: "
          f"http://{args.host}:{args.port}; Ctrl-C to stop)")
    web.run_app(upstream.app(), host=args.host, port=args.port, print=None)


if __name__ == "__main__":
    main()
