"""The path a passthrough (or models) request is forwarded on: read one way only, or refused.

An upstream, or a proxy or framework in front of it, may read a path differently from
ReplyGuard's router, and so serve another route than the one ReplyGuard checked: `..` and `.`
segments (RFC 3986 section 5.2.4), also percent-encoded (`%2e%2e`) or encoded twice
(`%252e%252e`), a backslash or `%5C` read as `/` (`..%5C`), `;` path parameters dropped
(`..;/`, Tomcat and Spring), a NUL or control character that cuts the path (`..%00`), an
encoded `/` (`%2F`) decoded after routing, full-width and other compatibility forms of `.`
and `/` folded by NFKC (`．．／`), and empty segments (`//`) merged. Each such path is refused
(404, the route is not served); any other is forwarded in one canonical encoding.
"""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote, unquote

#: Percent-escapes that decode to something ambiguous: `%` (encoded twice), `/`, `\`, `;`,
#: NUL and the other C0 controls and DEL.
_BAD_ESCAPE = re.compile(r"%(?:25|2[fF]|5[cC]|3[bB]|[01][0-9a-fA-F]|7[fF])")
#: Characters no served path holds once decoded.
_BAD_CHAR = re.compile(r"[\\;\x00-\x1f\x7f]")


class AmbiguousPath(ValueError):
    """A path an upstream might read as another route (the message names the form, never the
    path itself)."""


def canonical_path(raw: str) -> str:
    """The forwarded form of `raw` (a request's path as sent, without the query), re-encoded
    once with `quote` (RFC 3986 unreserved characters and `/` kept).

    Raises AmbiguousPath for a path with a `.` or `..` segment (decoded, and after NFKC),
    an escape of `%`, `/`, `\\`, `;` or a control character, one of those characters
    decoded, an empty segment, or a character whose NFKC form adds a `.`, `/`, `\\`, `;` or `%`.
    """
    if _BAD_ESCAPE.search(raw):
        raise AmbiguousPath("the path holds an encoded '%', '/', '\\', ';' or control character")
    try:
        plain = unquote(raw, errors="strict")
    except UnicodeDecodeError:
        raise AmbiguousPath("the path's escapes are not UTF-8") from None
    if _BAD_CHAR.search(plain):
        raise AmbiguousPath("the path holds a '\\', ';' or control character")
    if not plain.isascii():
        folded = unicodedata.normalize("NFKC", plain)
        if any(c in folded for c in "./\\;%") and _punctuation_changed(plain, folded):
            raise AmbiguousPath("the path holds a character read as '.', '/', '\\', ';' or "
                                "'%' once normalised (NFKC)")
    segments = plain.split("/")
    if any(seg in (".", "..") for seg in segments):
        raise AmbiguousPath("the path holds a '.' or '..' segment")
    if "" in segments[1:-1]:
        raise AmbiguousPath("the path holds an empty segment ('//')")
    return quote(plain, safe="/")


def _punctuation_changed(plain: str, folded: str) -> bool:
    """Did NFKC add a `.`, `/`, `\\`, `;` or `%` that `plain` did not hold?"""
    return any(folded.count(c) != plain.count(c) for c in "./\\;%")
