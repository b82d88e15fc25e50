"""The detectors of secrets: private key blocks, JWTs, vendor API keys, AWS access keys,
passwords in every syntax and layout, a URL's password (one declaration each)."""



from __future__ import annotations

import re

from replyguard.engine import masks, validators
from replyguard.engine.context_marks import (
    Refusing,
    a_ticket_pass,
    no_password_named_before,
)
from replyguard.engine.cookies import CookiePairs
from replyguard.engine.detector import Detector
from replyguard.engine.key_block import KEY_BLOCK, KEY_BODY, KEY_END, KEY_TAIL
from replyguard.engine.layout import Columns
from replyguard.engine.password_pairs import KEYWORDS as PAIRS_KEYWORDS
from replyguard.engine.password_pairs import PasswordPairs
from replyguard.engine.secret_shapes import (
    ARE_IN_WORDS,
    ASSIGNED,
    ATTRIBUTES,
    BETWEEN_COMMAS,
    BLOCK_SCALAR,
    CREDENTIALS,
    IN_LIST,
    IS_IN_WORDS,
    KIND,
    LAYOUT,
    LAYOUT_KEYWORDS,
    LAYOUT_WIDE_KEYWORDS,
    OPERATOR,
    PASSWORD_INPUT,
    PASSWORD_KEYWORDS,
    PASSWORD_NAME,
    PASSWORT_IS,
    RUNS_ON,
    RUNS_ON_QUOTED,
    SET_TO,
    USE_THE,
    VALUE,
    VALUE_READ,
    a_policy,
    key_at,
    quoted_or,
)

#: How many characters of a key's body the `api_key` pattern reads (`_body`).
KEY_READ = 1024


def _body(least: int) -> str:
    """A key's body after its first character class: `least` characters at least, up to
    `KEY_READ` (a body going on past them is read on: `Detector.rest`)."""
    return f"{{{least},{KEY_READ}}}"


#: An item of a list of passwords (`password_list`).
_LISTED = r"[^\s,;\"'`]{0,127}[^\s,;\"'`.:)]"
#: What sets a listed password apart from the next: a comma, or after a plural name's verb
#: a word for "and" (`e`, `und`, `y`, `et`, `en`).
_LIST_SEP = r"(?:,[ \t]{0,4}|(?(verb)[ \t]+(?:e|und|y|et|en)[ \t]+|(?!)))"
#: A verb after a password's name saying what its value is (`password_phrase`): `is`, `was`,
#: `has been`, `will be`, `remains`, up to two words (`now`, `set`…) and `to` after it.
_IS = (r"[ \t]+(?:is|was|has[ \t]+been|will[ \t]+be|remains)"
       r"(?:[ \t]+(?:now|still|currently|temporarily|set|changed|reset|updated)){0,2}"
       r"(?:[ \t]+to)?")


#: What follows a user's name, not a password, in a list (`Passwords: user0: Lm4nB8vR2t`,
#: `user0 — Lm4nB8vR2t`, lines joined): `:` or `=` and a value, or a dash and a word holding a
#: letter and a digit (`Qz7xK2mP9w — keep it safe` is a password and a remark).
_NO_NAME = (r"(?![^\s,;\"'`]*(?:[ \t]*[:=][ \t]*[^\s:=]|[ \t]+[-\u2013\u2014][ \t]+"
            r"(?=\S*[0-9])(?=\S*[A-Za-z])\S))")


