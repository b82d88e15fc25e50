"""Passwords given user by user: listed one a line under a plural name (`Passwords:` then
`- bob: Qz7xK2mP9w`), each password masked and each user's name kept, the list ending at the
first line that is no item; and a `"confirm"` field, a password only right after a member
naming one. Each the same on the request side, in a whole reply, cut once anywhere and one
character at a time (`every_way`)."""

from __future__ import annotations

import pytest
from released import cases, every_way

_ITEMS = "- bob: Qz7xK2mP9w\n- user0: Lm4nB8vR2t"
_MASKED = "- bob: ****\n- user0: ****"

TABLES = {
    # Bullets, numbers, operators, a blank line, the heading in words, in Portuguese.
    "lists": [
        ("Passwords:\n" + _ITEMS, "Passwords:\n" + _MASKED),
        ("Passwords:\n* bob: Qz7xK2mP9w\n* user0: Lm4nB8vR2t",
         "Passwords:\n* bob: ****\n* user0: ****"),
        ("Passwords:\n1. bob: Qz7xK2mP9w\n2. user0: Lm4nB8vR2t",
         "Passwords:\n1. bob: ****\n2. user0: ****"),
        ("Passwords:\n1) bob: Qz7xK2mP9w\n2) user0: Lm4nB8vR2t",
         "Passwords:\n1) bob: ****\n2) user0: ****"),
        ("Passwords:\n- bob = Qz7xK2mP9w\n- user0 = Lm4nB8vR2t",
         "Passwords:\n- bob = ****\n- user0 = ****"),
        ("Passwords:\n- bob \u2014 Qz7xK2mP9w\n- user0 \u2014 Lm4nB8vR2t",
         "Passwords:\n- bob \u2014 ****\n- user0 \u2014 ****"),
        ("Passwords:\n\n" + _ITEMS, "Passwords:\n\n" + _MASKED),
        ("Here are the passwords:\n" + _ITEMS, "Here are the passwords:\n" + _MASKED),
        ("Senhas:\n" + _ITEMS, "Senhas:\n" + _MASKED),
        ("Contrase\u00f1as:\n" + _ITEMS, "Contrase\u00f1as:\n" + _MASKED),
        ("**Passwords:**\n" + _ITEMS, "**Passwords:**\n" + _MASKED),
        ("### Passwords\n\n" + _ITEMS + "\n", "### Passwords\n\n" + _MASKED + "\n"),
        ("> Passwords:\n> - bob: Qz7xK2mP9w\n> - user0: Lm4nB8vR2t",
         "> Passwords:\n> - bob: ****\n> - user0: ****"),
        ("Passwords:\r\n- bob: Qz7xK2mP9w\r\n- user0: Lm4nB8vR2t\r\n",
         "Passwords:\r\n- bob: ****\r\n- user0: ****\r\n"),
        ("Passwords:\n- bob: `Qz7xK2mP9w`\n- user0: \"Lm4nB8vR2t\"",
         "Passwords:\n- bob: `****`\n- user0: \"****\""),
        # (a remark in brackets after a password)
        ("Passwords:\n- bob: Qz7xK2mP9w (admin)\n- user0: Lm4nB8vR2t",
         "Passwords:\n- bob: **** (admin)\n- user0: ****"),
        # (a user's name naming a key or a password's short name stays a name)
        ("Passwords:\n- api_user: Qz7xK2mP9w\n- carol: Xy9pL3kQ2z",
         "Passwords:\n- api_user: ****\n- carol: ****"),
        # (four items, blank lines between them, prose after the list)
        ("Passwords:\n- bob: Qz7xK2mP9w\n\n- user0: Lm4nB8vR2t\n\n- carol: Xy9pL3kQ2z\n"
         "- dave: Pw8kLm3nQ2\n\nDone. Keep them safe.",
         "Passwords:\n- bob: ****\n\n- user0: ****\n\n- carol: ****\n- dave: ****\n\n"
         "Done. Keep them safe."),
        ("Sure! I made strong random values for each member of your team on the staging "
         "cluster. Here are the new passwords:\n\n1. bob: Qz7xK2mP9w\n2. user0: Lm4nB8vR2t\n",
         "Sure! I made strong random values for each member of your team on the staging "
         "cluster. Here are the new passwords:\n\n1. bob: ****\n2. user0: ****\n"),
    ],
    # The list ends at the first line that is no item: what follows is read as ever.
    "list ends": [
        ("Passwords:\n- bob: Qz7xK2mP9w\nThe server: db01x9\n- carol: Xy9pL3kQ2z\n",
         "Passwords:\n- bob: ****\nThe server: db01x9\n- carol: Xy9pL3kQ2z\n"),
        ("Passwords:\n- bob: Qz7xK2mP9w\n\nNext, the hosts:\n- web: srv01b\n",
         "Passwords:\n- bob: ****\n\nNext, the hosts:\n- web: srv01b\n"),
    ],
    # A user's name after a plural name, lines joined, is no password.
    "names": [
        ("Passwords:\n\n- user0: Lm4nB8vR2t\n- bob: Qz7xK2mP9w\n\nDone.",
         "Passwords:\n\n- user0: ****\n- bob: ****\n\nDone."),
        ("Passwords: Qz7xK2mP9w, Xy9pL3kQ2z", "Passwords: ****"),
        ("Passwords: Qz7xK2mP9w \u2014 keep them safe.", "Passwords: **** \u2014 keep them safe."),
    ],
    # A `"confirm"` field right after a member naming a password is its confirmation.
    "confirm": [
        ('{"password": "Qz7xK2mP9w", "confirm": "Qz7xK2mP9w"}',
         '{"password": "****", "confirm": "****"}'),
        ("['pwd' => 'Qz7xK2mP9w', 'confirm' => 'Qz7xK2mP9w']",
         "['pwd' => '****', 'confirm' => '****']"),
        ('{\n  "new_password": "Xy7!Qw9z",\n  "confirm": "Xy7!Qw9z"\n}',
         '{\n  "new_password": "****",\n  "confirm": "****"\n}'),
        # (another object's password: no name of this field)
        ('{"password": "Qz7xK2mP9w"}\n\nNow the other form.\n\n{"confirm": "Lm4nB8vR2t"}',
         '{"password": "****"}\n\nNow the other form.\n\n{"confirm": "Lm4nB8vR2t"}'),
    ],
}

