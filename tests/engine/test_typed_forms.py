"""Values typed in more ways than the canonical view read before (escaped emphasis marks, tags
of any name, references without their `;`, JSON and URL escapes of a space, values wrapped
after a dot, an `@` or inside a key, an em dash between groups, command lines, passwords in
lists and objects), and what is no value however it is typed (a list of numbers, a key's
BEGIN line in prose, a ticket's pass, an attribute): each on the request side, in a whole
reply and in a reply streamed in cuts."""

from __future__ import annotations

import pytest

from replyguard.engine import find
from replyguard.engine.reply import screen_reply
from replyguard.engine.rules import CLASSES, ReplyRules, compile_rules
from replyguard.engine.screen import screen_text

REDACT_ALL = compile_rules(ReplyRules(personal_data=dict.fromkeys(CLASSES, "redact")), "en")


def _released(text: str) -> str:
    """What is released of `text` on both sides (they must agree), streamed as whole."""
    turn = screen_text(text, REDACT_ALL, "turn").text
    whole, _ = screen_reply(text, REDACT_ALL)
    assert whole == turn
    for seed in range(3):
        assert screen_reply(text, REDACT_ALL, chunks=len(text) // 4 + 2, seed=seed)[0] == whole
    return whole


MASKED = [  # (text, released)
    ("my ssn is \\_123-45-6789\\_ ok", "my ssn is \\_***6789\\_ ok"),
    ("my ssn is \\*123-45-6789\\* ok", "my ssn is \\****6789\\* ok"),
    ("card <label>4111 1111 1111 1111</label> ok", "card <label>**** 1111</label> ok"),
    ("card <time>4111 1111</time> 1111 1111 ok", "card **** 1111 ok"),
    ("ssn 123-45-<b\n>6789</b\n> ok", "ssn ***6789</b\n> ok"),
    ("ssn 123-45-<x>6789</x> ok", "ssn ***6789 ok"),
    ("ssn 123-45-<my-tag>6789</my-tag> ok", "ssn ***6789 ok"),
    ("card 4111&nbsp1111&nbsp1111&nbsp1111 ok", "card **** 1111 ok"),
    ("card 4111&#160;1111&#160;1111&#32;1111 ok", "card **** 1111 ok"),
    ('{"card": "4111 1111\\n1111 1111"}', '{"card": "**** 1111"}'),
    ('{"card": "4111\\t1111\\t1111\\t1111"}', '{"card": "**** 1111"}'),
    ('{"card_number": "4111 1111\\r\\n1111 1111"}', '{"card_number": "**** 1111"}'),
    ("https://pay.example/p?card=4111+1111+1111+1111&x=1",
     "https://pay.example/p?card=**** 1111&x=1"),
    ("https://pay.example/p?card=4111%201111%201111%201111",
     "https://pay.example/p?card=**** 1111"),
    ("cpf 529.982.\n247-25 ok", "cpf ***4725 ok"),
    ("mail zelda.quux@\nexample.org ok", "mail z***@example.org ok"),
    ("key sk-proj-4fJk29sLq\nPz8XvTn7mWbQ1cD ok", "key sk-proj-****Q1cD ok"),
    ("card 4111\u20141111\u20141111\u20141111 ok", "card **** 1111 ok"),
    ("ssn 123\u201445\u20146789 ok", "ssn ***6789 ok"),
    ("run mysql -u root -pS3cret!Pw9 shop", "run mysql -u root -p**** shop"),
    ("run curl -u admin:S3cret!Pw9 https://api.example", "run curl -u admin:**** https://api.example"),
    ("run curl --user 'admin:S3cret!Pw9' https://x.example", "run curl --user 'admin:****' https://x.example"),
    ("run sshpass -p 'S3cret!Pw9' ssh host", "run sshpass -p '****' ssh host"),
    ("run app --password=S3cret!Pw9 now", "run app --password=**** now"),
    ("run app --password S3cret!Pw9 now", "run app --password **** now"),
    ('{"password": "Password: Xy7!Qw9z"}', '{"password": "Password: ****"}'),
    ('{"password": ["Xy7!Qw9z"]}', '{"password": ["****"]}'),
    ('{"password": {"value": "Xy7!Qw9z"}}', '{"password": {"value": "****"}}'),
    ('{"new_password": "Xy7!Qw9z", "confirm": "Xy7!Qw9z"}',
     '{"new_password": "****", "confirm": "****"}'),
    ('{"confirm_password": "Xy7!Qw9z"}', '{"confirm_password": "****"}'),
    ('{"password_confirmation": "Xy7!Qw9z"}', '{"password_confirmation": "****"}'),
    ('password: <code class="pw">S3cret!Pw99</code> ok',
     'password: <code class="pw">****</code> ok'),
    ("NHS number 943 476 5919", "NHS number ***5919"),
    ("Keys start with -----BEGIN RSA PRIVATE KEY----- and never leave. Call 202-555-0143.",
     "Keys start with [RSA PRIVATE KEY ****] and never leave. Call ***0143."),
    ("The first line reads:\n-----BEGIN RSA PRIVATE KEY-----\n\nKeep it safe.",
     "The first line reads:\n[RSA PRIVATE KEY ****]\n\nKeep it safe."),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4\n"
     "=Zx9Q\n-----END RSA PRIVATE KEY-----\nDone.", "[RSA PRIVATE KEY ****]\nDone."),
    ("Card:\n- 4111 1111\n- 1111 1111", "Card:\n- **** 1111"),
]


