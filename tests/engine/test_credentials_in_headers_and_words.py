"""A credential given in a header or in words, masked on the request side, as a whole reply
and streamed (`released`): the credentials of an HTTP `Authorization` header, whatever its
scheme (`Bearer`, `Token`, `Bot`, `Basic`) or with none, and a password after `use`, `enter`,
`type` or `with` and a determiner; a header with no credentials in it, and prose after such
words, come back as they are."""

from __future__ import annotations

import pytest
from released import released

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
