"""Passwords after two of their names in a row, after an arrow or a dash glued to the name,
after a name split by inline markup or held in a definition list, a label or a URL's encoded
operator, and private keys whose armour is typed with typographic dashes; and the prose beside
them that names no password: the exact text released on the request side, as a whole reply
and streamed (`released`), and cut at every position for a few (`every_way`)."""

from __future__ import annotations

import pytest
from released import every_way, released

from replyguard.engine.rules import ReplyRules, compile_rules
from replyguard.engine.screen import screen_text

_KEY_BODY = "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4"

MASKED = [
    # a colon's look-alikes after the name
    ("Password\ua789Qz7xK2mP9w", "Password\ua789****"),
    ("Password\u2236 Qz7xK2mP9w", "Password\u2236 ****"),
    ("Password\u02f8 Qz7xK2mP9w", "Password\u02f8 ****"),
    ("Password \u05c3 Qz7xK2mP9w", "Password \u05c3 ****"),
    # YAML's string tag before the value
    ("password: !!str Qz7xK2mP9w", "password: !!str ****"),
    # Two names of a password in a row: the value is the second's.
    ("Pass: password: Qz7xK2mP9w", "Pass: password: ****"),
    ("Login password: password: Qz7xK2mP9w", "Login password: password: ****"),
    ("Password (password): Qz7xK2mP9w", "Password (password): ****"),
    ("Password: pwd: Qz7xK2mP9w", "Password: pwd: ****"),
    ("PASSWORD = password = Qz7xK2mP9w", "PASSWORD = password = ****"),
    ("senha: password: Qz7xK2mP9w", "senha: password: ****"),
    ("Passwort: Kennwort: Qz7xK2mP9w", "Passwort: Kennwort: ****"),
    ("Password: password=Qz7xK2mP9w", "Password: password=****"),
    ("token: password: Qz7xK2mP9w", "token: password: ****"),
    ('"password": "password": "Qz7xK2mP9w"', '"password": "password": "****"'),
    ("Password: **password:** Qz7xK2mP9w", "Password: **password:** ****"),
    ("PIN: pin: 4821", "PIN: pin: ****"),
    # An arrow or a dash glued to the name, and with spaces.
    ("Password\u2192Qz7xK2mP9w", "Password\u2192****"),
    ("Password->Qz7xK2mP9w", "Password->****"),
    ("Password\u2014Qz7xK2mP9w", "Password\u2014****"),
    ("Password=>Qz7xK2mP9w", "Password=>****"),
    ("Password-->Qz7xK2mP9w", "Password-->****"),
    ("Password\u21d2Qz7xK2mP9w", "Password\u21d2****"),
    ("Password\u27f6Qz7xK2mP9w", "Password\u27f6****"),
    ("Password\u2015Qz7xK2mP9w", "Password\u2015****"),
    ("pwd\u2192Qz7xK2mP9w", "pwd\u2192****"),
    ("PASSWORD\u2014Qz7xK2mP9w", "PASSWORD\u2014****"),
    ("Password \u2192 Qz7xK2mP9w", "Password \u2192 ****"),
    ("Password -> Qz7xK2mP9w", "Password -> ****"),
    ("Password \u2014 Qz7xK2mP9w", "Password \u2014 ****"),
    ("Password => Qz7xK2mP9w", "Password => ****"),
    ("Password \u2013 Qz7xK2mP9w", "Password \u2013 ****"),
    ("Password \u21d2 Qz7xK2mP9w", "Password \u21d2 ****"),
    ("Password\uff1d\uff1eQz7xK2mP9w", "Password\uff1d\uff1e****"),
    ("\uff30\uff21\uff33\uff33\uff37\uff2f\uff32\uff24\u2192Qz7xK2mP9w",
     "\uff30\uff21\uff33\uff33\uff37\uff2f\uff32\uff24\u2192****"),
    ("Password\uff1apassword\uff1aQz7xK2mP9w", "Password\uff1apassword\uff1a****"),
    ("Passcode\u2192PIN: 4Qz7xK2m", "Passcode\u2192PIN: ****"),
    ("Password: \u2192 Qz7xK2mP9w", "Password: \u2192 ****"),
    ("Password:\u2192Qz7xK2mP9w", "Password:\u2192****"),
    ("password ==> Qz7xK2mP9w", "password ==> ****"),
    ("Password--Qz7xK2mP9w", "Password--****"),
    ("Password -- Qz7xK2mP9w", "Password -- ****"),
    ("Password - Qz7xK2mP9w", "Password - ****"),
    ("Kennwort\u2192Qz7xK2mP9w", "Kennwort\u2192****"),
    ("contrase\u00f1a\u2014Qz7xK2mP9w", "contrase\u00f1a\u2014****"),
    ("token\u2192Qz7xK2mP9w", "token\u2192****"),
    ("api_key -> Qz7xK2mP9w", "api_key -> ****"),
    # A name split by inline markup, in a definition list, a label before its input.
    ("<b>pass</b>word: Qz7xK2mP9w", "<b>pass</b>word: ****"),
    ("pass<i>word</i>: Qz7xK2mP9w", "pass<i>word</i>: ****"),
    ("<b>Pass</b><i>word</i>: Qz7xK2mP9w", "<b>Pass</b><i>word</i>: ****"),
    ("<em>pass</em>wd=Qz7xK2mP9w", "<em>pass</em>wd=****"),
    ("<dt>Password</dt><dd>Qz7xK2mP9w</dd>", "<dt>Password</dt><dd>****</dd>"),
    ("<dl>\n  <dt>User</dt><dd>bob</dd>\n  <dt>Password</dt>\n  <dd>Qz7xK2mP9w</dd>\n</dl>",
     "<dl>\n  <dt>User</dt><dd>bob</dd>\n  <dt>Password</dt>\n  <dd>****</dd>\n</dl>"),
    ('<label for="pw">Password</label><input value="Qz7xK2mP9w">',
     '<label for="pw">Password</label><input value="****">'),
    ('<label>Password:</label> <input type="text" id="pw" value="Qz7xK2mP9w" />',
     '<label>Password:</label> <input type="text" id="pw" value="****" />'),
    ('<input type="password" id="pw" value="Qz7xK2mP9w">',
     '<input type="password" id="pw" value="****">'),
    ('<label>Password</label>\n<input name="pw" class="f" value="Qz7xK2mP9w">',
     '<label>Password</label>\n<input name="pw" class="f" value="****">'),
    ("<b>PASS</b>WORD: Qz7xK2mP9w", "<b>PASS</b>WORD: ****"),
    ("<strong>pass</strong>phrase = Qz7xK2mP9w", "<strong>pass</strong>phrase = ****"),
    ("<dt>Senha</dt><dd>Qz7xK2mP9w</dd>", "<dt>Senha</dt><dd>****</dd>"),
    ("<dt><b>Password</b></dt><dd><code>Qz7xK2mP9w</code></dd>",
     "<dt><b>Password</b></dt><dd><code>****</code></dd>"),
    ("<dt>Password:</dt><dd>Qz7xK2mP9w</dd>", "<dt>Password:</dt><dd>****</dd>"),
    ("pass**word**: Qz7xK2mP9w", "pass**word**: ****"),
    ("**pass**word: Qz7xK2mP9w", "**pass**word: ****"),
    ("<th>Password</th><td>Qz7xK2mP9w</td>", "<th>Password</th><td>****</td>"),
    ("<tr><th>Password</th><td>Qz7xK2mP9w</td></tr>",
     "<tr><th>Password</th><td>****</td></tr>"),
    # Operators percent-encoded in a URL or a form.
    ("password%3A%20Qz7xK2mP9w", "password%3A%20****"),
    ("password%3DQz7xK2mP9w", "password%3D****"),
    ("password%3dQz7xK2mP9w", "password%3d****"),
    ("?q=password%3AQz7xK2mP9w", "?q=password%3A****"),
    ("https://example.com/login?user=bob&password=Qz7xK2mP9w",
     "https://example.com/login?user=bob&password=****"),
    ("?user=bob&password=Qz7xK2mP9w", "?user=bob&password=****"),
    ("pwd%3DQz7xK2mP9w%26user%3Dbob", "pwd%3D****%26user%3Dbob"),
    ("password%253AQz7xK2mP9w", "password%253A****"),
    ("Password&rarr;Qz7xK2mP9w", "Password&rarr;****"),
    ("Password %E2%86%92 Qz7xK2mP9w", "Password %E2%86%92 ****"),
    ("<DT>Password</DT>\n<DD>\n  Qz7xK2mP9w\n</DD>", "<DT>Password</DT>\n<DD>\n  ****\n</DD>"),
    ("p<b>ass</b>word: Qz7xK2mP9w", "p<b>ass</b>word: ****"),
]


