"""The platform's internals a reply to a user must not carry (`REPLY_RULES`): pod and
node names, internal hosts and URLs, log lines, stack traces, exception names, redaction
placeholders, version numbers of the platform's software and cloud account ids.

Each rule is a declaration: one compiled pattern, why it matters, examples it must find whole
and counterexamples it must not find. Every pattern starts a match only where a token starts (a
look-behind refuses a start inside a word or host name) and every repetition is bounded, so a
search is linear in the text (tests/engine/test_internals.py feeds 1 MB of adversarial input).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from replyguard.engine.text import fold


@dataclass(frozen=True, slots=True)
class ReplyRule:
    """One rule of what a reply to a user must not contain, beyond the detectors.

    `name` is what a finding names (`pod_name`); every match of `pattern` is one finding; `why`
    says in one sentence, for the staff member, why a reply must not contain it
    (`ReplyRule(name, pattern, why)` is a whole rule). `examples` must each be found whole;
    `counterexamples` must give no match (the built-in rules have both, a test walks them).
    With `folded`, the pattern reads the text case- and accent-folded (`engine.text.fold`,
    same offsets).
    """

    name: str
    pattern: re.Pattern[str]
    why: str
    examples: tuple[str, ...] = ()
    counterexamples: tuple[str, ...] = ()
    folded: bool = False

    def spans(self, text: str, folded: str | None = None) -> Iterator[tuple[int, int]]:
        """`[start, end)` of every match in `text`, in text order (`folded`: its fold, if known)."""
        if self.folded:
            text = folded if folded is not None else fold(text, strip_accents=True)
        for match in self.pattern.finditer(text):
            if match.end() > match.start():
                yield match.span()


def _lead(words: tuple[str, ...], not_after: str = r"\w") -> str:
    """An alternation of literal `words`, each starting with its first character before a
    look-behind refusing `not_after` there: `re` then skips ahead to candidate characters."""
    parts = [f"{re.escape(w[0])}(?<!{not_after}{re.escape(w[0])}){re.escape(w[1:])}" for w in words]
    return "(?:" + "|".join(parts) + ")"


# Kubernetes writes the pod-template hash and the pod suffix with this alphabet (no vowels, no
# 0, 1, 3: `k8s.io/apimachinery/pkg/util/rand.SafeEncodeString`), so a word can hardly pass.
_K8S = "bcdfghjklmnpqrstvwxz2456789"
_LABEL = r"[A-Za-z0-9][A-Za-z0-9-]{0,62}+"
_INTERNAL_TLD = (
    r"(?:svc\.cluster\.local|localdomain|local|internal|intranet|corp|lan|svc|home\.arpa)"
)
_HOST_END = r"(?![\w-])(?!\.[A-Za-z0-9])"
_PRIVATE_IPV4 = (
    r"(?:10|127)(?:\.\d{1,3}){3}|192\.168(?:\.\d{1,3}){2}"
    r"|172\.(?:1[6-9]|2\d|3[01])(?:\.\d{1,3}){2}|169\.254(?:\.\d{1,3}){2}|0\.0\.0\.0"
)
_URL_TAIL = r"(?:[/?#](?:[^\s<>\"'`]{0,2000}[^\s<>\"'`.,;:!?)\]])?)?"
_TS1 = r"\d{3}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?"
_LEVELS = ("TRACE", "DEBUG", "INFO", "NOTICE", "WARNING", "WARN", "ERROR", "ERR", "CRITICAL",
           "CRIT", "FATAL", "SEVERE", "PANIC")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_LEVEL = r"(?:TRACE|DEBUG|INFO|NOTICE|WARN(?:ING)?|ERROR|ERR|CRIT(?:ICAL)?|FATAL|SEVERE|PANIC)"
_LEVEL_ANY = r"(?i:trace|debug|info|notice|warn(?:ing)?|error|err|crit(?:ical)?|fatal|severe|panic)"
_TS = rf"\d{_TS1}"
_PY_FRAME1 = r'ile "[^"\n]{1,300}", line \d{1,7}(?:, in [^\s,]{1,200})?'
_PY_FRAME = "F" + _PY_FRAME1
_PY_CODE = r'(?:\r?\n[ \t]{1,16}(?!File ")\S(?:[^\n]{0,298}\S)?)?'
_JAVA_FRAME = (
    r"[\w$]{1,100}(?:[./][\w$<>-]{1,100}){1,30}"
    r"\((?:[\w$.-]{1,200}\.(?:java|kt|scala|groovy|clj):\d{1,7}|Native Method|Unknown Source)\)"
)
_CSHARP_FRAME = r"[\w$.<>`]{1,300}\([^()\n]{0,300}\) in [^\n]{1,300}?:line \d{1,7}"
_JS_PLACE = (
    r"(?:(?:file|webpack|https?)://)?[^\s()]{0,300}?\.(?:[cm]?js|jsx|tsx?|vue|svelte)"
    r"(?:\?[^\s():]{0,100})?:\d{1,7}:\d{1,7}|node:[\w/]{1,200}:\d{1,7}:\d{1,7}"
)
_JS_FRAME = (
    rf"(?:(?:async |new ){{0,2}}[^\s()]{{1,200}}(?: \[as [\w$]{{1,100}}\])?"
    rf" \((?:{_JS_PLACE}|<anonymous>)\)|{_JS_PLACE})"
)
_FRAME = rf"(?:{_JAVA_FRAME}|{_CSHARP_FRAME}|{_JS_FRAME})"
#: Between the parts of a log line's head: spaces, perhaps around one `-`, `|` or `:`.
_SEP = r"[ \t]{1,4}(?:[-|:][ \t]{1,4})?"
_LEVEL_LEAD = _lead(_LEVELS, r"[\w\[]")
_MONTH_LEAD = _lead(_MONTHS)
# The rest of an exception name after its first capital: a CamelCase identifier ending in
# Error or Exception, with something before the suffix ("Error" alone is a word).
_EXCEPTION_TAIL = r"[A-Za-z0-9_]{0,80}+(?!\w)(?:(?<=\wError)|(?<=\wException))"
_VERSION = r"\d{1,4}(?:\.\d{1,5}){2,3}"
_DOTTED = r"[0-9A-Za-z]{1,20}(?:\.[0-9A-Za-z]{1,20}){0,4}"
_VERSION_END = r"(?![\w+-])(?!\.\w)"
_GCP_PROJECT = r"[a-z](?=[a-z0-9-]{0,29}[0-9-])[a-z0-9-]{4,28}[a-z0-9](?![\w-])"
_GUID = r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}(?![\w-])"

REPLY_RULES: tuple[ReplyRule, ...] = (
    ReplyRule(
        name="pod_name",
        pattern=re.compile(
            rf"[a-z0-9](?<![\w.-][a-z0-9])[a-z0-9-]{{0,200}}-[{_K8S}]{{8,10}}-[{_K8S}]{{5}}(?![\w-])"
        ),
        why="Pod names describe how the platform is deployed.",
        examples=("api-7d9f8b6c5-x2x7k", "payments-worker-5c9d8f7b4d-qwzrt",
                  "checkout-v2-84b6f9d7c-mx9lp"),
        counterexamples=("redis-0", "api-7d9f8b6c5", "follow-up-appointment",
                         "order-12345678-12345",
                         "check-in-desk-closed", "x.api-7d9f8b6c5-x2x7k", "API-7D9F8B6C5-X2X7K"),
    ),
    ReplyRule(
        name="node_name",
        pattern=re.compile(
            r"i(?<![\w.-]i)p-\d{1,3}(?:-\d{1,3}){3}"
            r"(?:\.ec2\.internal|\.[a-z]{2}(?:-[a-z]{1,12}){1,2}-\d\.compute\.internal)?(?![\w-])"
            r"|g(?<![\w.-]g)ke-[a-z0-9-]{1,80}-[0-9a-f]{8}-[0-9a-z]{4}(?![\w-])"
            r"|a(?<![\w.-]a)ks-[a-z0-9]{1,12}-\d{8}-(?:vmss[0-9a-z]{6}|\d{1,3})(?![\w-])"
        ),
        why="Node names describe the platform's machines and network.",
        examples=("ip-10-0-1-23.ec2.internal", "ip-172-31-5-9.us-west-2.compute.internal",
                  "ip-10-0-1-23", "gke-prod-pool-1-abcd1234-xyz1",
                  "aks-nodepool1-12345678-vmss000000",
                  "aks-agentpool-87654321-0"),
        counterexamples=("ip-address", "zip-10-0-1-23", "gke-prod", "aks-nodepool1",
                         "skip-10-0-1-23 items"),
    ),
    # internal_url comes before internal_host: a URL is reported whole, not as its host.
    ReplyRule(
        name="internal_url",
        pattern=re.compile(
            rf"h(?<![\w.+-]h)ttps?://(?:localhost|{_PRIVATE_IPV4}|\[(?:::1|f[cd][0-9a-f:]{{0,37}})\]"
            rf"|{_LABEL}(?:\.{_LABEL}){{0,8}}\.{_INTERNAL_TLD}|{_LABEL})"
            rf"(?::\d{{1,5}})?(?![\w-])(?!\.[A-Za-z0-9])(?!:\w){_URL_TAIL}"
        ),
        why="Internal URLs describe the platform's network and are of no use to the user.",
        examples=("http://localhost:8080/admin", "https://grafana.monitoring.svc.cluster.local/d/x",
                  "http://10.0.3.7:9090/metrics", "http://192.168.1.20", "http://payments-api:8080/v1",
                  "https://wiki.corp/runbooks/db?id=4#restore", "http://[::1]:5000/"),
        counterexamples=("https://example.com/help", "https://help.example.com/reset",
                         "http://8.8.8.8/", "https://localhost.example.com/",
                         "https://api.internal.example.com/v1"),
    ),
    ReplyRule(
        name="internal_host",
        pattern=re.compile(
            rf"[A-Za-z0-9](?<![\w.-][A-Za-z0-9])[A-Za-z0-9-]{{0,62}}+"
            rf"(?:\.{_LABEL}){{0,8}}\.{_INTERNAL_TLD}{_HOST_END}"
        ),
        why="Internal host names describe the platform's network.",
        examples=("db-primary.internal", "printer.local", "payments.default.svc.cluster.local",
                  "build01.corp", "nas.lan", "redis.payments.svc", "vault.prod.internal"),
        counterexamples=("api.internal.example.com", "local", "the local store", "example.com",
                         "Local pickup", "store.Local", ".internal"),
    ),
    ReplyRule(
        name="log_line",
        pattern=re.compile(
            rf"(?:\d(?<![\w\[]\d){_TS1}|\[(?<![\w\[]\[){_TS}\]?)"
            rf"(?:{_SEP}(?:\[[^\]\n]{{1,60}}\]|[\w.$/-]{{1,60}}):?){{0,2}}"
            rf"{_SEP}(?:{_LEVEL}|\[{_LEVEL_ANY}\]|level={_LEVEL_ANY})(?!\w)"
            rf"|(?:\[(?<![\w\[]\[){_LEVEL}\]|{_LEVEL_LEAD})[ \t]{{1,4}}"
            rf"(?:\d(?<![\w\[]\d){_TS1}|\[{_TS}\])"
            r"|[IWEF](?<!\w[IWEF])\d{4} \d\d:\d\d:\d\d\.\d{6}"
            r"(?:[ \t]{1,8}\d{1,8} [\w./-]{1,100}:\d{1,7}\])?"
            rf"|t(?<!\wt)(?:s|ime|imestamp)=\"?{_TS}\"?[ \t]{{1,4}}level={_LEVEL_ANY}(?!\w)"
            rf"|{_MONTH_LEAD} [ \d]\d"
            r" \d\d:\d\d:\d\d [\w.-]{1,63} [\w./-]{1,63}\[\d{1,10}\]:"
        ),
        why="Log lines come from the platform's logs, which are for staff.",
        examples=("2024-05-01T12:00:00Z ERROR", "[2024-05-01 12:00:00,123] WARN",
                  "2024-05-01 12:00:00,123 - payments - ERROR",
                  "E0501 12:00:00.123456       1 controller.go:114]",
                  "ts=2024-05-01T12:00:00.5Z level=error", "[ERROR] 2024-05-01T12:00:00Z",
                  "2024-05-01T12:00:00+00:00 [warn]", "May  1 12:00:00 web01 sshd[4242]:"),
        counterexamples=("2024-05-01 at 12:00", "On 2024-05-01 12:00 we had an error",
                         "2024-05-01T12:00:00Z", "I0501", "the ERROR light on 2024-05-01",
                         "2024-05-01 12:00:00 error"),
    ),
    ReplyRule(
        name="stack_trace",
        pattern=re.compile(
            rf"(?:T(?<!\wT)raceback \(most recent call last\):|F(?<!\wF){_PY_FRAME1}{_PY_CODE})"
            rf"(?:\s{{1,40}}{_PY_FRAME}{_PY_CODE}){{0,200}}"
            rf"|a(?<![\w.]a)t {_FRAME}(?:\s{{1,40}}(?:at {_FRAME}|\.\.\. \d{{1,6}} more)){{0,200}}"
        ),
        why="Stack traces show the platform's code.",
        examples=(
            "Traceback (most recent call last):",
            'Traceback (most recent call last):\n  File "/app/main.py", line 10, in <module>\n'
            '    main()\n  File "/app/main.py", line 6, in main\n    raise ValueError("bad")',
            'File "/srv/app/views.py", line 42, in checkout',
            "at com.example.billing.InvoiceService.charge(InvoiceService.java:42)",
            "at com.x.Y.method(Y.java:42)\n\tat java.base/java.lang.Thread.run(Thread.java:833)",
            "at fn (file.js:10:5)", "at async Server.handle (/app/server.mjs:88:13)",
            "at node:internal/process/task_queues:95:5",
            "at Shop.Orders.Place(Order o) in /src/Orders.cs:line 42",
        ),
        counterexamples=("at 10:30 (UTC)", "at the moment (see below)", "at noon (12:30:00)",
                         "File a claim, line 3 of the form", "at example.com", "Traceback",
                         'File "report.pdf"'),
    ),
    ReplyRule(
        name="exception_name",
        pattern=re.compile(
            rf"(?:[a-z_](?<![\w.$][a-z_])[a-z0-9_]{{0,40}}+\.(?:[a-z_][a-z0-9_]{{0,40}}+\.){{0,7}}"
            rf"[A-Z]|[A-Z](?<![\w.$][A-Z])){_EXCEPTION_TAIL}"
        ),
        why="Exception names show the platform's code.",
        examples=("ValueError", "NullPointerException", "java.lang.NullPointerException",
                  "requests.exceptions.ConnectionError", "HTTPError", "OSError", "KeyError"),
        counterexamples=("Error", "error", "Exception", "an error occurred", "Errors", "ERROR",
                         "terror", "ValueErrors", "No Error"),
    ),
    ReplyRule(
        name="redaction_placeholder",
        pattern=re.compile(
            r"[\[<{](?:\{)?[ ]?(?i:redacted|filtered|masked|scrubbed|censored)"
            r"(?::[\w.-]{1,40})?[ ]?"
            r"[\]>}](?:\})?"
            r"|\*(?<!\*\*)\*{1,9}(?i:redacted|filtered|masked)\*{2,10}"
            r"|R(?<![\w*]R)EDACTED(?![\w*])"
        ),
        why="Redaction placeholders show that the text was copied from the platform's logs.",
        examples=("[REDACTED]", "<redacted>", "***REDACTED***", "[FILTERED]", "[MASKED]",
                  "{{redacted}}", "[redacted:email]", "REDACTED"),
        counterexamples=("redacted", "the masked values", "[filter]", "**** 1111", "(hidden)",
                         "Redacted"),
    ),
    # Which versions: those written the way the platform writes its own software (a `v` tag,
    # a pre-release or build suffix, an image tag, "we're running", "the API is on",
    # "deployed"). A plain number after "version" is read as the customer's product, which a
    # reply may repeat ("version 3.2.1 of the app"), as are dates, prices and section numbers.
    ReplyRule(
        name="version_number",
        pattern=re.compile(
            rf"v(?<![\w.]v){_VERSION}(?:-{_DOTTED})?(?:\+{_DOTTED})?"
            rf"{_VERSION_END}"
            rf"|\d(?<![\w.]\d)\d{{0,3}}(?:\.\d{{1,5}}){{2}}"
            rf"(?:-(?i:rc|alpha|beta|pre|dev|snapshot|canary|nightly)(?:[.-]?{_DOTTED})?"
            rf"|\+{_DOTTED}){_VERSION_END}"
            rf"|[a-z](?<![\w./:-][a-z])[a-z0-9._/-]{{0,200}}+:v?\d{{1,4}}(?:\.\d{{1,5}}){{1,3}}"
            rf"(?:-{_DOTTED})?{_VERSION_END}"
            rf"|(?:[Ww](?<!\w[Ww])(?i:e(?:'re|’re| are))"
            rf"|[SBCPAsbcpa](?<!\w[SBCPAsbcpa])(?i:(?<=s)erver|(?<=b)ackend|(?<=c)luster"
            rf"|(?<=p)latform|(?<=a)pi|(?<=s)ervice)(?i:s? (?:is|are)))"
            rf"(?i:(?: currently| now)? (?:running|on) (?:version )?)v?{_VERSION}{_VERSION_END}"
            rf"|[DdRr](?<!\w[DdRr])(?i:(?<=d)eployed|(?<=r)olled out) (?i:version )?v?{_VERSION}"
            rf"{_VERSION_END}"
        ),
        why="Version numbers of the platform's software tell which known flaws it may have.",
        examples=("v1.2.3", "v2.14.3-hotfix.1", "1.2.3-rc1", "4.0.0-beta.2", "1.2.3+build.5",
                  "payments-api:2.14.3", "nginx:1.25", "we're running 2.14.3",
                  "backend is now on version 2.14.3", "deployed v2.14.3"),
        counterexamples=("version 3.2.1 of the app", "iOS 17.4.1", "1.2.3", "$1,299.00",
                         "2024.05.01", "v2", "v1.2", "at 10:30", "you're running 5.2.1",
                         "localhost:8080", "12:00:00.123"),
    ),
    ReplyRule(
        name="cloud_account_id",
        pattern=re.compile(
            r"a(?<![\w]a)rn:aws(?:-cn|-us-gov)?:[a-z0-9-]{1,60}:[a-z0-9-]{0,40}:\d{12}:"
            r"(?:[^\s\"'<>`]{0,400}[^\s\"'<>`.,;:!?)\]])?"
            r"|[Aa](?<!\w[Aa])(?i:ws account(?:[ _-]?(?:id|number))?|ccount[ _-]?id)"
            r"[ \t]{0,3}(?:[:=#][ \t]{0,3}|is[ \t]{1,3})?[\"']?\d{4}-?\d{4}-?\d{4}(?![\w-])"
            rf"|p(?<![\w]p)rojects/{_GCP_PROJECT}"
            rf"|(?:[GgPp](?<!\w[GgPp])(?i:(?<=g)(?:cp|oogle cloud) project(?:[ _-]?id)?"
            rf"|(?<=p)roject[ _-]?id)[ \t]{{0,3}}(?:[:=][ \t]{{0,3}}|is[ \t]{{1,3}})?"
            rf"|[Pp](?<!\w[Pp])(?i:roject)[ \t]{{0,3}}[:=][ \t]{{0,3}})"
            rf"[\"']?{_GCP_PROJECT}"
            rf"|/(?<![\w]/)subscriptions/{_GUID}"
            rf"|[Ss](?<!\w[Ss])(?i:ubscription(?:[ _-]?id)?)"
            rf"[ \t]{{0,3}}(?:[:=][ \t]{{0,3}}|is[ \t]{{1,3}})?"
            rf"[\"']?{_GUID}"
        ),
        why="Cloud account ids identify the platform's cloud accounts.",
        examples=("arn:aws:iam::123456789012:role/x", "account id 123456789012",
                  "AWS account 1234-5678-9012", "project: my-proj-123456",
                  "projects/my-proj-123456", "GCP project acme-prod-42",
                  "subscription 0b1f6471-1bf0-4dda-aec3-cb9272f09590",
                  "/subscriptions/0b1f6471-1bf0-4dda-aec3-cb9272f09590"),
        counterexamples=("account id 12345", "your account is active", "project: website",
                         "project is re-launched", "order 123456789012",
                         "0b1f6471-1bf0-4dda-aec3-cb9272f09590", "projects/1"),
    ),
)


def internal_spans(text: str) -> list[tuple[int, int, str]]:
    """Every stretch of `text` a `REPLY_RULES` rule finds, as `(start, end, rule name)` in
    text order; where two rules overlap, the earlier rule of the table keeps the text."""
    claimed = bytearray(len(text))
    found: list[tuple[int, int, str]] = []
    folded: str | None = None
    for rule in REPLY_RULES:
        if rule.folded and folded is None:
            folded = fold(text, strip_accents=True)
        for start, end in rule.spans(text, folded):
            if claimed.find(1, start, end) == -1:
                claimed[start:end] = b"\x01" * (end - start)
                found.append((start, end, rule.name))
    found.sort()
    return found
