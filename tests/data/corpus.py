"""The labelled corpus: support-reply lines holding true values, generated at test time with a
fixed seed (Faker for names and addresses, python-stdnum for check digits), plus the static
hard negatives of hard_negatives.txt (lines holding no value at all).

`labelled()` returns `(text, expected)` pairs, `expected` a list of `(class, start, end)`.
Every value is synthetic: generated here, or a documented test value.
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable
from pathlib import Path

from faker import Faker
from stdnum import iban as stdnum_iban
from stdnum import luhn
from stdnum.br import cpf as stdnum_cpf
from stdnum.us import ssn as stdnum_ssn

HERE = Path(__file__).parent
SEED = 20261129

Label = tuple[str, int, int]
Line = tuple[str, list[Label]]

TEMPLATES = [
    "Thanks for your patience: I can see {} on your account.",
    "The refund went to {} and should arrive in three to five working days.",
    "You told us earlier that {} is the right one, so I've used it.",
    "For security, please don't send {} in chat again.",
    "I've updated your details to {}; let me know if that's wrong.",
    "Our records show {}, which matches what you gave us.",
    "Obrigado! Atualizei o cadastro com {} conforme pedido.",
    "{} was noted on the ticket.",
    "Could you confirm whether {} is still current?",
    "I found {} in the message you forwarded.",
]


def _digits(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(string.digits) for _ in range(n))


def card(rng: random.Random) -> str:
    """A Luhn-valid card number in the grouping of its scheme, spaces, hyphens or none."""
    prefix, length, groups = rng.choice([
        ("4", 16, (4, 4, 4, 4)), ("4", 13, (4, 4, 4, 1)), ("51", 16, (4, 4, 4, 4)),
        ("55", 16, (4, 4, 4, 4)), ("2221", 16, (4, 4, 4, 4)), ("34", 15, (4, 6, 5)),
        ("37", 15, (4, 6, 5)), ("6011", 16, (4, 4, 4, 4)), ("3528", 16, (4, 4, 4, 4)),
        ("36", 14, (4, 6, 4)), ("6304", 19, (4, 4, 4, 4, 3)),
    ])
    body = prefix + _digits(rng, length - len(prefix) - 1)
    number = body + luhn.calc_check_digit(body)
    sep = rng.choice([" ", "-", ""])
    parts, at = [], 0
    for size in groups:
        parts.append(number[at:at + size])
        at += size
    return sep.join(parts)


_BBAN: dict[str, Callable[[random.Random], str]] = {
    "GB": lambda r: "".join(r.choice(string.ascii_uppercase) for _ in range(4)) + _digits(r, 14),
    "DE": lambda r: _digits(r, 18),
    "FR": lambda r: _digits(r, 23),
    "NL": lambda r: "".join(r.choice(string.ascii_uppercase) for _ in range(4)) + _digits(r, 10),
    "ES": lambda r: _digits(r, 20),
    "BR": lambda r: _digits(r, 23) + "C1",
    "IT": lambda r: r.choice(string.ascii_uppercase) + _digits(r, 22),
    "PT": lambda r: _digits(r, 21),
}


def iban(rng: random.Random) -> str:
    """A valid IBAN (mod-97 check digits by python-stdnum), compact or in groups of four."""
    while True:
        country = rng.choice(sorted(_BBAN))
        bban = _BBAN[country](rng)
        check = stdnum_iban.calc_check_digits(country + "00" + bban)
        number = country + check + bban
        if stdnum_iban.is_valid(number):
            break
    if rng.random() < 0.5:
        return number
    return " ".join(number[i:i + 4] for i in range(0, len(number), 4))


def ssn(rng: random.Random) -> str:
    while True:
        area = rng.choice([n for n in range(1, 900) if n != 666])
        number = f"{area:03d}{rng.randint(1, 99):02d}{rng.randint(1, 9999):04d}"
        if stdnum_ssn.is_valid(number):
            break
    sep = rng.choice(["-", " "])
    return f"{number[:3]}{sep}{number[3:5]}{sep}{number[5:]}"


_NINO_FIRST = "ABCEGHJKLMNOPRSTWXYZ"
_NINO_SECOND = "ABCEGHJKLMNPRSTWXYZ"


def nino(rng: random.Random) -> str:
    while True:
        prefix = rng.choice(_NINO_FIRST) + rng.choice(_NINO_SECOND)
        if prefix not in {"BG", "GB", "KN", "NK", "NT", "TN", "ZZ"}:
            break
    digits = _digits(rng, 6)
    suffix = rng.choice("ABCD")
    if rng.random() < 0.5:
        return prefix + digits + suffix
    return f"{prefix} {digits[:2]} {digits[2:4]} {digits[4:]} {suffix}"


def cpf(rng: random.Random) -> str:
    while True:
        base = _digits(rng, 9)
        if len(set(base)) > 1:
            break
    # python-stdnum keeps its CPF check-digit function private: pick the pair it accepts.
    number = next(base + f"{n:02d}" for n in range(100) if stdnum_cpf.is_valid(base + f"{n:02d}"))
    if rng.random() < 0.7:
        return f"{number[:3]}.{number[3:6]}.{number[6:9]}-{number[9:]}"
    return number


def phone(rng: random.Random) -> str:
    """A number valid in its numbering plan, as an `en` reader's regions (US, GB) read it:
    the fictional ranges of Ofcom (020 7946 0xxx, 0161 496 0xxx) and NANPA (555-01xx),
    libphonenumber's example GB mobile, and `+` numbers of other countries."""
    d = lambda n: _digits(rng, n)  # noqa: E731
    return rng.choice([
        f"+44 20 7946 0{d(3)}", "+44 7400 123456", "07400 123456", f"020 7946 0{d(3)}",
        f"0161 496 0{d(3)}", f"+1 (202) 555-01{d(2)}", f"(202) 555-01{d(2)}",
        f"202-555-01{d(2)}", f"+1 202 555 01{d(2)}", f"+55 11 9{d(4)}-{d(4)}",
        f"+49 30 {d(7)}", f"+33 1 {d(2)} {d(2)} {d(2)} {d(2)}", f"+351 21 {d(3)} {d(4)}",
        f"+1-202-555-01{d(2)}", f"202.555.01{d(2)}",
    ])