SECRET_DETECTORS: tuple[Detector, ...] = (
    Detector(
        id="private_key",
        category="private_key",
        regex=re.compile(
            KEY_BLOCK + "|" + KEY_TAIL
        ),
        keywords=("private key", "private_key"),
        keywords_in="lower",
        validate=None,
        mask=masks.private_key,
        priority=0,
        rest=re.compile(KEY_BODY + "*(?:" + KEY_END + ")?"),
        examples=(
            "-----BEGIN RSA PRIVATE KEY-----\n"
            "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4\n"
            "-----END RSA PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\n"
            "lQOYBF0Tj0sBCADIxTk7bZKq5m3kO1VZ9x\n=Zx9Q\n-----END PGP PRIVATE KEY BLOCK-----",
            "-----BEGIN RSA PRIVATE KEY-----\n> MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy\n"
            "> 1tPf9Cnzj4p4\n> -----END RSA PRIVATE KEY-----",
        ),
        counterexamples=("-----BEGIN PUBLIC KEY-----\nMFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAKj34Gkx\n",
                         "the private key is kept in the vault",
                         "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQENBF0Tj0sBCADIxTk7bZKq\n",
                         "Keep your PRIVATE KEY safe."),
    ),
    Detector(
        id="jwt",
        category="jwt",
        # Header, payload and signature (RFC 7519); a token cut short by the end of the text
        # read, after its payload has started, is a token too (its rest: `rest`). Its dots
        # may be spaced (`eyJ… . eyJ… . sig`; a signature after a spaced dot holds a digit,
        # `_` or `-`, as random ones do: `….eyJ…. Then` ends a sentence).
        regex=re.compile(
            r"e(?<![\w-]e)yJ[A-Za-z0-9_-]{4,}+[ \t]{0,2}\.[ \t]{0,2}eyJ[A-Za-z0-9_-]{4,}+"
            r"(?:[ \t]{0,2}\.[ \t]{0,2}(?=[A-Za-z]*[0-9_-])[A-Za-z0-9_-]++|\.[A-Za-z0-9_-]*+|\Z)"
            r"(?![\w-])"
        ),
        keywords=("eyJ",),
        validate=validators.jwt,
        mask=masks.jwt,
        priority=1,
        rest=re.compile(r"[A-Za-z0-9_.-]*+"),
        examples=(
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
            "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        ),
        counterexamples=("eyJub3Rqc29u.eyJub3Rqc29u.abc", "keyJoin.eyJ.x"),
    ),
    Detector(
        id="api_key",
        category="api_key",
        # A key's body is read to its end however long: `KEY_READ` characters of it, then,
        # where it goes on (group `cut`), the rest (`rest`, read on by `engine.find`).
        regex=re.compile(
            "(?:" + key_at("s") + r"k-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_-]" + _body(20)
            + "|" + key_at("[sr]") + r"k_(?:live|test)_[A-Za-z0-9]" + _body(16)
            + "|" + key_at("p") + r"k_live_[A-Za-z0-9]" + _body(16)
            + "|" + key_at("g") + r"h[pousr]_[A-Za-z0-9]" + _body(36)
            + "|" + key_at("g") + r"ithub_pat_[A-Za-z0-9_]" + _body(22)
            + "|" + key_at("g") + r"lpat-[A-Za-z0-9_-]" + _body(20)
            + "|" + key_at("x") + r"ox[abprs]-[A-Za-z0-9-]" + _body(10)
            + "|" + key_at("A") + r"Iza[0-9A-Za-z_-]" + _body(35)
            + "|" + key_at("h") + r"f_[A-Za-z0-9]" + _body(30)
            + "|" + key_at("n") + r"pm_[A-Za-z0-9]" + _body(36)
            + "|" + key_at("w") + r"hsec_[A-Za-z0-9+/]" + _body(24) + "={0,2}"
            + "|" + key_at("h") + r"ooks\.slack\.com/services/T[A-Z0-9]{8,12}/B[A-Z0-9]{8,12}"
            r"/[A-Za-z0-9]" + _body(24)
            + "|" + key_at("S") + r"G\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]" + _body(43)
            + "|" + key_at("G") + r"OCSPX-[A-Za-z0-9_-]" + _body(27)
            + "|" + key_at("y") + r"a29\.[A-Za-z0-9_-][A-Za-z0-9._~+/-]" + _body(18)
            + r"(?<!\.)=*"
            + "|" + key_at("g") + r"lptt-[A-Za-z0-9_-]" + _body(19)
            + "|" + key_at("p") + r"ypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]" + _body(49)
            + "|" + key_at("d") + r"o[por]_v1_[a-f0-9]" + _body(63)
            + "|" + key_at("s") + r"hp(?:at|ca|pa|ss)_[a-fA-F0-9]" + _body(31)
            # (every body's characters hold the letters and digits: a body stopping before
            # one is `KEY_READ` long, and goes on)
            + r")(?:(?![A-Za-z0-9])|(?P<cut>))"
        ),
        # `_` stands for sk_ rk_ pk_live_ gh?_ github_pat_ hf_ npm_ whsec_ do?_v1_ shp??_ (one
        # fast scan for all); a Slack webhook's URL (its path is the secret) is read from its
        # host. Google's OAuth client secret (`GOCSPX-`) and access token (`ya29.`), GitLab's
        # pipeline trigger token (`glptt-`), PyPI's API token (`pypi-` and its macaroon's
        # fixed start), DigitalOcean's tokens (`dop_v1_`, `doo_v1_`, `dor_v1_`) and
        # Shopify's (`shpat_`, `shpca_`, `shppa_`, `shpss_`) as their vendors issue them.
        keywords=("_", "sk-", "glpat-", "xox", "AIza", "SG.", "hooks.slack.com/services/",
                  "GOCSPX-", "ya29.", "glptt-", "pypi-"),
        validate=validators.api_key,
        mask=masks.api_key,
        priority=2,
        rest=re.compile(r"[A-Za-z0-9_+/=-]*+"),
        examples=(
            "sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD",
            "sk_live_51H8abcDEFghiJKLmnopQRst",
            "ghp_1234567890abcdefghijABCDEFGHIJ123456",
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "xoxb-1234567890-abcdefghij",
            "ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5F6g7H8",
            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            "hooks.slack.com/services/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",
            "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",
            "ya29.A0ARrdaM-A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0",
            "glptt-A1b2C3d4E5f6G7h8I9j0",
            "pypi-AgEIcHlwaS5vcmcCJDEyMzQ1Njc4LTEyMzQtMTIzNC0xMjM0LTEyMzQ1Njc4OTAxMg",
            "dop_v1_" + "a1b2c3d4e5f6a7b8" * 4,
            "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",
            "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",
        ),
        counterexamples=("sk-short", "the task-list", "ghp_tooshort", "risk-free options",
                         "help.example.com/how-to-mask-your-personal-data-safely",
                         "the desk-top-printer-setup-guide-for-windows page",
                         "the-best-sk-Learn2024-course", "ghp_1234567890abcdefghijABCDEFGHIJ12345",
                         "whsec_short", "https://hooks.slack.com/services/",
                         "hooks.slack.com/services/T0A1B2C3D/B4E5F6G7H/short",
                         "GOCSPX-short", "ya29.short", "the ya29.html page", "glptt-short",
                         "pypi-AgEIcHlwaS5vcmc", "pypi-package-name-for-the-docs",
                         "dop_v1_a1b2c3", "shpat_not_a_key", "shpat_a1b2c3d4e5f6a7b8c9d0e1f2"),
    ),
    Detector(
        id="aws_access_key",
        category="aws_access_key",
        regex=re.compile(r"(?:AKIA|ASIA)(?<![A-Za-z0-9]....)[A-Z0-9]{16}(?![A-Za-z0-9])"),
        keywords=("AKIA", "ASIA"),
        validate=validators.aws_access_key,
        mask=masks.aws_access_key,
        priority=3,
        examples=("AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A"),
        counterexamples=("AKIAIOSFODNN7EXAMPLEX", "XAKIAIOSFODNN7EXAMPLE", "AKIA is a prefix",
                         "AKIAXXXXXXXXXXXXXXXX", "ASIA0000000000000000"),
    ),
    Detector(
        id="password_quoted",
        category="password",
        # A password's name assigned a quoted string (`{"password": "sunshine"}`,
        # `password = "correct horse battery staple"`, escapes read: `"Qz7x\\"K2mP9w"`), or an
        # environment variable naming one (`DB_PASSWORD=sunshine`, no suffix after the name:
        # `PASSWORD_MIN_LENGTH=12` names a setting): the syntax says a password is given, so
        # any value is one but an obvious non-secret (`validators.assigned_password`), nor
        # another name and its operator (`"password": "password": "..."`).
        regex=Refusing(re.compile(
            r"(?:(?-i:P(?<![A-Za-z0-9]P)ASS(?:WORD|WD)?|P(?<![A-Za-z0-9]P)WD)\d?=(?=[^\s\"'`])"
            r"(?P<env>)|" + PASSWORD_NAME + r"s?\d?(?:[\"'`]?\]?)[ \t]{0,8}" + OPERATOR
            + r"[ \t]{0,8}(?![\"']" + ASSIGNED + "))"
            + quoted_or("env", r"[^\s\"'`]{0,1023}[^\s\"'`.,;:)]",
                         f"[^\\s\"'`]{{{VALUE_READ}}}(?=[^\\s\"'`])")
        ), a_ticket_pass),
        keywords=PASSWORD_KEYWORDS,
        keywords_in="lower",
        validate=validators.assigned_password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=RUNS_ON_QUOTED,
        examples=("sunshine", "correct horse battery staple", "Qz7x\\\"K2mP9w"),
        counterexamples=('{"password": ""}', '{"password": "****"}', "password = '<your password>'",
                         'password: "${DB_PASSWORD}"', '"password": "Password"',
                         "PASSWORD_MIN_LENGTH=12", "DB_PASSWORD=$DB_PASSWORD",
                         "'password' => 'required|min:8'", '"password": null',
                         '"password": "at least 12 characters"'),
    ),
    Detector(
        id="password_assignment",
        category="password",
        # The name, in any case and after any non-alphanumeric character or inside a
        # camelCase name (`dbPassword`), with an optional `_`/`.`/`-` suffix
        # (`password_hash`, `PASSWORD_DB`), a qualifier (`password for bob`,
        # `password (temporary)`) and a closing quote or bracket (`$config['password']`);
        # the operator (`OPERATOR`: `:` `=` `:=` `=>` `==`, an arrow, a dash); the value
        # (`VALUE`; never a name and its operator again: `ASSIGNED`), or the first string of
        # a list or of an object (`{"password": ["..."]}`, `{"password": {"value": "..."}}`).
        # `pass` after a word naming a ticket (`Season pass:`) names no password.
        regex=Refusing(re.compile(
            ASSIGNED + r"[ \t]{0,8}" + BLOCK_SCALAR + IN_LIST + "(?!" + ASSIGNED + ")"
            + VALUE
        ), a_ticket_pass),
        keywords=PASSWORD_KEYWORDS,
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=RUNS_ON,
        examples=("hunter2Secret!", "S3cr3t-value"),
        counterexamples=("password: reset it from the link", "your password is safe",
                         "passport: see the counter", "compass: north", "dbpassword=S3cret!x",
                         "pass-through: enabled", "password == null",
                         "senha: nova", "password: Reset.", "password: ********",
                         "password: [REDACTED]", "password: https://shop.example.com/reset",
                         "pass_rate: 0.95", "PWD=/home/alice/project",
                         "password=${DB_PASSWORD}", "password: YOUR_PASSWORD",
                         "password = os.environ['DB_PASSWORD']", "DB_PASS=process.env.DB_PASS",
                         "const password = req.body.password;",
                         "if password == confirmPassword:", "password = input('Password: ')",
                         "password: null", "ALTER ROLE bob WITH PASSWORD NULL;",
                         "password: (hidden)", "password = db_password",
                         "Password: (none)", "password: (see above)", "password: <your-password>",
                         "    password: Optional[str] = None", "    password: SecretStr",
                         "password: Mapped[str] = mapped_column(String(128))",
                         "  password: string;", "password for the account: see the link",
                         "password: {{password}}",
                         "Season pass: Gold2025", "boarding pass = Zone4B",
                         'password: <code class="pw">'),
    ),
    Detector(
        id="password_argument",
        category="password",
        # A password's name as a quoted key, then its value: the next argument of a call
        # (`define('DB_PASSWORD', '...')`, `setProperty("password", "...")`, `map.put(...)`,
        # `os.getenv("DB_PASSWORD", "...")`), an element's `value` attribute
        # (`<property name="password" value="..."/>`) or its text (`<param
        # name="password">...</param>`), other attributes between them (`<input
        # type="password" id="pw" value="...">`); or a call named so with a quoted argument
        # (SQL's `PASSWORD('...')`, `check_password("...")`); or a label naming a password
        # before an input's `value` (`<label>Password</label><input value="...">`: the view
        # reads the label's tags as spaces).
        regex=re.compile(
            PASSWORD_NAME + r"\d?(?:[\"'](?:[ \t]*,[ \t]*|" + ATTRIBUTES + "value[ \t]*=[ \t]*"
            r"|(?P<el>>))|[ \t]*\([ \t]*(?=[\"'])"
            r"|[ \t]{0,4}:?[ \t\n]{0,8}<(?i:input)(?=[ \t\n])" + ATTRIBUTES
            + r"(?i:value)[ \t]*=[ \t]*(?=[\"']))"
            + quoted_or("el", r"[^<>\s\"'`]{1,128}(?=</)")
        ),
        keywords=PASSWORD_KEYWORDS,
        keywords_in="lower",
        validate=validators.assigned_password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=RUNS_ON_QUOTED,
        examples=("sunshine", "Qz7xK2mP9w"),
        counterexamples=('input("Password: ")', 't("password", "Password")',
                         'os.getenv("DB_PASSWORD", "")', '<label for="password">Password</label>',
                         'prompt_password("Enter your password")'),
    ),
    Detector(
        id="password_input",
        category="password",
        # An HTML input of type `password` and its `value` attribute, in either order and
        # with other attributes between them, quoted or not (`<input type=password
        # value=…>`, `<input value="…" type="password">`): the type says a password is given.
        regex=re.compile(r"<(?i:input)" + PASSWORD_INPUT),
        keywords=("<input",),
        keywords_in="lower",
        validate=validators.assigned_password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=RUNS_ON_QUOTED,
        examples=("sunshine", "Qz7xK2mP9w"),
        counterexamples=('<input type="password" value="">', "<input type=text value=Qz7xK2mP9w>",
                         '<input value="{{ pw }}" type="password">',
                         "<input type=password placeholder=Password>",
                         '<input type="password" name="pw"><input value="Qz7xK2mP9w">'),
    ),
    Detector(
        id="password_list",
        category="password",
        # Passwords listed after a plural name (`passwords: Qz7xK2mP9w, Xy9pL3kQ2z`), or
        # after a plural name and its verb in other languages (`As senhas são Qz7xK2mP9w e
        # Xy9pL3kQ2z`, `Die Passwörter lauten …`, `Las contraseñas son …`: group `verb`; the
        # items then set apart by `e`, `und`, `y`, `et`, `en` too): the list, each item a
        # password's value (`validators.password_list`), read to its end however long: 32
        # items, then (group `cut`) the rest (`rest`).
        regex=re.compile(
            r"(?:(?i:p)(?<![A-Za-z0-9]p)(?i:asswords|asscodes|ins)[ \t]{0,8}[:=]|" + ARE_IN_WORDS
            + r"(?P<verb>))[ \t]{0,8}(?P<value>" + _LISTED + r"(?:" + _LIST_SEP + _LISTED
            + r"){0,31}+)" + _NO_NAME + r"(?:(?!" + _LIST_SEP + _LISTED + r")|(?P<cut>))"
        ),
        keywords=("pass", "pin", "senhas", "contrase", "mots de passe", "wachtwoorden"),
        keywords_in="lower",
        validate=validators.password_list,
        mask=masks.password,
        priority=4,
        group="value",
        # (a reply's piece may start with an item, the piece before it ending after `, `)
        rest=re.compile(r"(?:(?<![^,\s])[ \t]{0,4}" + _LISTED + r")?(?:,[ \t]{0,4}" + _LISTED
                        + r")*+(?:,[ \t]*\Z)?"),
        examples=("Qz7xK2mP9w, Xy9pL3kQ2z", "Qz7xK2mP9w"),
        counterexamples=("Passwords: at least 12 characters", "passwords: none, yet",
                         "As senhas s\u00e3o fortes e longas.",
                         "Die Passw\u00f6rter sind sicher und lang."),
    ),
    Detector(
        id="secret_assignment",
        category="password",
        # A secret, a token or an API key assigned to its name (`secret:`, `client_secret=`,
        # `SECRET_KEY=`, `AWS_SECRET_ACCESS_KEY=`, `access_token:`, `api_key=`), a private,
        # signing or encryption key's (`private_key:`, `signing_key=`, `encryptionKey=`), a
        # master or an account key's (`masterKey:`, `AccountKey=`, `master_key=`,
        # `account-key:`; a key block after it is
        # `private_key`'s) or a session's (`session_id=`, `SESSION_TOKEN=`): the name as a
        # word of its own or after `_`/`-`/`.`, or `Secret`/`Token` as a camelCase name's
        # part (`clientSecret`, `accessToken`, `SecretAccessKey`; not `max_tokens`,
        # `token_count`, `maxTokens`, `tokenCount`; `the private key: …` in words names
        # none), the value as a password's.
        regex=re.compile(
            r"(?:(?i:s(?<![A-Za-z0-9]s)ecret|t(?<![A-Za-z0-9]t)oken|a(?<![A-Za-z0-9]a)pi[_-]?key"
            r"|(?:p(?<![A-Za-z0-9]p)rivate|s(?<![A-Za-z0-9]s)igning"
            r"|e(?<![A-Za-z0-9]e)ncryption)[_.-]?key"
            r"|(?:m(?<![A-Za-z0-9]m)aster|a(?<![A-Za-z0-9]a)ccount)[_-]?key"
            r"|s(?<![A-Za-z0-9]s)ession[_.-]?(?:id|key|token))|S(?<=[a-z]S)ecret|T(?<=[a-z]T)oken)"
            r"(?:(?i:[_.-](?:access|key|token|value))|Access|Key|Token|Value){0,2}"
            r"(?:[\"'`]?\]?)[ \t]{0,8}" + OPERATOR + r"[ \t]{0,8}" + VALUE
        ),
        # (`masterkey`, `master_key`, `account-key`...: not `master`, `account`, words of
        # ordinary replies.)
        keywords=("secret", "token", "api", "private", "signing", "encryption", "session",
                  "masterkey", "accountkey", "master_key", "account_key", "master-key",
                  "account-key"),
        keywords_in="lower",
        validate=validators.secret,
        mask=masks.password,
        priority=4,
        group="value",
        rest=RUNS_ON,
        examples=("Qz7xK2mP9w", "hunter2Secret!", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        counterexamples=("max_tokens: 1024", "token_count: 4096", "secret: true",
                         "the private key: stored in the vault", "session_id: 42",
                         "session: Q3-2024 planning", "privateKeyPath: /etc/ssl/key.pem",
                         "the secret: be kind", "tokens: 1200", "api_key=${API_KEY}",
                         "token: <your-token>", "secretary: Ann", "SECRET_KEY=os.environ['K']",
                         "max token: 4096", "token: 128,000", "secret: 42",
                         "tokenCount: 4096", "maxTokens: 4096", "the access token expires"),
    ),
    Detector(
        id="basic_credentials",
        category="password",
        # The credentials of an HTTP `Authorization` header of the Basic scheme (RFC 7617:
        # base64 of `user:password`; `Authorization: Basic Ym9iOnNlY3JldA==`, curl's `-H`, a
        # headers map in code or JSON), however short: their text holds the colon.
        regex=re.compile(r"(?i:a(?<![A-Za-z0-9]a)uthorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
                         r"(?i:basic)[ \t]+(?P<value>[A-Za-z0-9+/]{4,1024}={0,2})"
                         r"(?![A-Za-z0-9+/=])"),
        keywords=("basic",),
        keywords_in="lower",
        validate=validators.basic_credentials,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("Ym9iOnNlY3JldA==", "YWxhZGRpbjpvcGVuc2VzYW1l"),
        counterexamples=("Authorization: Basic realm", "Authorization: Basic <credentials>",
                         "Authorization: Basic dXNlcm5hbWU=", "basic authorization: none",
                         "Authorization: Basic Ym9iOg=="),
    ),
    Detector(
        id="bearer_token",
        category="password",
        # A bearer token (RFC 6750's b64token) after the word `Bearer`, as an HTTP
        # `Authorization` header gives it (`Authorization: Bearer …`, curl's `-H`, a headers
        # map in code or JSON), or the credentials of an `Authorization` header of another
        # scheme or of none (`Authorization: Token …`, `Bot …`, `Basic …`, `Authorization:
        # …`): 16 or more of its characters, a digit among them, looking like a secret.
        regex=re.compile(r"(?:(?i:b(?<![A-Za-z0-9]b)earer)"
                         r"|(?i:a(?<![A-Za-z0-9]a)uthorization)[\"']?[ \t]*[:=][ \t]*[\"']?"
                         r"(?:(?i:token|bot|basic|digest|apikey|key)(?=[ \t]))?)[ \t]*"
                         r"(?P<value>(?=[A-Za-z\-._~+/]*[0-9])(?:[A-Za-z0-9\-._~+/]{1024}"
                         r"(?=[A-Za-z0-9\-._~+/=])(?P<cut>)|[A-Za-z0-9\-._~+/]{16,1024}=*"
                         r"(?![A-Za-z0-9\-._~+/=])))"),
        keywords=("bearer", "authorization"),
        keywords_in="lower",
        validate=validators.secret,
        mask=masks.password,
        priority=4,
        group="value",
        rest=RUNS_ON,
        examples=("4fJk29Pz8XvTn7QmW2bLs9Hd3RtYu6Vc", "a0AfH6SMBx-Kq3_Lz9P~7w+Tq/Rv=="),
        counterexamples=("the bearer of this letter", "Bearer <token>",
                         "Authorization: Bearer ${TOKEN}", "Bearer authentication_required",
                         "Bearer token"),
    ),
    Detector(
        id="cookie_value",
        category="password",
        # A cookie's value in an HTTP header (RFC 6265), a session's id as good as a password:
        # `Set-Cookie: sid=…; Path=/` (the first pair's value; the attributes after it are
        # kept), `Cookie: theme=dark; session=…` (each pair's value on its own, the names and
        # the other values kept), a quote ending it (`-H 'Cookie: sid=…'`): `CookiePairs`.
        # A value looking like a secret (`validators.cookie`: `theme=dark`, `lang=en-US` are
        # none).
        regex=CookiePairs(),
        keywords=("cookie",),
        keywords_in="lower",
        validate=validators.cookie,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("Qz7xK2mP9wLs8aB3", "s%3AQz7xK2mP9w.Ls8aB3"),
        counterexamples=("Cookie: theme=dark", "Set-Cookie: lang=en; Path=/",
                         "the cookie: session=expired", "Cookie: chocolate chip",
                         "Cookie: theme=dark; lang=en", "Set-Cookie: lang=en-US; Path=/"),
    ),
    Detector(
        id="password_label",
        category="password",
        # A password after a label in another script: Russian `пароль` (read through the
        # look-alike letters the view folds to ASCII), Japanese `パスワード`, Chinese `密码`,
        # Korean `비밀번호`, Japanese `暗証番号` (a PIN), Chinese `口令`; then `:`, `=`, a
        # full-width colon (read as `:`) or a particle
        # (`は`, `是`, `는`).
        regex=re.compile(
            r"(?:(?i:\u043f[a\u0430][p\u0440][o\u043e]\u043b[\u044cb])|\u30d1\u30b9\u30ef"
            r"\u30fc\u30c9|\u5bc6[\u7801\u78bc]|\ube44\ubc00\ubc88\ud638|\u6697\u8a3c\u756a\u53f7"
            r"|\u53e3\u4ee4)"
            r"(?:[ \t]{0,8}[:=]|[ \t]{0,4}(?:\u306f|\u662f|\u4e3a|\u70ba|\ub294|\uc740):?)"
            r"[ \t]{0,8}" + VALUE
        ),
        # (Keywords as the view reads them, look-alike letters folded.)
        keywords=("\u043fap", "\u041fap", "\u041fAP", "\u30d1\u30b9\u30ef", "\u5bc6\u7801",
                  "\u5bc6\u78bc", "\ube44\ubc00", "\u6697\u8a3c\u756a\u53f7", "\u53e3\u4ee4"),
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        rest=RUNS_ON,
        examples=("Qz7xK2mP9w",),
        counterexamples=("\u043f\u0430\u0440\u043e\u043b\u044c: \u043d\u043e\u0432\u044b\u0439",
                         "\u30d1\u30b9\u30ef\u30fc\u30c9\u3092\u5fd8\u308c\u305f",
                         "\u5bc6\u7801\uff1a\u89c1\u4e0a"),
    ),
    Detector(
        id="password_confirm",
        category="password",
        # A `"confirm"` field beside a password's (`{"new_password": "...", "confirm": "..."}`):
        # its confirmation, the same password (`"confirm_password"` is a password's name).
        regex=Refusing(re.compile(
            r"[\"'](?i:confirm(?:ation)?)[\"'][ \t]{0,8}(?::|=>?)[ \t]{0,8}(?P<q>[\"'])"
            r"(?P<value>[^\s\"']{0,1023}[^\s\"'.,;:)])(?P=q)"
        ), no_password_named_before),
        keywords=('"confirm', "'confirm"),
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("S3cret!x", "hunter2Secret!"),
        counterexamples=('{"confirm": "S3cret!x"}', '{"password": "", "confirm": true}',
                         '{"pass": 1, "confirm": "yes"}'),
    ),
    Detector(
        id="cli_password",
        category="password",
        # A password on a command line: MySQL's and MariaDB's `-p` glued to it (`mysql -u root
        # -pS3cret!`; `-p` alone asks for one), sshpass's `-p`, curl's `-u`/`--user`
        # `user:password` (`--password=` is `password_phrase`'s), `redis-cli -a`, and a
        # container registry's `login ... -p` (`docker login -u bob -p ...`).
        regex=re.compile(
            r"(?:(?i:mysql(?:dump|admin|import|sh)?|mariadb(?:-dump|-admin)?)(?![\w-])"
            r"(?:[ \t]+(?!-p)[^\s|;&]{1,200}){0,16}?[ \t]+-p(?=\S)"
            r"|sshpass(?:[ \t]+-[^p\s]\S{0,200}){0,4}[ \t]+-p[ \t]*"
            r"|redis-cli(?:[ \t]+(?!-a)[^\s|;&]{1,200}){0,16}?[ \t]+-a[ \t]+"
            r"|(?<![\w-])(?:docker|podman|nerdctl|buildah|skopeo|helm[ \t]+registry|oc"
            r"|az(?:[ \t]+acr)?)(?![\w-])[ \t]+login(?:[ \t]+(?!-p)[^\s|;&]{1,200}){0,16}?"
            r"[ \t]+-p[ \t]+"
            r"|(?P<user>curl(?:[ \t]+(?!-u|--user)[^\s|;&]{1,200}){0,16}?[ \t]+(?:-u|--user)"
            r"(?:[ \t]+|=)?))"
            r"(?P<q>[\"']?)(?(user)[^\s:\"']{1,64}:)"
            r"(?P<value>[^\s\"']{0,127}[^\s\"'.,;:)])(?P=q)"
        ),
        keywords=("mysql", "mariadb", "sshpass", "curl", "redis-cli", "docker", "podman",
                  "nerdctl", "buildah", "skopeo", "helm", "oc ", "az "),
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("S3cret!Pw9", "hunter2Secret!"),
        counterexamples=("mysql -u root -p mydb", "curl -u admin https://example.com",
                         "mysql -P 3306 -h db", "sshpass -f ~/.pw ssh host",
                         "curl -u admin: https://example.com"),
    ),
    Detector(
        id="password_phrase",
        category="password",
        # A password given in words or by a command rather than assigned: SQL's `IDENTIFIED
        # BY '...'` and `WITH PASSWORD '...'`, Redis's `requirepass`, a `--password` flag,
        # `setPassword("...")`, an XML `<password>` element, `your password is: ...`,
        # `new password: ...`, Portuguese `senha provisória: ...`.
        # (A policy's words after the name, `Password must contain: …`, are read once a match
        # is found: `a_policy`.)
        # (The names starting with `p` are read together, and `password`'s branches after
        # one `password`: at a keyword, the branches that cannot start there fail at once.
        # Branches that can start alike keep their order, so the match is the same; 22k ->
        # 12k instructions at each `password` or `pin` of the realistic corpus.)
        regex=Refusing(re.compile(
            r"(?i:p(?:assword(?:(?<=with[ \t]password)|(?<=with[ \t]encrypted[ \t]password)"
            r"|(?<=[a-z0-9]-password)[= ]|" + _IS + r"|[ \t]+(?:set|changed|reset|updated)[ \t]+to"
            r"|(?:" + SET_TO + r")[ \t]+to|(?=[ \t]+')|[ \t]*\|"
            r"|(?:[ \t]++[\w'\u2019-]{1,20}+){1,4}+[ \t]*:"
            r"|" + BETWEEN_COMMAS + "|" + KIND + r"|(?:" + USE_THE + r")(?=[ \t]))"
            r"|asswd(?<=[a-z0-9]-passwd)[= ]|asscode" + _IS
            + r"|(?<![a-z0-9]p)in(?:[ \t]code)?" + _IS + "|" + PASSWORT_IS + ")"
            r"|(?!p)(?:identified[ \t]+by|requirepass|--pass(?:word|wd)?[= ]"
            r"|set_?password[ \t]*\(|<password>|login[ \t]+[^\s:/]{1,64}[ \t]+password[ \t]+"
            r"|key=\"password\"[ \t]+value="
            r"|type=(?P<tq>[\"']?)password(?P=tq)(?![\w-])"
            r"(?:[ \t]+[\w-]{1,20}=(?:\"[^\"<>]{0,100}\""
            r"|'[^'<>]{0,100}'|[^\s\"'<>]{1,100}))*?[ \t]+value="
            r"|" + CREDENTIALS + "|" + IS_IN_WORDS + r"|senha(?:[ \t]+[\w-]{1,20}){1,2}[ \t]*:))"
            r"[ \t]{0,8}:?[ \t]{0,8}(?P<q>[\"'`]?)"
            r"(?P<value>[^\s\"'`<>()|]{1024}(?=[^\s\"'`<>()|])(?P<cut>)"
            r"|[^\s\"'`<>()|]{0,1023}[^\s\"'`<>()|.,;:])(?(cut)|(?P=q))"
        ), a_policy),
        # (Every match starts at one of its keywords: `with`/`new` before `password` are
        # read behind it, so that the regex is tried at each keyword alone.)
        keywords=("identified", "requirepass", "--pass", "setpassword", "set_password",
                  "<password>", "password", "senha", 'key="password"', 'type="password"',
                  "type='password'", "type=password", "login", "credential", "passcode", "pin",
                  "/pass", "/ pass", "passwort", "kennwort", "contrase",
                  "mot de passe", "wachtwoord"),
        keywords_in="lower",
        validate=validators.password_in_words,
        mask=masks.password,
        priority=4,
        group="value",
        rest=RUNS_ON,
        examples=("S3cret!x", "hunter2Secret!", "Zone-99x"),
        counterexamples=("your password is safe", "the new password: see the link below",
                         "your password is now set.", "Login: admin / admin",
                         "Login: see https://example.com/login",
                         "the password you choose: must be long",
                         '<input type="password" value="">',
                         "the password policy for all accounts: Use a manager",
                         "password reset link: example.com/reset",
                         "the password | is required", "A senha é nova.",
                         "IDENTIFIED BY ''", "--password-file /run/secrets/db",
                         "<password></password>", "requirepass yes",
                         "Use the password manager you trust.",
                         "Enter the password you received by email.",
                         "the password is case-sensitive.", "Password must contain: Upper1!x",
                         "the password, as noted, expires", "Login: localhost:8080"),
    ),
    Detector(
        id="password_layout",
        category="password",
        # A password on a line of its own under a line naming it (a heading `### Password`,
        # `Password:`, `**New password**`, then the value, blank lines between), or a line
        # of the name and the value alone (`Password<TAB>Qz7xK2mP9w`: a tab reads as a space;
        # dot leaders, `Password........ Qz7xK2mP9w`).
        # Lines are read apart where a text names a password (`layout.needs_lines`).
        regex=LAYOUT,
        keywords=LAYOUT_KEYWORDS,
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("Qz7xK2mP9w", "hunter2Secret!"),
        counterexamples=("### Password\n\nReset it from the link below.\n",
                         "Password\nManager\n", "## Password policy\n\nUse 12 characters.\n",
                         "Forgot password?\n\nClick here.\n", "passport\nAB12345\n",
                         "Season pass: Gold2025"),
    ),
    Detector(
        id="password_column",
        category="password",
        # The cells of a table's or a CSV's column whose header names a password
        # (`| user | password |`, `user,password`): `engine.layout.Columns`.
        regex=Columns(),
        keywords=LAYOUT_KEYWORDS,
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        examples=("Qz7xK2mP9w", "hunter2Secret!"),
        counterexamples=("| name | password policy |\n|---|---|\n| bob | Strong |",
                         "| user | password |\n|---|---|\n| bob | (hidden) |",
                         "| user | password |\n|---|---|\n| bob | see the vault |",
                         "user,passport\nbob,AB123456"),
    ),
    Detector(
        id="password_pairs",
        category="password",
        # Passwords listed one a line under a plural name (`Passwords:`, `Here are the
        # passwords:`, `Senhas:`), each after a user's name (`- bob: Qz7xK2mP9w`, `1. user0
        # = Lm4nB8vR2t`, `* carol — Xy9pL3kQ2z`), up to the first line that is no item:
        # `engine.password_pairs.PasswordPairs`. The names stay.
        regex=PasswordPairs(),
        keywords=PAIRS_KEYWORDS,
        keywords_in="lower",
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("Qz7xK2mP9w", "hunter2Secret!"),
        counterexamples=("Passwords:\n- must be 12 chars",
                         "Password rules:\n- one digit\n- one capital",
                         "Passwords:\n- bob: (hidden)\n- carol: see the vault",
                         "Fruits:\n- apple: Red4\n- kiwi: Green7"),
    ),
    Detector(
        id="password_column_wide",
        category="password",
        # `password_column` under a header naming a password in another script
        # (`| ユーザー | パスワード |`).
        regex=Columns(),
        keywords=LAYOUT_WIDE_KEYWORDS,
        validate=validators.password,
        mask=masks.password,
        priority=4,
        examples=("Qz7xK2mP9w",),
        counterexamples=("| \u30e6\u30fc\u30b6\u30fc | \u30d1\u30b9\u30ef\u30fc\u30c9 |\n"
                         "|---|---|\n| bob | (hidden) |",),
    ),
    Detector(
        id="password_layout_wide",
        category="password",
        # `password_layout` under a name of a password in another script (`パスワード`, then
        # the value on a line of its own).
        regex=LAYOUT,
        keywords=LAYOUT_WIDE_KEYWORDS,
        validate=validators.password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("Qz7xK2mP9w",),
        counterexamples=("\u30d1\u30b9\u30ef\u30fc\u30c9\n\n\u5fd8\u308c\u305f\n",),
    ),
    Detector(
        id="url_password",
        category="password",
        # RFC 3986 section 3.2.1: `scheme://user:password@host`, the password being the
        # userinfo after its first `:`. The userinfo ends at the last `@` before the host (as
        # `urllib.parse` reads it): a password with an unescaped `@` is hidden whole.
        regex=re.compile(
            r":(?<=[A-Za-z0-9+.-]:)//(?:[A-Za-z0-9._~%!$&'()*+,;=-]{0,64}):"
            r"(?P<value>[A-Za-z0-9._~%!$&'()*+,;=:@-]{1,128})@(?=[\w\[%~-])"
        ),
        keywords=("://",),
        validate=validators.url_password,
        mask=masks.password,
        priority=4,
        group="value",
        examples=("s3cr3tPa55", "pass", "p%40ss:w0rd", "p@ss!"),
        counterexamples=("https://user@example.com/x", "http://example.com:8080/",
                         "mailto:jane@example.com", "ssh://git@github.com:22/x",
                         "postgres://admin:****@db.internal/shop", "redis://user:@cache:6379",
                         "see https://example.com/a:b@c", "://user:pass@host"),
    ),
)
