"""Values typed with markup against their own punctuation, in HTML attributes, behind Markdown
escapes, wrapped after a hyphen, in comma-separated lists, and full-width sentence ends inside
a value: each is found whole, masked in a reply as it is in a turn, and what the detectors'
reading keeps apart (masks, tokens, escaped marks) stays apart."""

from __future__ import annotations

import pytest

from replyguard.engine import find
from replyguard.engine.canon import canonical
from replyguard.engine.reply import screen_reply
from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules
from replyguard.engine.segment import split_sentences
from replyguard.engine.text import wording

REDACT_ALL = compile_rules(ReplyRules(personal_data=dict.fromkeys(CLASSES, "redact")))

FOUND = [  # (text, the class found, the span found, the reply as released)
    ('Your card is <img alt="4539 1488 0343 6467" src="c.png">.', "card",
     "4539 1488 0343 6467", 'Your card is <img alt="**** 6467" src="c.png">.'),
    ('my ssn is <span title="123-45-6789">on file</span>', "national_id", "123-45-6789",
     'my ssn is <span title="***6789">on file</span>'),
    ("my ssn is 123-45-**6789**", "national_id", "123-45-**6789", "my ssn is ***6789"),
    ("123-45-<b>6789</b>", "national_id", "123-45-<b>6789", "***6789"),
    ("Your card 4111-1111-1111-**1111** is on file.", "card", "4111-1111-1111-**1111",
     "Your card **** 1111 is on file."),
    ("x :_4111 1111 1111 1111_ y", "card", "4111 1111 1111 1111", "x :_**** 1111_ y"),
    ("|_4111 1111 1111 1111_|", "card", "4111 1111 1111 1111", "|_**** 1111_|"),
    ("カードは__4111 1111 1111 1111__です。", "card", "4111 1111 1111 1111",
     "カードは__**** 1111__です。"),
    ("ghp\\_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1JkLmNbVcX", "api_key",
     "ghp\\_Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1JkLmNbVcX", "ghp_****bVcX"),
    ("123\\-45\\-6789", "national_id", "123\\-45\\-6789", "***6789"),
    ("SSN 123-45-\n6789", "national_id", "123-45-\n6789", "SSN ***6789"),
    ("SSN 123-45-<br>6789", "national_id", "123-45-<br>6789", "SSN ***6789"),
    ("4539 1488<!-- --> 0343 6467", "card", "4539 1488<!-- --> 0343 6467", "**** 6467"),
    ("45391488<b></b>03436467", "card", "45391488<b></b>03436467", "**** 6467"),
    ("alice,4539148803436467,12/26", "card", "4539148803436467", "alice,**** 6467,12/26"),
]


@pytest.mark.parametrize(("text", "cls", "span", "released"), FOUND,
                         ids=[f[0][:24] for f in FOUND])
def test_the_value_is_found_whole_and_masked(text: str, cls: str, span: str,
                                              released: str) -> None:
    assert [(f.cls, text[f.start:f.end]) for f in find(text)] == [(cls, span)]
    whole, _ = screen_reply(text, REDACT_ALL)
    assert whole == released
    assert screen_reply(text, REDACT_ALL, chunks=7, seed=3)[0] == whole
    assert screen_reply(whole, REDACT_ALL)[0] == whole  # (screened twice: the same)


def test_a_list_of_cards_separated_by_commas() -> None:
    text = "Cards: [4539148803436467,5500005555555559]"
    assert [text[f.start:f.end] for f in find(text)] == ["4539148803436467", "5500005555555559"]


@pytest.mark.parametrize("text", [
    "DB_PASSWORD", "eyJhbGciOiJIUzI1NiJ9_.eyJ", "j***@example.com", "**** 1111",
])
def test_what_stays_as_it_is(text: str) -> None:
    assert find(text) == []


def test_masks_and_escaped_marks_are_no_emphasis() -> None:
    assert canonical("j***@example.com").text == "j***@example.com"
    assert canonical("**** 1111").text == "**** 1111"
    assert canonical("ghp\\_abc").text == "ghp_abc"


