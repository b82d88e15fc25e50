"""Loading and validating ReplyGuard's files: the reply rules and the settings (YAML or JSON)."""

from __future__ import annotations

from replyguard.config.errors import ConfigError
from replyguard.config.rules import load_rules, parse_rules
from replyguard.config.settings import (
    ENV_PREFIX,
    AdminSettings,
    LimitsSettings,
    ListenSettings,
    LogSettings,
    RepliesSettings,
    Settings,
    UpstreamSettings,
    env_names,
    load_settings,
)

__all__ = [
    "ENV_PREFIX",
    "AdminSettings",
    "ConfigError",
    "LimitsSettings",
    "ListenSettings",
    "LogSettings",
    "RepliesSettings",
    "Settings",
    "UpstreamSettings",
    "env_names",
    "load_settings",
    "load_rules",
    "parse_rules",
]