@pytest.mark.parametrize(("text", "screened"), MASKED)
def test_the_value_after_the_name_is_masked(text: str, screened: str) -> None:
    assert released(text) == screened


@pytest.mark.parametrize(("text", "screened"), [
    ("Pass: password: Qz7xK2mP9w", "Pass: password: ****"),
    ("Password\u2192Qz7xK2mP9w", "Password\u2192****"),
    ("<b>pass</b>word: Qz7xK2mP9w", "<b>pass</b>word: ****"),
    ("password%3DQz7xK2mP9w", "password%3D****"),
])
def test_the_value_is_masked_however_the_reply_is_cut(text: str, screened: str) -> None:
    assert every_way(text) == {screened}


@pytest.mark.parametrize("dash", ["\u2013", "\u2014", "\u2212", "\u2015", "\u2013\u2014\u2212"])
def test_a_private_key_armoured_with_typographic_dashes_is_masked(dash: str) -> None:
    run = (dash * 5)[:5]
    text = (f"Key:\n{run}BEGIN RSA PRIVATE KEY{run}\n{_KEY_BODY}\n{run}END RSA PRIVATE KEY{run}"
            "\nKeep it safe.")
    assert released(text) == "Key:\n[RSA PRIVATE KEY ****]\nKeep it safe."