def _token(rng: random.Random, n: int, alphabet: str = string.ascii_letters + string.digits
           ) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def api_key(rng: random.Random) -> str:
    t = lambda n: _token(rng, n)  # noqa: E731
    return rng.choice([
        f"sk-proj-{t(40)}", f"sk-{t(48)}", f"sk-ant-api03-{t(60)}", f"sk_live_{t(24)}",
        f"sk_test_{t(24)}", f"rk_live_{t(24)}", f"pk_live_{t(24)}", f"ghp_{t(36)}",
        f"gho_{t(36)}", f"github_pat_{t(22)}_{t(59)}", f"glpat-{t(20)}", f"xoxb-{t(12)}-{t(24)}",
        f"AIza{t(35)}", f"hf_{t(34)}", f"npm_{t(36)}", f"SG.{t(22)}.{t(43)}",
    ])


def aws_key(rng: random.Random) -> str:
    return rng.choice(["AKIA", "ASIA"]) + _token(rng, 16, string.ascii_uppercase + string.digits)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(rng: random.Random) -> str:
    header = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    payload = {"sub": _digits(rng, 10), "iat": rng.randint(1_600_000_000, 1_800_000_000)}
    signature = bytes(rng.randrange(256) for _ in range(32))
    return ".".join([_b64url(json.dumps(header).encode()),
                     _b64url(json.dumps(payload).encode()), _b64url(signature)])


def private_key(rng: random.Random) -> str:
    kind = rng.choice(["RSA ", "EC ", "OPENSSH ", "", "ENCRYPTED "])
    body = base64.b64encode(bytes(rng.randrange(256) for _ in range(rng.randint(90, 300))))
    lines = [body[i:i + 64].decode() for i in range(0, len(body), 64)]
    return "\n".join([f"-----BEGIN {kind}PRIVATE KEY-----", *lines,
                      f"-----END {kind}PRIVATE KEY-----"])


def password_line(rng: random.Random) -> tuple[str, str]:
    """A password assignment and the password value it holds."""
    value = (_token(rng, rng.randint(3, 6), string.ascii_letters) + _digits(rng, 2)
             + rng.choice("!#$%&*?") + _token(rng, 3))
    label = rng.choice(["password: ", "Password = ", "senha: ", "pwd=", "passphrase: ",
                        "temporary password: ", "Senha="])
    return label + value, value


def ip_address(rng: random.Random, fake: Faker) -> str:
    return fake.ipv4_public() if rng.random() < 0.6 else fake.ipv6()


def generated(count_per_class: int = 24) -> list[Line]:
    """Lines holding values of every class, each placed in a support-reply sentence."""
    rng = random.Random(SEED)
    fake = Faker(["en_US", "en_GB", "pt_BR"])
    Faker.seed(SEED)
    makers: list[tuple[str, Callable[[], str]]] = [
        ("card", lambda: card(rng)), ("iban", lambda: iban(rng)),
        ("national_id", lambda: ssn(rng)), ("national_id", lambda: nino(rng)),
        ("national_id", lambda: cpf(rng)), ("email", lambda: fake.email()),
        ("phone", lambda: phone(rng)), ("api_key", lambda: api_key(rng)),
        ("aws_access_key", lambda: aws_key(rng)), ("jwt", lambda: jwt(rng)),
        ("private_key", lambda: private_key(rng)), ("ip_address", lambda: ip_address(rng, fake)),
    ]
    lines: list[Line] = []
    for cls, make in makers:
        for _ in range(count_per_class):
            value = make()
            template = rng.choice(TEMPLATES)
            start = template.index("{}")
            text = template.format(value)
            lines.append((text, [(cls, start, start + len(value))]))
    for _ in range(count_per_class):
        assignment, value = password_line(rng)
        template = rng.choice(TEMPLATES)
        text = template.format(assignment)
        start = template.index("{}") + len(assignment) - len(value)
        lines.append((text, [("password", start, start + len(value))]))
    for _ in range(count_per_class):  # two values of different classes in one line
        first, second = card(rng), fake.email()
        text = f"The card {first} is on file and receipts go to {second}."
        a = text.index(first)
        b = text.index(second)
        lines.append((text, [("card", a, a + len(first)), ("email", b, b + len(second))]))
    return lines


def hard_negatives() -> list[Line]:
    """The static lines of hard_negatives.txt (comments and blank lines skipped): no value."""
    text = (HERE / "hard_negatives.txt").read_text(encoding="utf-8")
    return [(line, []) for line in text.splitlines() if line.strip() and not line.startswith("#")]


def labelled() -> list[Line]:
    """The whole labelled corpus: generated lines, then the hard negatives."""
    return generated() + hard_negatives()
