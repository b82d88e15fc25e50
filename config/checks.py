"""The settings checks: each leaf check takes (value, dotted key, given, ctx) and returns the
checked value, or BAD after recording an error that starts with the key (an error names its
culprit first). Sections are frozen dataclasses whose fields carry their check.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from replyguard.engine.phone_numbers import PHONE_REGIONS

BAD: Any = object()  # returned by a check that has recorded an error


@dataclass(frozen=True, slots=True)
class Given:
    """A value from the environment or an override; `label` names it in errors. Strings are
    parsed as the field's type; relative paths are taken from the working directory."""

    value: object
    label: str


@dataclass(slots=True)
class Ctx:
    errors: list[str]
    base: Path  # folder relative paths in the file are resolved against


# (value, key, given, ctx) -> checked value, or BAD after appending an error to ctx.errors
Check = Callable[[object, str, bool, Ctx], Any]


def fail(ctx: Ctx, key: str, message: str) -> Any:
    ctx.errors.append(f"{key}: {message}")
    return BAD


def integer(lo: int, hi: int | None = None) -> Check:
    def check(v: object, key: str, given: bool, ctx: Ctx) -> Any:
        if given and isinstance(v, str) and re.fullmatch(r"\s*[+-]?\d+\s*", v):
            v = int(v)
        if isinstance(v, bool) or not isinstance(v, int):
            return fail(ctx, key, f"{v!r} is not an integer")
        if v < lo or (hi is not None and v > hi):
            bounds = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            return fail(ctx, key, f"{v} is out of range ({bounds})")
        return v

    return check


