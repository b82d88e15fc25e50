"""Passwords and secrets after labels in more forms and laid out in lines or tables, and the
ordinary values that are no finding (versions, type annotations, git remotes, longer ids,
loopback addresses, placeholders): exact screened text on the request side, in a whole reply
and in a reply streamed cut at every position."""

from __future__ import annotations

import pytest

from replyguard.engine import ReplyScreen, find, screen_text
from replyguard.engine.reply import screen_reply
from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules

RULES = compile_rules(ReplyRules(personal_data={c: "redact" for c in CLASSES}), "en")


def _streamed(text: str, cut: int) -> str:
    screen = ReplyScreen(RULES)
    return screen.feed(text[:cut]) + screen.feed(text[cut:]) + screen.finish()


def _every_way(text: str) -> set[str]:
    """The screened text on the request side, as a whole reply and streamed cut anywhere."""
    out = {screen_text(text, RULES, "turn").text, screen_reply(text, RULES)[0]}
    out |= {_streamed(text, cut) for cut in range(1, len(text))}
    return out


MASKED = [
    ("| user | password |\n|---|---|\n| bob | Qz7xK2mP9w |",
     "| user | password |\n|---|---|\n| bob | **** |"),
    # A user's name holding a digit is kept, streamed too (the rule is read with its header).
    ("| user | password |\n|---|---|\n| bob2 | Qz7xK2mP9w |\n",
     "| user | password |\n|---|---|\n| bob2 | **** |\n"),
    ("| user | password |\n| :--- | ---: |\n| bob2 | Qz7xK2mP9w |\n| al3 | Xy8#kLm2v |\n",
     "| user | password |\n| :--- | ---: |\n| bob2 | **** |\n| al3 | **** |\n"),
    ("Here you go:\n\n| user | password | role |\n|---|---|---|\n| bob | Qz7xK2mP9w | admin |\n"
     "| al | Xy8#kLm2v | user |\n\nKeep them safe.",
     "Here you go:\n\n| user | password | role |\n|---|---|---|\n| bob | **** | admin |\n"
     "| al | **** | user |\n\nKeep them safe."),
    ("| user | password |\n|---|---|\n| bob | pass123X |\n| al | Qz7xK2mP9w |\n",
     "| user | password |\n|---|---|\n| bob | **** |\n| al | **** |\n"),
    ("Password\tQz7xK2mP9w", "Password\t****"),
    ("user,password\nbob,Qz7xK2mP9w", "user,password\nbob,****"),
    ("name;pwd\nbob;Qz7xK2mP9w\nal;Xy8kLm2qR", "name;pwd\nbob;****\nal;****"),
    ("password for bob: Qz7xK2mP9w", "password for bob: ****"),
    ("password (temporary): Qz7xK2mP9w", "password (temporary): ****"),
    ("Your new password is now Qz7xK2mP9w.", "Your new password is now ****."),
    ("Here's the password you asked for: Qz7xK2mP9w", "Here's the password you asked for: ****"),
    ("Password was changed to Qz7xK2mP9w", "Password was changed to ****"),
    ("### Password\n\nQz7xK2mP9w\n", "### Password\n\n****\n"),
    ("Your login:\n\n**Password:**\n\nQz7xK2mP9w\n\nChange it soon.",
     "Your login:\n\n**Password:**\n\n****\n\nChange it soon."),
    ("Password: <Qz7xK2mP9w>", "Password: <****>"),
    ('<input type="password" value="Qz7xK2mP9w">', '<input type="password" value="****">'),
    ("pw: Qz7xK2mP9w", "pw: ****"),
    ("secret: Qz7xK2mP9w", "secret: ****"),
    ("client_secret=Qz7xK2mP9w", "client_secret=****"),
    ("token: Qz7xK2mP9w", "token: ****"),
    ("SECRET_KEY=Qz7xK2mP9w", "SECRET_KEY=****"),
    ("api_key=Qz7xK2mP9w", "api_key=****"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
     "AWS_SECRET_ACCESS_KEY=****"),
    ("Login: bob / Qz7xK2mP9w", "Login: bob / ****"),
    ("Credentials: bob/Qz7xK2mP9w", "Credentials: bob/****"),
    ("Passwort: Qz7xK2mP9w", "Passwort: ****"),
    ("contrase\u00f1a: Qz7xK2mP9w", "contrase\u00f1a: ****"),
    ("mot de passe : Qz7xK2mP9w", "mot de passe : ****"),
    ("senha: Qz7xK2mP9w", "senha: ****"),
    ("\u043f\u0430\u0440\u043e\u043b\u044c: Qz7xK2mP9w",
     "\u043f\u0430\u0440\u043e\u043b\u044c: ****"),
    ("\u30d1\u30b9\u30ef\u30fc\u30c9\uff1aQz7xK2mP9w", "\u30d1\u30b9\u30ef\u30fc\u30c9\uff1a****"),
    ("\u5bc6\u7801\uff1aQz7xK2mP9w", "\u5bc6\u7801\uff1a****"),
    ("\u5bc6\u7801\u662fQz7xK2mP9w\u3002", "\u5bc6\u7801\u662f****\u3002"),
    ('"user","password"\n"bob","Qz7xK2mP9w"', '"user","password"\n"bob","****"'),
    ("<table><tr><th>user</th><th>password</th></tr><tr><td>bob</td><td>Qz7xK2mP9w</td></tr>"
     "</table>\nThanks.",
     "<table><tr><th>user</th><th>password</th></tr><tr><td>bob</td><td>****</td></tr>"
     "</table>\nThanks."),
    ("<table>\n<tr><th>user</th><th>password</th></tr>\n<tr><td>bob</td><td>Qz7xK2mP9w</td>"
     "</tr>\n</table>\nThanks.",
     "<table>\n<tr><th>user</th><th>password</th></tr>\n<tr><td>bob</td><td>****</td>"
     "</tr>\n</table>\nThanks."),
    ("<table><tr><td>Password</td><td>Qz7xK2mP9w</td></tr></table>",
     "<table><tr><td>Password</td><td>****</td></tr></table>"),
    # code and configuration
    ("define('DB_PASSWORD', 'Qz7xK2mP9w');", "define('DB_PASSWORD', '****');"),
    ('<property name="password" value="Qz7xK2mP9w"/>', '<property name="password" value="****"/>'),
    ('<param name="password">Qz7xK2mP9w</param>', '<param name="password">****</param>'),
    ('props.setProperty("password", "Qz7xK2mP9w");', 'props.setProperty("password", "****");'),
    ('map.put("password", "sunshine");', 'map.put("password", "****");'),
    ('os.getenv("DB_PASSWORD", "Qz7xK2mP9w")', 'os.getenv("DB_PASSWORD", "****")'),
    ("SET PASSWORD FOR bob = PASSWORD('Qz7xK2mP9w');", "SET PASSWORD FOR bob = PASSWORD('****');"),
    ("run it with --db-password Qz7xK2mP9w now", "run it with --db-password **** now"),
    ("docker login -u bob -p Qz7xK2mP9w", "docker login -u bob -p ****"),
    ("redis-cli -h db -a Qz7xK2mP9w ping", "redis-cli -h db -a **** ping"),
    ("password: >\n  Qz7xK2mP9w\nuser: bob", "password: >\n  ****\nuser: bob"),
    # prose
    ("Password \u2014 Qz7xK2mP9w", "Password \u2014 ****"),
    ("Password - Qz7xK2mP9w", "Password - ****"),
    ("Password -> Qz7xK2mP9w", "Password -> ****"),
    ("Password \u2192 Qz7xK2mP9w", "Password \u2192 ****"),
    ("Your password changed to Qz7xK2mP9w today.", "Your password changed to **** today."),
    ("Password set to Qz7xK2mP9w.", "Password set to ****."),
    ("I reset your password to Qz7xK2mP9w.", "I reset your password to ****."),
    ("Your temporary password Qz7xK2mP9w expires soon.",
     "Your temporary password **** expires soon."),
    ("passwords: Qz7xK2mP9w, Xy9pL3kQ2z", "passwords: ****"),
    ("Kennwort: Qz7xK2mP9w", "Kennwort: ****"),
    ("passcode: Qz7xK2mP9w", "passcode: ****"),
    ("PIN: 4821", "PIN: ****"),
    ("The PIN code is 4821.", "The PIN code is ****."),
    ("\u6697\u8a3c\u756a\u53f7\uff1a4821", "\u6697\u8a3c\u756a\u53f7\uff1a****"),
    ("\u53e3\u4ee4\uff1aQz7xK2mP9w", "\u53e3\u4ee4\uff1a****"),
    # layouts
    ("| \u30e6\u30fc\u30b6\u30fc | \u30d1\u30b9\u30ef\u30fc\u30c9 |\n|---|---|\n"
     "| bob | Qz7xK2mP9w |",
     "| \u30e6\u30fc\u30b6\u30fc | \u30d1\u30b9\u30ef\u30fc\u30c9 |\n|---|---|\n| bob | **** |"),
    ("user\tpassword\nbob\tQz7xK2mP9w", "user\tpassword\nbob\t****"),
    ("Password........ Qz7xK2mP9w", "Password........ ****"),
    ("machine x.test login bob password Qz7xK2mP9w", "machine x.test login bob password ****"),
    # values the syntax says are passwords, whatever they look like
    ('{"password": "sunshine"}', '{"password": "****"}'),
    ("DB_PASSWORD=sunshine", "DB_PASSWORD=****"),
    ('password = "sunshine"', 'password = "****"'),
    ('{"password": "correct horse battery staple"}', '{"password": "****"}'),
    ('password: "Qz7x\\"K2mP9w"', 'password: "****"'),
]