def test_phrases_read_the_text_as_shown() -> None:
    """Phrase lists read a tag as a space, attributes and all (a reader sees neither)."""
    assert wording('so guaranteed <span class="a b">refund</span>') == "so guaranteed refund "
    assert wording("A <i>guaranteed</i><b>refund</b>.") == "a guaranteed refund ."


@pytest.mark.parametrize(("text", "pieces"), [
    ("db postgres://admin:S3cret．Pw99@db:5432/shop ok",
     ["db postgres://admin:S3cret．Pw99@db:5432/shop ok"]),
    ("password: Abc！Def123 ok", ["password: Abc！Def123 ok"]),
    ("これは本です。Apple社は", ["これは本です。", "Apple社は"]),
    ("それは？はい", ["それは？", "はい"]),
])
def test_a_full_width_end_before_an_ascii_word_ends_no_sentence(text: str,
                                                                pieces: list[str]) -> None:
    assert split_sentences(text) == pieces


def test_a_password_with_a_full_width_bang_is_masked_whole() -> None:
    whole, _ = screen_reply("password: Abc！Def123 ok", REDACT_ALL)
    assert whole == "password: **** ok"


PASSWORDS = compile_rules(ReplyRules(personal_data={"password": "redact"}))


def test_a_json_reply_reads_a_password_after_its_key() -> None:
    from replyguard.engine.json_reply import JsonReplyScreen

    screen = JsonReplyScreen(PASSWORDS)
    screen.feed('{"password": "Qz7!xK2#mP9", "db": {"DB_PASSWORD": "Qz7!xK2#mP9"}, '
                '"pass_rate": "0.95", "note": "Qz7!xK2#mP9"}')
    assert screen.finish() == ('{"password":"****","db":{"DB_PASSWORD":"****"},'
                               '"pass_rate":"0.95","note":"Qz7!xK2#mP9"}')
    assert screen.counts["reply_pd_redacted"] == 2


def test_a_request_value_under_a_password_key_is_masked() -> None:
    from replyguard.engine.request_fields import screen_value

    body = {"metadata": {"password": "Qz7!xK2#mP9", "senha": "S3nha!forte", "pwd_hint": "ok"}}
    assert screen_value(body, PASSWORDS) == {
        "metadata": {"password": "****", "senha": "****", "pwd_hint": "ok"}}


def test_json_unicode_escapes_read_as_what_they_decode_to() -> None:
    """A tool's output written by `json.dumps` (`\\u00a0` between a card's groups, `\\u2011`
    in an SSN, full-width digits) is read as the model reads it."""
    text = '{"card": "4539\\u00a01488\\u00a00343\\u00a06467", "ssn": "123\\u201145\\u20116789"}'
    assert [(f.cls, text[f.start:f.end]) for f in find(text)] == [
        ("card", "4539\\u00a01488\\u00a00343\\u00a06467"),
        ("national_id", "123\\u201145\\u20116789")]


def test_json_escapes_of_invisible_characters_and_surrogate_pairs() -> None:
    for text in ('{"c": "4111\\u00ad1111 1111 1111"}',  # a soft hyphen between two groups
                 '{"c": "\\ud835\\udfd2111 1111 1111 1111"}'):  # a mathematical 4
        assert [f.cls for f in find(text)] == ["card"], text


def test_a_full_width_password_assignment_is_masked() -> None:
    text = "＂ｐａｓｓｗｏｒｄ＂：＂Ｑｚ７！ｘＫ２＃ｍＰ９＂"
    assert screen_reply(text, REDACT_ALL)[0] == "＂ｐａｓｓｗｏｒｄ＂：＂****＂"


@pytest.mark.parametrize(("text", "cards"), [
    ('{"timestamp": 1756043761655}', []),  # Luhn holds; 13 digits starting with 1: no card
    ("IMEI 356938035643809", []),  # Luhn holds; 15 digits starting with 35: no card
    ("Amex 378282246310005", ["378282246310005"]),
    ("Visa 4222222222222", ["4222222222222"]),
    ("Diners 30569309025904", ["30569309025904"]),
])
def test_short_cards_need_an_issuers_prefix(text: str, cards: list[str]) -> None:
    assert [text[f.start:f.end] for f in find(text) if f.cls == "card"] == cards


