"""No request holds up another: a long text (a request body, a whole reply, one streamed delta
of `OFFLOAD_CHARS` or more) is screened in a screening process (request bodies, whole
replies, long turns) or the worker thread (streamed events) while the event loop serves
other clients. Shown by ordering, not by timing: the screen of the long text is held at its
start until another client's request has been answered."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest

import replyguard.proxy.completions as completions
import replyguard.proxy.guardrails as guardrails
import replyguard.proxy.relay as relay
import replyguard.proxy.request_side as request_side
from replyguard.proxy.fake_upstream import Reply, ScriptedUpstream
from replyguard.proxy.offload import (
    MAX_WAITING,
    OFFLOAD_CHARS,
    STREAM_OFFLOAD_CHARS,
    Offload,
    Overloaded,
)
from replyguard.proxy.screen_pool import WorkerLost
from replyguard.proxy.state import GUARDRAILS, OFFLOAD
from tests.proxy.conftest import StartUpstream, streamed_text, user

CARD = "4111 1111 1111 1111"
LONG = "a://a: " * (OFFLOAD_CHARS // 7 + 10) + f"my card is {CARD}."


class Gate:
    """Wraps a function so that its call, in whichever thread, records the thread and waits
    until `open()`; `entered` is set once the call has started."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.entered = threading.Event()
        self._open = threading.Event()
        self.threads: list[str] = []

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.threads.append(threading.current_thread().name)
        self.entered.set()
        assert self._open.wait(30), "the gate was never opened"
        return self.fn(*args, **kwargs)

    def open(self) -> None:
        self._open.set()


