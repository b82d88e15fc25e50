"""Secrets under other names than a password's (a private, signing or session key's, a cookie's,
a Stripe webhook secret, a Slack webhook's URL), a password's value however long it is, a
shell parameter's default value and a password's name written in two words or abbreviated:
the exact text released on the request side, as a whole reply and streamed (`released`), and
cut at every position for a few (`every_way`); the prose beside them that holds no value comes
back as it is. `check_reply` names each finding as the help desk's detectors do."""

from __future__ import annotations

import pytest
from released import every_way, released

from replyguard.engine import check_reply
from replyguard.engine.find import find

_SLACK = "https://hooks.slack.com/services/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"

_CAMEL_NAMES = ("clientSecret", "ClientSecret", "accessToken", "AccessToken", "refreshToken",
                "authToken", "idToken", "bearerToken", "csrfToken", "secretKey",
                "SecretAccessKey", "secretAccessKey", "webhookSecret", "appSecret",
                "consumerSecret", "masterKey", "AccountKey", "MASTERKEY")

#: A secret under a camelCase or PascalCase name, as JSON, an assignment and YAML write it.
CAMEL_CASE = [
    (written.format(name, "Qz7xK2mP9wQz7xK2mP9w"), written.format(name, "****"))
    for name in _CAMEL_NAMES
    for written in ('"{}": "{}"', "{}={}", "{}: {}")
] + [
    ('{"AccessKeyId": "AKIAIOSFODNN7EXAMPLE", '
     '"SecretAccessKey": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"}',
     '{"AccessKeyId": "AKIA****MPLE", "SecretAccessKey": "****"}'),
]

NOT_NAMING_A_SECRET = [
    "the access token expires",
    "tokenCount: 4096",
    "maxTokens: 4096",
    "accountKey: 12345",
    "the master key: kept in the safe",
]

MASKED = [
    # A secret assigned to a key's or a session's name.
    ("private_key: Qz7xK2mP9wLs8", "private_key: ****"),
    ("signing_key=Qz7xK2mP9wLs8", "signing_key=****"),
    ("SIGNING_KEY=Qz7xK2mP9wLs8", "SIGNING_KEY=****"),
    ("encryptionKey: Qz7xK2mP9wLs8", "encryptionKey: ****"),
    ("session_id=Qz7xK2mP9wLs8aB3", "session_id=****"),
    ("sessionToken = Qz7xK2mP9wLs8aB3", "sessionToken = ****"),
    ("secret_key = Qz7xK2mP9wLs8", "secret_key = ****"),
    ("client_secret: Qz7xK2mP9wLs8", "client_secret: ****"),
    ('{"private_key": "Qz7xK2mP9wLs8"}', '{"private_key": "****"}'),
    # A cookie's value in an HTTP header.
    ("Cookie: session=Qz7xK2mP9wLs8aB3", "Cookie: session=****"),
    ("Cookie: session=Qz7xK2mP9wLs8aB3; csrftoken=Xy9pL3kQ2zW8",
     "Cookie: session=****; csrftoken=****"),
    ("Cookie: session=Qz7xK2mP9wQz7xK2mP9w; theme=dark", "Cookie: session=****; theme=dark"),
    ("Cookie: theme=dark; session=Qz7xK2mP9wQz7xK2mP9w; lang=en",
     "Cookie: theme=dark; session=****; lang=en"),
    ("Cookie: a=; sid=Qz7xK2mP9wLs8aB3", "Cookie: a=; sid=****"),
    ("Set-Cookie: sid=Qz7xK2mP9wLs8aB3; Path=/", "Set-Cookie: sid=****; Path=/"),
    ("set-cookie: sid=Qz7xK2mP9wLs8aB3; HttpOnly; Secure",
     "set-cookie: sid=****; HttpOnly; Secure"),
    ("curl -H 'Cookie: sid=Qz7xK2mP9wLs8aB3' https://shop.example.com",
     "curl -H 'Cookie: sid=****' https://shop.example.com"),
    # A script setting a cookie: the first pair's value, its attributes kept.
    ('document.cookie = "sid=Qz7xK2mP9w"', 'document.cookie = "sid=****"'),
    ('document.cookie="session=Qz7xK2mP9wLs8; path=/"', 'document.cookie="session=****; path=/"'),
    ("document.cookie += 'sid=Qz7xK2mP9w; Secure'", "document.cookie += 'sid=****; Secure'"),
    # A Stripe webhook's signing secret and a Slack webhook's URL, as keys.
    ("STRIPE_WEBHOOK_SECRET=whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
     "STRIPE_WEBHOOK_SECRET=whsec_****LaSw"),
    ("Use whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw to verify.", "Use whsec_****LaSw to verify."),
    (f"Post to {_SLACK} now.", "Post to https://hooks.slack.com/services/****Ml2K now."),
    # A shell parameter's default value, a name in two words or abbreviated.
    ("password=${PASSWORD:-Qz7xK2mP9w}", "password=${PASSWORD:-****}"),
    ("DB_PASSWORD=${DB_PASSWORD:-Qz7xK2mP9w}", "DB_PASSWORD=${DB_PASSWORD:-****}"),
    ("  POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-Qz7xK2mP9w}",
     "  POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-****}"),
    ('password="${PASSWORD:-Qz7xK2mP9w}"', 'password="${PASSWORD:-****}"'),
    ("secret_key=${SECRET_KEY:=Qz7xK2mP9w}", "secret_key=${SECRET_KEY:=****}"),
    ("pass word: Qz7xK2mP9w", "pass word: ****"),
    ("p/w: Qz7xK2mP9w", "p/w: ****"),
    ("P/W = Qz7xK2mP9w", "P/W = ****"),
    *CAMEL_CASE,
]

