"""Random replies for the agreement fuzz: sentences mixing the detectors' example values (with
the labels some need), prose, abbreviations, ASCII and CJK punctuation, blank lines and
Markdown, drawn from a seeded generator so that a run is repeatable. Imported by the property
test beside it and by tests/bench/fuzz_agreement.py (the long offline run)."""

from __future__ import annotations

import random

from replyguard.engine import DETECTORS

#: The label before an example value of the detectors that find a value only after one (the
#: same as the detector table's test gives them), or a name of its class for the others.
_LABELS = {
    "password_assignment": "password: ", "secret_assignment": "api_key=",
    "password_list": "passwords: ", "password_label": "\u30d1\u30b9\u30ef\u30fc\u30c9\uff1a",
    "uk_nhs": "NHS number: ", "us_ssn_labelled": "SSN: ", "br_cpf_labelled": "CPF: ",
    "uk_nino_labelled": "NI number: ", "bearer_token": "Authorization: Bearer ",
    "cookie_value": "Set-Cookie: sid=", "cli_password": "mysql -u root -p",
}
_NAMES = ["Card", "card number", "IBAN", "SSN", "NI no.", "NINO", "CPF", "Phone", "tel.",
          "IP", "IP address", "e-mail", "Email", "Password", "passwd", "pwd", "Senha", "Key",
          "Token", "API key", "No.", "N\u00b0.", "ref.", "ver.", "v.", "\u5bc6\u7801",
          "\u30ab\u30fc\u30c9", "Account", ""]
_JOINS = [": ", " ", " is ", "= ", ": ", " - ", "\uff1a", " \u2014 ", ":\n", " no. "]
#: Detectors whose examples are read without a label (a label would only be noise).
_SKIP = {"private_key", "password_quoted", "password_argument", "password_input",
         "password_confirm", "password_phrase", "password_layout", "password_column",
         "password_column_wide", "password_layout_wide", "url_password", "email_quoted"}
_VALUES = [(d.id, example) for d in DETECTORS if d.id not in _SKIP for example in d.examples]

_WORDS = ("the a it is was we you they this that plan team server update release note "
          "please see call me at on in for with and or but then here there value number "
          "account order version file reply done ok thanks").split()
_CAPS = ["The", "It", "We", "You", "Then", "Please", "Thanks", "Here", "This", "Call",
         "Mr.", "Dr.", "St.", "Mt.", "U.S.", "J.", "Albert", "Paris", "I"]
_ABBREVS = ["e.g.", "i.e.", "etc.", "vs.", "approx.", "No.", "no.", "Nos.", "ver.", "v.",
            "Vol.", "p.", "pp.", "Jan.", "Inc.", "Ltd.", "a.m.", "p.m.", "U.S.", "Fig.",
            "ref.", "ch.", "Art.", "Sec.", "tel.", "ext.", "N\u00b0.", "n\u00ba."]
_NUMBERS = ["10.0.0.1", "3", "12", "2.5", "1.2.3", "2024", "5.0", "4", "192.168.1.1",
            "AB 12 34 56 C", "A1", "10 000", "45"]
_ENDS = [". ", "! ", "? ", "... ", "\u3002", "\u3001", "\uff01", "\uff1f", ".\n", "\n\n",
         ", ", "; ", " ", ".", "\uff0c", "\u2026 "]
_CJK = ["\u3053\u3093\u306b\u3061\u306f", "\u3042\u308a\u304c\u3068\u3046",
        "\u8c22\u8c22", "\u6211\u7684", "\u3067\u3059", "\u756a\u53f7\u306f"]
_WRAPS = ["{}", "**{}**", "_{}_", "`{}`", '"{}"', "({})", "<b>{}</b>", "[{}]", "\u300c{}\u300d"]
_LINE_STARTS = ["", "", "", "- ", "1. ", "> ", "### ", "| x | ", "* ", "2) "]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def _value(rng: random.Random) -> str:
    """An example value, wrapped or not, after its label or a name of any class."""
    detector, value = rng.choice(_VALUES)
    value = rng.choice(_WRAPS).format(value)
    if detector in _LABELS and rng.random() < 0.8:
        return _LABELS[detector] + value
    return rng.choice(_NAMES) + rng.choice(_JOINS) + value


