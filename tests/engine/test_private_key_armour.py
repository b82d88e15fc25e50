"""Private key blocks however their armour and lines are typed: in a code's joined strings,
on numbered lines, with spaces inside the armour, armoured with any dash or `=`, with no
armour, with `PRIVATE_KEY`, and a body whose BEGIN line is not in the text; and the text
beside them that holds no key (a BEGIN line named in prose, public keys and certificates,
rules of dashes): the exact text released on the request side, as a whole reply and
streamed cut at every position (`every_way`)."""

from __future__ import annotations

import pytest
from released import REDACT_ALL, every_way

from replyguard.engine.reply import screen_reply

_BODY = ["MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4",
         "A1b2xyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab"]


def _key(begin: str = "-----BEGIN RSA PRIVATE KEY-----",
         end: str = "-----END RSA PRIVATE KEY-----") -> list[str]:
    """The lines of a key block with these armour lines."""
    return [begin, *_BODY, end]


def _block(begin: str, end: str) -> str:
    return "Key:\n" + "\n".join(_key(begin, end)) + "\nDone."


MASKED_EVERY_WAY = [
    # In a code's strings joined by `+`, or by being side by side (Python), in either quotes:
    # the body is read through the quotes, the `\n` escapes and the joins.
    ("key:\n" + "\n".join(f'"{line}\\n" +' for line in _key()) + '\n""',
     'key:\n"[RSA PRIVATE KEY ****]\\n" +\n""'),
    ("key = " + " +\n".join(f"'{line}\\n'" for line in _key()) + "\nok",
     "key = '[RSA PRIVATE KEY ****]\\n'\nok"),
    ("KEY = (\n" + "\n".join(f'    "{line}\\n"' for line in _key()) + "\n)",
     'KEY = (\n    "[RSA PRIVATE KEY ****]\\n"\n)'),
    # Spaces inside the armour.
    (_block("----- BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"),
     "Key:\n[RSA PRIVATE KEY ****]\nDone."),
    (_block("-----  BEGIN RSA PRIVATE KEY -----", "----- END RSA PRIVATE KEY -----"),
     "Key:\n[RSA PRIVATE KEY ****]\nDone."),
    # Armour of two-em, three-em dashes, of `=`, none at all; `PRIVATE_KEY`.
    (_block("\u2e3a\u2e3a\u2e3aBEGIN RSA PRIVATE KEY\u2e3a\u2e3a\u2e3a",
            "\u2e3a\u2e3a\u2e3aEND RSA PRIVATE KEY\u2e3a\u2e3a\u2e3a"),
     "Key:\n[RSA PRIVATE KEY ****]\nDone."),
    (_block("\u2e3b\u2e3bBEGIN RSA PRIVATE KEY\u2e3b\u2e3b",
            "\u2e3b\u2e3bEND RSA PRIVATE KEY\u2e3b\u2e3b"),
     "Key:\n[RSA PRIVATE KEY ****]\nDone."),
    (_block("=====BEGIN RSA PRIVATE KEY=====", "=====END RSA PRIVATE KEY====="),
     "Key:\n[RSA PRIVATE KEY ****]\nDone."),
    (_block("BEGIN RSA PRIVATE KEY", "END RSA PRIVATE KEY"),
     "Key:\n[RSA PRIVATE KEY ****]\nDone."),
    (_block("-----BEGIN RSA PRIVATE_KEY-----", "-----END RSA PRIVATE_KEY-----"),
     "Key:\n[RSA PRIVATE KEY ****]\nDone."),
    (_block("-----BEGIN EC PRIVATE KEY-----", "END EC PRIVATE KEY"),
     "Key:\n[EC PRIVATE KEY ****]\nDone."),
    # A body whose BEGIN line is not in the text (an earlier message held it): the base64
    # lines right above the END line go with it.
    ("Key:\n" + "\n".join(_key()[1:]) + "\nDone.", "Key:\n[RSA PRIVATE KEY ****]\nDone."),
    ("Key:\n" + "\n".join(_BODY) + "\nEND RSA PRIVATE KEY\nDone.",
     "Key:\n[RSA PRIVATE KEY ****]\nDone."),
    ("The rest of it:\n" + "\n".join(f"> {line}" for line in _key()[1:]),
     "The rest of it:\n> [RSA PRIVATE KEY ****]"),
]


@pytest.mark.parametrize(("text", "screened"), MASKED_EVERY_WAY)
def test_the_whole_block_is_masked_however_it_is_typed_and_cut(text: str,
                                                               screened: str) -> None:
    assert every_way(text) == {screened}


@pytest.mark.parametrize("numbers", [["1"] * 4, ["1", "2", "3", "4"]])
def test_a_block_on_numbered_lines_is_masked_on_both_sides(numbers: list[str]) -> None:
    # (A reply holds the BEGIN line's break until the body shows the block goes on.)
    text = "Key:\n" + "\n".join(f"{n}. {line}" for n, line in zip(numbers, _key(),
                                                                    strict=True)) + "\nDone."
    assert every_way(text) == {"Key:\n1. [RSA PRIVATE KEY ****]\nDone."}


def test_a_block_on_numbered_lines_cut_by_the_cap_is_masked_whole() -> None:
    lines = [f"MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7{i:012d}" for i in range(36)]
    key = _key()[:1] + lines + _key()[-1:]
    text = "Key:\n" + "\n".join(f"{i}. {line}" for i, line in enumerate(key, 1)) + "\nDone."
    for cap in (512, 2000):
        assert screen_reply(text, REDACT_ALL, max_chars=cap)[0] == (
            "Key:\n1. [RSA PRIVATE KEY ****]\nDone.")


KEPT = [
    "Your file starts with BEGIN RSA PRIVATE KEY and ends with END RSA PRIVATE KEY.",
    "The key file starts with begin rsa private key, and ends with the END line.",
    'Set PRIVATE_KEY in the environment: private_key = os.environ["PRIVATE_KEY"].',
    "Title\n=====\nSome text -- and more.\n---\nDone.",
    "x == y === z; then --end of options",
    "cert:\n-----BEGIN CERTIFICATE-----\n"
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n"
    "-----END CERTIFICATE-----\nok",
    "pub:\n----- BEGIN PUBLIC KEY -----\n"
    "MFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAKj34GkxFhD90vcNLYLInFEX6Ppy\n"
    "=====END PUBLIC KEY=====\nok",
]


@pytest.mark.parametrize("text", KEPT)
def test_text_holding_no_private_key_is_kept(text: str) -> None:
    assert every_way(text) == {text}


def test_a_certificate_after_a_key_is_kept() -> None:
    cert = ("-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBa\n"
            "-----END CERTIFICATE-----")
    text = "Key:\n" + "\n".join(_key("----- BEGIN RSA PRIVATE KEY -----")) + "\n" + cert
    assert every_way(text) == {"Key:\n[RSA PRIVATE KEY ****]\n" + cert}


def test_a_begin_line_named_in_prose_is_masked_alone() -> None:
    text = "Paste the lines from ----- BEGIN RSA PRIVATE KEY ----- to the END line. Keep it."
    assert every_way(text) == {"Paste the lines from [RSA PRIVATE KEY ****] to the END line. "
                               "Keep it."}
