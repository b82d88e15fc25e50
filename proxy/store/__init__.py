"""The store: reply rules versions and records, behind one small async interface (`Store`)
with two back ends chosen by URL: SQLite (`sqlite:///path`, a file) and PostgreSQL
(`postgresql://...`, shared by a fleet).

    StoreError          the store cannot be reached or refused an operation; its message
                        never holds the URL's credentials
"""

from __future__ import annotations

from replyguard.proxy.store.base import (
    ANY,
    PAGE_MAX,
    VERDICTS,
    RulesVersion,
    Store,
    StoreError,
    VersionConflict,
)
from replyguard.proxy.store.open import open_store, shown_url

__all__ = ["ANY", "PAGE_MAX", "VERDICTS", "RulesVersion", "Store", "StoreError",
           "VersionConflict", "open_store", "shown_url"]
