"""API keys, tokens and secrets however they are typed: a key's body of any length, `%5F` inside
a key's start, a key, a webhook's path, a JWT or a password's value wrapped over two lines, a
JWT's dots spaced, master and account keys' names with a separator, a code's joined strings
and inline elements inside a value, a list of passwords of any length. The exact text released
on the request side, as a whole reply and streamed (`released`), cut at every position for a
few (`every_way`) and in deltas of 1, 4 and 50 characters for the long ones; the text around
them, and prose near them that holds no value, comes back as it is."""

from __future__ import annotations

import pytest
from released import REDACT_ALL, cases, every_way, released, streamed

from replyguard.engine.find import find

#: A random-looking key body of `size` characters (letters and digits).
_ALPHABET = "Qz7xK2mP9wLs8aB3dE4fJk29sLqPz8XvTn7mWbQ1cDhY5rG6tU0oN"


def _body(size: int) -> str:
    return (_ALPHABET * (size // len(_ALPHABET) + 1))[:size]


_JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", "eyJzdWIiOiIxMjM0NTY3ODkwIn0",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
_SLACK = "https://hooks.slack.com/services/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"

MASKED = {
    # A key's body over 256 characters (read to its end; its mask shows none of it).
    "long bodies": [
        (f"token hf_{_body(300)} ok.", "token hf_**** ok."),
        (f"key AIza{_body(300)} ok.", "key AIza**** ok."),
        (f"key glpat-{_body(300)} ok.", "key glpat-**** ok."),
        (f"key xoxb-{_body(300)} ok.", "key xoxb-**** ok."),
        (f"key sk-proj-{_body(4000)} ok.", "key sk-proj-**** ok."),
        (f'{{"key":"npm_{_body(2000)}","n":1}}', '{"key":"npm_****","n":1}'),
        (f"key sk-proj-{_body(256)} ok.", f"key sk-proj-****{_body(256)[-4:]} ok."),
    ],
    # `_` URL-encoded inside a key's start.
    "encoded underscore": [
        ("key ghp%5FA1b2C3d4E5A1b2C3d4E5A1b2C3d4E5F6g7H8 ok.", "key ghp_****g7H8 ok."),
        ("key hf%5fAbCdEfGhIjKlMnOpQrStUvWxYz0123456789 ok.", "key hf_****6789 ok."),
        ("key sk%5Flive%5F51H8abcDEFghiJKLmnopQRst ok.", "key sk_live_****QRst ok."),
        ("key sk-proj%5F4fJk29sLqPz8XvTn7mWbQ1cD ok.", "key sk-****Q1cD ok."),
    ],
    # Wrapped over two lines.
    "wraps": [
        ("token xoxb-1\n234567890-abcdefghij ok.", "token xoxb-****ghij ok."),
        ("token xox\nb-1234567890-abcdefghij ok.", "token xoxb-****ghij ok."),
        ("token xoxb-1234567890\n-abcdefghij ok.", "token xoxb-****ghij ok."),
        ("key s\nk-proj-4fJk29sLqPz8XvTn7mWbQ1cD ok.", "key sk-proj-****Q1cD ok."),
        ("key ghp\n_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5F6g7H8 ok.", "key ghp_****g7H8 ok."),
        (f"url {_SLACK[:65]}\n{_SLACK[65:]} ok.",
         "url https://hooks.slack.com/services/****Ml2K ok."),
        (f"url {_SLACK[:43]}\n{_SLACK[43:]} ok.",
         "url https://hooks.slack.com/services/****Ml2K ok."),
        (f"jwt {_JWT[0][:20]}\n{_JWT[0][20:]}.{_JWT[1]}.{_JWT[2]} ok.",
         "jwt eyJ****.****.**** ok."),
        (f"jwt e\n{_JWT[0][1:]}.{_JWT[1]}.{_JWT[2]} ok.", "jwt eyJ****.****.**** ok."),
        (f"jwt {_JWT[0]}\n.{_JWT[1]}\n.{_JWT[2]} ok.", "jwt eyJ****.****.**** ok."),
        (f"jwt {_JWT[0]}.{_JWT[1]}.{_JWT[2][:5]}\n{_JWT[2][5:]} ok.",
         "jwt eyJ****.****.**** ok."),
        ("password: Qz7xK2mP9w\nLs8aB3dE ok", "password: **** ok"),
        ("password: Q\nz7xK2mP9wLs8aB3dE", "password: ****"),
        ("DB_PASSWORD=Qz7xK2mP9w\nLs8aB3dE", "DB_PASSWORD=****"),
        # (a line of prose after a key or a password is no more of it)
        ("password: S3cret!x\nThen log in.", "password: ****\nThen log in."),
        ("key sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD\nthen restart.",
         "key sk-proj-****Q1cD\nthen restart."),
    ],
    # A JWT's dots spaced.
    "spaced dots": [
        (f"jwt {_JWT[0]} . {_JWT[1]} . {_JWT[2]} ok.", "jwt eyJ****.****.**** ok."),
        (f"jwt {_JWT[0]}. {_JWT[1]}. {_JWT[2]} ok.", "jwt eyJ****.****.**** ok."),
        (f"{_JWT[0]} .{_JWT[1]} .{_JWT[2]}", "eyJ****.****.****"),
    ],
    # A master or an account key's name with a separator.
    "key names": [
        ("master_key=Qz7xK2mP9wLs8aB3", "master_key=****"),
        ("account-key: Qz7xK2mP9wLs8aB3", "account-key: ****"),
        ("MASTER_KEY=Qz7xK2mP9wLs8aB3", "MASTER_KEY=****"),
        ("AZURE_STORAGE_ACCOUNT_KEY=Qz7xK2mP9wLs8aB3==", "AZURE_STORAGE_ACCOUNT_KEY=****"),
        ('{"master-key": "Qz7xK2mP9wLs8aB3"}', '{"master-key": "****"}'),
    ],
    # A code's joined strings, inline elements, inside a key or a password's value.
    "joined": [
        ('key = "sk-proj-Ab" + "3dEf4fJk29sLqPz8XvTn7mWbQ1cD"', 'key = "sk-proj-****Q1cD"'),
        ("key = 'ghp_A1b2C3d4E5' + 'A1b2C3d4E5A1b2C3d4E5F6g7H8'", "key = 'ghp_****g7H8'"),
        ('x = "sk-" + "proj-" + "Ab3dEf4fJk29sLqPz8XvTn7mWbQ1cD"', 'x = "sk-proj-****Q1cD"'),
        # (a key's start split across the strings: the mask shows it as one key's)
        ("x = 'sk-' + 'proj-' + 'Ab3dEf' + '4fJk29sLqPz8XvTn7mWbQ1cD';",
         "x = 'sk-proj-****Q1cD';"),
        ('Use "sk-" + "proj-" + "Ab3dEf4fJk29sLqPz8XvTn7mWbQ1cD" here.',
         'Use "sk-proj-****Q1cD" here.'),
        ('x = "sk" + "-proj-" + "Ab3dEf4fJk29sLqPz8XvTn7mWbQ1cD"', 'x = "sk-proj-****Q1cD"'),
        ('x = "s" + "k-proj-Ab3dEf4fJk29sLqPz8XvTn7mWbQ1cD"', 'x = "sk-proj-****Q1cD"'),
        ('t = "gh" + "p_" + "A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5F6g7H8" + suffix',
         't = "ghp_****g7H8" + suffix'),
        ('"sk-" + "ant-" + "api03-" + "Ab3dEf4fJk29sLqPz8XvTn7mWbQ1cD"', '"sk-ant-****Q1cD"'),
        ('headers({"Authorization": "sk-proj-Ab" + "3dEf4fJk29sLqPz8XvTn7mWbQ1cD"})',
         'headers({"Authorization": "sk-proj-****Q1cD"})'),
        ('password = "Qz7x" + "K2mP9w"', 'password = "****"'),
        ("pw: 'Qz7x' + 'K2mP9w'", "pw: '****'"),
        ('secret := "Qz7x" + "K2mP" + "9wLs"', 'secret := "****"'),
        ("Password: <span>Qz7x</span><span>K2mP9w</span>", "Password: <span>****</span>"),
        ("Password: <b>Qz7x</b><i>K2mP9w</i> ok", "Password: **** ok"),
    ],
    # A list of passwords past 32 items, and its plural name capitalised.
    "lists": [
        ("Passwords: " + ", ".join(f"Qz7x{i:02d}K2mP9w" for i in range(40)) + ". Thanks",
         "Passwords: ****. Thanks"),
        ("passwords: " + ", ".join(f"Qz7x{i:04d}K2mP9w" for i in range(400)) + " ok",
         "passwords: **** ok"),
        ("PINs: 4821, 9307", "PINs: ****"),
    ],
}

UNCHANGED = [
    "max token: 4096\nGPT4 is used",
    "Install\nsk-learn today",
    "see docs/\nB4E5F6G7H",
    "the sk-learn-basics\nthen restart.",
    'msg = "Hello" + "World"',
    'x = "ri" + "sk-free options"',
    'x = "s" + "k-short"',
    'x = "the task" + "-list" + " is long and has words"',
    'name = "Qz7x" + "K2mP9w"',
    "<span>Hello</span><span>World</span>",
    "Name: <span>Qz7x</span><span>K2mP9w</span>",
    "keyJoin . eyJ . x",
    "master_key_id: 42",
    "account_key: true",
    "the master key: kept in the safe",
    "Passwords: at least 12 characters",
    "ghp%5Fshort",
    "file%5Fname.txt",
]


@pytest.mark.parametrize(("text", "screened"), cases(MASKED))
def test_key_masked_however_typed(text: str, screened: str) -> None:
    assert released(text) == screened


@pytest.mark.parametrize("text", UNCHANGED)
def test_prose_near_keys_comes_back_as_it_is(text: str) -> None:
    assert released(text) == text


@pytest.mark.parametrize(("text", "screened"), [
    ("token xoxb-1\n234567890-abcdefghij ok.", "token xoxb-****ghij ok."),
    (f"url {_SLACK[:65]}\n{_SLACK[65:]} ok.", "url https://hooks.slack.com/services/****Ml2K ok."),
    (f"jwt {_JWT[0]} . {_JWT[1]} . {_JWT[2]} ok.", "jwt eyJ****.****.**** ok."),
    ("password: Qz7xK2mP9w\nLs8aB3dE ok", "password: **** ok"),
    ("key ghp%5FA1b2C3d4E5A1b2C3d4E5A1b2C3d4E5F6g7H8 ok.", "key ghp_****g7H8 ok."),
    ("master_key=Qz7xK2mP9wLs8aB3", "master_key=****"),
    ('password = "Qz7x" + "K2mP9w"', 'password = "****"'),
    ("Password: <span>Qz7x</span><span>K2mP9w</span>", "Password: <span>****</span>"),
])
def test_key_masked_however_a_stream_is_cut(text: str, screened: str) -> None:
    assert every_way(text) == {screened}


@pytest.mark.parametrize(("text", "screened"), [
    (f"key sk-proj-{_body(4000)} ok.", "key sk-proj-**** ok."),
    ("Passwords: " + ", ".join(f"Qz7x{i:04d}K2mP9w" for i in range(300)) + ". Thanks",
     "Passwords: ****. Thanks"),
], ids=["4000-character key", "300 passwords"])
@pytest.mark.parametrize("delta", [1, 4, 50])
def test_long_value_masked_in_small_deltas(text: str, screened: str, delta: int) -> None:
    assert streamed(text, list(range(delta, len(text), delta)), REDACT_ALL) == screened


def test_long_key_finding_spans_the_whole_key() -> None:
    text = f"key sk-proj-{_body(100_000)} ok"
    assert [(f.detector, f.start, f.end) for f in find(text)] == [
        ("api_key", 4, 4 + 8 + 100_000)]
