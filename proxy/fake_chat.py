"""The fake upstream's OpenAI shapes: errors as OpenAI sends them, Chat Completions' stream
chunks and usage, Embeddings' vectors and Moderations' results, for the HTTP handlers of
proxy.fake_upstream. Pure."""

from __future__ import annotations

import base64
import hashlib
import re
import struct
from typing import Any

import orjson
from aiohttp import web

from replyguard.proxy.fake_script import Reply

__all__ = ["Events", "chat_deltas", "embeddings", "error", "fake_embedding", "json_response",
           "moderation", "n_choices", "pieces", "usage", "words"]

_ERRORS = {  # status -> (type, code), as OpenAI sends them
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}
Events = list[list[tuple[dict, bool]]]  # per choice: (choice object, is a content chunk)


def error(status: int, message: str, param: str | None = None) -> web.Response:
    """An OpenAI error response of `status`."""
    kind, code = _ERRORS.get(status, ("server_error", None))
    err = {"message": message, "type": kind, "param": param, "code": code}
    return json_response({"error": err}, status)


def json_response(obj: Any, status: int = 200) -> web.Response:
    return web.Response(body=orjson.dumps(obj), status=status, content_type="application/json")


def n_choices(body: dict) -> int | web.Response:
    """The request's `n` (1 when not given), or the 400 OpenAI answers to a bad one."""
    n = body.get("n")
    if n is None:
        return 1
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        return error(400, f"{n!r} is not valid for 'n': it must be an integer >= 1.", "n")
    return n


def pieces(text: str, size: int) -> list[str]:
    """`text` cut in pieces of `size` characters (the stream's chunks)."""
    return [text[i : i + size] for i in range(0, len(text), max(size, 1))]


def words(text: str) -> int:
    """The fake's token count: the words of `text`."""
    return len(text.split())


def usage(prompt: int, completion: int) -> dict:
    total = prompt + completion
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": total}


def chat_deltas(i: int, reply: Reply, calls: list[dict], size: int) -> list:
    """Choice `i`'s stream chunks: the role, the content in pieces of `size`, each tool call's
    name then its arguments in pieces, the finish; each with whether it carries content."""
    def choice(delta: dict, finish: str | None = None) -> dict:
        return {"index": i, "delta": delta, "logprobs": None, "finish_reason": finish}

    out = [(choice({"role": "assistant", "content": ""}), False)]
    out += [(choice({"content": p}), True) for p in pieces(reply.content, size)]
    for k, call in enumerate(calls):
        first = call | {"function": {"name": call["function"]["name"], "arguments": ""}}
        out.append((choice({"tool_calls": [{"index": k} | first]}), False))
        for p in pieces(call["function"]["arguments"], size):
            frag = {"index": k, "function": {"arguments": p}}
            out.append((choice({"tool_calls": [frag]}), False))
    return out + [(choice({}, reply.finish), False)]


def fake_embedding(item: str | list[int]) -> list[float]:
    """A deterministic unit vector of dimension 8 from SHA-256 of the input (float32 values, so
    the "float" and "base64" encodings give the same numbers)."""
    key = item.encode("utf-8") if isinstance(item, str) else orjson.dumps(item)
    raw = [u / 2**31 - 1.0 for u in struct.unpack("<8I", hashlib.sha256(key).digest())]
    norm = sum(x * x for x in raw) ** 0.5 or 1.0
    return list(struct.unpack("<8f", struct.pack("<8f", *(x / norm for x in raw))))


def embeddings(body: dict) -> dict:
    """The Embeddings answer to a request `body`: one `fake_embedding` an input (a string, a
    list of token ids, or a list of either), as floats or base64 (`encoding_format`)."""
    given = body.get("input", "")
    one = isinstance(given, str) or (bool(given) and isinstance(given[0], int))
    items = [given] if one else given
    data = []
    for i, item in enumerate(items):
        vec: Any = fake_embedding(item)
        if body.get("encoding_format") == "base64":
            vec = base64.b64encode(struct.pack("<8f", *vec)).decode()
        data.append({"object": "embedding", "index": i, "embedding": vec})
    tokens = sum(words(x) if isinstance(x, str) else len(x) for x in items)
    model = body.get("model") or "text-embedding-3-small"
    return {"object": "list", "data": data, "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


_CATEGORIES = (
    "harassment", "harassment/threatening", "hate", "hate/threatening", "illicit",
    "illicit/violent", "self-harm", "self-harm/instructions", "self-harm/intent", "sexual",
    "sexual/minors", "violence", "violence/graphic",
)  # fmt: skip
_KILL = re.compile(r"\bkill\b", re.IGNORECASE)


def moderation(text: str) -> dict:
    """A Moderations result for `text`: flagged for violence when it says "kill", else clean."""
    hit = bool(_KILL.search(text))
    cats = {c: hit and c == "violence" for c in _CATEGORIES}
    scores = {c: (0.97 if cats[c] else 0.0001) for c in _CATEGORIES}
    types = {c: ["text"] for c in _CATEGORIES}
    return {
        "flagged": hit, "categories": cats, "category_scores": scores,
        "category_applied_input_types": types,
    }  # fmt: skip
