"""The words before a number that name it an id, no phone number: the kind of number (`order`,
`tracking number`, `Issue`, `PR #`, `pedido`, `订单号`), read past a verb (`Your order number
is`, `O número do seu pedido é`), in a link's path (`/orders/`, `/pull/`) and in the header of
a table's column (`| Order |`). A phone's name in the same clause wins (`Telefone do cliente`).
"""

from __future__ import annotations

import re

#: Words that name the kind of number after them (`ISBN`, `order`, `invoice`, `tracking`,
#: `ref`, `ticket`, `id`, `size`, `Issue`, `PR`, `Transaction`, `NHS`; Portuguese `pedido`,
#: `nota fiscal`, `protocolo`, `rastreio`, `boleto`, `chamado`, `matrícula`).
ID_WORDS = frozenset(
    "isbn isbn-10 isbn-13 issn order invoice tracking waybill shipment ref reference receipt "
    "ticket account acct sku serial unix epoch timestamp build pedido fatura protocolo "
    "rastreio rastreamento nfe nf-e id size bytes length checksum hash crc pid uid version "
    "case nhs product produto ean gtin upc barcode iccid imei imsi issue pr part confirmation "
    "reservation booking transaction txn process population boleto chamado matr\u00edcula "
    "matricula reserva transa\u00e7\u00e3o transacao processo".split()
) | {"unix time", "nota fiscal"}
#: Words that name an id only with a word for a number beside them (`Customer number`,
#: `número de cliente`, `cliente nº`): alone they may name whose phone it is (`Customer:`).
_WITH_NUMBER = frozenset("customer client cliente member membro".split())
#: The second words of the two-word names among them.
SECOND_WORDS = frozenset(name.split()[1] for name in ID_WORDS if " " in name)
#: Words that may stand between such a word and the number (`order no.`, `tracking number`).
NUMBER_WORDS = frozenset("number num no nr nº n° id code número numero código codigo".split())
#: Words before `ID` that make it a phone number's name (`Caller ID`), not an id's.
_PHONE_ID_WORDS = frozenset("caller phone telephone tel mobile cell contact".split())
#: Names of a phone number, or of calling one: one in the clause before a number makes it no
#: id, whatever id's name stands further back (`Your phone number is`, `Telefone do cliente`).
_PHONE_NAMES = frozenset(
    "phone phones telephone tel call calling caller whatsapp celular telefone mobile cell "
    "cellphone fax ligue ligar liga".split())
#: Verbs that may stand between a name and its number (`Your order is`, `O pedido é`).
_VERBS = frozenset("is was are were ser\u00e1 \u00e9 foi era".split())
#: How the words of a number in a Portuguese `número de cliente` join.
_OF = frozenset("de do da of".split())
#: Names of an order's, a waybill's or a ticket's number in Chinese, Japanese and Korean
#: (`订单号`, `注文番号`, `주문번호`), matched at the end of the text before the number.
_CJK_ID_NAMES = ("\u8ba2\u5355\u53f7", "\u8ba2\u5355", "\u5355\u53f7", "\u7f16\u53f7",
                 "\u5de5\u5355", "\u6ce8\u6587\u756a\u53f7", "\u8ffd\u8de1\u756a\u53f7",
                 "\u4f1d\u7968\u756a\u53f7", "\uc8fc\ubb38\ubc88\ud638", "\uc1a1\uc7a5\ubc88\ud638")
#: A verb or a particle after such a name (`订单号是`, `注文番号は`).
_CJK_AFTER = "\u662f\u4e3a\u70ba\u306f\u304c\uff1a:"
#: What may open a parenthesis or a quotation before such a word.
OPENING = "([{\"'`"
#: What a word of a phone's name may be wrapped in.
_AROUND_WORD = "\"'`([{*_:,.)]}"
#: What ends a clause: the words before it are another clause's.
_CLAUSE_END = ".!?;"
#: Parts of a link that make a number in its path a phone's (`wa.me/`, `/call/`, `tel:`).
_PHONE_LINK = ("wa.me", "whatsapp", "tel", "phone", "call", "contact", "sms")


