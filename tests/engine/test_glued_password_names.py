"""A password's name glued after capitals (`PGPASSWORD=`, `SMTPPASSWORD=`, `ADMINPASS=`) is
read whatever the length of the text around it, on every side; words that end in `pass` as
a word's part (`COMPASS`, `BYPASS`) and a name that goes on (`PGPASSFILE`) name none."""

from __future__ import annotations

import pytest
from released import cases, every_way

_LONG = " in the environment and restart the mail service now, then check the logs."

TABLES = {
    "glued after capitals": [
        ("To connect, run PGPASSWORD=Qz7xK2mP9w psql -h db.example.com -U bob mydb in your "
         "shell.",
         "To connect, run PGPASSWORD=**** psql -h db.example.com -U bob mydb in your shell."),
        ("PGPASSWORD=Qz7xK2mP9w", "PGPASSWORD=****"),
        ("Set SMTPPASSWORD=Qz7xK2mP9w" + _LONG, "Set SMTPPASSWORD=****" + _LONG),
        ("Please export ADMINPASS=Qz7xK2mP9w before you start the installer script.",
         "Please export ADMINPASS=**** before you start the installer script."),
        ("Let me know if that works for you and the rest of the team today.\n"
         "ROOTPASSWORD=Qz7xK2mP9w",
         "Let me know if that works for you and the rest of the team today.\n"
         "ROOTPASSWORD=****"),
        ("PGPASSWORD=Qz7xK2mP9w psql -h db.example.com -U bob mydb\n\nThen run it.",
         "PGPASSWORD=**** psql -h db.example.com -U bob mydb\n\nThen run it."),
    ],
    "unchanged": [
        ("Use the COMPASS and BYPASS flags for this run of the long build script please.",) * 2,
        ("The TYPESCRIPT toolchain is fine, as is PGPASSFILE=/home/bob/.pgpass in the env.",) * 2,
        ("Set SPASS=1 to skip the slow suite" + _LONG,) * 2,
    ],
}


@pytest.mark.parametrize(("text", "out"), cases(TABLES))
def test_a_name_glued_after_capitals_is_read_at_any_length(text: str, out: str) -> None:
    assert every_way(text) == {out}