def gated(where: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`fn(*args, **kwargs)` once the test lets it start, in a screening process: writes
    its process id to the FIFO `where`/entered, then waits for the FIFO `where`/release to
    be opened and closed."""
    with open(f"{where}/entered", "w") as entered:
        entered.write(str(os.getpid()))
    with open(f"{where}/release") as release:
        release.read()
    return fn(*args, **kwargs)


class ProcessGate:
    """`wrap(fn)` is `fn` held at its start (`gated`) until `open()`, in whichever process
    it runs; `entered()` waits until it has started and gives that process's id."""

    def __init__(self, where: Path) -> None:
        self.where = str(where)
        os.mkfifo(where / "entered")
        os.mkfifo(where / "release")

    def wrap(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return partial(gated, self.where, fn)

    async def entered(self) -> int:
        def read() -> str:
            with open(f"{self.where}/entered") as entered:
                return entered.read()
        return int(await asyncio.get_running_loop().run_in_executor(None, read))

    async def open(self) -> None:
        def release() -> None:
            with open(f"{self.where}/release", "w"):
                pass
        await asyncio.get_running_loop().run_in_executor(None, release)


async def _served_while_held(s: Any, gate: ProcessGate, task: asyncio.Task[Any]) -> int:
    """Another client is answered while the long screen is held in a screening process of
    this app (its id returned), then the long one ends."""
    pid = await gate.entered()
    async with s.client.get("/healthz") as resp:
        assert resp.status == 200
    assert not task.done()
    assert pid != os.getpid() and pid in s.app[OFFLOAD].processes.pids()
    await gate.open()
    return pid


async def _entered(gate: Gate) -> None:
    await asyncio.get_running_loop().run_in_executor(None, gate.entered.wait, 30)


async def _healthz_while_held(s: Any, gate: Gate, task: asyncio.Task[Any]) -> None:
    """Another client is answered while the long screen is held, then the long one ends."""
    await _entered(gate)
    async with s.client.get("/healthz") as resp:
        assert resp.status == 200
    assert not task.done()
    gate.open()


async def _long_request(s: Any) -> tuple[int, Any]:
    """POST a chat turn of LONG (screened in a screening process): its status and body."""
    async with s.client.post("/v1/chat/completions", json=user(LONG)) as resp:
        return resp.status, await resp.json()


async def test_a_long_request_body_is_screened_while_others_are_served(
        stack: StartUpstream, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    gate = ProcessGate(tmp_path)
    monkeypatch.setattr(completions, "verdict_chat", gate.wrap(request_side.verdict_chat))
    up = ScriptedUpstream(lambda _m: Reply("Noted."))
    s = await stack(up)

    task = asyncio.create_task(_long_request(s))
    await _served_while_held(s, gate, task)
    status, body = await task
    assert (status, body["choices"][0]["message"]["content"]) == (200, "Noted.")
    assert up.seen[0]["messages"][-1]["content"].endswith("my card is **** 1111.")


async def test_a_screening_process_killed_midway_fails_closed_and_is_replaced(
        stack: StartUpstream, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The process screening a long body dies: the client gets a 500 in the API's shape,
    nothing reaches the upstream, and the next long body is screened by fresh processes."""
    gate = ProcessGate(tmp_path)
    monkeypatch.setattr(completions, "verdict_chat", gate.wrap(request_side.verdict_chat))
    up = ScriptedUpstream(lambda _m: Reply("Noted."))
    s = await stack(up)

    task = asyncio.create_task(_long_request(s))
    os.kill(await gate.entered(), signal.SIGKILL)
    assert await task == (500, {"error": {
        "message": "the process screening this text stopped; nothing of it was sent",
        "type": "server_error", "param": None, "code": "screening_failed"}})
    assert up.seen == []
    monkeypatch.setattr(completions, "verdict_chat", request_side.verdict_chat)
    status, body = await _long_request(s)
    assert (status, body["choices"][0]["message"]["content"]) == (200, "Noted.")
    assert up.seen[0]["messages"][-1]["content"].endswith("my card is **** 1111.")


async def test_a_long_body_the_screen_refuses_is_answered_as_on_the_loop(
        stack: StartUpstream) -> None:
    """An error the screen raises in the screening process is the client's error as it
    would be on the loop (here a 400 for messages that are not a list)."""
    s = await stack(ScriptedUpstream(lambda _m: Reply("Noted.")))
    async with s.client.post("/v1/chat/completions",
                             json={"model": "m", "messages": {"text": LONG}}) as resp:
        assert (resp.status, await resp.json()) == (400, {"error": {
            "message": "'messages' must be a non-empty list of messages", "type":
            "invalid_request_error", "param": "messages", "code": "invalid_messages"}})
    assert s.app[OFFLOAD].processes.pids() != []


async def test_a_short_request_body_is_screened_on_the_loop(
        stack: StartUpstream, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(completions.verdict_chat)
    gate.open()
    monkeypatch.setattr(completions, "verdict_chat", gate)
    s = await stack(ScriptedUpstream(lambda _m: Reply("Noted.")))
    async with s.client.post("/v1/chat/completions", json=user(f"card {CARD}")) as resp:
        assert resp.status == 200
    assert gate.threads == [threading.current_thread().name]


async def test_a_long_whole_reply_is_screened_while_others_are_served(
        stack: StartUpstream, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    gate = ProcessGate(tmp_path)
    monkeypatch.setattr(completions, "screen_completion",
                        gate.wrap(completions.screen_completion))
    s = await stack(ScriptedUpstream(lambda _m: Reply(LONG)))

    async def long_request() -> Any:
        async with s.client.post("/v1/chat/completions", json=user("hi")) as resp:
            return resp.status, await resp.json()

    task = asyncio.create_task(long_request())
    await _served_while_held(s, gate, task)
    status, body = await task
    assert status == 200
    assert body["choices"][0]["message"]["content"] == LONG.replace(CARD, "**** 1111")


async def test_a_long_streamed_delta_is_screened_while_others_are_served(
        stack: StartUpstream, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = Gate(relay._handle)
    monkeypatch.setattr(relay, "_handle", gate)
    gate.open()  # short events pass; the long one is held below
    s = await stack(ScriptedUpstream(lambda _m: Reply(LONG, chunk_chars=len(LONG))))
    held = Gate(lambda *a: None)
    real = gate.fn

    def handle(events: list[Any], *args: Any) -> Any:
        if sum(len(e.data) for e in events) >= OFFLOAD_CHARS:
            held(events)
        return real(events, *args)

    gate.fn = handle

    async def long_request() -> bytes:
        async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
            return await resp.read()

    task = asyncio.create_task(long_request())
    await _healthz_while_held(s, held, task)
    raw = await task
    assert streamed_text(raw) == LONG.replace(CARD, "**** 1111")
    assert held.threads == ["replyguard-screen_0"]


async def test_more_long_texts_than_the_worker_can_queue_are_refused() -> None:
    refused: list[int] = []
    offload = Offload(threshold=1, max_waiting=1, refused=lambda: refused.append(1))
    gate = Gate(lambda: "done")
    first = asyncio.create_task(offload.run(5, gate))
    await _entered(gate)
    with pytest.raises(Overloaded) as refused_error:
        await offload.run(5, gate)
    assert (refused_error.value.status, refused_error.value.code) == (503, "overloaded")
    assert (refused_error.value.headers, refused) == ({"Retry-After": "1"}, [1])
    assert await offload.run(0, lambda: "short") == "short"  # (short texts stay on the loop)
    gate.open()
    assert await first == "done"
    offload.close()


async def test_jobs_that_wait_for_room_run_in_turn_and_a_cancelled_one_passes_its_turn(
        ) -> None:
    offload = Offload(threshold=1, max_waiting=1)
    gate = Gate(lambda name: name)
    first = asyncio.create_task(offload.run(5, gate, "first"))
    await _entered(gate)
    ran: list[str] = []
    gone, second, third = (asyncio.create_task(offload.run(5, ran.append, name, wait=True))
                           for name in ("gone", "second", "third"))
    while offload.waiting_for_room < 3:
        await asyncio.sleep(0)
    with pytest.raises(Overloaded):  # a job that cannot wait is refused, as before
        await offload.run(5, len, "x")
    gone.cancel()
    gate.open()
    assert await first == "first"
    await asyncio.gather(second, third)
    assert (ran, gone.cancelled(), offload.waiting_for_room) == (["second", "third"], True, 0)
    offload.close()


async def test_a_stream_waits_for_the_worker_rather_than_being_cut_off(
        stack: StartUpstream) -> None:
    """With every place in the worker's line taken, a stream's long batch waits for one
    (and its upstream read with it) and the stream ends whole: refusing it would cut off a
    reply under way with an `overloaded` error event."""
    long = "Thanks for waiting. " * (STREAM_OFFLOAD_CHARS // 20 + 8) + f"My card is {CARD}."
    s = await stack(ScriptedUpstream(lambda _m: Reply(long, chunk_chars=len(long))))
    offload = s.app[OFFLOAD]
    gate = Gate(lambda: None)
    busy = [asyncio.create_task(offload.run(5, gate, threshold=1)) for _ in range(MAX_WAITING)]
    await _entered(gate)

    async def stream() -> bytes:
        async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
            return await resp.read()

    task = asyncio.create_task(stream())
    while offload.waiting_for_room == 0:
        assert not task.done()
        await asyncio.sleep(0.01)
    assert _long_screens(await s.metrics_text()) == {"admitted": MAX_WAITING,
                                                     "waiting_for_room": 1}
    gate.open()
    await asyncio.gather(*busy)
    raw = await task
    assert streamed_text(raw) == long.replace(CARD, "**** 1111")
    assert b"event: error" not in raw and raw.endswith(b"data: [DONE]\n\n")
    assert _long_screens(await s.metrics_text()) == {"admitted": 0, "waiting_for_room": 0}


def _long_screens(text: str) -> dict[str, float]:
    """`replyguard_long_screens` by state, from a scrape."""
    prefix = 'replyguard_long_screens{state="'
    return {line[len(prefix):].split('"')[0]: float(line.split()[-1])
            for line in text.splitlines() if line.startswith(prefix)}


async def test_a_job_after_closing_runs_on_the_loop_and_starts_no_thread() -> None:
    offload = Offload(threshold=1)
    assert await offload.run(5, threading.current_thread) is not threading.current_thread()
    offload.close()
    before = {t.name for t in threading.enumerate()}
    assert await offload.run(5, threading.current_thread) is threading.current_thread()
    assert {t.name for t in threading.enumerate()} == before


async def test_a_long_turn_is_read_by_the_injection_patterns_in_a_screening_process(
        stack: StartUpstream, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    gate = ProcessGate(tmp_path)
    monkeypatch.setattr(guardrails, "detect_injection", gate.wrap(guardrails.detect_injection))
    s = await stack(ScriptedUpstream(lambda _m: Reply("Noted.")),
                    guardrails__prompt_injection__enabled=True)
    assert s.app[GUARDRAILS].offload is s.app[OFFLOAD]

    async def long_request() -> Any:
        async with s.client.post("/v1/chat/completions", json=user(LONG)) as resp:
            return resp.status

    task = asyncio.create_task(long_request())
    await _served_while_held(s, gate, task)
    assert await task == 200


async def test_closing_stops_every_screening_process(tmp_path: Path) -> None:
    """Closing the offload (the app's shutdown) ends its screening processes at once, a job
    still running included (its caller gets WorkerLost): none is left behind."""
    offload = Offload(threshold=1)
    assert await offload.run(5, len, "hello", process=True) == 5
    gate = ProcessGate(tmp_path)
    running = asyncio.create_task(offload.run(5, gate.wrap(len), "hello", process=True))
    pid = await gate.entered()
    pids = offload.processes.pids()
    assert pid in pids and len(pids) <= 2  # (started as jobs need them, two at most)
    offload.close()
    with pytest.raises(WorkerLost):
        await running
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert offload.processes.pids() == []


async def test_a_json_reply_held_whole_in_a_stream_is_screened_in_the_worker(
        stack: StartUpstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """A JSON reply streamed in small deltas is held whole; the event that finishes it has
    the whole document screened, so it goes to the worker (`StreamScreen.held`)."""
    gate = Gate(relay._handle)
    gate.open()
    monkeypatch.setattr(relay, "_handle", gate)
    document = '{"items":[' + ",".join(['"Thanks for asking."'] * 1200) + f',"card {CARD}"]}}'
    s = await stack(ScriptedUpstream(lambda _m: Reply(document, chunk_chars=500)))
    body = user("hi", stream=True, response_format={"type": "json_object"})
    async with s.client.post("/v1/chat/completions", json=body) as resp:
        raw = await resp.read()
    assert streamed_text(raw) == document.replace(CARD, "**** 1111")
    assert "replyguard-screen_0" in gate.threads
    assert gate.threads[0] == threading.current_thread().name  # (the first deltas: the loop)


async def test_a_streamed_delta_of_tiny_sentences_goes_to_the_worker_from_2_kb(
        stack: StartUpstream, monkeypatch: pytest.MonkeyPatch) -> None:
    """Streamed text is screened sentence by sentence: a delta of tiny sentences costs far
    more a character than prose, so events go to the worker from `STREAM_OFFLOAD_CHARS`, not
    `OFFLOAD_CHARS`."""
    tiny = "あ。" * (STREAM_OFFLOAD_CHARS // 2 + 8)
    assert STREAM_OFFLOAD_CHARS < len(tiny) < OFFLOAD_CHARS
    threads: list[str] = []
    real = relay._handle

    def handle(events: list[Any], *args: Any) -> Any:
        if sum(len(e.data) for e in events) >= STREAM_OFFLOAD_CHARS:
            threads.append(threading.current_thread().name)
        return real(events, *args)

    monkeypatch.setattr(relay, "_handle", handle)
    s = await stack(ScriptedUpstream(lambda _m: Reply(tiny, chunk_chars=len(tiny))))
    async with s.client.post("/v1/chat/completions", json=user("hi", stream=True)) as resp:
        raw = await resp.read()
    assert streamed_text(raw) == tiny
    assert threads == ["replyguard-screen_0"]
