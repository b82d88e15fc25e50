"""The built-in detectors: one declaration each (regex finds, validator confirms, mask hides).

Classes: the personal-data classes (card, iban, national_id, email, phone) and the secrets
(api_key, aws_access_key, private_key, jwt, password, ip_address). Every regex is anchored on
its first character before any look-behind, so `re` can skip ahead with its first-character
scan, and every repetition is bounded or deterministic, so a search is linear in the text
(tests/engine/test_find.py feeds 1 MB of adversarial input).
"""

from __future__ import annotations

from replyguard.engine.detector import Detector
from replyguard.engine.personal_detectors import PERSONAL_DETECTORS
from replyguard.engine.secret_detectors import SECRET_DETECTORS

#: Every built-in detector, secrets first (the order findings of equal priority keep).
DETECTORS: tuple[Detector, ...] = (*SECRET_DETECTORS, *PERSONAL_DETECTORS)
