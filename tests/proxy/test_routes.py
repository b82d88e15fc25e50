"""The other routes: legacy completions (prompt and text screened), embeddings (input screened
before forwarding), models passed through, unknown routes refused, passthrough routes."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
import yarl
from conftest import DONE, RawUpstream, events

from replyguard.engine.request import WITHHELD_REPLY
from replyguard.proxy.fake_chat import fake_embedding
from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream

CARD = "4111 1111 1111 1111"


def fixed(content: str) -> ScriptedUpstream:
    return ScriptedUpstream(lambda _m: Reply(content=content), created=1)


async def test_legacy_completion_whole(stack) -> None:
    up = fixed(f"Card {CARD} ok. It is a guaranteed refund.")
    s = await stack(up)
    body = {"model": "m", "prompt": f"card {CARD}"}
    async with s.client.post("/v1/completions", json=body) as resp:
        assert resp.status == 200
        got = await resp.json()
    assert up.seen == [{"model": "m", "prompt": "card **** 1111"}]
    assert got == {
        "id": "cmpl-1", "object": "text_completion", "created": 1, "model": "gpt-4o-mini",
        "system_fingerprint": "fp_fake",
        "choices": [{"text": "Card **** 1111 ok. ", "index": 0, "logprobs": None,
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 11, "total_tokens": 14},
    }  # fmt: skip


async def test_legacy_completion_streamed(stack) -> None:
    up = fixed(f"Card {CARD} ok. Bye")
    s = await stack(up)
    body = {"model": "m", "prompt": [f"card {CARD}"], "stream": True}
    async with s.client.post("/v1/completions", json=body) as resp:
        assert resp.status == 200
        raw = await resp.read()
    assert up.seen == [{"model": "m", "prompt": ["card **** 1111"], "stream": True}]
    head = ('{"id":"cmpl-1","object":"text_completion","created":1,"model":"gpt-4o-mini",'
            '"system_fingerprint":"fp_fake","choices":[')

    def out(text: str, finish: str | None = None) -> bytes:
        choice = orjson.dumps({"text": text, "index": 0, "logprobs": None,
                               "finish_reason": finish}).decode()
        return f"data: {head}{choice}]}}\n\n".encode()

    assert raw == b"".join([out("Card **** 1111 ok. "), out("Bye"), out("", "stop"), DONE])


@pytest.mark.parametrize("stream", [False, True])
async def test_legacy_completion_withheld_prompt(stack, stream: bool) -> None:
    up = fixed("never sent")
    s = await stack(up)
    body = {"model": "m", "prompt": "ssn 123-45-6789", "stream": stream}
    async with s.client.post("/v1/completions", json=body) as resp:
        assert resp.status == 200
        raw = await resp.read()
    if stream:
        got = events(raw)
        assert got[-1] == "[DONE]"
        assert "".join(e["choices"][0]["text"] for e in got[:-1]) == WITHHELD_REPLY["en"]
        assert got[-2]["choices"][0]["finish_reason"] == "stop"
    else:
        got = orjson.loads(raw)
        assert got["object"] == "text_completion"
        assert got["choices"][0]["text"] == WITHHELD_REPLY["en"]
    assert up.seen == []


async def test_legacy_token_prompt_refused(stack) -> None:
    s = await stack(fixed("x"))
    async with s.client.post("/v1/completions", json={"model": "m", "prompt": [1, 2]}) as resp:
        assert resp.status == 400
        assert (await resp.json())["error"]["code"] == "invalid_prompt"


async def test_embeddings_input_masked_before_forwarding(stack) -> None:
    up = fixed("")
    s = await stack(up)
    body = {"model": "e", "input": [f"card {CARD}", "plain"]}
    async with s.client.post("/v1/embeddings", json=body) as resp:
        assert resp.status == 200
        got = await resp.json()
    assert up.seen == [{"model": "e", "input": ["card **** 1111", "plain"]}]
    assert [d["embedding"] for d in got["data"]] == [
        fake_embedding("card **** 1111"), fake_embedding("plain")]


async def test_embeddings_withheld_is_400(stack) -> None:
    up = fixed("")
    s = await stack(up)
    body = {"model": "e", "input": "ssn 123-45-6789"}
    async with s.client.post("/v1/embeddings", json=body) as resp:
        assert resp.status == 400
        got = await resp.json()
    assert got == {"error": {
        "message": "the input holds details that are not sent on (national_id)",
        "type": "invalid_request_error", "param": "input", "code": "withheld"}}
    assert up.seen == []


async def test_models_passed_through(stack) -> None:
    s = await stack(fixed(""))
    async with s.client.get("/v1/models") as resp:
        assert resp.status == 200
        assert resp.content_type == "application/json"
        got = await resp.json()
    assert got == {"object": "list", "data": [{"id": "gpt-4o-mini", "object": "model",
                                               "created": 1700000000, "owned_by": "system"}]}


@pytest.mark.parametrize(("method", "path"), [
    ("GET", "/v1/files"), ("POST", "/v1/images/generations"), ("GET", "/admin"),
    ("POST", "/v1/chat/completions/extra"),
])  # fmt: skip
async def test_unknown_route_is_openai_404(stack, method: str, path: str) -> None:
    up = RawUpstream([b"{}"], content_type="application/json")
    s = await stack(up)
    async with s.client.request(method, path, json={}) as resp:
        assert resp.status == 404
        got = await resp.json()
    assert got["error"]["type"] == "invalid_request_error"
    assert got["error"]["code"] == "unknown_route"
    assert "passthrough" in got["error"]["message"]
    assert up.seen == []


def _openai_405(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "param": None,
                      "code": "method_not_allowed"}}


#: (method, path, the `Allow` header, the body): a client's mistake, told in the route's API
#: shape with the methods it does serve; a method of no HTTP standard (WebDAV's) is not named.
WRONG_METHODS = [
    ("GET", "/v1/chat/completions", "POST",
     _openai_405("GET is not allowed on this route; use POST")),
    ("PUT", "/v1/responses", "POST", _openai_405("PUT is not allowed on this route; use POST")),
    ("DELETE", "/v1/models", "GET, HEAD",
     _openai_405("DELETE is not allowed on this route; use GET or HEAD")),
    ("PROPFIND", "/v1/embeddings", "POST",
     _openai_405("this method is not allowed on this route; use POST")),
    ("GET", "/v1/messages", "POST",
     {"type": "error", "error": {"type": "invalid_request_error",
                                 "message": "GET is not allowed on this route; use POST"}}),
]


@pytest.mark.parametrize(("method", "path", "allow", "body"), WRONG_METHODS)
async def test_wrong_method_is_a_405_in_the_routes_shape(
        stack, method: str, path: str, allow: str, body: dict[str, Any]) -> None:
    s = await stack(fixed(""))
    async with s.client.request(method, path) as resp:
        assert (resp.status, resp.headers["Allow"], await resp.json()) == (405, allow, body)


ANTHROPIC_404 = {"type": "error", "error": {
    "type": "not_found_error",
    "message": "this route is not served by ReplyGuard: of the Anthropic API only POST "
               "/v1/messages is (a `passthrough` route goes to `upstream.base_url` unscreened, "
               "not to the Anthropic upstream)"}}


@pytest.mark.parametrize(("method", "path"), [
    ("POST", "/v1/messages/count_tokens"), ("POST", "/v1/messages/batches"),
    ("GET", "/v1/messages/batches/msgbatch_1"),
])
async def test_an_anthropic_route_not_served_is_an_anthropic_404(
        stack, method: str, path: str) -> None:
    up = RawUpstream([b"{}"], content_type="application/json")
    s = await stack(up)
    body = {"model": "m", "messages": [{"role": "user", "content": "my card 4111 1111 1111 1111"}]}
    async with s.client.request(method, path, json=body) as resp:
        assert (resp.status, await resp.json()) == (404, ANTHROPIC_404)
    assert up.seen == []


async def test_passthrough_route_forwarded(stack) -> None:
    up = RawUpstream([b'{"object":"list","data":[]}'], content_type="application/json")
    s = await stack(up, passthrough="/v1/files,/v1/batches")
    async with s.client.post("/v1/files/abc?purpose=x", json={"a": 1}) as resp:
        assert resp.status == 200
        assert await resp.read() == b'{"object":"list","data":[]}'
    async with s.client.get("/v1/batches") as resp:
        assert resp.status == 200
    assert up.seen == [{"a": 1}, None]
    assert up.paths == ["/v1/files/abc?purpose=x", "/v1/batches"]


_DOTS = "the path holds a '.' or '..' segment"
_ESCAPE = "the path holds an encoded '%', '/', '\\', ';' or control character"
_CHAR = "the path holds a '\\', ';' or control character"
_NFKC = "the path holds a character read as '.', '/', '\\', ';' or '%' once normalised (NFKC)"


@pytest.mark.parametrize(("tail", "reason"), [
    ("/../chat/completions", _DOTS),
    ("/%2e%2e/chat/completions", _DOTS),
    ("/%2E%2E/chat/completions", _DOTS),
    ("/./abc", _DOTS),
    ("/a%2F..%2F..%2Fchat/completions", _ESCAPE),
    ("/..%5Cchat/completions", _ESCAPE),
    ("/..%5cchat/completions", _ESCAPE),
    ("/%252e%252e/chat/completions", _ESCAPE),
    ("/..%00/chat/completions", _ESCAPE),
    ("/..%3B/chat/completions", _ESCAPE),
    ("/..;/chat/completions", _CHAR),
    ("/..\\chat/completions", _CHAR),
    ("/%EF%BC%8E%EF%BC%8E/chat/completions", _NFKC),
    ("/%EF%BC%8F../chat/completions", _NFKC),
    ("/%E2%80%A5/chat/completions", _NFKC),
    ("//chat/completions", "the path holds an empty segment ('//')"),
    ("/%ff", "the path's escapes are not UTF-8"),
])  # fmt: skip
async def test_passthrough_never_reaches_another_route_by_an_ambiguous_path(
        stack, tail: str, reason: str) -> None:
    # An upstream (or a server in front of it) could normalise such a path to another route
    # (`/v1/files/../chat/completions` is the chat route), so that a passthrough prefix would
    # serve a screened route unscreened: refused, without the path in the message.
    up = RawUpstream([b'{"object":"list","data":[]}'], content_type="application/json")
    s = await stack(up, passthrough="/v1/files")
    url = yarl.URL(str(s.client.make_url("/v1/files")) + tail, encoded=True)
    body = {"model": "m", "messages": [{"role": "user", "content": "my card 4111 1111 1111 1111"}]}
    async with s.client.session.post(url, json=body) as resp:
        assert resp.status == 404
        assert (await resp.json())["error"] == {
            "message": f"this path is not served by ReplyGuard: {reason}",
            "type": "invalid_request_error", "param": None, "code": "unknown_route"}
    assert up.paths == []


@pytest.mark.parametrize(("tail", "forwarded"), [
    ("/file-abc/content?x=1&y=%2F", "/v1/files/file-abc/content?x=1&y=%2F"),
    ("/a%20b", "/v1/files/a%20b"),
    ("/caf%C3%A9", "/v1/files/caf%C3%A9"),
    ("/a%7Eb", "/v1/files/a~b"),
    ("/", "/v1/files/"),
])  # fmt: skip
async def test_passthrough_path_forwarded_in_one_encoding(stack, tail: str,
                                                          forwarded: str) -> None:
    up = RawUpstream([b"{}"], content_type="application/json")
    s = await stack(up, passthrough="/v1/files")
    url = yarl.URL(str(s.client.make_url("/v1/files")) + tail, encoded=True)
    async with s.client.session.get(url) as resp:
        assert resp.status == 200
    assert up.paths == [forwarded]


async def test_authorization_forwarded_unless_api_key_set(stack) -> None:
    up = fixed("Ok.")
    s = await stack(up)
    headers = {"Authorization": "Bearer client-key"}
    body: dict[str, Any] = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    async with s.client.post("/v1/chat/completions", json=body, headers=headers) as resp:
        assert resp.status == 200
    up2 = fixed("Ok.")
    s2 = await stack(up2, upstream__api_key="proxy-key")
    async with s2.client.post("/v1/chat/completions", json=body, headers=headers) as resp:
        assert resp.status == 200
    assert up.seen_auth == ["Bearer client-key"]
    assert up2.seen_auth == ["Bearer proxy-key"]


@pytest.mark.parametrize(("path", "want"), [
    ("/healthz", {"status": "ok", "upstream": {"reachable": None}}),
    ("/readyz", {"status": "ready", "upstream": {"reachable": None}}),
])  # fmt: skip
async def test_health(stack, path: str, want: dict[str, Any]) -> None:
    s = await stack(fixed(""))
    async with s.client.get(path) as resp:
        assert resp.status == 200
        got = await resp.json()
    assert got["upstream"].pop("since_s") >= 0
    assert got == want


@pytest.mark.parametrize(("given", "kept"), [("req-42", True), ("", False), ("x" * 200, False)])
async def test_request_id_echoed_or_made(stack, given: str, kept: bool) -> None:
    s = await stack(fixed("Ok."))
    headers = {"X-Request-Id": given} if given else {}
    async with s.client.get("/v1/nope", headers=headers) as resp:
        rid = resp.headers["X-Request-Id"]
    if kept:
        assert rid == given
    else:
        assert len(rid) == 16 and int(rid, 16) >= 0


@pytest.mark.parametrize(("body", "verdict"), [
    ({"model": "m", "messages": [{"role": "user", "content": "hi"}]}, "forward"),
    ({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}, "forward"),
    ({"model": "m", "messages": [{"role": "user", "content": "ssn 123-45-6789"}]}, "withhold"),
    ({"model": "m", "messages": [{"role": "user", "content": "ssn 123-45-6789"}],
      "stream": True}, "withhold"),
    ({"model": "m", "messages": []}, None),
])
async def test_request_id_headers_on_whole_and_streamed_replies(stack, body: dict[str, Any],
                                                                verdict: str | None) -> None:
    """Whole, streamed (relayed from the upstream, or answered directly) and error replies all
    carry the request id headers, and the verdict once the turn was screened."""
    s = await stack(fixed("Ok."))
    async with s.client.post("/v1/chat/completions", json=body,
                             headers={"X-Request-Id": "req-7"}) as resp:
        await resp.read()
    assert resp.headers["X-ReplyGuard-Request-Id"] == "req-7"
    assert resp.headers["X-Request-Id"] == "req-7"
    assert resp.headers.get("X-ReplyGuard-Verdict") == verdict