@pytest.mark.parametrize(("text", "pieces", "released"), [
    ("Your card:\n- 4111 1111\n- 1111 1111\nis on file.",
     ["Your card:\n", "- 4111 1111\n- 1111 1111\n", "is on file."],
     "Your card:\n- **** 1111\nis on file."),
    ("- Card: 4111 1111\n1111 1111", ["- Card: 4111 1111\n1111 1111"], "- Card: **** 1111"),
    ("SSN:\n# 123-45-\n# 6789\nok", ["SSN:\n", "# 123-45-\n# 6789\n", "ok"], "SSN:\n# ***6789\nok"),
    ("1. Card 4111 1111\n2. 1111 1111", ["1. Card 4111 1111\n2. 1111 1111"], "1. Card **** 1111"),
    ("- IBAN GB82 WEST\n1234 5698 7654 32", ["- IBAN GB82 WEST\n1234 5698 7654 32"],
     "- IBAN GB** **** 5432"),
    ("Steps:\n1. Call 555\n2. Done", ["Steps:\n", "1. Call 555\n", "2. Done"],
     "Steps:\n1. Call 555\n2. Done"),
])
def test_a_value_running_on_to_the_next_line_stays_in_one_piece(text: str, pieces: list[str],
                                                                 released: str) -> None:
    assert split_sentences(text) == pieces
    assert screen_reply(text, REDACT_ALL)[0] == released
    assert screen_reply(text, REDACT_ALL, chunks=9, seed=4)[0] == released


@pytest.mark.parametrize(("text", "released"), [
    ("Here is your new password:\n\n```\nS3cret!Pw99\n```\n\nPlease change it after logging in.",
     "Here is your new password:\n\n```\n****\n```\n\nPlease change it after logging in."),
    ("Your temporary password is:\n\n`S3cret!Pw99`\n\nChange it soon.",
     "Your temporary password is:\n\n`****`\n\nChange it soon."),
    ("Password:\n\n    S3cret!Pw99", "Password:\n\n    ****"),
    ("Senha provisória:\n\n```\nS3cret!Pw99\n```", "Senha provisória:\n\n```\n****\n```"),
    ("**Password**:\n- S3cret!Pw99", "**Password**:\n- ****"),
    ("Reset your password:\n\nClick the link below.",
     "Reset your password:\n\nClick the link below."),
])
def test_a_password_after_its_label_in_the_piece_before_is_masked(text: str,
                                                                  released: str) -> None:
    assert screen_reply(text, REDACT_ALL)[0] == released
    assert screen_reply(text, REDACT_ALL, chunks=7, seed=2)[0] == released


@pytest.mark.parametrize(("text", "values"), [
    ("alice,4111111111111111,12,2026", ["4111111111111111"]),  # CSV: `,12,` is a field
    ("111.444.777-35,222.333.444-05", ["111.444.777-35", "222.333.444-05"]),
    ("1\t4111111111111111", ["4111111111111111"]),  # TSV: an id column before it
    ("item 2 4111111111111111", ["4111111111111111"]),
    ("123-45-6789 234-56-7891", ["123-45-6789", "234-56-7891"]),
    ("1\t123-45-6789", ["123-45-6789"]),
    ("4111 1111 1111 1111,12", ["4111 1111 1111 1111"]),
    ("Paid with 3700 000000 00408.1.", ["3700 000000 00408"]),  # found wherever it stands
])
def test_values_in_delimited_rows(text: str, values: list[str]) -> None:
    assert [text[f.start:f.end] for f in find(text)] == values


@pytest.mark.parametrize(("text", "released"), [
    ('SSN 123-45-<span class="x">6789</span>.', "SSN ***6789."),
    ('card 4111 <span style="color:red">1111</span> 1111 1111.', "card **** 1111."),
    ('GB82 <span class="x">WEST</span> 1234 5698 7654 32', "GB** **** 5432"),
    ('<p class="note">Hello, <a href="https://example.com/help">see help</a>.</p>',
     '<p class="note">Hello, <a href="https://example.com/help">see help</a>.</p>'),
])
def test_a_tag_with_attributes_inside_a_value(text: str, released: str) -> None:
    """Read both ways: its attributes as text, and the text as shown (the tag a space, or
    nothing between two characters)."""
    assert screen_reply(text, REDACT_ALL)[0] == released


