"""engine.find: linear time on adversarial input, same results as a whole-text scan,
precedence between classes on one digit run, and findings that hold no value."""

from __future__ import annotations

import base64
import importlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stdnum import iban as stdnum_iban
from stdnum import luhn

from replyguard.engine import DETECTORS, Detector, find, validators
from replyguard.engine.canon import Canonical, canonical
from replyguard.engine.context_marks import id_as_written
from replyguard.engine.find import Finding, _confirmed
from replyguard.engine.lists import listed_unnamed
from replyguard.engine.phone_numbers import PHONE_REGIONS
from replyguard.engine.tuning import tuning_of


@pytest.fixture(scope="module")
def corpus_lines(labelled_corpus: list[tuple[str, list[tuple[str, int, int]]]]) -> list[str]:
    return [text for text, _ in labelled_corpus]



def _repeat(unit: str) -> Callable[[int], str]:
    return lambda size: (unit * (size // len(unit) + 1))[:size]


def _pem(size: int) -> str:
    header = "-----BEGIN RSA PRIVATE KEY-----\n"
    return header + _base64(size - len(header))


def _base64(size: int) -> str:
    chunk = base64.b64encode(bytes(range(256)) * 3).decode()
    return (chunk * (size // len(chunk) + 1))[:size]


ADVERSARIAL = {
    "digits and spaces": _repeat("1 "),
    "card groups": _repeat("4111 "),
    "long digit run": _repeat("1"),
    "a@": _repeat("a@"),
    "unterminated PEM": _pem,
    "base64 without spaces": _base64,
    "colons": _repeat("::"),
    "digit dots": _repeat("1."),
    "password=": _repeat("password="),
    "eyJ dots": _repeat("eyJhbGciOi."),
    "upper pairs and digits": _repeat("AB12 "),
    "lower pairs and digits": _repeat("ab12 "),
    "lower iban groups": _repeat("gb82 west "),
    "hyphenated digits": _repeat("12-"),
    "scheme slashes": _repeat("a://"),
    "userinfo without a host": _repeat("a://user:" + "p" * 200),
    "userinfo of at signs": _repeat("a://b:" + "@" * 100),
    "userinfo before sparse at signs": _repeat("a://b:" + "c" * 58 + "@"),
    "schemes before sparse at signs": _repeat("a://" * 20 + "b:c@ "),
    "digits between invisibles": _repeat("4111\u200b"),
    "invisibles": _repeat("\u200b\u00ad"),
    "letters between soft hyphens": _repeat("a\u00ad"),
    "ipv6 dotted tails": _repeat("::ffff:1.2.3."),
    "ipv6 groups then dots": _repeat("1:2:3:4:5:6:7:8.9.1."),
    "ungrouped card runs": _repeat("4111111111111111 "),
    "spaced hyphen groups": _repeat("4111 - "),
    "mixed card separators": _repeat("4111 -1111- "),
    "hyphenated iban groups": _repeat("gb82-west-"),
    "spaced iban country codes": _repeat("GB 82 "),
    "password names with suffixes": _repeat("password_a_b_c"),
    "password operators": _repeat("$c['password'] => @\""),
    "password values glued to keys": _repeat("password=a=ghp_"),
    "camel case passwords": _repeat("dbPassword:="),
    "accented local parts": _repeat("\u00e9@"),
    "cjk local parts": _repeat("\u7528@"),
    "idn domains": _repeat("a@\u4f8b."),
    "punycode domains": _repeat("a@xn--"),
    "glued key starts": _repeat("A" * 16 + "-sk-"),
    "glued github tokens": _repeat("ghp_" + "a" * 36 + "_"),
    "phone numbers": _repeat("(202) 555-0143 "),
    "ids before numbers": _repeat('"a_id": 2025550143, '),
    "words before numbers": _repeat("order no. 2025550143 "),
    "long keys before numbers": _repeat("a_" * 40 + "id: 2025550143 "),
    "angle brackets": _repeat("<"),
    "closing tag starts": _repeat("</"),
    "spaced angle brackets": _repeat(" <"),
    "tag starts with attributes": _repeat("<a "),
    "tag starts without an end": _repeat("<b"),
    "comment starts": _repeat("<!--"),
    "numeric reference starts": _repeat("&#"),
    "ampersands": _repeat("&"),
    "digits between middle dots": _repeat("4111\u00b7"),
    "digits between underscores": _repeat("4111_"),
    "digits between commas": _repeat("1,"),
    "digits between colons": _repeat("12:"),
    "single digits and hyphens": _repeat("4-"),
    "pairs of digits": _repeat("41 "),
    "threes of digits": _repeat("411 "),
    "labelled nine digits": _repeat("SSN: 123456789 "),
    "addresses in brackets": _repeat("a(at)b(dot)"),
    "spaced at in brackets": _repeat("a [at] "),
    "unknown tags before numbers": _repeat("<order> 1 "),
    "tab-separated password headers": _repeat("user\tpassword\n"),
    "small capitals": _repeat("\u1d0a\u1d00@"),
    "counts after tokens": _repeat("max token: 4096 "),
    "ideographic dots in domains": _repeat("a@b\u3002"),
    "devanagari addresses": _repeat("\u0909@\u0909\u0949."),
    "emphasis before at signs": _repeat("**a**@"),
    "labels in underscores": _repeat("@_a_."),
    "line breaks before at signs": _repeat("a\n@"),
    "mentions of ids": _repeat("<@1122334455667788990> "),
    "ids before card-shaped numbers": _repeat('"id": 4539148803436467, '),
    "barcode labels": _repeat("JAN 4901234567894 "),
    "time words before numbers": _repeat("time 2025550143 "),
    "json numbers after keys": _repeat('{"card": 4111111111111111}, '),
}


@pytest.mark.parametrize("make", ADVERSARIAL.values(), ids=ADVERSARIAL.keys())
def test_adversarial_input_is_linear(make: Callable[[int], str], cpu_time) -> None:
    """A small guard: four times the text (8 KB -> 32 KB, each read in one scan) takes about
    four times as long (quadratic time would take 16; the bound of 8, and 2 ms for the
    families read in well under a millisecond, leave room for cache effects on a loaded
    machine). The doubling ratios up to 1 MB, read in windows, are measured by
    tests/bench/bench_cuts.py."""
    quarter = cpu_time(find, make(8_000))
    whole = cpu_time(find, make(32_000))
    assert (whole < 0.5, whole < 8 * quarter + 0.002) == (True, True), (
        f"8 KB {quarter:.4f}s, 32 KB {whole:.4f}s")


#: The families whose values run on past a window (a key block, base64, a token) or whose
#: header governs the rows of the windows after it (a table).
_ACROSS_WINDOWS = ["unterminated PEM", "base64 without spaces", "eyJ dots",
                   "glued github tokens", "tab-separated password headers"]


@pytest.mark.parametrize("name", _ACROSS_WINDOWS)
def test_adversarial_input_read_in_windows_is_linear(name: str, cpu_time) -> None:
    """Four times the text read in windows (40 KB -> 160 KB, two windows -> five) takes about
    four times as long: what one window reads on or carries over stays bounded."""
    make = ADVERSARIAL[name]
    quarter = cpu_time(find, make(40_000), repeat=2)
    whole = cpu_time(find, make(160_000), repeat=2)
    assert (whole < 2.5, whole / quarter < 8.0) == (True, True), (
        f"40 KB {quarter:.3f}s, 160 KB {whole:.3f}s")


def _whole_text_scan(text: str) -> list[Finding]:
    """What find() must equal: each regex over the whole canonical view, validated, overlaps
    settled, and the spans mapped back onto the text; a view that joined numbers across
    lines or spaces is also read apart (`find._kept_apart`)."""
    view = canonical(text)
    found = _unlisted(text, _view_scan(view))
    if view.joined:
        found = FIND_MODULE._kept_apart(
            found, _unlisted(text, _view_scan(canonical(text, join=False))))
    return found


def _unlisted(text: str, found: list[Finding]) -> list[Finding]:
    """`found` but a list's or a table's numbers (`engine.lists`: groups a list separator sets
    apart, no name of their class before them) and phone numbers the text as written marks
    as ids (`context_marks.id_as_written`)."""
    return [f for f in found if not listed_unnamed(text, f.cls, f.start, f.end)
            and not (f.cls == "phone" and id_as_written(text, f.start, f.end))]


def _settle(
    found: list[tuple[int, int, int, Detector]], length: int
) -> list[tuple[int, int, int, Detector]]:
    """Keep, for each stretch of text, the finding of the lowest priority number (the rule
    `engine.find` applies while validating): the reference the scans are checked against."""
    found.sort(key=lambda item: (item[0], item[1]))
    claimed = bytearray(length)
    kept = []
    for item in found:
        _, start, end, _ = item
        if claimed.find(1, start, end) == -1:
            claimed[start:end] = b"\x01" * (end - start)
            kept.append(item)
    kept.sort(key=lambda item: item[1])
    return kept


def _view_scan(view: Canonical) -> list[Finding]:
    seen = view.text
    found = []
    for detector in DETECTORS:
        for match in detector.regex.finditer(seen):
            span = _confirmed(seen, detector, match)
            if span is not None:
                found.append((detector.priority, span[0], span[1], detector))
    if len(found) > 1:
        found = _settle(found, len(seen))
    return [Finding(d.category, view.start(start), view.end(end), d.id)
            for _, start, end, d in found]


SAMPLES = [
    "Card 4111 1111 1111 1111, IBAN GB82 WEST 1234 5698 7654 32, SSN 123-45-6789.",
    "iban gb82 west 1234 5698 7654 32 or Gb82West12345698765432, nino ab 12 34 56 c.",
    "db postgres://admin:s3cr3tPa55@db.internal:5432/shop, redis://:pass@cache/0, "
    "https://user@example.com/x, http://example.com:8080/ and ssh://git@github.com:22/x",
    "Mail jane.doe@example.com or bob@mail.example.co.uk; call +44 20 7946 0123.",
    "NINO AB 12 34 56 C and AB123456C, CPF 529.982.247-25 and 52998224725.",
    "Keys: sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD AKIAIOSFODNN7EXAMPLE ghp_1234567890abcdefghij"
    "ABCDEFGHIJ123456 xoxb-1234567890-abcdefghij.",
    "password: hunter2Secret! and senha=S3cr3t-value, passwd = 'Quoted#1'.",
    "Hosts 203.0.113.42, 10.0.0.1 and 2001:db8::8a2e:370:7334 or fe80::1%eth0.",
    "Order #4412 of 2024-11-29 10:30 cost $1,299.00 (R$ 1.234,56), v2.4.1, 12.50.",
    "a@b@example.com x@y (555) 123-4567 555-123-4567 07700 900123 (11) 98765-4321",
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----",
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig_part-1",
    "1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 4111 1111 1111 1111 9 9",
    "x" * 300 + "@example.com and " + "y" * 70 + "@example.com",
    "DE89 3704 0044 0532 0130 00 FR14 2004 1010 0505 0001 3M02 606 NL91ABNA0417164300",
    "::ffff:192.0.2.1, 64:ff9b::192.0.2.33; 4111111111111111 5500005555555559 "
    "4111 - 1111 - 1111 - 1111 GB82-WEST-1234-5698-7654-32 GB 82 WEST 1234 5698 7654 32",
    "$config['password'] = 'S3cret!x'; password_db := S3cret!x; dbPassword => @\"S3!x\" "
    "password=S3cretPa55!=ghp_A1b2C3d4E5A1b2C3d4E5A1b2C3d4E5F6g7H8-sk-proj-4fJk29sLqPz8XvTn7m",
    "joão.silva@exemplo.com.br, 用户@例子.广告, 我的邮箱是jane.doe@example.com，"
    "user@example.xn--p1ai",
]


FIND_MODULE = importlib.import_module("replyguard.engine.find")  # (`engine.find` is the function)
PLAN_MODULE = importlib.import_module("replyguard.engine.plan")


@pytest.fixture(params=["in-tests", "vectorscan"])
def keyscan(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways keywords are looked for: one `in` test each (short texts), or one Vectorscan
    pass (texts of KEYSCAN_MIN characters or more), each forced on every text."""
    if request.param == "vectorscan":
        assert FIND_MODULE._PLANS[id(DETECTORS)].scan is not None  # the wheel is installed here
    monkeypatch.setattr(PLAN_MODULE, "KEYSCAN_MIN", 0 if request.param == "vectorscan" else 10**12)
    return str(request.param)


@pytest.mark.parametrize("text", SAMPLES)
def test_find_equals_whole_text_scan(text: str, keyscan: str) -> None:
    assert find(text) == _whole_text_scan(text)


def test_find_equals_whole_text_scan_on_labelled_corpus(
    corpus_lines: list[str], keyscan: str
) -> None:
    differ = [i for i, line in enumerate(corpus_lines) if find(line) != _whole_text_scan(line)]
    assert differ == []


@pytest.mark.parametrize("text", [
    "PaSsWoRd: hunter2Secret! and SENHA=S3cr3tValue9",
    "pa\u017fsword: hunter2Secret!",  # a long s is no ASCII s: the keyword is not there
    "SK-proj-4fJk29sLqPz8XvTn7mWbQ1cD and sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD",
])
def test_keyword_case_is_read_the_same_both_ways(text: str, keyscan: str) -> None:
    assert find(text) == _whole_text_scan(text)


def test_vectorscan_gives_each_thread_its_own_scratch() -> None:
    """Large replies are screened in worker threads: concurrent scans of one database must not
    share scratch space (Hyperscan refuses that with HS_SCRATCH_IN_USE)."""
    text = "\n".join(SAMPLES) * 10
    expected = find(text)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(find, [text] * 16))
    assert results == [expected] * 16


def test_find_equals_whole_text_scan_on_joined_corpus(corpus_lines: list[str]) -> None:
    text = "\n".join(corpus_lines)
    assert find(text) == _whole_text_scan(text)


def _classes(text: str) -> list[tuple[str, str]]:
    return [(f.cls, text[f.start:f.end]) for f in find(text)]


def test_card_wins_over_phone_on_one_run() -> None:
    assert _classes("4111 1111 1111 1111") == [("card", "4111 1111 1111 1111")]


def test_iban_whole_when_its_digits_are_no_card() -> None:
    # The BBAN's digits "1234 5698 7654 32" are a run the card detector reads; Luhn fails.
    assert _classes("GB82 WEST 1234 5698 7654 32") == [("iban", "GB82 WEST 1234 5698 7654 32")]


def test_card_wins_over_iban_on_the_same_digits() -> None:
    # A GB IBAN whose 14 account digits also pass Luhn and start as a Diners Club card's do:
    # the card claims them (card > iban).
    body = "3056930902590" + luhn.calc_check_digit("3056930902590")
    assert luhn.is_valid(body) is True
    number = "GB" + stdnum_iban.calc_check_digits("GB00WEST" + body) + "WEST" + body
    text = " ".join(number[i:i + 4] for i in range(0, len(number), 4))
    assert _classes(text) == [("card", text[10:])]


def test_iban_wins_over_phone() -> None:
    # "0417 1643 00" is also a 10-digit national phone number.
    assert _classes("NL91 ABNA 0417 1643 00") == [("iban", "NL91 ABNA 0417 1643 00")]


def test_card_wins_over_national_id_and_phone() -> None:
    # 11 digits that are both a valid CPF and a national phone length; no card (too short).
    assert _classes("52998224725") == [("national_id", "52998224725")]


def test_national_id_wins_over_phone() -> None:
    assert _classes("529.982.247-25") == [("national_id", "529.982.247-25")]


def test_card_priority_over_iban_national_id_phone() -> None:
    cards = {d.id: d.priority for d in DETECTORS}
    assert (cards["credit_card"] < cards["iban"] < cards["us_ssn"] == cards["uk_nino"]
            == cards["br_cpf"] < cards["phone_number"]) is True


def test_finding_repr_holds_no_value() -> None:
    text = "card 4111 1111 1111 1111 mail jane.doe@example.com"
    reprs = repr(find(text))
    assert ("4111" in reprs, "1111" in reprs, "jane" in reprs, "example" in reprs) == (
        False, False, False, False)


def test_finding_is_class_and_span() -> None:
    assert find("card 4111 1111 1111 1111") == [Finding("card", 5, 24, "credit_card")]


def test_empty_text_has_no_finding() -> None:
    assert find("") == []


#: Runs a lower-priority detector skips because findings already hold them (engine.find's
#: `_near_runs`), and runs it must not skip (a character left unheld).
HELD_RUNS = [
    "The card ending 4111 1111 1111 1111 was charged 12.50 pounds. ",
    "4111 1111 1111 1111 5500 0055 5555 5559 and 123-45-6789",
    "4111 1111 1111 1111 +44 20 7946 0123",
    "(555) 4111 1111 1111 1111 123-45-6789 then 4111 1111 1111 1112",
    "GB82 WEST 1234 5698 7654 32 (020) 7946 0123",
    "4111-1111-1111-1111-555-123-4567",
    "4111 1111 1111 1111 12/26 cvc 123",
    "card 4111 1111 1111 1111   \n+1 202 555 0143",
    # (Runs of 8 and 9 digits with no `+`, between and beside phone numbers.)
    "call 7946 0123 or 020 7946 0123, ref 555-0143-9 then +44 7946 0123 and 202 555 014",
    "(020) 7946 012 4111 1111 1111 1111 +1 202-555-0143 1234 5678",
]


@pytest.mark.parametrize("text", HELD_RUNS)
def test_held_runs_give_a_whole_text_scan(text: str) -> None:
    assert find(text) == _whole_text_scan(text)


@given(st.from_regex(r"\(?[0-9]{1,4}\)?(?:[ .-]?[0-9]{1,4}){1,8}", fullmatch=True))
def test_phone_runs_left_out_hold_no_phone_number(value: str) -> None:
    """The phone detector's `unmarked_digits`: a value without its mark (`+`) holding fewer
    digits than it says is one its validator confirms in no region."""
    phone = next(d for d in DETECTORS if d.id == "phone_number")
    mark, least = tuning_of(phone).unmarked_digits or ("", 0)
    assert mark == "+"
    if sum(c.isdigit() for c in value) < least:
        assert phone.validate is not None and not phone.validate(value)
        assert not validators.phone(value, regions=tuple(sorted(PHONE_REGIONS)))


def test_phone_runs_are_left_out_only_for_its_own_validator() -> None:
    """A phone detector with a validator of one's own is searched in every run of 8 digits
    (a national number of 8 or 9 digits may be one it confirms)."""
    phone = next(d for d in DETECTORS if d.id == "phone_number")
    own = replace(phone, validate=lambda value: True)
    assert tuning_of(own).unmarked_digits is None
    assert find("call 7946 0123 now", [own]) == [Finding("phone", 5, 14, "phone_number")]
    assert find("call 7946 0123 now", [phone]) == []


_RUN_CHARACTERS = set("0123456789.()/+-_,;:|\\~' ")  # (engine.views' run characters)


def test_digit_run_matches_lie_inside_one_run(corpus_lines: list[str]) -> None:
    """What `_near_runs` relies on to skip a held run: a digit-run detector's match is a
    stretch of run characters that does not start with a space."""
    texts = [*corpus_lines, *SAMPLES, *HELD_RUNS,
             *(e for d in DETECTORS for e in (*d.examples, *d.counterexamples))]
    outside = [(d.id, text) for d in DETECTORS if tuning_of(d).min_digits for text in texts
               for m in d.regex.finditer(text)
               if m.group()[0] == " " or not set(m.group()) <= _RUN_CHARACTERS]
    assert outside == []


def test_digit_run_matches_refused_ones_too_lie_inside_one_run(corpus_lines: list[str]) -> None:
    """`_near_runs` searches a digit-run detector's pattern without its refusal (read at
    confirmation): its refused matches lie inside one run too."""
    texts = [*corpus_lines, *SAMPLES, *HELD_RUNS,
             *(e for d in DETECTORS for e in (*d.examples, *d.counterexamples)),
             "order 2025550143", "size 7266106890 bytes", "Ticket 72360589121 is closed."]
    outside = [(d.id, text) for d in DETECTORS if tuning_of(d).min_digits for text in texts
               for m in FIND_MODULE._unrefused(d.regex).finditer(text)
               if m.group()[0] == " " or not set(m.group()) <= _RUN_CHARACTERS]
    assert outside == []


INVISIBLE = "\u200b\u200c\u200d\u2060\ufeff\u00ad"


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(SAMPLES + HELD_RUNS))
def test_invisible_characters_hide_nothing(data: st.DataObject, text: str) -> None:
    """Invisible characters put anywhere in a text: every value found in the text without
    them is found in it, its span covering the invisible characters inside the value."""
    places = data.draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=8))
    # `where[i]`: the index in `hidden` of `text[i]`.
    where = [i + sum(1 for p in places if p <= i) for i in range(len(text))]
    hidden = text
    for p in sorted(places, reverse=True):
        hidden = hidden[:p] + data.draw(st.sampled_from(INVISIBLE)) + hidden[p:]
    found = find(hidden)
    expected = [Finding(f.cls, where[f.start], where[f.end - 1] + 1, f.detector)
                for f in find(text)]
    assert [f for f in expected if f not in found] == []


@pytest.mark.parametrize("text", SAMPLES + HELD_RUNS)
def test_a_text_without_invisible_characters_is_read_once(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second reading (`_through_invisible`) is for texts holding invisible characters
    only: the others take the path they took before."""
    monkeypatch.setattr(FIND_MODULE, "_through_invisible", None)
    assert find(text + " \u00e9") == _whole_text_scan(text + " \u00e9")


# -- long texts, read in windows ----------------------------------------------------------

_PIECES = ["4111 1111 1111 1111", "GB82 WEST 1234 5698 7654 32", "jane.doe@example.com",
           "password: S3cr3t-value", "203.0.113.42", "123-45-6789", " ", "\n", "word ",
           "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
           "-----BEGIN RSA PRIVATE KEY-----\n", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n",
           "-----END RSA PRIVATE KEY-----", "a" * 700, "\u200b", "sk-proj-4fJk29sLqPz8XvTn7mWbQ1cD"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PIECES), st.integers(0, 900)), min_size=1,
                max_size=40))
def test_a_long_text_read_in_windows_gives_the_whole_texts_findings(
        parts: list[tuple[str, int]]) -> None:
    """Values placed anywhere around the window edges (fillers of any length between them)
    are found as reading the whole text finds them."""
    window = FIND_MODULE.WINDOW
    text = "".join("x " * (gap // 2) + piece for piece, gap in parts)
    text = ("y " * (window // 2 - 300)) + text
    text = text * (1 + 3 * window // max(len(text), 1))
    assert FIND_MODULE.find(text) == FIND_MODULE._find(text)


@pytest.mark.parametrize("length", [40_000, 100_000])
def test_a_key_block_longer_than_a_window_is_read_to_its_end(length: int) -> None:
    body = _base64(length)  # (lines cut at random after a first line of 64, as PEM's are)
    body = body[:64] + body[64:].replace("A", "\n", 50)
    text = "x " * 20_000 + "-----BEGIN RSA PRIVATE KEY-----\n" + body + \
        "\n-----END RSA PRIVATE KEY-----\nThanks."
    start = text.index("-----BEGIN")
    end = text.index("\nThanks.")
    assert find(text) == [Finding("private_key", start, end, "private_key")]


def test_a_token_longer_than_a_window_is_read_to_its_end() -> None:
    token = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ" + "a" * 70_000 + ".sig")
    text = "x " * 16_000 + token + " done"
    start = text.index("eyJ")
    assert find(text) == [Finding("jwt", start, start + len(token), "jwt")]
