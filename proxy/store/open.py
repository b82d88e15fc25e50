"""`open_store(url)`: the back end a `store.url` names (not yet connected)."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from replyguard.config.checks import without_userinfo
from replyguard.proxy.store.base import Store, StoreError


def shown_url(url: str) -> str:
    """`url` as it may be logged or printed: credentials masked (`***@`)."""
    return without_userinfo(url)


def open_store(url: str, password: str | None = None) -> Store:
    """The store at `url`: `sqlite:///relative/path`, `sqlite:////absolute/path`, or
    `postgresql://[user[:password]@]host[:port]/database[?schema=NAME]` (`password`, from
    REPLYGUARD_STORE_PASSWORD, when the URL holds none). Raises StoreError for another
    scheme. Nothing is connected until `await store.open()`."""
    shown = shown_url(url)
    scheme, sep, rest = url.partition("://")
    if scheme == "sqlite" and sep:
        from replyguard.proxy.store.sqlite import SQLiteStore

        path = rest[1:] if rest.startswith("/") else rest
        if not path:
            raise StoreError(f"{shown}: names no file (sqlite:///replyguard.db)")
        return SQLiteStore(path, shown)
    if scheme in ("postgresql", "postgres") and sep:
        from replyguard.proxy.store.postgres import PostgresStore

        parts = urlsplit(url)
        query = parse_qsl(parts.query)
        schema = next((v for k, v in query if k == "schema"), None)
        dsn = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in query
                                                         if k != "schema"])))
        return PostgresStore(dsn, shown, password, schema)
    raise StoreError(f"{shown}: unknown store (sqlite:///path or postgresql://...)")