@pytest.mark.parametrize(("text", "screened"), MASKED, ids=range(len(MASKED)))
def test_password_after_a_label_or_in_a_layout_is_masked(text: str, screened: str) -> None:
    assert _every_way(text) == {screened}


UNCHANGED = [
    "Chrome 124.0.6367.207",
    "    password: Optional[str] = None",
    "    password: SecretStr",
    "password: Mapped[str] = mapped_column(String(128))",
    "  password: string;",
    "Password: (none)",
    "password: (see above)",
    "Password: <your-password>",
    "SKU 123-45-6789-XL in stock.",
    "Case No. 123-45-6789-A",
    "Ticket 72360589121 is closed.",
    "size 7266106890 bytes",
    "Listen on 0.0.0.0 and 127.0.0.1, or ::1.",
    "aws_access_key_id = AKIAXXXXXXXXXXXXXXXX",
    "max_tokens: 1024",
    "token_count: 4096",
    "the secret: be kind",
    "### Password\n\nReset it from the link below.\n",
    "| name | password policy |\n|---|---|\n| bob | Strong |",
    "| user | password |\n|---|---|\n| bob | see the vault |",
    "Login: admin / admin",
    "the password policy needs 12 characters",
    "Reset your password to regain access.",
    "We changed your password to match the policy.",
    "Your password changed to be more secure.",
    "Your temporary password expires tomorrow.",
    "PIN code sent to your phone.",
    "Your PIN is on the card.",
    "Password \u2014 use at least 12 characters.",
    "open the Settings app, go to Password -> Reset",
    '{"password": ""}',
    '{"password": "****"}',
    "password = '<your password>'",
    'password: "${DB_PASSWORD}"',
    '{"remember": true, "password": "Password"}',
    '{"password": "at least 12 characters"}',
    "PASSWORD_MIN_LENGTH=12",
    "DB_PASSWORD=${DB_PASSWORD}",
    "'password' => 'required|min:8'",
    'input("Password: ")',
    't("password", "Password")',
    '<label for="password">Password</label>',
    "passwords: none, yet",
    "docker login -u bob --password-stdin",
    "Ping: 20 ms",
]


