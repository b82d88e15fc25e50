"""The shapes of secrets the detectors share: a known key's start, a password's name in its
languages and syntaxes, the operators and values of an assignment, and password tables."""

from __future__ import annotations

import re

from replyguard.engine.context_marks import (
    Refusing,
    a_ticket_or_a_count,
)
from replyguard.engine.layout import LABEL, AtLineStarts
from replyguard.engine.marks import KEY_START

#: Where a known secret starts (api_key, aws_access_key, jwt): a password value stops before
#: punctuation glued to one (`password=S3cret!=ghp_...`), so that both are found. (The view
#: reads a key's wrapped lines and marked-up parts by the same starts.)
_SECRET_START = KEY_START


def key_at(first: str) -> str:
    """A key's first character (`first`, a character or a class): not inside a word or a
    hyphenated name (`risk-free`), but after a `_` or `-` that ends another key's body (16
    letters or digits at least: two keys glued, `ghp_...-sk-proj-...`)."""
    return f"{first}(?:(?<![\\w-]{first})|(?<=[A-Za-z0-9]{{16}}[_-]{first}))"


#: Not punctuation glued to a known secret: where a password value stops.
_UNGLUED = (r"(?![=,;:|]" + _SECRET_START + r")"
            r"(?![,;&|][ \t]?(?i:pass(?:word|wd)?|pwd|senha)[\w.-]{0,24}[ \t]?[:=])")


#: What may stand between a password's name and its operator: a qualifier in brackets
#: (`password (temporary):`) or naming whose it is, in up to three words (`password for bob:`,
#: `Password for Mr. Smith:`, `senha de acesso:`).
_QUALIFIER = (r"(?:[ \t]{1,4}\([^()\n]{1,40}\)"
              r"|[ \t]{1,4}(?i:for|of|de|do|da|para|f\u00fcr|pour)"
              r"(?:[ \t]{1,4}[^\s:=()]{1,64}){1,3})?")


#: A list's or an object's opening before a password's value: its first string is the value
#: (`{"password": ["..."]}`, `{"password": {"value": "..."}}`).
IN_LIST = (r"(?:\[[ \t]{0,8}(?=[\"'])|\{[ \t]{0,8}[\"'][\w.-]{1,32}[\"'][ \t]{0,8}:[ \t]{0,8}"
            r"(?=[\"']))?")


#: Arrows that point from a name to its value (`→`, `⇒`, `⟶`, `⟹`, `↦`, `➔`, `➜`, `➝`, `➞`,
#: `⇨`): an operator (`OPERATOR`), and where a value ends (`Settings→Security` is a path
#: through menus, no password).
_ARROWS = "\u2192\u21d2\u27f6\u27f9\u21a6\u2794\u279c\u279d\u279e\u21e8"


#: A shell parameter's expansion giving a default value (`${DB_PASSWORD:-Qz7xK2mP9w}`, also
#: `-`, `:=`, `=`): the value is the default, written out, before the closing brace.
_DEFAULT_OF = r"(?P<dflt>\$\{[A-Za-z_]\w{0,63}:?[-=](?=[^\s{}]))?"


#: A password's value after its name and operator: quoted (C#'s verbatim `@"..."` too) or
#: not; in brackets (`<Qz7xK2mP9w>`, `(none)`), the value is what the brackets hold (a
#: placeholder of lower-case words, `<your-password>`, is none), and a value never starts
#: with an opening bracket it does not close (`(see above)`). `&` ends the value only where a
#: URL's next parameter starts (`&user=`); it ends before a sentence's punctuation, CJK's too,
#: before a closing bracket (`{password: Qz7xK2mP9w}`) and at an arrow (`_ARROWS`). YAML's
#: `!!str` tag before it is no part of it (`password: !!str Qz7xK2mP9w`).
#: Punctuation a password's value does not end with: a sentence's, CJK's too, and closing
#: brackets.
_TRAILING = r".,;:)\]}>\u3001\u3002\uff01\uff0c\uff1f"


#: A sentence end before CJK text (`Qz7xK2mP9w。次です`; the view reads `！？．` as `!?.` and
#: full-width Latin as ASCII): CJK is written without spaces, so a value ends there, as a
#: sentence does. (Any character but ASCII and whitespace after it: a class of CJK's ranges
#: cost 80 ms at import, each range built character by character in every pattern.)
_BEFORE_CJK = r"(?![.!?\u3002][^\x00-\x7f\s])"


