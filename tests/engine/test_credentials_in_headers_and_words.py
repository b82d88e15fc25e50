"""A credential given in a header or in words, masked on the request side, as a whole reply
and streamed (`released`, and cut at every position: `every_way`): the credentials of an HTTP
`Authorization` header, whatever its scheme (`Bearer`, `Token`, `Bot`, `Basic`) or with none,
a password after `use`, `enter`, `type` or `with` and a determiner, set apart by commas after
its name, after a verb in German, Portuguese, Spanish, French or Dutch, a user's name and
password after a name of credentials, and an HTML input of type `password`'s value; a header
with no credentials in it, prose after such words and a password's policy come back as they
are."""

from __future__ import annotations

import pytest
from released import every_way, released

_TOKEN = "Qz7xK2mP9wQz7xK2mP9w"


@pytest.mark.parametrize(("text", "screened"), [
    (f"Authorization: Bearer {_TOKEN}", "Authorization: Bearer ****"),
    (f"Authorization: Token {_TOKEN}", "Authorization: Token ****"),
    (f"curl -H 'Authorization: Token {_TOKEN}' https://api.example.com",
     "curl -H 'Authorization: Token ****' https://api.example.com"),
    (f"headers = {{'Authorization': 'Token {_TOKEN}'}}",
     "headers = {'Authorization': 'Token ****'}"),
    (f'{{"Authorization": "Token {_TOKEN}"}}', '{"Authorization": "Token ****"}'),
    (f"Authorization: Bot {_TOKEN}", "Authorization: Bot ****"),
    ("Authorization: Basic YWxhZGRpbjpvcGVuc2VzYW1l0", "Authorization: Basic ****"),
    (f"Authorization: {_TOKEN}", "Authorization: ****"),
    (f"authorization={_TOKEN}", "authorization=****"),
])
def test_authorization_credentials_masked(text: str, screened: str) -> None:
    assert released(text) == screened


@pytest.mark.parametrize("text", [
    "Authorization: required",
    "Authorization header missing.",
    "Send the Authorization: Bearer <token> header.",
    "Authorization: Token ${TOKEN}",
    "Authorization: none",
    "Authorization: Basic",
])
def test_authorization_without_credentials_comes_back_as_it_is(text: str) -> None:
    assert released(text) == text


@pytest.mark.parametrize(("text", "screened"), [
    ("Use the password Qz7xK2mP9w to log in.", "Use the password **** to log in."),
    ("Enter your password S3cret!x now.", "Enter your password **** now."),
    ("Log in with the password Qz7xK2mP9w.", "Log in with the password ****."),
    ("Type this password: Qz7xK2mP9w", "Type this password: ****"),
    # A word after it that does not look like a password is prose.
    ("Use the password manager you trust.", "Use the password manager you trust."),
    ("Enter the password you received by email.", "Enter the password you received by email."),
    ("Use the password reset link.", "Use the password reset link."),
])
def test_password_given_after_use_enter_type_or_with(text: str, screened: str) -> None:
    assert released(text) == screened