@pytest.mark.parametrize("text", UNCHANGED, ids=range(len(UNCHANGED)))
def test_ordinary_text_comes_back_unchanged(text: str) -> None:
    assert (_every_way(text), find(text)) == ({text}, [])


def test_dotted_versions_are_no_phones() -> None:
    texts = [f"Chrome {a}.{b}.{c}.{d}" for a in (1, 99, 124) for b in (0, 5, 42)
             for c in (1000, 6367, 9999) for d in (0, 58, 207)]
    assert [t for t in texts if find(t)] == []


@pytest.mark.parametrize(("text", "screened"), [
    ("Call 1.800.555.0143 today.", "Call ***0143 today."),
    ("Server at 10.0.0.1 is down.", "Server at ***.***.***.1 is down."),
    ("Write to jane@example.com: we reply within a day.",
     "Write to j***@example.com: we reply within a day."),
    ("deploy as jane@example.com:main", "deploy as j***@example.com:main"),
    ("my ssn is 123-45-6789-", "my ssn is ***6789-"),
    ("AKIAIOSFODNN7EXAMPLE", "AKIA****MPLE"),
])
def test_values_near_the_refused_shapes_are_still_found(text: str, screened: str) -> None:
    assert _every_way(text) == {screened}


def _long(header: str, row: str, end: str, masked: str = "", rows: int = 130
          ) -> tuple[str, str]:
    """A table of `rows` rows (`row` formatted with `i` and a password `pw`), and the same
    with each row as `masked` (`row` by default) with `pw` masked."""
    return (header + "".join(row.format(i=i, pw=f"Ab{i:04d}xYz9") for i in range(rows)) + end,
            header + "".join((masked or row).format(i=i, pw="****") for i in range(rows)) + end)


