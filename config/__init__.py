"""Loading and validating ReplyGuard's files: the reply rules and the settings (YAML or JSON)."""

from __future__ import annotations

from config.errors import ConfigError

__all__ = ["ConfigError"]
