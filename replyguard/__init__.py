"""ReplyGuard: an OpenAI-compatible reverse proxy that screens every request and every reply.

The public API in one place. The screening core (`replyguard.engine`: pure, no I/O) is what
`import replyguard` loads; the file loaders (`replyguard.config`) and the server
(`replyguard.proxy`) are loaded on first use of one of their names, so that importing the
engine never pulls in the server::

    from replyguard import check_reply, compile_rules, load_rules, screen_reply

    rules = compile_rules(load_rules("config/reply-rules.example.yaml"), "en")
    screen_reply("Your card 4111 1111 1111 1111 is on file.", rules)[0]
    # 'Your card **** 1111 is on file.'
"""

from __future__ import annotations

import importlib
from typing import Any

from replyguard.engine import (
    DETECTORS,
    CompiledRules,
    Finding,
    Piece,
    ReplyFinding,
    ReplyRules,
    ReplyScreen,
    RequestVerdict,
    Screened,
    ScreeningError,
    SentenceSegmenter,
    TurnContext,
    apply_masks,
    check_reply,
    compile_rules,
    find,
    read_context,
    screen_reply,
    screen_request,
    screen_text,
    split_sentences,
)

__version__ = "0.1.0"

#: Names loaded on first use, and the module each comes from.
_LAZY = {
    "ConfigError": "replyguard.config",
    "Settings": "replyguard.config",
    "load_rules": "replyguard.config",
    "load_settings": "replyguard.config",
    "parse_rules": "replyguard.config",
    "create_app": "replyguard.proxy.app",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'replyguard' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "CompiledRules",
    "ConfigError",
    "DETECTORS",
    "Finding",
    "Piece",
    "ReplyFinding",
    "ReplyRules",
    "ReplyScreen",
    "RequestVerdict",
    "Screened",
    "ScreeningError",
    "SentenceSegmenter",
    "Settings",
    "TurnContext",
    "__version__",
    "apply_masks",
    "check_reply",
    "compile_rules",
    "create_app",
    "find",
    "load_rules",
    "load_settings",
    "parse_rules",
    "read_context",
    "screen_reply",
    "screen_request",
    "screen_text",
    "split_sentences",
]
