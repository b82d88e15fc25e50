"""The credentials of an HTTP `Authorization` header, whatever its scheme (`Bearer`, `Token`,
`Bot`, `Basic`) or with none, masked on the request side, as a whole reply and streamed
(`released`); a header named with no credentials in it comes back as it is."""

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