def _clause(rng: random.Random) -> str:
    """One stretch of a sentence."""
    kind = rng.random()
    if kind < 0.35:
        return _value(rng)
    if kind < 0.5:
        return rng.choice(_ABBREVS) + " " + rng.choice(_NUMBERS + _CAPS + _WORDS)
    if kind < 0.6:
        return rng.choice(_CJK)
    if kind < 0.75:
        return rng.choice(_CAPS) + " " + _words(rng, rng.randint(0, 4))
    return _words(rng, rng.randint(1, 5))


def random_text(rng: random.Random) -> str:
    """A reply of one to six lines of clauses joined by punctuation."""
    lines = []
    for _ in range(rng.randint(1, 6)):
        parts = [rng.choice(_LINE_STARTS)]
        for _ in range(rng.randint(1, 4)):
            parts += [_clause(rng), rng.choice(_ENDS)]
        lines.append("".join(parts))
    return rng.choice(["\n", "\n\n", " "]).join(lines)


#: Names of a password, as a label line or before a value on its own line.
_PASSWORD_NAMES = ["Password", "password", "Senha", "pwd", "passwd", "\u5bc6\u7801"]
#: Closers a value's end is written in (no HTML tag: a tag's end is read apart, "Still not
#: read" in docs/screening.md).
_CLOSING_WRAPS = ["**{}**", "_{}_", "`{}`", "({})", "[{}]", "\u300c{}\u300d", '"{}"']
_SIGNS = ["ver.", "ref.", "no.", "No.", "N\u00b0."]
_WIDE_STOPS = ["\u3002", "\uff01", "\uff1f"]
_NEXT = ["Then", "acco", "No more", "ok", "We left", "\u6b21\u3067\u3059", "Thanks"]


def focused_text(rng: random.Random, kinds: tuple[int, ...] = (0, 1, 2, 3)) -> str:
    """A text of one of the layouts the request side and the reply once read apart: a
    password's label line then a value of any class; `ver.`, `ref.` or a number sign before
    a number or a code; a value in closers, a full-width stop and a word; a label and a value
    with the line going on after a sentence end (`kinds`: which of them, 0 to 3). Ordinary
    prose around it."""
    detector, value = rng.choice(_VALUES)
    while detector == "email_spaced":  # (ranks with a password: "Still not read")
        detector, value = rng.choice(_VALUES)
    kind = rng.choice(kinds)
    if kind == 0:
        start = rng.choice(["", "- ", "1. ", "## ", "2) "])
        text = f"{start}{rng.choice(_PASSWORD_NAMES)}:\n{rng.choice(_WRAPS[:-1]).format(value)}"
    elif kind == 1:
        number = rng.choice([*_NUMBERS, "AB 12 34 56", "AB123456C", "A1", value])
        name = rng.choice(["Update to", "Your NI", "Part", "Quote", "I said"])
        text = f"{name} {rng.choice(_SIGNS)} {number} today."
    elif kind == 2:
        label = rng.choice(list(_LABELS.values()))
        # (before CJK, `。` only: the view reads `！？` as `!?`, which a value may end with)
        after = rng.choice(_NEXT)
        stop = rng.choice(_WIDE_STOPS) if after.isascii() else "\u3002"
        text = label + rng.choice(_CLOSING_WRAPS).format(value) + stop + after
    else:
        text = (f"{rng.choice(_PASSWORD_NAMES)}: {rng.choice(['[{}]', '({})']).format(value)}"
                f"{rng.choice(['!', '.', '...', '?'])}  {rng.choice(_NEXT)}.")
    return rng.choice(["", "Sure. ", "\u4e86\u89e3\u3067\u3059\u3002"]) + text


def texts(seed: int, n: int) -> list[str]:
    """`n` random replies from `seed` (the same ones on every run)."""
    rng = random.Random(seed)
    return [random_text(rng) for _ in range(n)]
