"""engine.screen_cache: a request screened through the cache gives the verdict and counts it
gives without one; resent history is looked up, this request's own messages are not; rules
never share entries; the cache holds no original text and stays within its size."""

from __future__ import annotations

import pytest

from replyguard.engine import ReplyRules, ScreenCache, compile_rules, screen_request, screen_text

CARD = "4111 1111 1111 1111"
SSN = "123-45-6789"
RULES = compile_rules(ReplyRules(personal_data={"national_id": "withhold"}))
ALLOW_CARDS = compile_rules(ReplyRules(personal_data={"card": "allow"}))


def user(content: object) -> dict:
    return {"role": "user", "content": content}


def assistant(content: str) -> dict:
    return {"role": "assistant", "content": content}


def tool(content: str, call_id: str = "c1") -> dict:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def call(call_id: str = "c1") -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function",
         "function": {"name": "refund_card", "arguments": f'{{"card": "{CARD}"}}'}}]}


SYSTEM = {"role": "system", "content": f"You are the shop's assistant. Test card: {CARD}."}

#: A multi-turn conversation as a client sends it, request by request (each resends the
#: ones before): card, an earlier withheld SSN turn, tool results, list-of-parts content.
REQUESTS = [
    [SYSTEM, user(f"my card is {CARD}")],
    [SYSTEM, user(f"my card is {CARD}"), assistant("Thanks."), user(f"and my ssn {SSN}")],
    [SYSTEM, user(f"my card is {CARD}"), assistant("Thanks."), user(f"and my ssn {SSN}"),
     user([{"type": "text", "text": f"refund {CARD} please"}, {"type": "image_url"}])],
    [SYSTEM, user(f"my card is {CARD}"), assistant("Thanks."), user(f"and my ssn {SSN}"),
     user([{"type": "text", "text": f"refund {CARD} please"}, {"type": "image_url"}]),
     call(), tool(f'{{"ok": true, "card": "{CARD}"}}')],
    [SYSTEM, user(f"my card is {CARD}"), assistant("Thanks."), user(f"and my ssn {SSN}"),
     user([{"type": "text", "text": f"refund {CARD} please"}, {"type": "image_url"}]),
     call(), tool(f'{{"ok": true, "card": "{CARD}"}}'), assistant(f"Refunded to {CARD}."),
     user("thanks")],
]


@pytest.mark.parametrize("rules", [RULES, ALLOW_CARDS], ids=["withhold-ssn", "allow-cards"])
def test_a_conversation_gives_the_same_verdicts_and_counts_with_a_cache(rules) -> None:
    cache = ScreenCache()
    for messages in REQUESTS:
        for _ in range(2):  # a miss, then (for the history) hits; a retried request too
            assert screen_request(messages, rules, cache=cache) == screen_request(messages, rules)
    assert cache.hits > 0


def test_resent_history_is_looked_up_and_the_new_turn_is_not() -> None:
    cache = ScreenCache()
    screen_request(REQUESTS[0], RULES, cache=cache)
    assert (cache.hits, cache.misses) == (0, 1)  # the system prompt: looked up, missed
    screen_request(REQUESTS[0], RULES, cache=cache)
    assert (cache.hits, cache.misses) == (1, 1)  # the turn itself is never looked up
    screen_request(REQUESTS[1], RULES, cache=cache)
    assert (cache.hits, cache.misses) == (3, 2)  # system and turn 1 hit; the reply missed


def test_different_rules_never_share_an_entry() -> None:
    cache = ScreenCache()
    text = f"my card is {CARD}"
    assert cache.screen(text, RULES, "turn").text == "my card is **** 1111"
    assert cache.screen(text, ALLOW_CARDS, "turn").text == text
    assert cache.screen(text, RULES, "tool") == screen_text(text, RULES, "tool")
    assert (cache.hits, len(cache)) == (0, 3)
    assert cache.screen(text, RULES, "turn").text == "my card is **** 1111"
    assert cache.hits == 1


def test_rules_equal_in_value_but_not_the_same_object_do_not_share() -> None:
    cache = ScreenCache()
    again = compile_rules(ReplyRules(personal_data={"national_id": "withhold"}))
    cache.screen("hello", RULES, "turn")
    cache.screen("hello", again, "turn")
    assert cache.hits == 0


def test_the_cache_holds_only_screened_text() -> None:
    cache = ScreenCache()
    for messages in REQUESTS:
        screen_request(messages, RULES, cache=cache)
    held = repr(list(cache._entries.items()))
    assert (CARD in held, SSN in held, "4111" in held) == (False, False, False)


def test_the_cache_keeps_at_most_size_entries_least_recently_used_out() -> None:
    cache = ScreenCache(size=2)
    for text in ("one", "two", "one", "three"):
        cache.screen(text, RULES, "turn")
    assert len(cache) == 2
    cache.screen("one", RULES, "turn")
    cache.screen("two", RULES, "turn")
    assert (cache.hits, cache.misses) == (2, 4)


def test_size_must_be_positive() -> None:
    with pytest.raises(ValueError, match="^size: 0 is not a positive number of entries$"):
        ScreenCache(0)
