"""The detectors of personal data: email addresses, cards, IBANs, national ids (US SSN, UK
NINO and NHS number, Brazilian CPF), phone numbers and IP addresses (one declaration each)."""



from __future__ import annotations

import re
from functools import partial

from replyguard.engine import masks, validators
from replyguard.engine.address_shapes import (
    ATEXT,
    CJK,
    DOMAIN_LABEL,
    DOT,
    EU,
    QUOTED_LOCAL,
    SPACED_EMAIL,
    TLD,
)
from replyguard.engine.code_marks import (
    a_model_number,
    a_network,
    no_host,
    no_host_named,
    no_ssn,
)
from replyguard.engine.context_marks import (
    Refusing,
    bare_and_marked,
    not_a_card,
    not_a_phone,
)
from replyguard.engine.detector import CompiledOnUse, Detector
from replyguard.engine.lists import an_unnamed_number
from replyguard.engine.number_shapes import (
    CARD_SEP,
    END_GROUPED,
    GROUP_CHARS,
    GROUP_PUNCT,
    PADDED_PUNCT,
    PHONE_REST,
    SSN_PUNCT,
    START_CARD,
    START_CPF,
    START_NUM,
    START_SSN,
    in_any_grouping,
)

#: No SSH remote in scp's form after an address, `git@github.com:org/repo.git`: a host, a
#: path; a port after the host is a URL's, `postgres://git@db.internal:5432/shop`.
_NO_SCP_PATH = r"(?!:(?!\d+/)[\w.~-]+/)"


