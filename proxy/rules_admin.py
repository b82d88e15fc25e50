"""The reply rules admin API, in versions: `GET/PUT /v1/reply-rules`,
`GET /v1/reply-rules/versions[/{id}]`, `POST /v1/reply-rules/versions/{id}/activate`.

Behind `admin.token` (a bearer token compared in constant time); closed (403) when no token
is set. A new or activated version is in force in this process at once, and in every other
within `store.poll_s`.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Awaitable
from typing import Any, TypeVar

import orjson
from aiohttp import web

from replyguard.config.errors import ConfigError
from replyguard.proxy.errors import BadRequest, NotFound, ProxyError, Unauthorized
from replyguard.proxy.live_rules import LIVE, LiveRules, read_rules
from replyguard.proxy.state import SETTINGS
from replyguard.proxy.store import ANY, RulesVersion, Store, StoreError, VersionConflict

T = TypeVar("T")

#: Content types a rules document may be sent as YAML.
YAML_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml")


def document_type(content_type: str, raw: bytes) -> str:
    """The type a rules document sent as `content_type` is read and stored as: YAML for a
    YAML type (`YAML_TYPES`), JSON for a JSON one (`application/json`, `...+json`); for any
    other or none (curl's default, `application/x-www-form-urlencoded`), JSON when the body
    is a JSON document, else YAML (which reads every JSON document too)."""
    if content_type in YAML_TYPES:
        return "application/yaml"
    if content_type == "application/json" or content_type.endswith("+json"):
        return "application/json"
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError:
        return "application/yaml"
    return "application/json"


class Forbidden(ProxyError, status=403, error_type="invalid_request_error", code="admin_disabled"):
    """An admin route while the admin API is off."""


class InvalidRules(BadRequest):
    """400: a rules document the runtime cannot read; `errors` lists every wrong key."""

    code = "invalid_rules"

    def __init__(self, errors: list[str]) -> None:
        super().__init__("the rules document cannot be used: " + "; ".join(errors))
        self.errors = errors

    def body(self) -> dict[str, Any]:
        out = super().body()
        out["error"]["errors"] = self.errors
        return out


class PreconditionFailed(ProxyError, status=412, error_type="invalid_request_error",
                         code="version_mismatch"):
    """An `If-Match` that names no version of the rules, or not the active one."""


class UnknownVersion(NotFound, code="unknown_version"):
    """404: a rules version id the store does not hold."""


#: The error for a version id the store does not hold (the id is not repeated: a client may
#: have put anything of its own there, a card number included).
_UNKNOWN = "no rules version has that id (GET /v1/reply-rules/versions lists them)"


class StoreUnavailable(ProxyError, status=503, error_type="server_error", code="store_unavailable"):
    """The rules store cannot be reached."""


def require_token(request: web.Request) -> None:
    """The admin bearer token, compared in constant time; no token set: closed (403)."""
    token = request.app[SETTINGS].admin.token
    if token is None:
        raise Forbidden("the admin API is off: set admin.token to open it")
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(),
                                                              token.encode()):
        raise Unauthorized("this route needs the admin bearer token")


def admin_store(request: web.Request, none: str, closed: str) -> tuple[LiveRules, Store]:
    """The live rules and their store, for an admin route: the admin token checked, then a
    404 saying `none` when no store is set, a 503 saying `closed` when it cannot be reached
    now."""
    require_token(request)
    live = request.app[LIVE]
    if live.store is None:
        raise NotFound(none)
    if not live.opened:
        raise StoreUnavailable(closed)
    return live, live.store


async def stored(read: Awaitable[T | None], missing: str | ProxyError) -> T:
    """What a read of the store gives: a 503 when the store cannot be read now, `missing`
    (an error, or a 404 saying it) when it holds nothing."""
    try:
        found = await read
    except StoreError:
        raise StoreUnavailable("the store cannot be read now") from None
    if found is None:
        raise NotFound(missing) if isinstance(missing, str) else missing
    return found


def _live(request: web.Request) -> tuple[LiveRules, Store]:
    return admin_store(request,
                       "no store is set (store.url): the rules are the file's, in no version",
                       "the store cannot be reached now; the rules in force stay")


def _etag(version: int | None) -> str:
    return f'"{version}"' if version is not None else '"none"'


def _version_json(v: RulesVersion) -> dict[str, Any]:
    return {"version": v.id, "created_at": v.created_at, "active": v.active,
            "source": v.source, "content_type": v.content_type, "sha256": v.hash,
            "comment": v.comment}


async def get_rules(request: web.Request) -> web.Response:
    """`GET /v1/reply-rules` -> `{"version": ID, "rules": {...}}`, the rules in force, with
    an ETag for `If-Match`."""
    require_token(request)
    live = request.app[LIVE]
    return web.json_response({"version": live.version, "rules": live.document},
                             headers={"ETag": _etag(live.version)})


def _if_match(request: web.Request) -> Any:
    given = request.headers.get("If-Match")
    if given is None or given.strip() == "*":
        return ANY
    tag = given.strip().removeprefix("W/").strip('"')
    if tag == "none":
        return None
    try:
        return int(tag)
    except ValueError:
        raise PreconditionFailed('If-Match: no version\'s ETag (a version\'s ETag is "N", N '
                                 'its id; "none" before any)') from None


async def put_rules(request: web.Request) -> web.Response:
    """`PUT /v1/reply-rules` with a rules document (YAML or JSON: `document_type`)
    -> 201 `{"version": ID}`, active at once. 400 lists every wrong key (nothing changes);
    412 when `If-Match` is not the active version's ETag."""
    live, store = _live(request)
    if_match = _if_match(request)
    raw = await request.read()
    kind = document_type(request.content_type, raw)
    try:
        source = raw.decode("utf-8")
        read_rules(source, kind)
    except UnicodeDecodeError as exc:
        raise BadRequest(f"rules document is not UTF-8 (byte {exc.start})") from None
    except ConfigError as exc:
        raise InvalidRules(_hinted(exc.errors, kind)) from None
    comment = request.headers.get("X-ReplyGuard-Comment")
    try:
        version, _ = await store.add_version(source, kind, comment=comment, if_match=if_match)
    except VersionConflict as exc:
        raise PreconditionFailed(f"If-Match: the active version is {exc.active}, not "
                                 f"{if_match}") from None
    except StoreError:
        raise StoreUnavailable("the store could not take the new version") from None
    await _apply_now(live)
    return web.json_response({"version": version}, status=201,
                             headers={"ETag": _etag(version)})


def _hinted(errors: list[str], kind: str) -> list[str]:
    """`errors`, a JSON syntax error told that the body was read as JSON for its content
    type (a YAML document sent as `application/json`)."""
    if kind != "application/json":
        return errors
    return [f"{e} (read as JSON, as its Content-Type says; send YAML as "
            "Content-Type: application/yaml)" if _SYNTAX.match(e) else e for e in errors]


#: A syntax error's place in a document read as JSON (`config.files.parse_document`).
_SYNTAX = re.compile(r"rules\.json:\d+: ")


async def _apply_now(live: LiveRules) -> None:
    """Put the new active version in force in this process now (the watch would within
    `store.poll_s`; a store lost meanwhile leaves that to it)."""
    try:
        await live.poll()
    except StoreError:
        pass


async def list_versions(request: web.Request) -> web.Response:
    """`GET /v1/reply-rules/versions` -> `{"data": [version, ...]}`, newest first."""
    _, store = _live(request)
    try:
        versions = await store.versions()
    except StoreError:
        raise StoreUnavailable("the store cannot be read now") from None
    return web.json_response({"data": [_version_json(v) for v in versions]})


def _id(request: web.Request) -> int:
    """The version id of the route (a 404 `unknown_version` for one that is no id)."""
    text = request.match_info["id"]
    if not text.isdigit() or len(text) > 18:
        raise UnknownVersion(_UNKNOWN)
    return int(text)


async def get_version(request: web.Request) -> web.Response:
    """`GET /v1/reply-rules/versions/{id}` -> one version, its source included."""
    _, store = _live(request)
    version = await stored(store.version(_id(request)), UnknownVersion(_UNKNOWN))
    return web.json_response(_version_json(version))


async def activate(request: web.Request) -> web.Response:
    """`POST /v1/reply-rules/versions/{id}/activate` -> that version in force again."""
    live, store = _live(request)
    version_id = _id(request)
    try:
        found = await store.activate(version_id)
    except StoreError:
        raise StoreUnavailable("the store could not activate the version") from None
    if not found:
        raise UnknownVersion(_UNKNOWN)
    await _apply_now(live)
    return web.json_response({"version": version_id, "active": True},
                             headers={"ETag": _etag(version_id)})


def add_routes(app: web.Application) -> None:
    """The rules admin routes on `app`."""
    app.router.add_get("/v1/reply-rules", get_rules)
    app.router.add_put("/v1/reply-rules", put_rules)
    app.router.add_get("/v1/reply-rules/versions", list_versions)
    app.router.add_get("/v1/reply-rules/versions/{id}", get_version)
    app.router.add_post("/v1/reply-rules/versions/{id}/activate", activate)
