"""check_reply: what a staff member's draft reply to one user must not carry: personal data
and secrets, the platform's internals, account enumeration.

The check is a safety net, not a guarantee: a finding is a reason to read the draft again, and
a clean result does not mean that the draft is right. A person sends the reply.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from replyguard.engine.detector import Detector
from replyguard.engine.detectors import DETECTORS
from replyguard.engine.find import find
from replyguard.engine.internals import REPLY_RULES, ReplyRule
from replyguard.engine.text import fold

#: At most this many findings by default: enough to send a draft back, few enough to read.
MAX_FINDINGS: Final = 20

#: Why a reply must not contain what each detector finds, by the name its findings carry:
#: the staff help desk's own detector names and reasons word for word, and names of the same
#: form for the detectors it lacks (UK NINO and NHS numbers, Brazilian CPF, a URL's password, a
#: password in words, on a command line or confirmed).
DETECTOR_REASONS: Final = MappingProxyType({
    "api_key": "Keys are secrets.",
    "aws_access_key": "Keys are secrets.",
    "br_cpf": "CPF numbers are personal data.",
    "credit_card": "Card numbers are payment data.",
    "email": "Email addresses other than the requester's are another person's data.",
    "iban": "Bank account numbers are payment data.",
    "ip_address": "IP addresses are personal data, or describe the platform's network.",
    "jwt": "Tokens are secrets.",
    "password_assignment": "Passwords are secrets.",
    "phone_number": "Phone numbers are personal data.",
    "private_key": "Keys are secrets.",
    "uk_nino": "National Insurance numbers are personal data.",
    "url_password": "Passwords are secrets.",
    "password_phrase": "Passwords are secrets.",
    "password_confirm": "Passwords are secrets.",
    "cli_password": "Passwords are secrets.",
    "uk_nhs": "NHS numbers are personal data.",
    "us_ssn": "Social security numbers are personal data.",
})

#: The name a finding carries where it is not its detector's id: the IP detectors report
#: `ip_address`; a secret assigned to its name or a password after a label in another script
#: `password_assignment` (a quoted value, a call's argument, a list too), a password laid out
#: in lines, a table's column or a list of users' `password_phrase`,
#: a card in other groups `credit_card`, a labelled SSN in any grouping `us_ssn`, a
#: labelled CPF so `br_cpf`, a labelled NINO `uk_nino`, a bearer
#: token `password_assignment`.
_RULE_NAMES: Final = MappingProxyType({"ipv4_address": "ip_address",
                                       "card_in_other_groups": "credit_card",
                                       "card_in_quoted_strings": "credit_card",
                                       "us_ssn_labelled": "us_ssn",
                                       "br_cpf_labelled": "br_cpf",
                                       "uk_nino_labelled": "uk_nino",
                                       "ipv6_address": "ip_address",
                                       "ipv4_spaced": "ip_address",
                                       "ipv4_in_other_bases": "ip_address",
                                       "email_spaced": "email",
                                       "email_quoted": "email",
                                       "phone_carrier_code": "phone_number",
                                       "secret_assignment": "password_assignment",
                                       "password_label": "password_assignment",
                                       "password_layout": "password_phrase",
                                       "password_column": "password_phrase",
                                       "password_column_wide": "password_phrase",
                                       "password_pairs": "password_phrase",
                                       "password_layout_wide": "password_phrase",
                                       "password_quoted": "password_assignment",
                                       "password_argument": "password_assignment",
                                       "password_input": "password_assignment",
                                       "password_list": "password_assignment",
                                       "bearer_token": "password_assignment",
                                       "basic_credentials": "password_assignment",
                                       "cookie_value": "password_assignment"})


def rule_name(detector: str) -> str:
    """The name a finding of detector `detector` carries (`credit_card`, `ip_address`)."""
    return _RULE_NAMES.get(detector, detector)


#: The reason given for a detector missing from `DETECTOR_REASONS` (a detector added later).
_OTHER_REASON = "Personal data and secrets are for their owner only."


@dataclass(frozen=True, slots=True)
class ReplyFinding:
    """Something in a draft reply that breaks a rule, as `check_reply` reports it.

    `rule` is the rule or detector that found it (`pod_name`, `email`, `credit_card`); `text`
    is what it found, as it stands in the draft (the staff member's own view: it goes to no
    log or metric); `why` says why a reply must not contain it.
    """

    rule: str
    text: str
    why: str


def _words(pattern: str) -> str:
    """A phrase pattern with each space read as any run of whitespace."""
    return pattern.replace(" ", r"\s+")


# Read on folded text (lower case, no accents): "Não" is "nao", "usuário" is "usuario".
_ADDR = r"(?:e-?mail address(?:es)?|e-?mails?|address(?:es)?)"
_THAT_ADDR = rf"(?:that|this|the|your|those|these|the same) {_ADDR}"
_THAT_ADDR_LEAD = rf"(?:t(?<!\wt)(?:hat|his|he|hose|hese|he same)|y(?<!\wy)our) {_ADDR}"
_EXPLICIT = r"(?=\s+[^\s@]{1,64}@[a-z0-9-]{1,63}\.)"  # an address follows; it is the detector's
_ACCOUNT = r"(?:accounts?|users?|profiles?|registrations?|records?|customers?|members?|logins?)"
_PREP = (r"(?:with|for|under|matching|using|associated with|linked (?:to|with)|tied to"
         r"|registered (?:to|with|under|for))")
_TO = rf"{_PREP}(?: {_THAT_ADDR}|{_EXPLICIT})"
_NOT_IF = r"(?<!\w{0})(?<!if\s{0})(?<!whether\s{0})"
_STATE_EN = (r"(?:is|was|has been|['’]s) already (?:registered|in use|taken|used"
             r"|associated with an? account|linked to an? account)"
             r"|(?:(?:is|was) not|isn['’]t|wasn['’]t)"
             r" (?:registered|associated|linked|connected|tied"
             r"|recognized|recognised)(?: (?:with|to) (?:an?|any) (?:account|user))?(?! as\b)"
             r"|(?:already )?(?:has|have) an account"
             r"|(?:does not|doesn['’]t) (?:have|match|belong to) (?:an?|any) " + _ACCOUNT)
_ADDR_PT = r"(?:endereco(?: de e-?mail)?|e-?mail)"
_THAT_ADDR_PT = rf"(?:esse|este|essa|esta|aquele|o|o seu|seu|o mesmo) {_ADDR_PT}"
_THAT_ADDR_PT_LEAD = (rf"(?:e(?<!\we)(?:sse|ste|ssa|sta)|a(?<!\wa)quele|o(?<!\wo)(?: seu| mesmo)?"
                      rf"|s(?<!\ws)eu) {_ADDR_PT}")
_ACCOUNT_PT = r"(?:contas?|usuarios?|cadastros?|registros?|clientes?|perfis|perfil)"
_PREP_PT = (r"(?:com|para|em|a|ao|associad[oa]s? (?:a|ao|com)|vinculad[oa]s? (?:a|ao|com)"
            r"|cadastrad[oa]s? (?:com|para)|registrad[oa]s? (?:com|para))")
_TO_PT = rf"{_PREP_PT}(?: {_THAT_ADDR_PT}|{_EXPLICIT})"
_STATE_PT = (r"(?:ja (?:esta|foi|e)|(?:esta|foi|e) ja) (?:cadastrad[oa]|registrad[oa]|em uso"
             r"|sendo usad[oa]|associad[oa] a uma conta|vinculad[oa] a uma conta)"
             r"|nao (?:esta|foi|e|consta) (?:cadastrad[oa]|registrad[oa]"
             r"|associad[oa] a (?:nenhuma|uma|alguma) conta"
             r"|vinculad[oa] a (?:nenhuma|uma|alguma) conta)"
             r"|(?:ja )?(?:possui|tem) (?:uma )?conta|nao (?:possui|tem) (?:nenhuma |uma )?conta")

ACCOUNT_ENUMERATION: Final = ReplyRule(
    name="account_enumeration",
    pattern=re.compile(_words(
        rf"t{_NOT_IF.format('t')}here(?: is|['’]s| are| was| were) no {_ACCOUNT}"
        rf"(?: (?:on file|registered|found|in our system))? {_TO}"
        rf"|t{_NOT_IF.format('t')}here(?: is|['’]s| was)(?: already)? an account {_TO}"
        rf"|a{_NOT_IF.format('a')}n account(?: already)? exists {_TO}"
        rf"|n(?<!\wn)o {_ACCOUNT} (?:exists?|was found|were found|is registered|found"
        rf"|could be found) {_TO}"
        rf"|(?:w(?<!\ww)e|i(?<!\wi)) (?:could not|couldn['’]t|cannot|can not|can['’]t"
        rf"|did not|didn['’]t"
        rf"|do not|don['’]t|were unable to|was unable to|are unable to|am unable to"
        rf"|weren['’]t able to) (?:find|locate|see|have) (?:a|an|any) {_ACCOUNT}"
        rf"(?: (?:registered|on file|in our system))? {_TO}"
        rf"|{_THAT_ADDR_LEAD} (?:{_STATE_EN})(?!\w)"
        rf"|n(?<!\wn)ao (?:existe|existem|ha|temos|encontramos|encontrei|localizamos|achamos"
        rf"|conseguimos (?:encontrar|localizar|achar)|foi (?:encontrad[oa]|possivel"
        rf" (?:encontrar|localizar))) (?:nenhuma? |uma? |qualquer )?{_ACCOUNT_PT}"
        rf"(?: (?:cadastrad[oa]|registrad[oa]|ativa))? {_TO_PT}"
        rf"|n(?<!\wn)enhuma? {_ACCOUNT_PT} (?:foi encontrad[oa]|encontrad[oa]|existe"
        rf"|esta cadastrad[oa]) {_TO_PT}"
        rf"|j(?<!\wj)(?<!se\sj)a existe (?:uma )?conta(?: cadastrada)? {_TO_PT}"
        rf"|{_THAT_ADDR_PT_LEAD} (?:{_STATE_PT})(?!\w)"
    )),
    why="Telling whether an address has an account lets anyone find out who uses the platform.",
    examples=(
        "there is no account with that address", "we couldn't find a user with that email",
        "that email is already registered", "no user exists with that email",
        "this email is not associated with any account", "não existe conta com esse e-mail",
        "não encontramos nenhum usuário com esse e-mail", "esse e-mail já está cadastrado",
        "There's no account registered to this email address",
        "an account already exists for that email", 
        "We do not have any account for that email address",
    ),
    counterexamples=(
        "If an account exists for that address, you'll receive an email",
        "if there is no account with that address, nothing is sent",
        "Se existir uma conta com esse e-mail, você receberá uma mensagem",
        "we couldn't find your order", "You can create an account with that email",
        "there is no charge for that",
        "your email is the one we write to", "o e-mail foi enviado",
        "Is that email already registered? Just try logging in.",
        "That address is not registered as a shipping address",
    ),
    folded=True,
)


def check_reply(
    reply: str, requester_email: str | None = None, max_findings: int = MAX_FINDINGS,
    detectors: Sequence[Detector] = DETECTORS,
) -> list[ReplyFinding]:
    """Everything in the draft `reply` that breaks the reply rules, at most `max_findings`.

    In this order: the detectors' findings in text order (rule = the detector's name,
    `rule_name`: `credit_card`, `us_ssn`, `phone_number`, ...; the requester's own email,
    compared case-insensitively, is allowed), then each of
    `REPLY_RULES` in table order (its matches in text order), then account-enumeration wording
    (case- and accent-insensitive). A stretch of text already reported, or the requester's own
    address, is not reported again by a later rule. Deterministic; linear in `len(reply)`.

    `detectors`: the detector set (`CompiledRules.detectors`: national phone numbers read in
    its regions; by default US and GB).

    A safety net, not a guarantee: an empty list does not mean the draft may be sent as it
    is. Raises ValueError when `max_findings` is negative.
    """
    if max_findings < 0:
        raise ValueError(f"max_findings: {max_findings} is below 0")
    found: list[ReplyFinding] = []
    if not reply or max_findings == 0:
        return found
    claimed = bytearray(len(reply))
    own = requester_email.strip().casefold() if requester_email else None

    def claim(start: int, end: int) -> bool:
        if claimed.find(1, start, end) != -1:
            return False
        claimed[start:end] = b"\x01" * (end - start)
        return True

    for f in find(reply, detectors):
        value = reply[f.start : f.end]
        if not claim(f.start, f.end) or (f.cls == "email" and value.casefold() == own):
            continue
        name = rule_name(f.detector)
        found.append(ReplyFinding(name, value, DETECTOR_REASONS.get(name, _OTHER_REASON)))
        if len(found) == max_findings:
            return found
    folded = fold(reply, strip_accents=True)
    for rule in (*REPLY_RULES, ACCOUNT_ENUMERATION):
        for start, end in rule.spans(reply, folded):
            if claim(start, end):
                found.append(ReplyFinding(rule.name, reply[start:end], rule.why))
                if len(found) == max_findings:
                    return found
    return found
