"""The shapes of numbers the detectors share: where a number may start and end (not inside
a longer run, an id or a code), the punctuation between its groups, a card's separators."""

from __future__ import annotations

# Look-behinds sit after the first character: `\d(?<![\w+.]\d)` = "a digit not preceded by a
# word character, `+` or `.`". `(?<!\d[ -]\d)` refuses a start inside a longer separated run,
# `(?<![A-Za-z]-\d)` one inside a hyphenated code (`INC-2024-001293`, `SKU-88213`).
START_NUM = r"\d(?<![\w+@]\d)(?<!\d[ .-]\d)(?<![A-Za-z]-\d)"


_END_NUM = r"(?![\w@])(?![ .-]?\d)(?!,\d)"


#: A phone number's extension glued to it (`5309x12`), left as it is: a number may end before
#: it. (One after a space or a `;` ends it as any word does: ` ext 204`, `;ext=204`.)
_EXTENSION = r"(?=[xX]\d)"


#: A CPF's start: as `START_NUM`, or after a space that ends another CPF's eleven digits
#: (`52998224725 11144477735`: two CPFs).
START_CPF = (r"\d(?<![\w+@]\d)(?:(?<!\d[ .-]\d)|(?<=\d{11}[ \t]\d)(?=\d{10}(?![\d.-])))"
              r"(?<![A-Za-z]-\d)")


#: An SSN's start: as `START_NUM`, or after a digit and a space when its hyphens follow
#: (`123-45-6789 234-56-7891`: two SSNs, not one run).
START_SSN = r"\d(?<![\w+@]\d)(?:(?<!\d[ .-]\d)|(?<=\d[ \t]\d)(?=\d\d-\d\d-))(?<![A-Za-z]-\d)"


# A value written with separator `s` ends where that separator does not lead on to more
# digits: `4111 1111 1111 1111 12/26` and `123-45-6789 1990` hold a card and an SSN, but
# `4111 1111 1111 1111 1111` is one longer run. What follows after `.` or `,` does not
# matter: such numbers are no amounts, and a value must be found the same wherever it stands
# (`4111111111111111.50`, `…00408.1.`, `4539148803436467,5500005555555559`, `,12/26`).
END_GROUPED = r"(?![\w@])(?!(?P={sep})\d)"


#: What may stand between the groups of a card, an IBAN or an SSN besides a space and a
#: hyphen (which mix, as typed: `4111 1111-1111 1111`): a dot, a slash, an underscore, a
#: comma, a colon, a bar, a backslash, a tilde or an apostrophe, one kind throughout
#: (`4111.1111.1111.1111`, `4111_1111_1111_1111`, `4111|1111|…`, `4111'1111'…`,
#: `GB82:WEST:1234:…`). A card so grouped is four groups of four (a number with thousands
#: separators, `1,234,567,890,123,456`, or a time, `12:30:45`, is none); an SSN takes a dot
#: or a slash of these (`SSN_PUNCT`; `101,12,4500` and `| 120 | 45 | 5400 |` are cells).
#: The view reads typography's separators between two digits (`·`, `•`, `∙`, `⋅`, `‧`, `․`)
#: and the braille blank as a space (`engine.canon`).
GROUP_PUNCTUATION = "./_,;:|\\~'"


#: `GROUP_PUNCTUATION` as the inside of a character class.
GROUP_CHARS = GROUP_PUNCTUATION.replace("\\", "\\\\")


GROUP_PUNCT = "[" + GROUP_CHARS + "]"


#: A separator of `GROUP_PUNCTUATION` or a hyphen padded by a space on both sides, or a double
#: hyphen (or a triple one) alone or so padded, or a comma or semicolon and a space, one kind
#: throughout a value (`4539 / 1488 / 0343 / 6467`, `4539--1488--…`, `4539---1488---…`,
#: `GB82 | WEST | …`, `4539, 1488, …`): spaces padding a separator change nothing of the
#: value's groups. (A comma, a semicolon or a bar sets a list's items apart too: such groups
#: are one value only after a name of its class, `engine.lists`.) (Tried after the
#: one-character class: `[- ./…]|` then this.)
PADDED_PUNCT = "-{2,3}| (?:-{2,3}|[-" + GROUP_CHARS + "]) |[,;] "


SSN_PUNCT = "./"


#: Between a card's groups: a space, a hyphen, or a hyphen with a space on one or both sides
#: (`4111 1111-1111 1111`, `4111 - 1111 - 1111 - 1111`).
CARD_SEP = r"(?: ?-{1,3} ?| )"


#: A card starts as a number does (or after `@`: `@4111 1111 1111 1111`), and also right
#: after a space, a dot or a hyphen that ends an ungrouped run of 13 digits or more (a list
#: of cards: `4111111111111111 5500005555555559`, `…6467-5500…`), and after a space before
#: a card grouped by punctuation (the second of `4539-1488-0343-6467 5500-0055-5555-5559`);
#: never after a digit and a spaced hyphen (inside `4111 - 1111 - ...`).
START_CARD = (r"\d(?<![\w+]\d)(?:(?<!\d[ .-]\d)|(?<=\d{13}[ .-]\d)"
               r"|(?<=\d[ \t]\d)(?=\d{12}|\d{3}(?:-|" + GROUP_PUNCT + r")\d{4}))"
               r"(?<![A-Za-z]-\d)"
               r"(?<!\d - \d)(?<!\d -\d)(?<!\d- \d)")


#: A phone number's digits after its first (a space, a dot or a hyphen between them, the
#: hyphen with a space on one side or both, round or square brackets around the area
#: code) and what may end
#: it: an extension, or no more digits (`phone_number`, `phone_carrier_code`).
PHONE_REST = (r"(?:(?: ?- ?|[ .])?[(\[]?\d[)\]]?){6,16}(?:" + _EXTENSION + "|" + _END_NUM + ")")


#: What may stand between the groups of a labelled number (`in_any_grouping`): a space, or one
#: of `-` `.` `/` `_` `:` `~` `,` with a space on either side or none.
_ANY_SEP = r"(?: ?[-./_:~,] ?| )"


def in_any_grouping(count: int) -> str:
    """A pattern of `count` digits in any grouping, `_ANY_SEP` between any two of them
    (`123-456789`, `12345-6789`, `123 456 789`, `123~45~6789`), and not followed by more
    digits, a word or a hyphen and more of a code (`123-456789-XL`): what a label names is
    read whole however it is grouped (`us_ssn_labelled`, `br_cpf_labelled`)."""
    return (r"\d(?:" + _ANY_SEP + r"?\d){" + str(count - 1) + r"}(?![\w@])(?!"
            + _ANY_SEP + r"\d)(?!-[A-Za-z0-9])")