PERSONAL_DETECTORS: tuple[Detector, ...] = (
    Detector(
        id="email",
        category="email",
        # Local part: letters and digits of ASCII, Latin, Greek or Cyrillic with `._%+-`
        # (and `ATEXT` after its first), or CJK letters; domain: labels of either (IDN, RFC
        # 5890; an underscore inside) or A-labels (`xn--`).
        regex=re.compile(
            f"(?:[{EU}_%+-](?<![{EU}_.%+-][{EU}_%+-])[{EU}._%+{ATEXT}-]{{0,63}}"
            f"|[{CJK}](?<![{CJK}][{CJK}])[{CJK}]{{0,63}})"
            f"@{DOMAIN_LABEL}(?:{DOT}{DOMAIN_LABEL}){{0,7}}{DOT}{TLD}"
            f"(?![{EU}_@-])(?!{DOT}[{EU}{CJK}])"
            + _NO_SCP_PATH
        ),
        keywords=("@",),
        validate=validators.email,
        mask=masks.email,
        priority=5,
        examples=("jane.doe@example.com", "j+tag@mail.example.co.uk", "ana_silva@empresa.com.br",
                  "jo\u00e3o.silva@exemplo.com.br", "andr\u00e9@exemple.fr",
                  "m\u00fcller@beispiel.de", "\u7528\u6237@\u4f8b\u5b50.\u5e7f\u544a",
                  "user@xn--bcher-kva.example", "user@example.xn--p1ai",
                  "jane*doe@example.com", "jane.doe'@example.com", "jane.doe@exa_mple.com",
                  "\u0438\u0432\u0430\u043d@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444"),
        counterexamples=("@handle", "git@github.com:org/repo.git", "user@localhost", "a@b",
                         "name at example dot com",
                         "report@2x.png", "icon@3x.svg", "\u00e9t\u00e9@ici", "user@xn--",
                         "jo\u00e3o@exemplo"),
    ),
    Detector(
        id="email_quoted",
        category="email",
        # A quoted local part (RFC 5321 4.1.2's Quoted-string: `"jane doe"@example.com`),
        # masked from its opening quote. (Compiled on first use: a rare keyword, and the
        # domain's classes cost ~0.03 s of CPU at each worker's start.)
        regex=CompiledOnUse(
            f"{QUOTED_LOCAL}@{DOMAIN_LABEL}(?:{DOT}{DOMAIN_LABEL}){{0,7}}{DOT}{TLD}"
            f"(?![{EU}_@-])(?!{DOT}[{EU}{CJK}])" + _NO_SCP_PATH
        ),
        keywords=('"@',),
        validate=validators.email,
        mask=masks.email,
        priority=5,
        examples=('"jane doe"@example.com', '"jane.doe"@example.co.uk'),
        counterexamples=('"@handle"', '"jane doe"@localhost', 'say "hi"@ noon',
                         '"git"@github.com:org/repo.git'),
    ),
    Detector(
        id="email_spaced",
        category="email",
        # An address with a space beside its `@` or spaced dots: found before `email`
        # (which would find its tail, `doe@example.com`, alone); the validator refuses one
        # without a space, which `email` finds, and a pronoun before a spaced `@` (`Ping me @
        # slack.com`).
        regex=re.compile(f"(?<![{EU}._%+-]){SPACED_EMAIL}(?!:(?!\\d+/)[\\w.~-]+/)"),
        keywords=("@ ", " @", " . "),
        validate=validators.spaced_email,
        mask=masks.spaced_email,
        priority=4,
        examples=("jane.doe @ example.com", "jane.doe @example.com", "jane.doe@ example.com",
                  "jane . doe@example . com", "jane.doe@example . co . uk",
                  "ana_silva @ empresa.com.br"),
        counterexamples=("meet @ noon", "jane.doe@example.com", "me @ example.com",
                         "jane @ example", "jane@example . Then", "ask @ 5.30",
                         "x @ 2x.png", "total . 5@ 3"),
    ),
    Detector(
        id="credit_card",
        category="card",
        # Groups of four (any mix of `CARD_SEP` between them, the first one ending the
        # number where it goes on), 13 to 19 digits in one block, 4-6-5 / 4-6-4, or four
        # groups of four with dots or slashes between them (`4111.1111.1111.1111`), or a
        # first group of four or eight and groups of two to eight after it, not all of four
        # (five of four are none), a space or a hyphen between them all (`45391488
        # 03436467`, `4539 14 88 0343 6467`).
        # A run of digits alone that what is around it marks as an id, a time, a barcode or
        # a SIM card's number is no candidate (`engine.context_marks.not_a_card`).
        regex=Refusing(re.compile(
            START_CARD + r"\d{3}(?:(?P<cs>" + CARD_SEP + r")\d{4}(?:" + CARD_SEP
            + r"\d{4}){1,2}(?:" + CARD_SEP + r"\d{1,3})?|\d{9,15}|[ -]?\d{6}[ -]?\d{4,5}"
            + r"|(?P<cd>" + GROUP_PUNCT + "|" + PADDED_PUNCT + r")\d{4}(?P=cd)\d{4}(?P=cd)\d{4}"
            + r"(?!" + GROUP_PUNCT + r"\d)(?!(?P=cd)\d)"
            + r"|(?:\d{4}|(?=(?:[ -]\d{4})*[ -](?:\d{2,3}|\d{5,8})(?!\d)))"
            + r"(?P<cm>[ -])\d{2,8}(?:(?P=cm)\d{2,8}){0,4}(?!(?P=cm)\d))"
            + END_GROUPED.format(sep="cs")
        ), not_a_card),
        keywords=(),
        validate=validators.card,
        mask=masks.card,
        priority=10,
        trim_groups=True,
        examples=("4111 1111 1111 1111", "4111-1111-1111-1111", "5500005555555559",
                  "3782 822463 10005", "4222222222222", "4111 1111-1111 1111",
                  "4111 - 1111 - 1111 - 1111", "4111- 1111 -1111 1111", "4111.1111.1111.1111",
                  "4111/1111/1111/1111", "4111_1111_1111_1111", "4111:1111:1111:1111",
                  "45391488 03436467", "4539 14 88 0343 6467", "4539-1488-03436467"),
        counterexamples=("4111 1111 1111 1112", "0000 0000 0000 0000", "1234 5678 9012 3456 7890",
                         "order 4412", "order 112-4111111-1111111",
                         "4111 - 1111 - 1111 - 1111 - 1111", "4111 -1111 -1111 -1111 -1111",
                         "1234 - 4111 1111 1111 1111", "12345678901234567890",
                         "4111.1111.1111.1111.1111", "4111.1111/1111.1111",
                         "1,234,567,890,123,456", "12:30:45", "4111_1111_1111_1111_1111",
                         "4111,1111,1111,1111"),
    ),
    Detector(
        id="card_in_other_groups",
        category="card",
        # A card typed in groups no card is printed in, one kind of separator throughout (a
        # space or a hyphen; the view reads the others as one): a digit each (`4 1 1 1 …`),
        # pairs (`41 11 11 …`) or threes (`411 111 111 111 1111`), the last group shorter or
        # longer; 13 to 19 digits in all, an issuer's prefix for that length, Luhn holding.
        # (Five groups at least: four separators, `engine.tuning.many_groups`.)
        regex=re.compile(
            START_NUM + r"(?:(?P<s1>[ -])\d(?:(?P=s1)\d){11,17}(?!(?P=s1)\d)"
            r"|\d(?P<s2>[ -])\d\d(?:(?P=s2)\d\d){4,7}(?:(?P=s2)\d{1,3})?(?!(?P=s2)\d)"
            r"|\d\d(?P<s3>[ -])\d{3}(?:(?P=s3)\d{3}){2,4}(?P=s3)\d{1,4}(?!(?P=s3)\d))"
            r"(?![\w@])"
        ),
        keywords=(),
        validate=validators.issued_card,
        mask=masks.card,
        priority=10,
        examples=("4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1", "41 11 11 11 11 11 11 11",
                  "411 111 111 111 1111", "55 00 00 55 55 55 55 59",
                  "4-1-1-1-1-1-1-1-1-1-1-1-1-1-1-1"),
        counterexamples=("1 2 3 4 5 6 7 8 9 1 2 3 4", "41 11 11 11 11 11 11 12",
                         "01 23 45 67 89", "12 34 56 78 90 12 34 56", "99 11 11 11 11 11 11 11",
                         "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"),
    ),
    Detector(
        id="card_in_quoted_strings",
        category="card",
        # A card's groups each in a string of its own, the same quotes around each: joined
        # by code (`"4539" + "1488" + …`, `'4539' '1488' …`), or a JSON list's or object's
        # strings (`["4539","1488",…]`, `{"a": "4539", "b": "1488", …}`; a list's separator
        # between them, so found only after a name of a card: `engine.lists`). The value runs
        # from the first group's opening quote to the last's closing one, what joins them
        # included; each group is masked in its string (`{"card": ["****","****",
        # "****","6467"]}`), so that a document keeps its shape.
        regex=re.compile(
            r"(?P<q>[\"'])\d{1,8}(?:(?P=q)[ \t]*(?:[,+][ \t]*)?"
            r"(?:(?P=q)[\w.-]{1,32}(?P=q)[ \t]*:[ \t]*)?(?P=q)\d{1,8}){1,9}(?P=q)"
        ),
        keywords=('","', "','", '", "', "', '", '" +', "' +", '"+"', "'+'", '" "', "' '"),
        validate=validators.card,
        mask=masks.card_in_strings,
        priority=10,
        examples=('"4539" + "1488" + "0343" + "6467"', "'4539' '1488' '0343' '6467'",
                  '"4539"+"1488"+"0343"+"6467"', '"45391488" "03436467"'),
        counterexamples=('"4539" + "1488" + "0343" + "6468"', '"4539" + \'1488\' + "0343"',
                         '["4539","1488","0343","6467"]', '"12" + "34"'),
    ),
    Detector(
        id="iban",
        category="iban",
        # In either case (`gb82 west ...`, as typed): the validator reads it upper-cased.
        # Country code, an optional space, check digits, then the BBAN: whole (after an
        # optional space or hyphen: `DE89 370400440532013000`) or in groups as printed, of
        # one to eight letters or digits, with one kind of separator (a space, a hyphen or
        # `GROUP_PUNCTUATION`, alone or padded by spaces): in fours
        # (`GB82-WEST-1234-5698-7654-32`, `GB 82 WEST 1234 ...`), as a bank code, a sort code
        # and an account (`GB82 WEST 123456 98765432`), with a short group last
        # (`BR15 0000 0000 0000 1093 2840 814 P2`), or in groups of any length, the first glued
        # to the check digits (`GB82WE ST1234 569876 5432`). The validator checks each
        # country's length;
        # a group of two letters and two digits starts the next IBAN (`… 32 DE89 3704 …`).
        regex=re.compile(
            r"[A-Za-z](?<![\w][A-Za-z])[A-Za-z] ?\d\d"
            r"(?:[ -]?[A-Za-z0-9]{11,30}"
            r"|[A-Za-z0-9]{0,6}(?P<gs>[ " + GROUP_CHARS + r"-]|" + PADDED_PUNCT + r")"
            r"[A-Za-z0-9]{1,8}(?:(?P=gs)(?![A-Za-z]{2}\d\d(?![A-Za-z0-9]))[A-Za-z0-9]{1,8}){1,15})"
            r"(?![\w])(?!-[A-Za-z0-9])"
        ),
        # `AA 00 00` is the UK NINO's too (one scan for both); `AA 00 AAAA 0` starts a
        # spaced country code with a bank code of letters (`GB 82 WEST 1234`).
        keywords=("AA00", "AA 00 00", "AA 00 AAAA 0"),
        keywords_in="shape",
        validate=validators.iban,
        mask=masks.iban,
        priority=11,
        trim_groups=True,
        examples=("GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432",
                  "DE89 3704 0044 0532 0130 00", "NL91ABNA0417164300",
                  "gb82 west 1234 5698 7654 32", "Gb82West12345698765432",
                  "GB82-WEST-1234-5698-7654-32", "gb82-west-1234-5698-7654-32",
                  "DE89 370400440532013000", "GB 82 WEST 1234 5698 7654 32",
                  "DE 89 3704 0044 0532 0130 00", "NL91-ABNA-0417-1643-00",
                  "GB82.WEST.1234.5698.7654.32", "GB82_WEST_1234_5698_7654_32",
                  "GB82 WEST 123456 98765432", "BR15 0000 0000 0000 1093 2840 814 P2",
                  "GB82 - WEST - 1234 - 5698 - 7654 - 32",
                  "GB82:WEST:1234:5698:7654:32", "GB82|WEST|1234|5698|7654|32",
                  "GB82WE ST1234 569876 5432", "GB82WEST 1234 56 98765432"),
        counterexamples=("GB82 WEST 1234 5698 7654 33", "GB82 WEST 1234", "XX12 3456 7890 1234",
                         "gb82 west 1234 5698 7654 33", "ab12 with some more text here",
                         "sha256 digest 1234 5678 9012", "GB82-WEST-1234-5698-7654-33",
                         "GB82 WEST-1234-5698-7654-32", "on 29 2024 1234 5678 9012",
                         "GB 82 WEST 1234 5698 7654 33"),
    ),
    Detector(
        id="us_ssn",
        category="national_id",
        # Not glued by `-` to more of a longer id (`SKU 123-45-6789-XL`).
        # Its groups apart by a hyphen, a space, a dot or a slash, or a hyphen padded by
        # spaces, one kind throughout; or by a list's separators (a comma, a semicolon or a bar,
        # padded or not), which `engine.lists` keeps only after a name of its class
        # (`SSN: 123, 45, 6789`; `| 120 | 45 | 5400 |` alone is a table's numbers). A colon,
        # an underscore or a double hyphen sets apart no SSN's groups.
        # A product's code or an id's name before it, no SSN's, makes it none (`Part number
        # 123-45-6789`, `Order 123-45-6789`: `code_marks.no_ssn`).
        regex=Refusing(re.compile(START_SSN + r"\d\d(?P<s>[- " + SSN_PUNCT + r",;|]| [-,;|] |[,;] )"
                                  r"\d\d(?P=s)\d{4}"
                                  + END_GROUPED.format(sep="s") + r"(?!-[A-Za-z0-9])"), no_ssn),
        keywords=(),
        validate=validators.us_ssn,
        mask=masks.last4,
        priority=12,
        examples=("123-45-6789", "123 45 6789", "078-05-1121", "123.45.6789", "123 - 45 - 6789",
                  "123/45/6789"),
        counterexamples=("000-12-3456", "666-12-3456", "912-34-5678", "123-00-4567",
                         "123-45-0000", "2024-11-29", "SKU 123-45-6789-XL in stock.",
                         "Case No. 123-45-6789-A", "101,12,4500", "| 120 | 45 | 5400 |",
                         "120 -- 45 -- 5400", "123_45_6789", "123:45:6789",
                         "Part number 123-45-6789", "Order 123-45-6789"),
    ),
    Detector(
        id="us_ssn_labelled",
        category="national_id",
        # Nine digits are an SSN where a label names one, however they are grouped: none
        # (`SSN: 123456789`, `social security number 123456789`, `"ssn": "123456789"`) or
        # any grouping (`SSN: 123-456789`, `SSN 12345-6789`, `SSN 123 456 789`), with
        # `in_any_grouping`'s separators (`SSN: 123~45~6789`). The SSA's rules for its area,
        # group and serial still hold; a number the SSA published as an example is one here
        # (`My SSN is 078-05-1120.`: the label says so), not alone. In the printed 3-2-4
        # groups `us_ssn` finds any other alone (`validators.us_ssn_labelled`).
        regex=re.compile(
            r"(?i:s(?<![A-Za-z0-9]s)sn|s(?<![A-Za-z0-9]s)ocial[ \t]+security"
            r"(?:[ \t]+(?:number|num|no\.?|n[oº°]\.?))?)(?![A-Za-z0-9])"
            r"(?:[ \t]+(?i:number|num|no\.?|#|is))?[\"'`]?[ \t]*[:#=]?[ \t]*[\"'`]?"
            r"(?P<value>" + in_any_grouping(9) + ")"
        ),
        keywords=("ssn", "social"),
        keywords_in="lower",
        validate=validators.us_ssn_labelled,
        mask=masks.last4,
        priority=12,
        group="value",
        examples=("123456789", "123-456789", "12345-6789", "123~45~6789", "123 456 789",
                  "1234 56789", "078-05-1120", "219-09-9999"),
        counterexamples=("SSN: 000123456", "SSN: 666123456", "SSN 912345678",
                         "order 123456789", "SSN: 1234567890", "lessn 123456789",
                         "SSN: 123 456 7890", "SSN 123 456 78", "SSN: 123--456--789"),
    ),
    Detector(
        id="uk_nino",
        category="national_id",
        # In either case (`ab123456c`, as typed). A space after the letters is followed by
        # a pair and a space (HMRC's `QQ 12 34 56 C`) or by the six digits: so the keywords
        # (the shapes that can start a match) are more than a word and a number of prose
        # (`in 2024`, `ending 4111 1111`), and `AB 1234 56 C` is no match. The pairs may be
        # set apart by one kind of punctuation too (`AB-12-34-56-C`, `AB.12.34.56.C`), or by
        # hyphens padded by spaces (`AB - 12 - 34 - 56 - C`). Not glued by `-` to more of a
        # longer code (`AB123456C-XL`, a SKU).
        regex=Refusing(re.compile(
            r"[A-Za-z](?<![\w][A-Za-z])[A-Za-z](?:(?:\d\d ?\d\d ?\d\d| \d\d \d\d ?\d\d| \d{6}"
            r"| ?\d{3} \d{3}) ?|(?P<n>[-./_:]| - )\d\d(?P=n)\d\d(?P=n)\d\d(?P=n))[A-Da-d]"
            r"(?![\w])(?!-[A-Za-z0-9])"
        ), a_model_number),
        keywords=("AA00", "AA 00 00", "AA 000000", "AA 000 000", "AA_00_00_00_A",
                  "AA _ 00 _ 00"),
        keywords_in="shape",
        validate=validators.uk_nino,
        mask=masks.last4,
        priority=12,
        examples=("AB123456C", "AB 12 34 56 C", "JG103759A", "ab123456c", "Ab 123456 c",
                  "AB12 34 56C", "AB 12 3456 C", "AB-12-34-56-C", "AB.12.34.56.C",
                  "AB/12/34/56/C", "AB 123 456 C", "AB123 456C", "AB - 12 - 34 - 56 - C"),
        counterexamples=("GB123456A", "DA123456A", "AB123456E", "QQ123456C", "ZZ 12 34 56 A",
                         "gb123456a", "ab123456e", "tab123456c", "AB 1234 56 C",
                         "Model AB123456C", "part number AB 123 456 C", "SKU: AB123456C",
                         "The ID is AB123456C-XL."),
    ),
    Detector(
        id="uk_nino_labelled",
        category="national_id",
        # After its name (`NINO`, `NI number`, `NI no`, `National Insurance number`), a
        # NINO's letters and six digits in any grouping without its suffix letter (`NI
        # number: AB 12 34 56`: HMRC's forms ask for the suffix apart); after `no.` too (`NI
        # no. AB 12 34 56`: a number sign before a code ends no sentence, so a reply's screen
        # reads the two together).
        regex=re.compile(
            r"(?i:n(?<![A-Za-z0-9]n)i(?:no|[ \t]+(?:number|num|no\.?))"
            r"|n(?<![A-Za-z0-9]n)ational[ \t]+insurance(?:[ \t]+(?:number|num|no\.?))?)"
            r"(?![A-Za-z0-9])(?:[ \t]+(?i:is))?[\"'`]?[ \t]*[:#=]?[ \t]*[\"'`]?"
            r"(?P<value>[A-Za-z]{2}(?: ?\d){6})(?![\w@])(?![ .-]?\d)(?! ?[A-Da-d](?!\w))"
        ),
        keywords=("nino", "ni n", "insurance"),
        keywords_in="lower",
        validate=validators.uk_nino_unsuffixed,
        mask=masks.last4,
        priority=12,
        group="value",
        examples=("AB 12 34 56", "AB123456", "AB 123 456", "ab 1234 56"),
        counterexamples=("NI number: GB 12 34 56", "NI number: AB 12 34 5",
                         "NINO AB 12 34 56 C", "mini number AB 12 34 56"),
    ),
    Detector(
        id="uk_nhs",
        category="national_id",
        # After `NHS` (`NHS number`, `NHS no.`): 10 digits (3-3-4 as printed) whose modulus 11
        # check digit holds (NHS Digital's rule, python-stdnum). Unlabelled, such a number
        # may be a phone's; labelled `NHS`, it is never read as one (`marked_as_other`).
        regex=re.compile(
            r"(?i:nhs)(?<![A-Za-z0-9]...)(?:[ \t]+(?i:number|num|no\.?|n[oº°]\.?))?"
            r"[ \t]*[:#]?[ \t]*"
            r"(?P<value>\d{3}([ -]?)\d{3}\2\d{4})(?![\w@])(?![ .-]?\d)"
        ),
        keywords=("nhs",),
        keywords_in="lower",
        validate=validators.uk_nhs,
        mask=masks.last4,
        priority=12,
        group="value",
        examples=("943 476 5919", "9434765919", "943-476-5919"),
        counterexamples=("NHS number 943 476 5918", "NHS 111", "the NHS 2025 plan"),
    ),
    Detector(
        id="br_cpf",
        category="national_id",
        # The Receita's `529.982.247-25` and the same groups of three with one kind of
        # separator (`.`, `-`, `_`, a space, a hyphen padded by spaces, none; commas as
        # `529,982,247-25`), a hyphen
        # (padded by spaces or not), a slash, the groups' own separator or a space (or
        # nothing) before the check digits (`529.982.247.25`, `529_982_247_25`). Eleven
        # digits alone that the text before them marks as something else (`Ticket
        # 72360589121`) are not one; nor is a CPF glued by `-` to more of a longer id.
        regex=Refusing(re.compile(
            START_CPF + r"\d\d(?:(?:(?P<c>[._-]?| - )\d{3}(?P=c)\d{3}(?:[-/]| - |(?P=c))?"
            r"|,\d{3},\d{3}-)\d\d"
            r"(?![\w@])(?![.-]?\d)(?!-[A-Za-z])(?!,\d\d?(?![\d/,;|\t]))"
            r"| \d{3} \d{3}[ -]\d\d(?![\w@])(?! ?\d))"), bare_and_marked),
        keywords=(),
        validate=validators.br_cpf,
        mask=masks.last4,
        priority=12,
        examples=("529.982.247-25", "52998224725", "111.444.777-35", "529 982 247 25",
                  "529-982-247-25", "529 982 247-25", "529.982.247/25", "529.982.247.25",
                  "529_982_247_25", "529.982.247 - 25", "529 - 982 - 247 - 25"),
        counterexamples=("529.982.247-26", "111.111.111-11", "000.000.000-00",
                         "Ticket 72360589121 is closed.", "529.982.247-25-B",
                         "529,982,247-25"),
    ),
    Detector(
        id="br_cpf_labelled",
        category="national_id",
        # Eleven digits are a CPF where its name stands before them, however they are
        # grouped (`CPF: 5299 8224 725`, `CPF nº 52998-224725`), check digits holding; in
        # the groups `br_cpf` reads, it finds the CPF alone (`validators.br_cpf_regrouped`).
        regex=re.compile(
            r"(?i:c(?<![A-Za-z0-9]c)pf)(?![A-Za-z0-9])"
            r"(?:[ \t]+(?i:n[oº°]\.?|n\u00famero|numero|number|num|no\.?|\u00e9|is|#))?"
            r"[\"'`]?[ \t]*[:#=]?[ \t]*[\"'`]?"
            r"(?P<value>" + in_any_grouping(11) + ")"
        ),
        keywords=("cpf",),
        keywords_in="lower",
        validate=validators.br_cpf_regrouped,
        mask=masks.last4,
        priority=12,
        group="value",
        examples=("5299 8224 725", "52998-224725", "529 98 224 725", "5299.8224.725"),
        counterexamples=("CPF: 5299 8224 726", "CPF 5299 8224 7250", "cpfs 5299 8224 725",
                         "Pedido 5299 8224 725"),
    ),
    Detector(
        id="phone_number",
        category="phone",
        # A digit run that the text before it marks as an id, a time, an ISBN or a reference
        # (`"product_id": `, `ISBN`, `order`, `invoice`, `tracking`, `ref`), that a unit
        # follows (`bytes`) or that is a version (`124.0.6367.207`) is no candidate.
        # Between digits: a space, a dot or a hyphen, alone or a hyphen with a space on one
        # side or both (`+1 (415) 867 - 5309`, `+1- 202 -555- 0143`), and a slash after an
        # area code of three digits (`415/867-5309`, not a date's `12/31/2025` nor a
        # fraction's `415/867`). An extension may follow, glued (`x12`) or not (`ext. 204`,
        # `;ext=204`, RFC 3966), left as it is.
        # A space may follow the `+` (`+ 1 202 555 0143`), square brackets stand for round
        # ones (`[202] 555-0143`).
        regex=Refusing(re.compile(
            r"(?:\+(?<![\w+]\+) ?\d|[(\[](?<![\w(\[][(\[])\d|" + START_NUM
            + r"(?:\d\d/(?=\d{3}[ .-]?\d{4}(?!\d)))?)" + PHONE_REST
        ), not_a_phone),
        keywords=(),
        # Valid in its numbering plan (libphonenumber): a `+` number in its own country's,
        # a national one in one of these regions' (`phone_detectors` makes other sets).
        validate=partial(validators.phone, regions=validators.DEFAULT_PHONE_REGIONS),
        mask=masks.phone,
        priority=14,
        examples=("+44 20 7946 0123", "(202) 555-0143", "+55 11 98765-4321", "020 7946 0123",
                  "415/867-5309", "+1 (415) 867 - 5309",
                  "202-555-0143", "+1 202 555 0143", "1-202-555-0143", "07400 123456",
                  "+49 30 1234567", "+33 1 23 45 67 89", "2025550143"),
        counterexamples=("12.50", "2024-11-29", "10:30", "123456", "v1.2.3", "+12345",
                         "529.982.247-26", "111.111.111-11", "(555) 123-4567",
                         "07700 900123", "1755302400", "ISBN 0-306-40615-2",
                         '"product_id": 3074185296', "order 2025550143", "invoice #2025550143",
                         "tracking number: 2025550143", "ref 2025550143", "+1 555 012 3456",
                         "(11) 98765-4321", '"created_at": "2025550143"',
                         "Chrome 124.0.6367.207", "size 7266106890 bytes",
                         "7266106890 bytes", "Ticket 72360589121 is closed.", "id 2025550143"),
    ),
    Detector(
        id="phone_carrier_code",
        category="phone",
        # `xx` after the national prefix in place of a carrier's code (Brazil's
        # `0xx11 98765-4321`, `(0xx11) 98765-4321`): the validator reads the prefix alone.
        regex=Refusing(re.compile(
            r"(?:\((?<![\w(]\()0|0(?<![\w+]0))[xX]{2}(?=\d\d)" + PHONE_REST), not_a_phone),
        keywords=("0x", "0X"),
        validate=partial(validators.phone, regions=validators.DEFAULT_PHONE_REGIONS),
        mask=masks.phone,
        priority=14,
        examples=("0xx20 7946 0123", "(0XX20) 7946 0123"),
        counterexamples=("0xx11 12345", "0xC0A8010A", "0xx 2025550143"),
    ),
    Detector(
        id="ipv4_address",
        category="ip_address",
        # Four numbers after a word naming a version or a section are one (`version
        # 4.5.3.9`, `Build 10.0.0.1`: `engine.code_marks.a_version`), or after a word
        # naming a product's code (`Part no. 012.034.056.078`); a network's address and its
        # prefix length name no host (`10.0.0.0/8`: `a_network`). A part of
        # four digits is octal, as `inet_aton` reads a leading zero (`0300.0250.0001.0012`).
        regex=Refusing(re.compile(
            r"\d(?<![\w.]\d)(?:\d{0,2}|(?<=0)[0-7]{3})(?:\.(?:\d{1,3}|0[0-7]{3})){3}"
            r"(?![\w]|\.\d)"
        ), no_host),
        keywords=(),
        validate=validators.ip_address,
        mask=masks.ip_address,
        priority=13,
        examples=("203.0.113.42", "10.0.0.1", "192.168.1.254", "0300.0250.0001.0012",
                  "008.008.004.004"),
        counterexamples=("256.1.1.1", "1.2.3", "v1.2.3.4", "1.2.3.4.5", "Version 1.0.0.0",
                         "0.0.0.0", "127.0.0.1", "255.255.255.255", "version 4.5.3.9",
                         "Build 10.0.0.1", "release 10.2.3.4", "Firmware: 192.168.1.1",
                         "kernel 5.15.0.91", "ver. 10.0.0.1", "v 10.0.0.1",
                         "0400.0250.0001.0012", "0177.0000.0000.0001", "10.0.0.0/8",
                         "192.168.0.0/16", "Section 001.002.003.004"),
    ),
    Detector(
        id="ipv4_spaced",
        category="ip_address",
        # Four numbers with spaced dots (`8 . 8 . 4 . 4`) or ideographic full stops between
        # them (`8。8。4。4`, halfwidth `｡`), one kind throughout, read as `ipv4_address`
        # reads them with dots, after a name of an address in their sentence (`IP`,
        # `server`, `host`, `ping`...: `code_marks.no_host_named`; `Steps 1 . 2 . 3 . 4` is
        # no address).
        regex=Refusing(re.compile(
            r"\d(?<![\w.]\d)(?<! \. \d)(?<![\u3002\uff61]\d)\d{0,2}"
            r"(?P<d> \. |[\u3002\uff61])\d{1,3}(?P=d)\d{1,3}(?P=d)\d{1,3}"
            r"(?![\w])(?!(?P=d)\d)(?!\.\d)"
        ), no_host_named),
        keywords=(" . ", "\u3002", "\uff61"),
        validate=validators.ip_address_dotted,
        mask=masks.ip_address_dotted,
        priority=13,
        examples=("8 . 8 . 4 . 4", "8\u30028\u30024\u30024", "203\uff610\uff61113\uff6142"),
        counterexamples=("1 . 2 . 3", "8 . 8 . 4 . 4 . 4", "8 . 8\u30024 . 4",
                         "version 8 . 8 . 4 . 4", "127 . 0 . 0 . 1", "8. 8. 4. 4",
                         "Rate 8 . 5 . 3 . 1 percent", "Steps 1 . 2 . 3 . 4"),
    ),
    Detector(
        id="ipv4_in_other_bases",
        category="ip_address",
        # Four dotted parts, one in hex at least, the others decimal, hex or octal
        # (`0xC0.0xA8.0x01.0x0A`, `0xC0.168.1.10`), or one 32-bit hex number where a name
        # of an address or a URL's `//` stands before it (`host 0xC0A8010A`,
        # `http://0xC0A8010A/`: `engine.lists.an_unnamed_number`).
        regex=Refusing(re.compile(
            r"(?<![\w.])(?:(?=(?:\w{1,4}\.){0,3}0[xX])"
            r"(?:(?:0[xX][0-9A-Fa-f]{1,2}|\d{1,4})\.){3}(?:0[xX][0-9A-Fa-f]{1,2}|\d{1,4})"
            r"|0[xX][0-9A-Fa-f]{8})(?![\w.])"
        ), an_unnamed_number),
        keywords=("0x", "0X"),
        validate=validators.ip_address_in_other_bases,
        mask=masks.ip_address,
        priority=13,
        examples=("0xC0.0xA8.0x01.0x0A", "0xc0.168.1.10", "0xC0.0250.01.012"),
        counterexamples=("0xC0A8010A", "0xDEADBEEF", "0x7F.0.0.1", "0x100.1.1.1",
                         "0xC0.0xA8.0x01", "0x12.0x34.0x56.0x78.0x9A", "host 0x7F000001"),
    ),
    Detector(
        id="ipv6_address",
        category="ip_address",
        # A network's address and its prefix length name no host (`2001:db8::/32`).
        regex=Refusing(re.compile(
            # The last group may be an IPv4 address (RFC 4291 section 2.2: `::ffff:192.0.2.1`),
            # taken whole: never a match ending at one of its dots.
            r"[0-9A-Fa-f:](?<![\w:.][0-9A-Fa-f:])[0-9A-Fa-f]{0,3}(?::[0-9A-Fa-f]{0,4}){2,7}"
            r"(?:(?:\.\d{1,3}){3})?(?:%[A-Za-z0-9]{1,16})?(?![\w:])(?!\.\d)"
        ), a_network),
        keywords=(),
        validate=validators.ip_address,
        mask=masks.ip_address,
        priority=13,
        examples=("2001:db8::8a2e:370:7334", "fe80::1", "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
                  "::ffff:192.0.2.1", "64:ff9b::192.0.2.33",
                  "0:0:0:0:0:ffff:192.0.2.1"),
        counterexamples=("10:30:00", "std::vector", "12:00", "::ffff:192.0.2", "::ffff:192.0.2.1.5",
                         "::ffff:192.0.2.256", "::1", "0:0:0:0:0:0:0:1", "2001:db8::/32",
                         "2001:db8:abcd::/48"),
    ),
)