def test_a_key_armoured_with_em_dashes_is_masked_however_the_reply_is_cut() -> None:
    run = "\u2014" * 5
    text = f"{run}BEGIN RSA PRIVATE KEY{run}\n{_KEY_BODY}\n{run}END RSA PRIVATE KEY{run}\nOk."
    assert every_way(text) == {"[RSA PRIVATE KEY ****]\nOk."}


@pytest.mark.parametrize("text", [
    "Password policy: at least 12 characters.",
    "password reset link sent",
    "Password \u2192 see vault",
    "Password\u2192see the vault",
    "Password\u2014the one you chose\u2014is safe.",
    "Password \u2014 reset it from the link.",
    "Pass: password: (hidden)",
    "Password: password: ********",
    "<b>pass</b>word reset link sent",
    "<dt>Password</dt><dd>see the vault</dd>",
    "<dt>Password</dt><dd>at least 12 characters</dd>",
    '<label for="pw">Password</label><input type="password" value="">',
    '<label>Password</label><input type="password" placeholder="Your password">',
    "<dt>Password</dt><dd>Must be 12 characters</dd>",
    "password%3Dreset",
    "https://example.com/?next=%2Fsettings%3Fa%3Db",
    "password%3A%20reset",
    "Password -> Reset it from the link.",
    "token -> user mapping",
    "secret \u2014 be kind",
    "Password\u2192Settings\u2192Security",
    "pass**word** reset",
    "home = pw->pw_dir;",
    'printf("%s", pw->pw_name);',
    "if (pw->pw_uid == 0) return;",
    "$hash = $user->password->getHash();",
    "$this->password->value",
    "p->password->data[0] = 0;",
    "A \u2014\u2014 B",
    "Use \u2014\u2014\u2014 between sections.",
    "<b>Name</b>Smith wrote it.",
])
def test_prose_that_gives_no_password_comes_back_unchanged(text: str) -> None:
    assert released(text) == text


_WITHHOLD = compile_rules(ReplyRules(personal_data={"password": "withhold",
                                                    "private_key": "withhold"}), "en")


@pytest.mark.parametrize("text", [
    "Hi. Pass: password: Qz7xK2mP9w. Thanks.",
    "Hi. Password\u2192Qz7xK2mP9w. Thanks.",
    "Hi. <b>pass</b>word: Qz7xK2mP9w. Thanks.",
    "Hi. <dt>Password</dt><dd>Qz7xK2mP9w</dd> Thanks.",
    "Hi. See ?q=password%3DQz7xK2mP9w now. Thanks.",
    f"Key:\n\u2014\u2014\u2014\u2014\u2014BEGIN RSA PRIVATE KEY\u2014\u2014\u2014\u2014\u2014\n"
    f"{_KEY_BODY[:40]}Qz7xK2mP9w\n\u2014\u2014\u2014\u2014\u2014END RSA PRIVATE KEY"
    "\u2014\u2014\u2014\u2014\u2014\nThanks.",
])
def test_a_withheld_secret_is_found_on_both_sides(text: str) -> None:
    turn = screen_text(text, _WITHHOLD, "turn")
    assert turn.withheld and "Qz7xK2mP9w" not in turn.text
    assert not any("Qz7xK2mP9w" in out for out in every_way(text, _WITHHOLD))
