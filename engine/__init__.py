"""ReplyGuard's screening core: pure functions and objects, text in, decisions out.

No I/O, no asyncio, no logging: usable on its own (`from engine import find, screen_text`).
The exception tree:

    ScreeningError       screening a text failed; nothing of it may be released (fail closed)
"""

from __future__ import annotations

from engine.check_reply import DETECTOR_REASONS, MAX_FINDINGS, ReplyFinding, check_reply
from engine.context import Passage, ToolCall, TurnContext, read_context
from engine.detectors import DETECTORS, Detector
from engine.find import Finding, apply_masks, find
from engine.internals import REPLY_RULES, ReplyRule
from engine.json_reply import JsonReplyScreen
from engine.reply import ReplyScreen, ScreeningError, screen_reply
from engine.request import WITHHELD_REPLY, RequestVerdict, screen_request
from engine.rules import (
    ACTIONS,
    CLASSES,
    DEFAULT_ACTIONS,
    LANGUAGES,
    CompiledRules,
    MustAccompany,
    ReplyExactly,
    ReplyRules,
    compile_rules,
)
from engine.screen import Screened, detected, screen_text
from engine.segment import SentenceSegmenter, split_sentences

__all__ = [
    "ACTIONS",
    "CLASSES",
    "CompiledRules",
    "DEFAULT_ACTIONS",
    "DETECTORS",
    "DETECTOR_REASONS",
    "Detector",
    "Finding",
    "JsonReplyScreen",
    "LANGUAGES",
    "MAX_FINDINGS",
    "MustAccompany",
    "Passage",
    "REPLY_RULES",
    "ReplyExactly",
    "ReplyFinding",
    "ReplyRule",
    "ReplyRules",
    "ReplyScreen",
    "RequestVerdict",
    "Screened",
    "ScreeningError",
    "SentenceSegmenter",
    "ToolCall",
    "TurnContext",
    "WITHHELD_REPLY",
    "apply_masks",
    "check_reply",
    "compile_rules",
    "detected",
    "find",
    "read_context",
    "screen_reply",
    "screen_request",
    "screen_text",
    "split_sentences",
]