#: A character of a password's value written without quotes (`VALUE`).
_VALUE_CHAR = ("(?:" + _UNGLUED + _BEFORE_CJK + r"[^\s\"'`&" + _ARROWS
               + r"]|&(?![A-Za-z_]\w{0,30}=))")


#: How many characters of a value a password's pattern reads; a value going on past them
#: sets the pattern's group `cut`, and is read on to its real end (`value_end`).
VALUE_READ = 1024


VALUE = (
    r"(?:!!str[ \t]+)?(?:@(?=\"))?(?P<q>[\"'`]?)(?![A-Za-z][\w-]{0,30}=[\"'])" + _DEFAULT_OF +
    r"(?P<br>[<(\[{](?=[^\s<>()\[\]{}\"'`]{1,128}[>)\]}]))?"
    r"(?P<value>(?(br)(?![a-z]+(?:[-_][a-z]+)*[>)\]}])[^\s<>()\[\]{}\"'`]{1,128}"
    r"|(?![<(\[{])(?:" + _VALUE_CHAR + f"{{{VALUE_READ}}}(?={_VALUE_CHAR})(?P<cut>)"
    + "|" + _VALUE_CHAR + f"{{0,{VALUE_READ - 1}}}"
    + _UNGLUED + r"[^\s\"'`&" + _TRAILING + _ARROWS + r"])))(?(br)[>)\]}])(?(dflt)\}?)"
    r"(?(cut)|(?P=q))"
)


#: What continues a value its pattern read `VALUE_READ` characters of (`value_end`): written
#: without quotes, its characters up to a space, a quote or `&`, punctuation at its end left
#: out; quoted, up to its closing quote (one before a letter or a digit is inside it), a
#: `\\`-escape read.
RUNS_ON = re.compile(r"(?:[" + _TRAILING + r"]*+[^\s\"'`&" + _TRAILING + _ARROWS + r"])*+")


RUNS_ON_QUOTED = re.compile(r"(?:[^\\\n\"']|\\[^\n]|[\"'](?=[A-Za-z0-9]))*+")


def value_end(text: str, match: re.Match[str], end: int) -> int:
    """Where a value ends that a password's pattern read only the first `VALUE_READ`
    characters of (its group `cut` took part in `match`; the value read ends at `end`):
    read on, quoted or not as `match` read it, so that no part of a longer value is left
    out of its mask. Linear in the value's length."""
    quoted = "q" in match.re.groupindex and match.group("q")
    found = (RUNS_ON_QUOTED if quoted else RUNS_ON).match(text, end)  # (matches, if empty)
    return found.end() if found is not None else end


#: A password's names, in any case, after any non-alphanumeric character or inside a
#: camelCase name (`dbPassword`): `password` (`pass word` too), `passwd`, `Passwort`, `pwd`,
#: `pw`, `p/w`, `pass`,
#: `passphrase`, `passcode`, `PIN` (`PIN code`), Portuguese `senha`, Spanish `contraseña`,
#: French `mot de passe`, German `Kennwort`, Dutch `wachtwoord`.
PASSWORD_NAME = (
    r"(?:(?i:p(?<![A-Za-z0-9]p)|(?-i:P)(?<=[a-z]P))(?i:assword|asswd|asswort|wd|w|/w(?![A-Za-z0-9])"
    r"|ass(?:[ \t]word|phrase|code)?|in(?![A-Za-z])(?:[ \t]code)?)"
    r"|(?i:s(?<![A-Za-z0-9]s)|(?-i:S)(?<=[a-z]S))(?i:enha)"
    r"|(?i:c(?<![A-Za-z0-9]c)ontrase(?:\u00f1|n)a|m(?<![A-Za-z0-9]m)ot de passe"
    r"|k(?<![A-Za-z0-9]k)ennwort|w(?<![A-Za-z0-9]w)achtwoord))"
)


#: Where each of `PASSWORD_NAME`'s matches starts (lower case).
PASSWORD_KEYWORDS = ("pass", "pw", "p/w", "pin", "senha", "contrase", "mot de passe", "kennwort",
                      "wachtwoord")


