"""The shape of a PEM private key block: its armour (`-----BEGIN … PRIVATE KEY-----`, typed
with any dash), its base64 lines however they are wrapped, joined or numbered, and its end."""

from __future__ import annotations

#: A character of a key block's armour: a hyphen or any other Unicode dash (the view reads
#: most of them as `-`; the two- and three-em dashes stand for two and three: `⸺⸺⸺`).
_DASH = (r"[-\u058a\u05be\u1400\u1806\u2010-\u2015\u2212\u2e17\u2e1a\u2e3a\u2e3b\u2e40\u2e5d"
         r"\u301c\u3030\u30a0\ufe31\ufe32\ufe58\ufe63\uff0d]")


#: The run of dashes (two or more) or of `=` (three or more) around a BEGIN or END label.
_ARMOUR = "(?:" + _DASH + "{2,9}|={3,9})"


#: The label of a private key block's BEGIN or END line, after the word: `RSA PRIVATE KEY`,
#: `PGP PRIVATE KEY BLOCK` (`PRIVATE_KEY` too).
_KEY_LABEL = r"[A-Z0-9 ]{0,40}PRIVATE[ _]KEY(?: BLOCK)?"


#: A character of a private key block after its BEGIN line (RFC 7468 PEM and RFC 4880 OpenPGP
#: armor: base64 lines, armor headers such as `Comment: Alice <alice@example.com>`, the `=`
#: checksum), however the block is quoted in a reply (line breaks written as `\\n` in JSON,
#: prefixes of quoted, commented, listed or numbered lines, quotes and `+` of code that joins
#: strings, backticks, `<br>`, brackets): any character but the start of a run of four dashes
#: or three `=`, of a shorter run of dashes before `BEGIN` or `END`, or of an END line
#: written without armour (`END RSA PRIVATE KEY`). A block with no END line runs to the end
#: of the text.
KEY_BODY = ("(?:[^-=E" + _DASH[2:-1] + "]|=(?!==)|E(?!ND " + _KEY_LABEL + ")|"
            + _DASH + "(?!" + _DASH + "{3}|" + _DASH + r"{1,2}[ \t]{0,3}(?i:BEGIN|END) ))")


#: The END line of a private key block (PEM or OpenPGP): in its armour (spaces inside it
#: allowed: `----- END RSA PRIVATE KEY -----`), or the label alone in capitals.
_ARMOURED_END = _ARMOUR + r"[ \t]{0,3}(?i:END " + _KEY_LABEL + r")[ \t]{0,3}" + _ARMOUR


_BARE_END = r"(?<![\w=])(?<!" + _DASH + ")END " + _KEY_LABEL + r"(?![\w=])(?!" + _DASH + ")"


KEY_END = "(?:" + _ARMOURED_END + "|" + _BARE_END + ")"


#: What stands before a key block's line, between it and the line before: line breaks (as
#: `\\n`, `<br>`), quotes and the `+` that joins a code's strings, a line's prefix (`> `,
#: `# `, `1. `).
_KEY_LINE_GAP = (r"(?:\\[nr]|<[Bb][Rr][ /]{0,2}>|\+(?![A-Za-z0-9+/=])|(?<![^\s>])\d{1,9}[.)][ \t]"
                 r"|[^A-Za-z0-9+/=])")


#: What a key block's body starts with, after the line breaks, quoting and markup between it
#: and the BEGIN line: a base64 line (16 characters, or fewer and its end), an armor header
#: (`Version: `), the `=` checksum, or the END line; or the end of the text read after a
#: line's prefix (`# `, `! `: the body may follow in the next piece of a reply). A BEGIN
#: line followed by anything else (a BEGIN line named in prose) is a
#: value by itself: its mask covers that line only.
KEY_BODY_START = ("(?=" + _KEY_LINE_GAP + "{0,16}"
                  r"(?:[A-Za-z0-9+/=]{16}|[A-Za-z0-9+/=]{1,15}(?:\r?\n|\\[nr]|<[Bb][Rr])"
                  r"|[A-Za-z][A-Za-z-]{1,30}: |" + _ARMOUR + r"[ \t]{0,3}(?i:END))"
                  r"|\s*[^\sA-Za-z0-9+/=][^A-Za-z0-9+/=]{0,15}\Z)")


#: The BEGIN line of a private key block (in any case, in its armour: dashes, `=`, spaces
#: inside it).
KEY_BEGIN = (_ARMOUR + r"[ \t]{0,3}(?i:BEGIN " + _KEY_LABEL + r")[ \t]{0,3}" + _ARMOUR)


#: A BEGIN line with no armour, in capitals (`BEGIN RSA PRIVATE KEY`): a block only when a
#: body follows.
_BARE_BEGIN = (r"(?<![\w=])(?<!" + _DASH + ")BEGIN " + _KEY_LABEL + r"(?![\w=])(?!" + _DASH
               + ")")


#: The BEGIN line of a private key block, and its body when one follows.
KEY_BLOCK = ("(?:" + KEY_BEGIN + "|" + _BARE_BEGIN + KEY_BODY_START + ")(?:" + KEY_BODY_START
              + KEY_BODY + "*(?:" + KEY_END + ")?)?")


#: A line of a key block's body (base64, 16 characters or more) and the line break, quoting or
#: prefix after it: a body whose BEGIN line is not in the text (it was in an earlier message)
#: is the run of such lines right above its END line.
_KEY_LINE = (r"[A-Za-z0-9+/=]{16,100}(?=[^A-Za-z0-9+/]{0,8}(?:\s|\\[nr]|<[Bb][Rr]))"
             + _KEY_LINE_GAP + "{1,16}")


#: An END line and the body lines right above it (one at least for an END line without
#: armour: one named in prose is none).
KEY_TAIL = ("(?:" + _KEY_LINE + "){0,100}" + _ARMOURED_END + "|(?:" + _KEY_LINE + "){1,100}"
             + _BARE_END)