@pytest.mark.parametrize(("text", "released"), [
    ("CREATE ROLE bob WITH LOGIN PASSWORD 'S3cret!Pw99';",
     "CREATE ROLE bob WITH LOGIN PASSWORD '****';"),
    ("| Password | S3cret!Pw99 |", "| Password | **** |"),
    ('<add key="Password" value="S3cret!Pw99"/>', '<add key="Password" value="****"/>'),
    ("A senha temporária é S3cret!Pw99.", "A senha temporária é ****."),
    ("password: Pw0000x!,password: Pw0001x!", "password: ****,password: ****"),
    ("password: " + ("S3cret!Pw" * 40)[:256], "password: ****"),  # a long one, whole
])
def test_more_password_forms(text: str, released: str) -> None:
    assert screen_reply(text, REDACT_ALL)[0] == released


def test_a_value_under_a_name_naming_a_password() -> None:
    from replyguard.engine.json_reply import JsonReplyScreen
    from replyguard.engine.request_fields import screen_value

    screen = JsonReplyScreen(PASSWORDS)
    screen.feed('[{"name":"DB_PASSWORD","value":"S3cret!Pw99"},{"name":"HOST","value":"db:5432"}]')
    assert screen.finish() == ('[{"name":"DB_PASSWORD","value":"****"},'
                               '{"name":"HOST","value":"db:5432"}]')
    assert screen_value({"env": [{"name": "DB_PASSWORD", "value": "S3cret!Pw99"}]},
                        PASSWORDS) == {"env": [{"name": "DB_PASSWORD", "value": "****"}]}


def test_a_card_is_found_the_same_wherever_it_stands() -> None:
    """A property test's example: the same digits after `.1` and before ` is` are one card."""
    text = "Paid with 3700 000000 00408.1. Your card 3700 000000 00408 is on file. "
    for max_chars in (512, 2000):
        released = screen_reply(text, REDACT_ALL, max_chars=max_chars)[0]
        assert released == "Paid with **** 0408.1. Your card **** 0408 is on file. "


@pytest.mark.parametrize(("text", "released"), [
    ("| Password |\nQz7!xK2#mP9 |", "| Password |\n**** |"),
    ("CREATE USER bob IDENTIFIED BY\n- 'Qz7!xK2#mP9';",
     "CREATE USER bob IDENTIFIED BY\n- '****';"),
    ('user: bob\n"password":\n\n"Qz7!xK2#mP9"\nThanks.',
     'user: bob\n"password":\n\n"****"\nThanks.'),
    ("your password is\n\nQz7!xK2#mP9\nThanks.", "your password is\n\n****\nThanks."),
    ("A senha é\n- Qz7!xK2#mP9\nObrigado.", "A senha é\n- ****\nObrigado."),
    ("Card: 4539 1488\n\n0343 6467", "Card: **** 6467"),
    ("IBAN GB82 WEST\n\n1234 5698 7654 32", "IBAN GB** **** 5432"),
    ("| SSN | 123**\n**45**\n**6789\nok.", "| SSN | ***6789\nok."),
])
def test_a_label_or_a_value_across_a_line_boundary_of_a_reply(text: str, released: str) -> None:
    assert screen_reply(text, REDACT_ALL)[0] == released
    assert screen_reply(text, REDACT_ALL, chunks=7, seed=2)[0] == released


@pytest.mark.parametrize("label", ["<password>", "WITH PASSWORD", '<add key="Password" value='])
def test_the_cap_never_falls_inside_a_passwords_clause(label: str) -> None:
    fill = ";".join(["lorem", "ipsum", "dolor"] * 200)
    for pos in range(150, 512, 9):
        text = fill[:pos] + ";" + label + "    Qz7!xK2#mP9</password>;" + fill[:1500]
        assert "Qz7" not in screen_reply(text, REDACT_ALL, max_chars=512)[0], pos