#: The em dash and the horizontal bar (the view reads the en dash as `-`).
_LONG_DASHES = "\u2014\u2015"


#: An arrow (`->`, `-->`, `=>`, `==>`, `→`, `⇒`), an em dash or two hyphens standing for one.
#: A `->` glued to the name is no arrow before a member's name in code (`pw->pw_dir`,
#: `password->getHash()`, `password->data[0]`).
_ARROW = (r"(?:[-=]{1,2}>(?:(?<![A-Za-z0-9_]->)|(?![A-Za-z_]\w*(?:[(\[.;,)]|->)|[a-z]+_\w*))"
          r"|[" + _ARROWS + _LONG_DASHES + r"]|--)")


#: An assignment's operator: `:` `=` `:=` `==`, an arrow after one of them or not
#: (`Password: → …`), glued to the name or not (`Password→Qz7xK2mP9w`, `Password — …`),
#: or after a space a hyphen (`Password - …`; glued, it joins a name: `password-reset`).
OPERATOR = (r"(?:(?::=|==?(?![=>])|:)(?:[ \t]{0,4}" + _ARROW + r")?|" + _ARROW
             + r"|(?<=[ \t])-)")


#: Words of a password's policy (`Password must contain: …`, `Password requirements: …`,
#: `senha deve conter: …`): a name's words before a colon holding one name no password.
POLICY = (r"(?:must|should|shall|needs?|requirements?|required|rules?|polic(?:y|ies)|includes?"
          r"|contains?|minimum|min|length|complexity|criteria|strength|format|deve[mn]?|precisa"
          r"|requisitos?|regras?|pol[i\u00ed]tica|muss|sollte|richtlinien?|anforderungen)"
          r"(?![\w'\u2019-])")


#: A password's name and the operator after it (`password_assignment`): the value is never
#: another such name and operator (`Pass: password: Qz7xK2mP9w`, `Login password: password:
#: …`): the value is the last name's. A policy's word after the name names a setting, no
#: password (`password_policy: …`, `Passwort-Richtlinie: …`).
ASSIGNED = (PASSWORD_NAME + r"(?![_.-](?i:" + POLICY + r"))(?:\d|[_.-][A-Za-z0-9]{1,20}){0,3}"
             + _QUALIFIER
             + r"(?:[\"'`]?\]?)[ \t]{0,8}" + OPERATOR)


#: A YAML block scalar's indicator before a value on the next line (`password: >` then
#: `  Qz7xK2mP9w`).
BLOCK_SCALAR = r"(?:[>|][-+]?[ \t]*\n[ \t]{1,16})?"


#: An element's other attributes, between a password's name and a `value` attribute
#: (`type="password" id="pw" value="..."`): up to four, each after a space.
ATTRIBUTES = (r"(?:[ \t\n]+[\w:-]{1,32}"
               r"(?:[ \t]*=[ \t]*(?:\"[^\"<>\n]{0,128}\"|'[^'<>\n]{0,128}'))?){0,4}[ \t\n]+")


def quoted_or(group: str, other: str, other_read: str = "(?!)") -> str:
    """A value in group `value`: `other` when group `group` took part in the match, else a
    quoted string, `\\`-escapes read (`"Qz7x\\"K2mP9w"` is one value; the view reads such
    an escape as the quote, so a quote before a letter or digit does not close it), which
    the end of the text read may cut (a reply's piece). `other_read`: `other`'s first
    `VALUE_READ` characters where it goes on past them (group `cut` is then set; the
    quoted string's likewise)."""
    char = r"(?:(?!(?P=q))[^\\\n]|\\[^\n]|(?P=q)(?=[A-Za-z0-9]))"
    return (f"(?({group})|(?P<q>[\"']))(?P<value>(?({group}){other_read}"
            f"|{char}{{{VALUE_READ}}}(?={char}))(?P<cut>)|(?({group}){other}"
            f"|{char}{{1,{VALUE_READ}}}))"
            r"(?(" + group + r")|(?(cut)|(?:(?P=q)|\Z)))")


#: An attribute's value in a tag: quoted or not.
_ATTRIBUTE_VALUE = r"(?:\"[^\"<>]{0,128}\"|'[^'<>]{0,128}'|[^\s\"'`<>=]{1,128})"


