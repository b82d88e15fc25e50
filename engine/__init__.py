"""ReplyGuard's screening core: pure functions and objects, text in, decisions out.

No I/O, no asyncio, no logging: usable on its own (`from engine import find, screen_text`).
The exception tree:

    ScreeningError       screening a text failed; nothing of it may be released (fail closed)
"""

from __future__ import annotations

from engine.detectors import DETECTORS, Detector
from engine.find import Finding, apply_masks, find
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

__all__ = [
    "ACTIONS",
    "CLASSES",
    "DEFAULT_ACTIONS",
    "DETECTORS",
    "LANGUAGES",
    "CompiledRules",
    "Detector",
    "Finding",
    "MustAccompany",
    "ReplyExactly",
    "ReplyRules",
    "Screened",
    "apply_masks",
    "compile_rules",
    "detected",
    "find",
    "screen_text",
]