LONG = [
    _long("user,password\n", "user{i},{pw}\n", ""),
    _long("Here:\nuser;password\n", "user{i};{pw}\n", "Done."),
    _long("name,email,password\n", "Bob Smith{i},bob{i}@x.test,{pw}\n", "",
          "Bob Smith{i},b***@x.test,{pw}\n", rows=70),
    _long("name;password;note\n", "u{i};{pw};some words here\n", "Done."),
    _long('"user","password"\n', '"user {i}","{pw}"\n', ""),
    _long("<table>\n<tr><th>user</th><th>password</th></tr>\n",
          "<tr><td>user {i}</td><td>{pw}</td></tr>\n", "</table>\nDone."),
    _long("<table><tr><th>user</th><th>password</th></tr>",
          "<tr><td>user {i}</td><td>{pw}</td></tr>", "</table> Done."),
]


@pytest.mark.parametrize(("text", "screened"), LONG, ids=range(len(LONG)))
def test_a_header_governs_every_row_past_the_sentence_cap(text: str, screened: str) -> None:
    """A table or CSV longer than the sentence cap (2,000 characters) is cut into pieces in a
    reply; each piece is read with the header that governs it."""
    assert len(text) > 2200
    out = {screen_text(text, RULES, "turn").text, screen_reply(text, RULES)[0]}
    screen = ReplyScreen(RULES)
    out.add("".join(screen.feed(c) for c in text) + screen.finish())
    for step in (97, 331, 1000):
        screen = ReplyScreen(RULES)
        out.add("".join(screen.feed(text[a:a + step]) for a in range(0, len(text), step))
                + screen.finish())
    assert out == {screened}


_JWT_WRAPPED = ("eyJhbGciOiAiSFMyNTYiLCAidHlwIjogIkpXVCJ9.\neyJzdWIiOiAiMTIzNDU2Nzg5MCIsICJuYW1l"
                "IjogIkphbmUifQ.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
_PEM_BODY = "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4"

KEYS = [
    # a key's body starting or ending with `_` (no emphasis: nothing pairs with it)
    ("Use glpat-AbCdEf1234567890xYz_ now.", "Use glpat-****xYz_ now."),
    ("Use glpat-_bCdEf1234567890xYzQ now.", "Use glpat-****xYzQ now."),
    ("Use AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6_ now.", "Use AIza****5p6_ now."),
    # emphasis inside a key, pairing with the token's edge
    ("Here **AKIA**IOSFODNN7EXAMPLE ok.", "Here **AKIA****MPLE ok."),
    ("Here ghp_**1234567890abcdefghijABCDEFGHIJ123456** ok.", "Here ghp_****3456** ok."),
    # wrapped over a line break
    ("Use AKIAIOSFOD\nNN7EXAMPLE to log in.", "Use AKIA****MPLE to log in."),
    (f"Use {_JWT_WRAPPED} to log in.", "Use eyJ****.****.**** to log in."),
    # look-alike letters in a prefix: a Cyrillic к, a Roman numeral Ⅰ
    ("Here s\u043a-proj-4fJk29sLqPz8XvTn7mWbQ1cD ok.", "Here ****Q1cD ok."),
    ("Here AK\u2160AIOSFODNN7EXAMPLE ok.", "Here AKIA****MPLE ok."),
    # a key block's lines in lower case, or with four dashes
    (f"Key:\n-----begin rsa private key-----\n{_PEM_BODY}\n-----end rsa private key-----\nOk.",
     "Key:\n[RSA PRIVATE KEY ****]\nOk."),
    (f"Key:\n----BEGIN RSA PRIVATE KEY----\n{_PEM_BODY}\n----END RSA PRIVATE KEY----\nOk.",
     "Key:\n[RSA PRIVATE KEY ****]\nOk."),
]


@pytest.mark.parametrize(("text", "screened"), KEYS, ids=range(len(KEYS)))
def test_keys_typed_with_marks_wraps_or_look_alikes_are_masked(text: str, screened: str) -> None:
    assert _every_way(text) == {screened}


@pytest.mark.parametrize("text", [
    "4111**1111**1111**1111", "a **bold**word here", "my_**var**", "snake_case_ and _x",
    "the _italic_ word", "-----BEGIN PUBLIC KEY-----",
])
def test_marks_inside_words_stay_as_written(text: str) -> None:
    assert (_every_way(text), find(text)) == ({text}, [])


@pytest.mark.parametrize(("text", "screened"), [
    _long("user,password\n", "user{i},{pw}\n", "Done.", rows=4000),
    _long("<table><tr><th>user</th><th>password</th></tr>\n",
          "<tr><td>user {i}</td><td>{pw}</td></tr>\n", "</table>", rows=2000),
], ids=["csv", "html"])
def test_a_header_governs_every_row_past_finds_windows(text: str, screened: str) -> None:
    """A table longer than the 32,768 characters `find` reads at once: each window is read
    after the header (on the request side; a reply is read in pieces, each after it)."""
    assert len(text) > 70_000
    assert (screen_text(text, RULES, "turn").text, screen_reply(text, RULES)[0]) == (
        screened, screened)