UNCHANGED = [
    "the private key is stored in a vault",
    "the private key: stored in the vault",
    "Keep your signing key safe.",
    "session_id: 42",
    "session: Q3-2024 planning",
    "Cookie: theme=dark",
    "Set-Cookie: lang=en; Path=/",
    "Cookie: theme=dark; lang=en",
    "Cookie: a=1; b=2",
    "Set-Cookie: lang=en-US; Path=/",
    "Set-Cookie: visits=12345678; Path=/",
    "the cookie: session=expired",
    "document.cookie = 'theme=dark; path=/'",
    "document.cookie = `sid=${token}`",
    "const c = document.cookie;",
    'if (document.cookie == "sid=Qz7xK2mP9w") {}',
    "whsec_short",
    "https://hooks.slack.com/services/",
    "password=${DB_PASSWORD}",
    "password=${DB_PASSWORD:-}",
    "password=${PW:?set it}",
    "the p/w policy",
    "a pass word is long",
    *NOT_NAMING_A_SECRET,
]


def test_cookie_pairs_found_each_on_its_own() -> None:
    text = "Cookie: theme=dark; sid=Qz7xK2mP9wLs8aB3; csrf=Xy9pL3kQ2zW8; lang=en"
    assert [(f.detector, f.start, f.end) for f in find(text)] == [
        ("cookie_value", 24, 40), ("cookie_value", 47, 59)]


@pytest.mark.parametrize(("text", "screened"), MASKED, ids=[t[:32] for t, _ in MASKED])
def test_secret_masked(text: str, screened: str) -> None:
    assert released(text) == screened


@pytest.mark.parametrize("text", UNCHANGED)
def test_no_secret_comes_back_as_it_is(text: str) -> None:
    assert released(text) == text


@pytest.mark.parametrize(("text", "screened"), [
    ("Set-Cookie: sid=Qz7xK2mP9wLs8aB3; Path=/", "Set-Cookie: sid=****; Path=/"),
    ("Cookie: theme=dark; sid=Qz7xK2mP9wLs8aB3; lang=en", "Cookie: theme=dark; sid=****; lang=en"),
    ('document.cookie="session=Qz7xK2mP9wLs8; path=/"', 'document.cookie="session=****; path=/"'),
    ("signing_key=Qz7xK2mP9wLs8", "signing_key=****"),
    ('"clientSecret": "Qz7xK2mP9wLs8"', '"clientSecret": "****"'),
])
def test_secret_masked_however_a_stream_is_cut(text: str, screened: str) -> None:
    assert every_way(text) == {screened}


