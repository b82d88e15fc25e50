"""A bounded cache of screened texts, for the history a client resends with every request.

Keyed by a BLAKE2b digest of the text, the side it was screened as and the rules' identity;
it holds only the screened result (`Screened`: masked text, counts, findings' offsets), never
the original text, so nothing in it is more than what was already released.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from hashlib import blake2b

from replyguard.engine.rules import CompiledRules
from replyguard.engine.screen import Screened, Side, screen_text

#: Rules objects a cache tells apart at once; one more evicts the oldest, whose entries can
#: then never be hit again (its token is never issued again).
RULES_KEPT = 8


class ScreenCache:
    """`screen_text` results by digest, least recently used first out (at most `size`).

    Thread-safe. Each rules object gets a token of its own (held while the rules are among
    the last `RULES_KEPT` seen, so no other object can take its identity): different rules
    never share an entry.
    """

    def __init__(self, size: int = 4096) -> None:
        if size < 1:
            raise ValueError(f"size: {size} is not a positive number of entries")
        self.size = size
        self._entries: OrderedDict[bytes, Screened] = OrderedDict()
        self._rules: OrderedDict[int, tuple[CompiledRules, bytes]] = OrderedDict()
        self._tokens = itertools.count()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def _key(self, text: str, rules: CompiledRules, side: Side) -> bytes:
        known = self._rules.get(id(rules))
        if known is None or known[0] is not rules:
            known = (rules, next(self._tokens).to_bytes(8, "big"))
            self._rules[id(rules)] = known
            if len(self._rules) > RULES_KEPT:
                self._rules.popitem(last=False)
        else:
            self._rules.move_to_end(id(rules))
        digest = blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16,
                         person=side.encode(), salt=known[1])
        return digest.digest()

    def screen(self, text: str, rules: CompiledRules, side: Side, *, look: bool = True
               ) -> Screened:
        """`screen_text(text, rules, side)`, from the cache when `look` and it is there;
        the result is stored either way (the digest is made once for both)."""
        with self._lock:
            key = self._key(text, rules, side)
            if look:
                screened = self._entries.get(key)
                if screened is not None:
                    self._entries.move_to_end(key)
                    self.hits += 1
                    return screened
                self.misses += 1
        screened = screen_text(text, rules, side)
        with self._lock:
            self._entries[key] = screened
            self._entries.move_to_end(key)
            if len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return screened
