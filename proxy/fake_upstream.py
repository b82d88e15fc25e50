"""A scripted upstream for the demo, the proxy's tests and benchmarks: Chat Completions, the
Responses API (proxy.fake_apis) and Anthropic's Messages API (stream or not, each in its own
wire format), legacy Completions, Embeddings, Models and Moderations, with faults (error
status, delays, dropped streams) scripted per reply: the HTTP app; the model's script is
proxy.fake_script, OpenAI's shapes proxy.fake_chat."""

from __future__ import annotations

import argparse
import asyncio
import itertools
import time

import orjson
from aiohttp import web

from replyguard.proxy import fake_apis, fake_chat
from replyguard.proxy.fake_chat import Events, error, json_response, words
from replyguard.proxy.fake_script import (
    SHOP_SCRIPT,
    Reply,
    Script,
    last_user_turn,
    message_text,
    scripted_model,
)
from replyguard.proxy.sse import DONE, encode_event

__all__ = ["ScriptedUpstream", "main"]


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
            return error(400, "We could not parse the JSON body of your request.")
        if not isinstance(body, dict):
            return error(400, "The request body must be a JSON object.")
        self.seen.append(body)
        given = request.headers.get(key) if key is not None else None
        self.seen_auth.append(given or request.headers.get("Authorization"))
        return body

    async def _fault(self, reply: Reply) -> web.Response | None:
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            return error(reply.status, f"Scripted fault: status {reply.status}.")
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
            return error(400, "'messages' must be a list of message objects.", "messages")
        if isinstance(n := fake_chat.n_choices(body), web.Response):
            return n
        self.last_user_turns.append(last_user_turn(messages))
        reply = self.script(messages)
        if (fault := await self._fault(reply)) is not None:
            return fault
        calls = [self._calls_of(reply) for _ in range(n)]
        sent = n * (words(reply.content) + sum(words(str(c)) for c in reply.tool_calls))
        usage = fake_chat.usage(sum(words(message_text(m.get("content"))) for m in messages), sent)
        head = self._head("chatcmpl", "chat.completion")
        if body.get("stream"):
            size = reply.chunk_chars or self.chunk_chars
            events = [fake_chat.chat_deltas(i, reply, calls[i], size) for i in range(n)]
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
        return json_response(head | {"choices": choices, "usage": usage})

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
            return error(400, messages, "input")
        return await self._api(request, body, messages, anthropic=False)

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request, "x-api-key")
        if isinstance(body, web.Response):
            return body
        messages = fake_apis.messages_chat(body)
        if isinstance(messages, str):
            return json_response(fake_apis.anthropic_error(400, messages), 400)
        return await self._api(request, body, messages, anthropic=True)

    async def _api(self, request: web.Request, body: dict, messages: list[dict], *,
                   anthropic: bool) -> web.StreamResponse:
        """A Responses or Messages request, read as chat `messages`, answered in its API's
        shape: whole, or its event stream when `stream` is true."""
        self.last_user_turns.append(last_user_turn(messages))
        reply = self.script(messages)
        if reply.delay_s:
            await asyncio.sleep(reply.delay_s)
        if reply.status != 200:
            text = f"Scripted fault: status {reply.status}."
            return json_response(fake_apis.anthropic_error(reply.status, text), reply.status) \
                if anthropic else error(reply.status, text)
        sent = words(reply.content) + words(reply.reasoning) + \
            sum(words(str(c)) for c in reply.tool_calls)
        usage = (sum(words(message_text(m.get("content"))) for m in messages), sent)
        size = reply.chunk_chars or self.chunk_chars

        def ids() -> int:
            return next(self._ids)

        def pieces(text: str) -> list[str]:
            return fake_chat.pieces(text, size)

        if anthropic:
            whole = fake_apis.message(body, reply, ids, usage)
            events = fake_apis.message_events
        else:
            whole = fake_apis.response(body, reply, self.model, ids, self.created, usage)
            events = fake_apis.response_events
        if body.get("stream") is True:
            return await self._write(request, reply, events(whole, pieces))
        return json_response(whole)

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        if isinstance(n := fake_chat.n_choices(body), web.Response):
            return n
        prompt = body.get("prompt", "")
        prompts = [prompt] if isinstance(prompt, str) else [str(p) for p in prompt]
        replies = [self.script([{"role": "user", "content": p}]) for p in prompts]
        if (fault := await self._fault(replies[0])) is not None:
            return fault
        size = replies[0].chunk_chars or self.chunk_chars
        pairs = [(r, i * n + j) for i, r in enumerate(replies) for j in range(n)]
        usage = fake_chat.usage(sum(map(words, prompts)), sum(words(r.content) for r, _ in pairs))
        head = self._head("cmpl", "text_completion")

        def choice(text: str, k: int, finish: str | None) -> dict:
            return {"text": text, "index": k, "logprobs": None, "finish_reason": finish}

        if body.get("stream"):
            events = [
                [(choice(p, k, None), True) for p in fake_chat.pieces(r.content, size)]
                + [(choice("", k, r.finish), False)]
                for r, k in pairs
            ]
            return await self._stream(request, body, replies[0], head, events, usage)
        choices = [choice(r.content, k, r.finish) for r, k in pairs]
        return json_response(head | {"choices": choices, "usage": usage})

    async def _embeddings(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        return json_response(fake_chat.embeddings(body))

    async def _moderations(self, request: web.Request) -> web.Response:
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        given = body.get("input", "")
        parts = [given] if isinstance(given, str) else given
        texts = [x if isinstance(x, str) else message_text([x]) for x in parts]
        results = [fake_chat.moderation(text) for text in texts]
        model = body.get("model") or "omni-moderation-latest"
        return json_response({"id": f"modr-{next(self._ids)}", "model": model, "results": results})

    async def _models(self, request: web.Request) -> web.Response:
        model = {"id": self.model, "object": "model", "created": 1700000000, "owned_by": "system"}
        return json_response({"object": "list", "data": [model]})


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
    script = scripted_model(SHOP_SCRIPT, echo=True)

    def shown(messages: list[dict]) -> Reply:
        """The script's reply, each turn received printed first (what the proxy forwarded)."""
        print(f"received: {last_user_turn(messages)}", flush=True)
        return script(messages)

    upstream = ScriptedUpstream(shown, chunk_chars=max(1, args.chunk_chars))
    print(f"fake upstream: http://{args.host}:{args.port}/v1 (Anthropic Messages: "
          f"http://{args.host}:{args.port}; Ctrl-C to stop)")
    web.run_app(upstream.app(), host=args.host, port=args.port, print=None)


if __name__ == "__main__":
    main()