#: After `<input`, an input of type `password` (or named so) and its `value` attribute
#: (`password_input`): the type or name looked for ahead in the tag, then the attributes
#: before `value` passed over, and the value, quoted or not (group `bare`: not).
PASSWORD_INPUT = (
    r"(?=[^<>]{0,1024}?[ \t\n](?i:type|name)[ \t]*=[ \t]*(?P<tq>[\"']?)(?i:password)(?P=tq)"
    r"(?![\w-]))(?:[ \t\n]+(?!(?i:value)[ \t]*=)[\w:-]{1,32}(?:[ \t]*=[ \t]*"
    + _ATTRIBUTE_VALUE + r")?){0,16}[ \t\n]+(?i:value)[ \t]*=[ \t]*(?:(?=[\"'])|(?P<bare>))"
    + quoted_or("bare", r"[^\s\"'`<>]{0,1023}[^\s\"'`<>/]",
                f"[^\\s\"'`<>]{{{VALUE_READ}}}(?=[^\\s\"'`<>])")
)


def _behind(words: tuple[str, ...]) -> str:
    """Look-behinds read after `password` (the regex has read the name): one of `words` (a
    space in one reads a space or a tab) and a space or a tab before the name, one
    look-behind for all the words of one width (a look-behind reads one width)."""
    widths: dict[int, list[str]] = {}
    for word in words:
        widths.setdefault(len(word), []).append(word.replace(" ", "[ \\t]"))
    return "|".join(f"(?<=(?:{'|'.join(same)})[ \\t]password)"
                    for _, same in sorted(widths.items()))


#: Where `reset your password to …` names the value (`password_phrase`): a verb and a
#: determiner before `password`, read behind it.
SET_TO = _behind(tuple(f"{verb} {det}" for verb in ("reset", "set", "change", "update")
                       for det in ("your", "the", "my", "his", "her", "their", "its")))


#: Where `use the password …` names the value (`password_phrase`): a verb of giving or
#: typing it and a determiner before `password`, read behind it.
USE_THE = _behind(tuple(f"{verb} {det}" for verb in ("use", "enter", "type", "with")
                        for det in ("the", "your", "this", "my")))


#: A password's name and a policy's word among its next three words (`a_policy`).
_A_POLICY = re.compile(r"(?i:password|senha)(?:[ \t]+[\w'\u2019-]{1,20}){0,3}?[ \t]+" + POLICY)


def a_policy(text: str, start: int, end: int) -> bool:
    """Whether a match of `password_phrase` (`text[start:end]`) names a policy, not a
    password (`Password must contain: …`): a policy's word among the name's next three words.
    Read once a match is found (a `Refusing`), not at every `password` in the text."""
    return _A_POLICY.match(text, start, end) is not None


#: A password's name before a verb naming its value in other languages (`Das Passwort
#: lautet …`, `Das Kennwort ist …`, `A senha é …`, `La contraseña es …`,
#: `Le mot de passe est …`, `Het wachtwoord is …`), up to three words between them (`Das
#: Passwort für den Server lautet …`, `A senha do Wi-Fi é …`); `Passwort`'s after its `p`:
#: `PASSWORT_IS`.
IS_IN_WORDS = (
    r"(?=[kscmw])"
    r"(?:kennwort(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+(?:lautet|ist|war)"
    r"|senha(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+(?:[\u00e9e]|era|foi)"
    r"|contrase(?:\u00f1|n)a(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+(?:es|era)"
    r"|mot[ \t]de[ \t]passe(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+(?:est|\u00e9tait)"
    r"|wachtwoord(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+(?:is|luidt))(?![\w-])"
)


#: `IS_IN_WORDS` for `Passwort`, read after its `p` (`password_phrase` reads the names
#: starting with `p` together).
PASSWORT_IS = r"asswort(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+(?:lautet|ist|war)(?![\w-])"


