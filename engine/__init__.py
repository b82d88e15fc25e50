"""ReplyGuard's screening core: pure functions and objects, text in, decisions out.

No I/O, no asyncio, no logging: usable on its own (`from replyguard.engine import find,
screen_text`). The exception tree:

    ScreeningError       screening a text failed; nothing of it may be released (fail closed)
"""

from __future__ import annotations

from replyguard.engine.actions import (
    ASSERTION_REFUSED,
    OUTCOME_ADDED,
    OUTCOME_REPLACED,
    VALUE_HIGHLIGHTED,
    VALUE_REPLACED,
    ActionCheck,
    cannot_do_sentence,
    forbidden_calls,
)
from replyguard.engine.arguments import screen_arguments, screen_arguments_value
from replyguard.engine.check_reply import DETECTOR_REASONS, MAX_FINDINGS, ReplyFinding, check_reply
from replyguard.engine.context import Passage, ToolCall, TurnContext, read_context
from replyguard.engine.detector import Detector
from replyguard.engine.detector_sets import PHONE_REGIONS_BY_LANGUAGE, detectors_for
from replyguard.engine.detectors import DETECTORS
from replyguard.engine.facts import (
    FACTS_CONFLICT,
    FACTS_OUT_OF_RANGE,
    FACTS_STALE,
    FACTS_TRACED,
    FACTS_UNTRACED,
)
from replyguard.engine.find import Finding, apply_masks, find
from replyguard.engine.injection import (
    INJECTION_PATTERNS,
    InjectionMatch,
    detect_injection,
    normalize_injection_text,
)
from replyguard.engine.internals import REPLY_RULES, ReplyRule
from replyguard.engine.json_reply import JsonReplyScreen
from replyguard.engine.prompts import screen_prompts
from replyguard.engine.reply import Piece, ReplyScreen, ScreeningError, screen_reply
from replyguard.engine.request import WITHHELD_REPLY, RequestVerdict, screen_request
from replyguard.engine.request_fields import screen_fields
from replyguard.engine.rewording import (
    TEMPERATURE_KEPT,
    TEMPERATURE_VARIED,
    locked_words,
    rewording_accepted,
    rewording_kept,
    rewording_passes,
)
from replyguard.engine.rules import (
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
from replyguard.engine.screen import Screened, detected, screen_text
from replyguard.engine.screen_cache import ScreenCache
from replyguard.engine.segment import SentenceSegmenter, split_sentences
from replyguard.engine.tools import (
    BUILT_IN,
    CompiledTools,
    Phrasing,
    ToolRules,
    ToolSpec,
    compile_tools,
)

__all__ = [
    "ACTIONS",
    "ASSERTION_REFUSED",
    "ActionCheck",
    "BUILT_IN",
    "CLASSES",
    "CompiledRules",
    "CompiledTools",
    "DEFAULT_ACTIONS",
    "DETECTORS",
    "DETECTOR_REASONS",
    "Detector",
    "FACTS_CONFLICT",
    "FACTS_OUT_OF_RANGE",
    "FACTS_STALE",
    "FACTS_TRACED",
    "FACTS_UNTRACED",
    "Finding",
    "INJECTION_PATTERNS",
    "InjectionMatch",
    "JsonReplyScreen",
    "LANGUAGES",
    "MAX_FINDINGS",
    "MustAccompany",
    "OUTCOME_ADDED",
    "OUTCOME_REPLACED",
    "PHONE_REGIONS_BY_LANGUAGE",
    "Passage",
    "Phrasing",
    "Piece",
    "REPLY_RULES",
    "ReplyExactly",
    "ReplyFinding",
    "ReplyRule",
    "ReplyRules",
    "ReplyScreen",
    "RequestVerdict",
    "ScreenCache",
    "Screened",
    "ScreeningError",
    "SentenceSegmenter",
    "TEMPERATURE_KEPT",
    "TEMPERATURE_VARIED",
    "ToolCall",
    "ToolRules",
    "ToolSpec",
    "TurnContext",
    "VALUE_HIGHLIGHTED",
    "VALUE_REPLACED",
    "WITHHELD_REPLY",
    "apply_masks",
    "cannot_do_sentence",
    "check_reply",
    "compile_rules",
    "compile_tools",
    "detect_injection",
    "detected",
    "detectors_for",
    "find",
    "forbidden_calls",
    "locked_words",
    "normalize_injection_text",
    "read_context",
    "rewording_accepted",
    "rewording_kept",
    "rewording_passes",
    "screen_arguments",
    "screen_arguments_value",
    "screen_fields",
    "screen_prompts",
    "screen_reply",
    "screen_request",
    "screen_text",
    "split_sentences",
]
