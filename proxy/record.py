"""What one request did: a typed record filled in as the request goes (the routes, the relay,
the guardrails) and read once at its end (`proxy.app.record_request`: metrics, access log).
It holds identifiers, outcomes, timings and counts, never any text of the request or reply.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

__all__ = ["APIS", "RECORD", "ROUTE_APIS", "RequestRecord"]

#: The API each served model route speaks: the `api` of its record, access log line and
#: metric series. A route of `passthrough` is `passthrough`; every other one (ReplyGuard's
#: own: check-reply, the admin API, the console; an unmatched path) is `other`.
ROUTE_APIS: dict[str, str] = {
    "/v1/chat/completions": "chat", "/v1/completions": "completions",
    "/v1/responses": "responses", "/v1/responses/{id}": "responses",
    "/v1/responses/{id}/input_items": "responses", "/v1/messages": "messages",
    "/v1/embeddings": "embeddings", "/v1/models": "models", "/v1/models/{model}": "models",
}
#: Every `api` value: a fixed set, so the metrics' `api` label stays bounded.
APIS: tuple[str, ...] = ("chat", "completions", "responses", "messages", "embeddings",
                         "models", "passthrough", "other")


@dataclass(slots=True)
class RequestRecord:
    """One request's record.

    `verdict`: what happened to a screened turn (`forward`, `withhold`, `exact`, `blocked`);
    `outcome` of a streamed reply (`ok`, `upstream_dropped`, `upstream_error`, `blocked`,
    `screening_failed`, `client_gone`, `shutdown`) and, with an `upstream_*` outcome, the
    upstream fault's kind (`fault`: `upstream_dropped`, `upstream_error` for an error event,
    `protocol`); `guardrail`: the input check that blocked the turn and how; `guardrail_output`:
    what moderation did to the reply (`flagged`, `blocked_on_error`). `own_s`: seconds of the
    proxy's own work on the reply; `first_text_at`: when the first screened text went out
    (perf_counter). `status` and `latency_s` are set at the end. `api`: the API the route
    speaks (one of `APIS`); `started`: when the request came (perf_counter).
    """

    request_id: str
    route: str
    method: str = "POST"
    api: str = "other"
    counts: Counter[str] = field(default_factory=Counter)
    verdict: str | None = None
    outcome: str | None = None
    fault: str | None = None
    guardrail: str | None = None
    guardrail_output: str | None = None
    own_s: float = 0.0
    started: float = 0.0
    first_text_at: float | None = None
    status: int = 500
    latency_s: float = 0.0
    #: The reply text a stream sent, as screened, when records keep it (else None).
    texts: list[str] | None = None

    def access_line(self) -> dict[str, Any]:
        """The access log's JSON object for this request."""
        return {"request_id": self.request_id, "method": self.method, "api": self.api,
                "route": self.route, "status": self.status,
                "latency_ms": round(self.latency_s * 1000, 3),
                "verdict": self.verdict, "outcome": self.outcome, "guardrail": self.guardrail,
                "guardrail_output": self.guardrail_output, "counts": dict(self.counts)}


#: The request's record, set by the middleware. A typed RequestKey where aiohttp has them
#: (3.13+): a str key warns there.
RECORD: Any = web.RequestKey("replyguard", RequestRecord) if hasattr(web, "RequestKey") \
    else "replyguard"