@pytest.mark.parametrize(("text", "released"), MASKED, ids=[m[0][:28] for m in MASKED])
def test_the_value_is_masked_on_both_sides(text: str, released: str) -> None:
    assert _released(text) == released


UNCHANGED = [
    "Ports:\n- 8080\n- 8443\n- 9090\n- 3000\nok",
    "Ports:\n1. 4111\n2. 1111\n3. 1111\n4. 1111",
    "Season pass: Gold2025",
    "Boarding pass: Zone4B2",
    "bus-pass: Gold2025",
    "total=4111+1111+1111+1111",
    "It was 1990.\n2001 came next.",
    "The file is report@2x.png.\nThen more.",
    "Use <voucher> at checkout.",
    "NHS 111 is free to call.",
    "mysql -u root -p shop",
    '{"confirm": "Y3s!please"}',
    "the sum 1+2 = 3",
    "ssn 123&amp45 ok",
    "Here is -----BEGIN RSA PRIVATE KEY----- in a sentence, and more words after it.",
]


@pytest.mark.parametrize("text", UNCHANGED, ids=[u[:28] for u in UNCHANGED])
def test_what_is_no_value_comes_back_unchanged(text: str) -> None:
    if "PRIVATE KEY" in text:
        assert _released(text) == (
            "Here is [RSA PRIVATE KEY ****] in a sentence, and more words after it.")
        return
    assert _released(text) == text


def test_a_tag_of_no_html_name_is_read_both_ways() -> None:
    """A tag that names no HTML element is read as one (a value inside it is found) and as
    written (a value it labels is found): where the two disagree, the value is masked. Before
    a number, its name reads as a label word (`order 2025550143`: no phone)."""
    assert _released("<password>S3cret!Pw9</password>") == "<password>****</password>"
    assert _released("<order> 2025550143") == "<order> 2025550143"
    assert _released("<phone> 2025550143") == "<phone> ***0143"


def test_a_wrapped_key_takes_no_word_of_the_next_line() -> None:
    text = "sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD\nThen restart the app."
    assert [text[f.start:f.end] for f in find(text)] == ["sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD"]


def test_an_nhs_number_is_a_national_id_and_never_a_phone() -> None:
    assert [f.detector for f in find("NHS number 943 476 5919")] == ["uk_nhs"]
    assert find("NHS no. 943 476 5918") == []  # (its check digit fails: no phone either)