UNCHANGED = [
    "Passwords:\n- must be 12 chars",
    "Passwords:\n- must be 12 chars\n- one digit: at least 1",
    "Password rules:\n- one digit\n- one capital",
    "Passwords:\n- length: 12\n- rotation: 90d\n- history: 5\n",
    "Passwords:\n- bob: ****\n- user0: [hidden]\n",
    "Fruits:\n- apple: red\n- kiwi: green",
    "Team members:\n- bob: Engineer2\n- user0: Lead3\n",
    "Reset all passwords\n- step 1: open Settings\n- step 2: click Reset\n",
    "Versions:\n- api: v2.1.0b\n- web: 3.4.1rc2\n",
    # A `"confirm"` field with no password's member right before it: the word elsewhere is
    # no name of it (it was masked on the request side, and released in a reply).
    '{"confirm": "Qz7xK2mP9w"}',
    'Forgot password? Click here.\n\nThen POST {"user": "bob", "confirm": "Qz7xK2mP9w"}',
    'Reset your password here. Then send {"confirm": "Qz7xK2mP9w"} to the API.',
    'The passport office said ok. {"confirm": "Qz7xK2mP9w"}',
    '{"passport": "AB12345Z", "confirm": "Qz7xK2mP9w"}',
]


@pytest.mark.parametrize(("text", "released"), cases(TABLES))
def test_passwords_by_user_are_masked_every_way(text: str, released: str) -> None:
    assert every_way(text) == {released}


@pytest.mark.parametrize("text", UNCHANGED, ids=[u[:32] for u in UNCHANGED])
def test_what_is_no_password_comes_back_unchanged_every_way(text: str) -> None:
    assert every_way(text) == {text}