#: A plural name of passwords and its verb in other languages (`password_list`): `As senhas
#: são …`, `Die Passwörter lauten …` (also `sind`), `Las contraseñas son …`, `Les mots de
#: passe sont …`, `De wachtwoorden zijn …`, up to three words between them.
ARE_IN_WORDS = (
    r"(?=[scmwSCMW]|[pP]assw(?:\u00f6|\u00d6|o[eE]))"
    r"(?i:s(?<![A-Za-z0-9]s)enhas(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+s[\u00e3a]o"
    r"|p(?<![A-Za-z0-9]p)assw(?:\u00f6|oe)rter(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+(?:lauten|sind)"
    r"|c(?<![A-Za-z0-9]c)ontrase(?:\u00f1|n)as(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+son"
    r"|m(?<![A-Za-z0-9]m)ots[ \t]de[ \t]passe(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+sont"
    r"|w(?<![A-Za-z0-9]w)achtwoorden(?:[ \t]+[\w-]{1,20}){0,3}?[ \t]+zijn)(?![\w-])"
)


#: A password's name before its value set apart by commas (`the admin password, Qz7xK2mP9w,
#: expires tomorrow`): one word closed by a comma and a space; not where the name is an item
#: of a list (`email, password, …`, `user and password, …`); read after the name.
BETWEEN_COMMAS = (r"(?=,[ \t]{1,4}[^\s,]{4,128},[ \t])(?<![,;/][ \t]password)"
                  r"(?<!\band[ \t]password)(?<!\bor[ \t]password),")


#: The `user:` of a `user:password` pair (`CREDENTIALS`), before its value.
_USER_COLON = r"[a-z][^\s/:]{1,63}:(?![/:])(?![^\s:]*:)(?!\d{1,5}(?!\S))"


#: A user name and its password after a name of credentials (`login: bob / …`,
#: `Credentials: bob/…`, `user/pass: bob / …`, `Your login is bob / …`) or a user's name and
#: password as `user:password` (`credentials: bob:…`, `login bob:…`): the user's name starts
#: with a letter; after `:` neither `//` (a URL), a port (`localhost:8080`) nor a further
#: colon (`arn:aws:…`).
CREDENTIALS = (
    r"(?=[lc/])(?:login|credentials?|(?:(?<=user|name|ogin)|(?<=(?:user|name|ogin)[ \t]))/[ \t]?"
    r"pass(?:word|wd)?)(?:[ \t]*:|[ \t]+(?:is|are))[ \t]*(?:[^\s/:]{1,64}[ \t]*/|"
    + _USER_COLON + r")|login[ \t]+" + _USER_COLON
)


#: A password's qualifier read behind it (`temporary password Qz7xK2mP9w`).
KIND = _behind(("temporary", "temp", "initial", "default", "one-time", "new"))


#: Where a name of `layout.LABEL` starts (lower case): a heading's, a label line's or a
#: table header's.
LAYOUT_KEYWORDS = ("pass", "pw", "senha", "contrase", "kennwort", "wachtwoord", "secret",
                    "token", "api")


#: The same in other scripts (read in the text: the lower-case view is ASCII's).
LAYOUT_WIDE_KEYWORDS = ("\u043f\u0430\u0440\u043e\u043b\u044c",
                         "\u041f\u0430\u0440\u043e\u043b\u044c", "\u30d1\u30b9\u30ef",
                         "\u5bc6\u7801", "\u5bc6\u78bc", "\ube44\ubc00", "\u6697\u8a3c",
                         "\u53e3\u4ee4")


#: A password on a line under its name or beside it alone (`password_layout`), unless that
#: is another name and its value (`Password: password=Qz7xK2mP9w`: `password_assignment`'s).
LAYOUT = Refusing(AtLineStarts(re.compile(
    r"(?m)^(?:#{1,6}[ \t]+|>[ \t]*|[-*+][ \t]+)?(?:\*\*|__)?(?:[\w'-]{1,20}[ \t]){0,3}"
    + LABEL + r"(?:[ \t]*\([^()\n]{1,40}\))?[ \t]*:?(?:\*\*|__)?[ \t]*:?"
    r"(?:[ \t]*\n(?:[ \t]*\n)*[ \t]*(?:>[ \t]*)?|[ \t]+|[ \t]*(?:\.{3,}|\u2026+)[ \t]*)"
    "(?!" + ASSIGNED + r")(?P<q>[`\"']?)(?P<value>[^\s`\"']{4,128})(?P=q)[ \t]*$"
)), a_ticket_or_a_count)