def test_findings_name_each_secret() -> None:
    text = ("private_key: Qz7xK2mP9wLs8\nCookie: sid=Qz7xK2mP9wLs8aB3\n"
            f"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n{_SLACK}\n")
    assert [(f.detector, f.start, f.end) for f in find(text)] == [
        ("secret_assignment", 13, 26), ("cookie_value", 39, 55), ("api_key", 56, 94),
        ("api_key", 103, 172)]
    assert [(f.rule, f.text, f.why) for f in check_reply(text)] == [
        ("password_assignment", "Qz7xK2mP9wLs8", "Passwords are secrets."),
        ("password_assignment", "Qz7xK2mP9wLs8aB3", "Passwords are secrets."),
        ("api_key", "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "Keys are secrets."),
        ("api_key", _SLACK[8:], "Keys are secrets.")]


_LONG = "Qz7x" * 300  # 1,200 characters
_HUGE = "Qz7x" * 25_000  # 100,000 characters
_ESCAPED = 'Qz\\"x' * 20_000  # (a quote escaped inside a quoted value)


@pytest.mark.parametrize(("text", "screened"), [
    (f"password={_LONG} ok.", "password=**** ok."),
    (f"Use password={_HUGE}. Then go.", "Use password=****. Then go."),
    (f'password = "{_LONG}" ok.', 'password = "****" ok.'),
    (f'{{"password": "{"ab c" * 9000}"}} ok.', '{"password": "****"} ok.'),
    (f"DB_PASSWORD={_LONG} ok.", "DB_PASSWORD=**** ok."),
    (f"client_secret: {_LONG} ok.", "client_secret: **** ok."),
    (f"your password is {_LONG} ok.", "your password is **** ok."),
    (f"Authorization: Bearer {'Qz7x9' * 1000} ok.", "Authorization: Bearer **** ok."),
    (f"password={_LONG}, then more.", "password=****, then more."),
    # 100 kB values cut by a reply's pieces next to punctuation the value does not end with
    (f"password={'Qz7x.' * 20_000} ok.", "password=****. ok."),
    (f"password={'Q,;:' * 25_000}Z ok.", "password=**** ok."),
    (f"password={'Q.' * 50_000}\nok.", "password=****.\nok."),
    (f'password = "{_ESCAPED}" ok.', 'password = "****" ok.'),
], ids=["1200", "100k", "quoted", "quoted-spaces", "env", "secret", "phrase", "bearer",
        "comma-after", "dots", "punctuation", "dot-pairs", "escapes"])
def test_password_masked_whole_however_long(text: str, screened: str) -> None:
    assert released(text) == screened


def test_long_password_finding_spans_the_whole_value() -> None:
    text = f"password={_HUGE} ok"
    assert [(f.detector, f.start, f.end) for f in find(text)] == [
        ("password_assignment", 9, 9 + len(_HUGE))]


_JWT_PARTS = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", "eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
              "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")

READ_THROUGH = [
    # A colon's look-alike after a password's name: the vertical two dot leader, the two dot
    # punctuation, Z notation's type colon, the Mongolian colon.
    ("Password\ufe30 Qz7xK2mP9w", "Password\ufe30 ****"),
    ("password \ufe30 Qz7xK2mP9w", "password \ufe30 ****"),
    ("Password\u205a Qz7xK2mP9w", "Password\u205a ****"),
    ("Password\u2982 Qz7xK2mP9w", "Password\u2982 ****"),
    ("Password\u1804 Qz7xK2mP9w", "Password\u1804 ****"),
    # A letter or digit URL-encoded inside a key.
    ("key sk-proj-%41bcdefghij4fJk29sLqPz8XvTn7mWbQ1cD end", "key sk-proj-****Q1cD end"),
    ("key sk-proj-Ab%63defghij4fJk29sLqPz8XvTn7mWbQ1c%44 end", "key sk-proj-****Q1cD end"),
    ("ghp_%31234567890abcdefghijABCDEFGHIJ123456", "ghp_****3456"),
    # Part of a key in bold or in a tag.
    ("key sk-proj-ab<b>cd</b>4fJk29sLqPz8XvTn7mWbQ1cD end", "key sk-proj-****Q1cD end"),
    ("key ghp_abc<code>def</code>1234567890abcdefghijABCDEFGHIJ12 end", "key ghp_****IJ12 end"),
    ("key ghp_abc**def**1234567890abcdefghijABCDEFGHIJ12 end", "key ghp_****IJ12 end"),
    ("key sk-proj-ab**cd**4fJk29sLqPz8XvTn7mWbQ1cD end", "key sk-proj-****Q1cD end"),
    ("key sk-proj-ab__cd__4fJk29sLqPz8XvTn7mWbQ1cD end", "key sk-proj-****Q1cD end"),
    # A JWT wrapped at its dots.
    ("\n".join(_JWT_PARTS), "eyJ****.****.****"),
    ("Token:\n" + "\n".join(_JWT_PARTS) + "\nThanks.", "Token:\neyJ****.****.****\nThanks."),
    (_JWT_PARTS[0] + _JWT_PARTS[1] + "\n" + _JWT_PARTS[2], "eyJ****.****.****"),
]

STILL_APART = [
    "Ratio 3\ufe302 holds.",
    "100%41 of them",
    "the 4111**1111**1111**1111 run",
    "text_with**bold**inside",
    "see eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.\nThen go.",
]


@pytest.mark.parametrize(("text", "screened"), READ_THROUGH,
                         ids=[t[:28] for t, _ in READ_THROUGH])
def test_secret_read_through_its_typing(text: str, screened: str) -> None:
    assert released(text) == screened


@pytest.mark.parametrize("text", STILL_APART)
def test_typing_around_no_secret_comes_back_as_it_is(text: str) -> None:
    assert released(text) == text


def test_wrapped_jwt_masked_however_a_stream_is_cut() -> None:
    assert every_way("\n".join(_JWT_PARTS)) == {"eyJ****.****.****"}
