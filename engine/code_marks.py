"""What marks a code or four dotted numbers as no one's personal data: a product's code shaped
as a NINO (`Model AB123456C`), a version or a section (`version 4.5.3.9`, `Section
001.002.003.004`), a network with its prefix length (`10.0.0.0/8`). Plain functions beside the
detectors (`engine.context_marks.Refusing` hands a detector's matches to one); and what four
numbers with spaced dots need to be an address (`IP 8 . 8 . 4 . 4`, not `Rate 8 . 5 . 3 . 1`)."""

from __future__ import annotations

import re
from ipaddress import ip_network

from replyguard.engine.id_names import NUMBER_WORDS, OPENING, clause_words, named_as_id

#: Words that name a product's or a part's code before it (`Model AB123456C`, `SKU`,
#: `part no.`): a code shaped like a NINO there is no one's.
_MODEL_WORDS = frozenset("model models modelo part sku serial product produto item article "
                         "catalog catalogue mpn p/n pn".split())


def a_model_number(text: str, start: int, end: int) -> bool:
    """Whether the word before `text[start:end]` names a product's code (`_MODEL_WORDS`,
    after `number`, `#` or `:` too: `Model AB123456C`, `Model number: AB 123 456 C`; after
    `no.` only before a digit, `Part no. 012.034.056.078`: before a capital, a sentence may
    end there, and a reply's screen reads the value in a sentence of its own)."""
    tail = text[max(0, start - 32):start].rstrip(" \t\"'`#:=")
    if tail.endswith(".") and not text[start:start + 1].isdigit():
        return False
    words = tail.rstrip(".").rsplit(None, 2)
    if words and words[-1].lower() in NUMBER_WORDS:
        words.pop()
    return bool(words) and _CJK_BEFORE.sub("", words[-1]).lower().lstrip(OPENING) in _MODEL_WORDS


#: A word's part up to its last CJK sentence end or comma: CJK is written without spaces
#: (`了解です。Part No. 012.034.056.078` names a part).
_CJK_BEFORE = re.compile("\\A.*[\u3002\uff01\uff1f\uff0e\uff61\u3001\uff0c]")


#: Names of an SSN: one before a number in an SSN's shape makes it one, whatever else stands
#: there (`SSN for order 123-45-6789`).
_SSN_NAMES = ("ssn", "social")


def no_ssn(text: str, start: int, end: int) -> bool:
    """Whether the number in an SSN's shape at `text[start:end]` is a product's code or an id,
    no SSN: a word naming one stands right before it (`a_model_number`; an id's name,
    `engine.id_names`, but `ID`: `Part number 123-45-6789`, `Order 123-45-6789`), and no
    SSN's name in the 48 characters before it."""
    tail = text[max(0, start - 48):start]
    low = tail.lower()
    if any(name in low for name in _SSN_NAMES):
        return False
    if a_model_number(text, start, end):
        return True
    words = clause_words(tail.rstrip(" \t\r\n\"'`#"))
    return (bool(words) and "id" not in (word.lower() for word in words[-3:])
            and named_as_id(words) is True)


#: Words that name a version, a build, a release or a section before a number in dotted
#: parts (`version 4.5.3.9`, `v 1.2.3.4`, `Build: 10.0.0.1`, `firmware 192.168.1.1`,
#: `Section 001.002.003.004`).
_VERSION_WORDS = frozenset("version vers\u00e3o ver v build release firmware kernel section "
                           "se\u00e7\u00e3o secao chapter clause paragraph".split())
#: The word that ends what stands before a number, and the marks between them (`_VERSION_WORDS`).
_WORD_BEFORE = re.compile(
    r"(?<![^\W\d_])([^\W\d_]+)[\"'`]?\.?[ \t]*[:=#]?[ \t]*\n?[ \t]*[\"'`(]?\Z")


def a_version(text: str, start: int, end: int) -> bool:
    """Whether the four numbers in dotted parts at `text[start:end]` are a version, not an
    IPv4 address: a word naming a version or a section stands right before them (`version`,
    `v`, `ver`, `build`, `release`, `firmware`, `kernel`, `versão`, `section`, `chapter`, any
    case: `Version: 4.5.3.9`, `kernel 5.15.0.91`, a JSON member's key `"version":
    "10.0.0.1"`, `Section 001.002.003.004`)."""
    if text.count(".", start, end) != 3:
        return False
    word = _WORD_BEFORE.search(text, max(0, start - 24), start)
    return word is not None and word.group(1).lower() in _VERSION_WORDS


#: A network's prefix length after an address (`/8`, CIDR: RFC 4632, RFC 4291 2.3).
_PREFIX_LENGTH = re.compile(r"/(\d{1,3})(?![\w.])")


def a_network(text: str, start: int, end: int) -> bool:
    """Whether the address `text[start:end]` names a network, not a host: a prefix length
    follows it and its host bits are all zero (`10.0.0.0/8`, `192.168.0.0/16`,
    `2001:db8::/32`; `192.168.1.10/24` is a host's address on its network)."""
    length = _PREFIX_LENGTH.match(text, end)
    if length is None:
        return False
    try:
        ip_network(f"{text[start:end]}/{length.group(1)}")
    except ValueError:
        return False
    return True


def no_host(text: str, start: int, end: int) -> bool:
    """Whether four dotted numbers are no host's address: a network's (`a_network`), a
    version or a section (`a_version`), or a product's code (`a_model_number`: `Part no.
    012.034.056.078`)."""
    if text[end:end + 1] == "/" and a_network(text, start, end):
        return True
    return a_version(text, start, end) or a_model_number(text, start, end)


def no_host_named(text: str, start: int, end: int) -> bool:
    """Whether four numbers with spaced dots or ideographic full stops between them (`8 . 8 .
    4 . 4`, `8。8。4。4`) are no host's address: `no_host`, or no name of an address stands
    before them in their sentence (`_ADDRESS_NAME`: `IP`, `address`, `server`, `host`, `ping`,
    `connect`, `endereço`, `servidor`...; read back to a sentence's end or a line break, 160
    characters at most). Spaced, four numbers are as often steps or a score (`Steps 1 . 2 .
    3 . 4`, `Rate 8 . 5 . 3 . 1 percent`)."""
    if no_host(text, start, end):
        return True
    floor = max(0, start - _SENTENCE_REACH)
    cut = max(text.rfind("\n", floor, start), *(text.rfind(mark, floor, start)
                                                 for mark in _SENTENCE_ENDS))
    return _ADDRESS_NAME.search(text[max(floor, cut + 1):start].lower()) is None


#: How far back an address's name is looked for (`no_host_named`).
_SENTENCE_REACH = 160
#: What ends a sentence before the numbers (`no_host_named`).
_SENTENCE_ENDS = (". ", "! ", "? ", "\u3002", "\uff01", "\uff1f")
#: A name of an address, or of what connects to one, at a word's start (`no_host_named`):
#: `IP` as a word of its own; `address`, `server`, `host`, `ping`... with any ending
#: (`addresses`, `hostname`, `connecting`); in Chinese and Japanese, `地址`, `服务器`, `サーバ`.
_ADDRESS_NAME = re.compile(
    r"(?<![a-z0-9])(?:ip(?:v4)?(?![a-z])|dns(?![a-z])|addr|endere[c\u00e7]o|server|servidor"
    r"|host|ping|connect|conect|conex|gateway|router|roteador|resolver|nameserver|proxy|subnet)"
    r"|\u5730\u5740|\u670d\u52a1\u5668|\u4f3a\u670d\u5668|\u30b5\u30fc\u30d0"
    r"|\u30a2\u30c9\u30ec\u30b9")
