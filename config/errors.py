"""The one exception of the config package.

    ConfigError          a file the runtime cannot read; `.errors` lists every problem found,
                         each starting with its dotted key (`personal_data.cardd: unknown class`)
"""

from __future__ import annotations


class ConfigError(ValueError):
    """A settings or rules file that cannot be used. `errors` holds one line per problem, each
    starting with the culprit (a dotted key path, or the file and line of a syntax error)."""

    def __init__(self, source: str, errors: list[str]) -> None:
        self.source = source
        self.errors = list(errors)
        lines = "\n".join(f"  {e}" for e in self.errors)
        super().__init__(f"{source}: {len(self.errors)} error(s)\n{lines}")