def _finite(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """A finite number (from the environment: text parsed as one), or BAD."""
    if given and isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            pass
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return fail(ctx, key, f"{v!r} is not a number")
    return v


def seconds(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """A duration in seconds: a finite number > 0, returned as float."""
    if (x := _finite(v, key, given, ctx)) is BAD:
        return BAD
    if x <= 0:
        return fail(ctx, key, f"{x} is out of range (> 0)")
    return float(x)


def number(lo: float, hi: float) -> Check:
    """A finite number within lo..hi (inclusive), returned as float."""

    def check(v: object, key: str, given: bool, ctx: Ctx) -> Any:
        if (x := _finite(v, key, given, ctx)) is BAD:
            return BAD
        if not lo <= x <= hi:
            return fail(ctx, key, f"{x} is out of range ({lo:g}..{hi:g})")
        return float(x)

    return check


def string(
    *, nullable: bool = False, secret: bool = False, choices: tuple[str, ...] = (), noun: str = "",
    max_chars: int | None = None,
) -> Check:
    """A non-empty string; with `choices`, one of them in any case, returned as spelled there;
    with `max_chars`, at most that many characters (code points)."""
    canonical = {c.lower(): c for c in choices}

    def check(v: object, key: str, given: bool, ctx: Ctx) -> Any:
        if v is None and nullable:
            return None
        if not isinstance(v, str):
            shown = type(v).__name__ if secret else repr(v)
            return fail(ctx, key, f"{shown} is not a string")
        if not v:
            return fail(ctx, key, "must not be empty")
        if canonical:
            if v.lower() not in canonical:
                known = ", ".join(sorted(choices))
                return fail(ctx, key, f"unknown {noun} {v!r} (known: {known})")
            return canonical[v.lower()]
        if max_chars is not None and len(v) > max_chars:
            return fail(ctx, key, f"is {len(v)} characters long (at most {max_chars})")
        return v

    return check


def without_userinfo(url: str) -> str:
    """`url` with any user name and password replaced by `***` (`http://***@host/v1`), for an
    error or a log line: a URL is never shown with its credentials. Text that is not a URL
    with a `//` authority is returned as it is."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, tail = rest.partition("/")
    if "@" not in authority:
        return url
    return f"{scheme}://***@{authority.rpartition('@')[2]}{slash}{tail}"


def http_url(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """An http(s) URL with a host, no credentials (`user:password@`), no query or fragment;
    trailing slashes stripped. A URL holding credentials is refused without showing them."""
    if (url := string()(v, key, given, ctx)) is BAD:
        return BAD
    shown = without_userinfo(url)
    if shown != url:
        where = key[:-8] + "api_key" if key.endswith("base_url") else \
            key[:-8] + "API_KEY" if key.endswith("BASE_URL") else "its api_key setting"
        return fail(ctx, key, f"{shown!r} holds credentials (user:password@), which are "
                              f"not accepted in a URL: put the key in {where}")
    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # e.g. a port that is not a number
        ok = False
    if not ok or parts.query or parts.fragment:
        return fail(ctx, key, f"{url!r} is not an http(s) URL")
    return url.rstrip("/")


#: The record fields `records.redact` may name.
REDACTABLE = ("guardrail", "key_id", "model", "request_id", "route", "tenant", "text")


def store_url(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """`none` (no store), `sqlite:///path` or `postgresql://...` (credentials allowed, never
    shown in an error)."""
    if v is None or (isinstance(v, str) and v.strip().lower() == "none"):
        return None
    if (url := string(secret=True)(v, key, given, ctx)) is BAD:
        return BAD
    scheme, sep, rest = url.partition("://")
    if sep and scheme == "sqlite" and rest.strip("/"):
        return url
    if sep and scheme in ("postgresql", "postgres") and rest:
        return url
    return fail(ctx, key, f"{without_userinfo(url)!r} is not a store URL (sqlite:///path, "
                          "postgresql://host/database, or none)")


def record_fields(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """A list of record field names (from text: comma-separated), each one of REDACTABLE."""
    if given and isinstance(v, str):
        v = [part.strip() for part in v.split(",") if part.strip()]
    if not isinstance(v, list | tuple):
        return fail(ctx, key, f"{v!r} is not a list")
    out = []
    for i, item in enumerate(v):
        if item not in REDACTABLE:
            out.append(fail(ctx, f"{key}[{i}]", f"unknown field {item!r} (known: "
                                                f"{', '.join(REDACTABLE)})"))
        else:
            out.append(item)
    return BAD if BAD in out else tuple(dict.fromkeys(out))


def workers(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """A number of worker processes, 1..256, or "auto" (the CPUs the process may use)."""
    if isinstance(v, str) and v.strip().lower() == "auto":
        return "auto"
    if given and isinstance(v, str) and re.fullmatch(r"\s*[+-]?\d+\s*", v):
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        return fail(ctx, key, f"{v!r} is neither a whole number nor 'auto'")
    if not 1 <= v <= 256:
        return fail(ctx, key, f"{v} is out of range (1..256, or 'auto')")
    return v


def optional(check: Check) -> Check:
    """`check`, or None for a null value."""

    def checked(v: object, key: str, given: bool, ctx: Ctx) -> Any:
        return None if v is None else check(v, key, given, ctx)

    return checked


def file_path(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """A file path or null; relative paths are resolved against the settings file's folder
    (values from the environment or overrides: against the working directory)."""
    if v is None:
        return None
    if given and isinstance(v, os.PathLike):
        return Path(v).expanduser().absolute()
    if (text := string()(v, key, given, ctx)) is BAD:
        return BAD
    path = Path(text).expanduser()
    return path if path.is_absolute() else (Path.cwd() if given else ctx.base) / path


def boolean(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    words = {"true": True, "yes": True, "on": True, "1": True}
    words |= {"false": False, "no": False, "off": False, "0": False}
    if given and isinstance(v, str) and v.strip().lower() in words:
        return words[v.strip().lower()]
    if not isinstance(v, bool):
        return fail(ctx, key, f"{v!r} is not a boolean")
    return v


def routes(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """A list of URL paths, each starting with "/" (from text: comma-separated)."""
    if given and isinstance(v, str):
        v = [part.strip() for part in v.split(",") if part.strip()]
    if not isinstance(v, list | tuple):
        return fail(ctx, key, f"{v!r} is not a list")
    out = [string()(item, f"{key}[{i}]", given, ctx) for i, item in enumerate(v)]
    for i, item in enumerate(out):
        if item is not BAD and not item.startswith("/"):
            out[i] = fail(ctx, f"{key}[{i}]", f'{item!r} does not start with "/"')
    return BAD if BAD in out else tuple(out)


def region_codes(v: object, key: str, given: bool, ctx: Ctx) -> Any:
    """Null (the language's regions) or a non-empty list of region codes with a phone
    numbering plan (ISO 3166-1 alpha-2, any case; from text: comma-separated), returned
    upper-cased, each once, in order."""
    if v is None:
        return None
    if given and isinstance(v, str):
        v = [part.strip() for part in v.split(",") if part.strip()]
    if not isinstance(v, list | tuple):
        return fail(ctx, key, f"{v!r} is not a list")
    if not v:
        return fail(ctx, key, "names no region (leave it out for the language's regions)")
    out = [_region(item, f"{key}[{i}]", ctx) for i, item in enumerate(v)]
    return BAD if any(item is BAD for item in out) else tuple(dict.fromkeys(out))


def _region(item: object, key: str, ctx: Ctx) -> Any:
    if isinstance(item, bool):  # YAML 1.1 reads a bare NO (Norway) as false
        return fail(ctx, key, f"{item!r} is not a string (quote a region code: \"NO\")")
    if not isinstance(item, str):
        return fail(ctx, key, f"{item!r} is not a string")
    code = item.strip().upper()
    if code not in PHONE_REGIONS:
        return fail(ctx, key, f"unknown region {item!r} (ISO 3166-1 alpha-2 codes with a "
                              "phone numbering plan: US, GB, BR, ...)")
    return code


def check_value(check: Check, raw: object, key: str, ctx: Ctx) -> Any:
    if isinstance(raw, Given):
        return check(raw.value, raw.label, True, ctx)
    return check(raw, key, False, ctx)


def section_check(cls: type) -> Check:
    """Check a mapping against the dataclass `cls`: unknown keys, then each field's own check,
    then the section's own `problems()` (cross-field rules: (field name, message) pairs)."""

    def check(v: object, key: str, given: bool, ctx: Ctx) -> Any:
        if v is None:  # `listen:` with nothing under it
            v = {}
        if not isinstance(v, Mapping):
            return fail(ctx, key, f"{v!r} is not a mapping")
        specs = {f.name: f for f in fields(cls)}
        values, before = {}, len(ctx.errors)
        for name, raw in v.items():
            dotted = f"{key}.{name}" if key else str(name)
            spec = specs.get(name) if isinstance(name, str) else None
            if spec is None:
                fail(ctx, dotted, f"unknown key (known: {', '.join(sorted(specs))})")
            else:
                values[name] = check_value(spec.metadata["check"], raw, dotted, ctx)
        if len(ctx.errors) > before:
            return BAD
        built = cls(**values)
        for name, message in getattr(built, "problems", lambda: ())():
            fail(ctx, f"{key}.{name}" if key else name, message)
        return BAD if len(ctx.errors) > before else built

    return check


def setting(default: object, check: Check, *, env: bool = True, secret: bool = False,
            factory: Callable[[], object] | None = None) -> Any:
    """A leaf setting: its default (or a `factory` making it, for a value a dataclass cannot
    share), its check, and whether REPLYGUARD_<KEY> may set it."""
    meta = {"check": check, "env": env}
    if factory is not None:
        return field(default_factory=factory, repr=not secret, metadata=meta)
    return field(default=default, repr=not secret, metadata=meta)


def section(cls: type) -> Any:
    """A nested section: defaults to `cls()`, checked field by field."""
    return field(default_factory=cls, metadata={"check": section_check(cls), "section": cls})