def clause_words(tail: str) -> list[str]:
    """The last words of `tail` (up to six) in the clause it ends with, the punctuation
    after the last one (`:`, `#`, `,`, a table cell's `|`) dropped."""
    words = tail.rstrip(":#.=-,|\uff1a\uff0c").rsplit(None, 5)
    for i in range(len(words) - 2, -1, -1):
        if words[i][-1] in _CLAUSE_END:
            return words[i + 1:]
    return words


def a_phone_named(words: list[str]) -> bool:
    """Does one of `words` name a phone number or calling one (`_PHONE_NAMES`)?"""
    return any(word.lower().strip(_AROUND_WORD) in _PHONE_NAMES for word in words)


def named_as_id(words: list[str]) -> bool | None:
    """Whether `words` (`clause_words`) end in a name of an id (`ID_WORDS`), past a verb and a
    word for a number (`order number is`, `Order ID is`, `pedido é`, `número de cliente é`);
    False where a phone's name stands among them, None where the last word is left to the
    caller (it is `words[-1]` then: a word naming a time). The phone's names are read only
    where an id's name is found."""
    words = list(words)
    if len(words) > 1 and words[-1].lower() in _VERBS:
        words = words[:-1]
    last = words[-1].lower()
    if last == "id" and len(words) > 1 and words[-2].lower() not in _PHONE_ID_WORDS:
        return True  # (`Call ID 2025550143`; `Caller ID` shows a phone number)
    numbered = last in NUMBER_WORDS and len(words) > 1
    if numbered:
        words.pop()
        last = words[-1].lower()
    if last in SECOND_WORDS and len(words) > 1:  # `Unix time`, `nota fiscal`
        if f"{words[-2].lower().lstrip(OPENING)} {last}" in ID_WORDS:
            return True
    last = last.lstrip(OPENING)
    if last in ID_WORDS or (last in _WITH_NUMBER and (numbered or (
            len(words) > 2 and words[-2].lower() in _OF and words[-3].lower() in NUMBER_WORDS))):
        return not a_phone_named(words)  # (read only where an id is named: most are not)
    if not last.isascii() and last.rstrip(_CJK_AFTER).endswith(_CJK_ID_NAMES):
        return True
    return None


def in_an_id_link(tail: str) -> bool:
    """Whether `tail` ends in a link's path up to a `/` after a word (`https://example.com/
    orders/`, `/pull/`): a number there is a path's id. Not a link to a phone (`wa.me/`,
    `/call/`, `tel:`)."""
    token = tail.rsplit(None, 1)[-1].lstrip("(<[\"'")
    if "://" not in token and not token.startswith(("/", "www.")):
        return False
    low = token.lower()
    if any(name in low for name in _PHONE_LINK):
        return False
    segment = token[:-1].rsplit("/", 1)[-1]
    return segment.replace("-", "").replace("_", "").isalpha()


#: How a Markdown table's row starts (a quote's `>` maybe before it).
_ROW_START = re.compile(r"[ \t>]*\|")


def column_named_as_id(text: str, start: int, reach: int) -> bool:
    """Whether `text[start]` stands in a Markdown table's row, under a column whose header
    (the table's first line, in the `reach` characters before `start`) names an id
    (`| Order | Status |` ... `| 2025550143 | shipped |`)."""
    line = text.rfind("\n", 0, start) + 1
    if _ROW_START.match(text, line, start) is None:
        return False
    column = text.count("|", line, start)
    header = None
    end = line - 1
    while end > 0:
        newline = text.rfind("\n", max(0, start - reach), end)
        if newline == -1 and start >= reach:
            return False  # (the table may start out of reach: the header is not read)
        begin = newline + 1
        if _ROW_START.match(text, begin, end) is None:
            break
        header, end = (begin, end), begin - 1
    if header is None:
        return False
    cells = text[header[0]:header[1]].split("|")
    if column >= len(cells):
        return False
    words = cells[column].split()
    return bool(words) and named_as_id(words) is True