PROSE_MASKED = [
    # Set apart by commas after its name (an appositive).
    ("the admin password, Qz7xK2mP9w, expires tomorrow",
     "the admin password, ****, expires tomorrow"),
    ("Hi, your password, `Qz7xK2mP9w`, expires soon.", "Hi, your password, `****`, expires soon."),
    # A user's name and password after a name of credentials.
    ("login: bob / Qz7xK2mP9w", "login: bob / ****"),
    ("user/pass: bob / Qz7xK2mP9w", "user/pass: bob / ****"),
    # (After `pass:`, the user's name is masked with the password, as `pass:`'s value.)
    ("Username/Password: bob/Qz7xK2mP9w", "Username/Password: ****"),
    ("user / pass: bob / Qz7xK2mP9w", "user / pass: bob / ****"),
    ("Your login is bob / Qz7xK2mP9w.", "Your login is bob / ****."),
    ("credentials: bob:Qz7xK2mP9w", "credentials: bob:****"),
    ("Login: bob@example.com:Qz7xK2mP9w", "Login: b***@example.com:****"),
    ("login bob:Qz7xK2mP9w", "login bob:****"),
    ("user/pass: bob:Qz7xK2mP9w", "user/pass: ****"),
    # After a verb, in other languages.
    ("Das Passwort lautet Qz7xK2mP9w", "Das Passwort lautet ****"),
    ("Das Passwort ist Qz7xK2mP9w.", "Das Passwort ist ****."),
    ("Das Passwort f\u00fcr den Server lautet Qz7xK2mP9w.",
     "Das Passwort f\u00fcr den Server lautet ****."),
    ("Das Kennwort lautet Qz7xK2mP9w.", "Das Kennwort lautet ****."),
    ("A senha \u00e9 Qz7xK2mP9w", "A senha \u00e9 ****"),
    ("A senha do Wi-Fi \u00e9 Qz7xK2mP9w.", "A senha do Wi-Fi \u00e9 ****."),
    ("A senha era Qz7xK2mP9w.", "A senha era ****."),
    ("La contrase\u00f1a es Qz7xK2mP9w.", "La contrase\u00f1a es ****."),
    ("Le mot de passe est Qz7xK2mP9w.", "Le mot de passe est ****."),
    ("Het wachtwoord is Qz7xK2mP9w.", "Het wachtwoord is ****."),
    # A list after a plural name and its verb: masked whole.
    ("As senhas s\u00e3o Qz7xK2mP9w e Xy9pL3kQ2z.", "As senhas s\u00e3o ****."),
    ("As senhas do servidor s\u00e3o Qz7xK2mP9w, Xy9pL3kQ2z e Ab3dE5fG7h.",
     "As senhas do servidor s\u00e3o ****."),
    ("Die Passw\u00f6rter lauten Qz7xK2mP9w und Xy9pL3kQ2z.", "Die Passw\u00f6rter lauten ****."),
    ("Las contrase\u00f1as son Qz7xK2mP9w y Xy9pL3kQ2z.", "Las contrase\u00f1as son ****."),
    # An HTML input of type `password`: either order, quoted or not.
    ("<input type=password value=Qz7xK2mP9w>", "<input type=password value=****>"),
    ("<input value=Qz7xK2mP9w type=password>", "<input value=**** type=password>"),
    ('<input value="Qz7xK2mP9w" type="password">', '<input value="****" type="password">'),
    ('<input class="pw" value=\'sunshine\' id=pw type=password required>',
     '<input class="pw" value=\'****\' id=pw type=password required>'),
    ("<INPUT TYPE=PASSWORD VALUE=Qz7xK2mP9w/>", "<INPUT TYPE=PASSWORD VALUE=****/>"),
    ("<input name=password value=Qz7xK2mP9w>", "<input name=password value=****>"),
]

PROSE_UNCHANGED = [
    "the password, as noted, expires",
    "The password, however, expires tomorrow.",
    "Your password, e.g., must be long.",
    "Enter your email, password, MFA-code, and name.",
    "Username and password, SSH-keys, and tokens are secrets.",
    "path / to / file",
    "ratio 3:2",
    "x = a:b",
    "Login: localhost:8080",
    "login: db.example.com:5432",
    "Login: C:\\Users\\bob",
    "credentials: arn:aws:iam::123456789012:role/Admin",
    "Login: https://example.com/login",
    "Login: 10:30am",
    "Login: admin:admin",
    "login: user/password",
    "user/pass: see the vault",
    "Das Passwort ist zu kurz.",
    "Das Passwort lautet wie folgt:",
    "A senha do wifi \u00e9 forte.",
    "La contrase\u00f1a es segura.",
    "Le mot de passe est incorrect.",
    "Het wachtwoord is verlopen.",
    "As senhas s\u00e3o fortes e longas.",
    "the password is case-sensitive.",
    "Das Passwort ist Write-Only.",
    # A password's policy names no password.
    "Passwords must contain Uppercase1! and a digit.",
    "Password must contain: Uppercase1! and a digit",
    "Password requirements: Uppercase1!",
    "Password policy: Uppercase1!",
    "Your password should include: Uppercase1!",
    "Password must be at least: 12chars!",
    "senha deve conter: Maiuscula1!",
    "Die Passwort-Richtlinie: Gross1!x",
    "password_policy: Upper1!x",
    "Use the password manager.",
    # An input of another type, or with no value.
    "<input type=text value=Qz7xK2mP9w>",
    "<input type=password placeholder=Password>",
    '<input type=password value="">',
    '<input type="password" name="pw"><input value="Qz7xK2mP9w">',
]


@pytest.mark.parametrize(("text", "screened"), PROSE_MASKED)
def test_a_password_given_in_prose_or_markup_is_masked(text: str, screened: str) -> None:
    assert every_way(text) == {screened}


@pytest.mark.parametrize("text", PROSE_UNCHANGED)
def test_prose_near_a_password_that_names_none_comes_back_as_it_is(text: str) -> None:
    assert released(text) == text
