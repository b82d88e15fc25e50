"""`replyguard serve` as an operator runs it, in a process of its own: several workers on one
port with one summed /metrics and per-worker process_* metrics, the admin listener, SIGHUP
reloading the rules in every worker, SIGTERM draining streams (or ending them with an error
event at the deadline) and exiting 0; `auto` workers from the cgroup's CPU quota."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from conftest import events, streamed_text, user

from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream
from replyguard.proxy.workers import available_cpus, cgroup_cpus


class Served:
    def __init__(self, proc: subprocess.Popen[bytes], port: int, admin: int | None) -> None:
        self.proc, self.port, self.admin = proc, port, admin

    def url(self, path: str, admin: bool = False) -> str:
        return f"http://127.0.0.1:{self.admin if admin else self.port}{path}"


def _samples(text: str) -> dict[str, float]:
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in text.splitlines() if line and not line.startswith("#")}


@pytest.fixture
async def serve(tmp_path: Path) -> AsyncIterator[Any]:
    """`await serve(reply, rules_text=None, **settings) -> Served`: `replyguard serve` in its
    own process in front of a scripted upstream; stopped afterwards."""
    procs: list[subprocess.Popen[bytes]] = []
    ups: list[ScriptedUpstream] = []

    async def start(reply: Reply, rules_text: str | None = None, **settings: Any) -> Served:
        up = ScriptedUpstream(lambda _m: reply, created=1)
        ups.append(up)
        config: dict[str, Any] = {"listen": {"port": 0}, "upstream": {"base_url":
                                                                       await up.start()},
                                  "store": {"url": f"sqlite:///{tmp_path}/replyguard.db"}}
        for key, value in settings.items():
            section, _, name = key.partition("__")
            config.setdefault(section, {})[name] = value
        if rules_text is not None:
            (tmp_path / "rules.yaml").write_text(rules_text)
            config["replies"] = {"rules": "rules.yaml"}
        (tmp_path / "replyguard.json").write_text(json.dumps(config))
        log = tmp_path / f"serve-{len(procs)}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                [sys.executable, "-m", "replyguard.proxy.cli", "serve", "--config",
                 str(tmp_path / "replyguard.json")], stderr=out,
                env={k: v for k, v in os.environ.items() if not k.startswith("REPLYGUARD_")})
        procs.append(proc)
        deadline = time.monotonic() + 30
        while not (lines := log.read_text().splitlines()):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            await asyncio.sleep(0.05)
        announced = json.loads(lines[0])
        assert announced["event"] == "serving", lines[0]
        await asyncio.sleep(0.5 if config.get("listen", {}).get("workers", 1) > 1 else 0)
        return Served(proc, announced["port"], announced["admin_port"])

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.to_thread(proc.wait, 30)
        except subprocess.TimeoutExpired:  # pragma: no cover - a hang fails loudly
            proc.kill()
            raise
    for up in ups:
        await up.close()


async def _wait_exit(proc: subprocess.Popen[bytes], timeout_s: float) -> int:
    return await asyncio.wait_for(asyncio.to_thread(proc.wait), timeout_s)


async def _scrape(session: aiohttp.ClientSession, url: str) -> str:
    """A scrape's body; a 503 (a worker that did not answer within `PEER_TIMEOUT_S`, on a
    loaded machine) is asked again, as Prometheus does at its next interval."""
    for _ in range(20):
        async with session.get(url) as resp:
            body = await resp.text()
            if resp.status == 200:
                return body
            assert resp.status == 503 and "did not answer" in body, (resp.status, body)
        await asyncio.sleep(0.5)
    raise AssertionError(f"every scrape failed: {body}")


async def test_workers_share_one_port_and_one_summed_metrics(serve) -> None:
    served = await serve(Reply(content="Ok."), listen__workers=2, listen__admin_port=0)
    async with aiohttp.ClientSession() as session:
        for _ in range(20):
            async with session.post(served.url("/v1/chat/completions"),
                                    json=user("hi")) as resp:
                assert resp.status == 200
        for admin in (False, True):  # any worker answers; each sums all
            for _ in range(3):
                got = _samples(await _scrape(session, served.url("/metrics", admin)))
                assert got['replyguard_requests_total{api="chat",route="/v1/chat/completions",'
                           'status="200"}'] == 20.0
                assert got["replyguard_workers"] == 2.0
                assert got['process_resident_memory_bytes{worker="0"}'] > 0
                assert got['process_resident_memory_bytes{worker="1"}'] > 0
        async with session.get(served.url("/readyz", admin=True)) as resp:
            assert resp.status == 200
        async with session.post(served.url("/v1/chat/completions", admin=True),
                                json=user("hi")) as resp:
            assert resp.status == 404
    pids = subprocess.run(["pgrep", "-P", str(served.proc.pid)], capture_output=True,
                          text=True).stdout.split()
    assert len(pids) == 2


async def test_sighup_reloads_the_rules_in_every_worker(serve, tmp_path: Path) -> None:
    served = await serve(Reply(content="It is a guaranteed refund. Thanks."),
                         rules_text="never_say: [guaranteed refund]\n", listen__workers=2)
    async with aiohttp.ClientSession() as session:
        async def reply() -> str:
            async with session.post(served.url("/v1/chat/completions"),
                                    json=user("hi")) as resp:
                return str((await resp.json())["choices"][0]["message"]["content"])

        async def reloads() -> dict[str, float]:
            async with session.get(served.url("/metrics")) as resp:
                if resp.status != 200:  # a worker busy compiling the rules: ask again
                    return {}
                got = _samples(await resp.text())
            return {k: v for k, v in got.items() if k.startswith("replyguard_rules_reloads")}

        assert await reply() == "Thanks."
        (tmp_path / "rules.yaml").write_text("never_say: [thanks]\n")
        served.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 60  # (a bound on waiting, not a speed: a loaded machine)
        while (seen := await reloads()).get('replyguard_rules_reloads_total{result="ok"}') != 2:
            assert time.monotonic() < deadline, f"reloads seen last: {seen}"
            await asyncio.sleep(0.1)
        for _ in range(4):
            assert await reply() == "It is a guaranteed refund. "
        (tmp_path / "rules.yaml").write_text("never_say: 3\n")  # broken: the last good stays
        served.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 60
        while (seen := await reloads()).get('replyguard_rules_reloads_total{result="error"}') != 2:
            assert time.monotonic() < deadline, f"reloads seen last: {seen}"
            await asyncio.sleep(0.1)
        assert await reply() == "It is a guaranteed refund. "


async def test_sigterm_lets_a_stream_finish_then_exits_0(serve) -> None:
    served = await serve(Reply(content="One. Two. Three. Four.", chunk_chars=3,
                               chunk_delay_s=0.1), listen__workers=2)
    raw = await _sigterm_mid_stream(served)
    assert streamed_text(raw) == "One. Two. Three. Four."
    assert events(raw)[-1] == "[DONE]"
    assert await _wait_exit(served.proc, 15) == 0
    with pytest.raises(aiohttp.ClientConnectionError):
        async with aiohttp.ClientSession() as session:
            await session.get(served.url("/healthz"))


async def test_sigterm_ends_a_stream_past_the_deadline_with_an_error_event(serve) -> None:
    served = await serve(Reply(content="One. Two. Three. Four. Five. Six.", chunk_chars=3,
                               chunk_delay_s=0.5), listen__shutdown_timeout_s=1.5)
    raw = await _sigterm_mid_stream(served)
    got = events(raw)
    assert got[-1] == "[DONE]"
    assert got[-2] == ("error", {"error": {
        "message": "ReplyGuard is shutting down; the rest of the reply was not sent",
        "type": "server_error", "param": None, "code": "shutting_down"}})
    assert await _wait_exit(served.proc, 15) == 0


async def _sigterm_mid_stream(served: Any) -> bytes:
    """A streamed request's bytes, SIGTERM sent to the server once its first event came."""
    async with aiohttp.ClientSession() as session:
        async with session.post(served.url("/v1/chat/completions"),
                                json=user("hi", stream=True)) as resp:
            await resp.content.readuntil(b"\n\n")
            served.proc.send_signal(signal.SIGTERM)
            return await resp.read()


def _cgroup_tree(root: Path, cgroup: str, files: dict[str, str]) -> Path:
    (root / "proc/self").mkdir(parents=True)
    (root / "proc/self/cgroup").write_text(cgroup)
    for name, text in files.items():
        path = root / "sys/fs/cgroup" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(("cgroup", "files", "quota", "workers"), [
    ("0::/\n", {"cpu.max": "100000 100000\n"}, 1.0, 1),          # v2, 1 CPU: 1 of 64
    ("0::/\n", {"cpu.max": "250000 100000\n"}, 2.5, 2),          # 2.5 CPUs: 2
    ("0::/\n", {"cpu.max": "max 100000\n"}, None, 64),           # no quota: the affinity
    ("0::/kubepods/pod1/c1\n", {"kubepods/cpu.max": "400000 100000\n",
                                "kubepods/pod1/c1/cpu.max": "max 100000\n"}, 4.0, 4),
    ("0::/\n", {"cpu.max": "50000 100000\n"}, 0.5, 1),           # half a CPU: still 1
    ("4:cpu,cpuacct:/docker/abc\n", {"cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "300000\n",
                                     "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n"},
     3.0, 3),                                                    # v1
    ("4:cpu,cpuacct:/\n", {"cpu,cpuacct/cpu.cfs_quota_us": "-1\n",
                           "cpu,cpuacct/cpu.cfs_period_us": "100000\n"}, None, 64),
    ("", {}, None, 64),                                          # no cgroup at all
])  # fmt: skip
def test_auto_workers_follow_the_cgroup_quota(tmp_path: Path, cgroup: str,
                                              files: dict[str, str], quota: float | None,
                                              workers: int) -> None:
    root = _cgroup_tree(tmp_path, cgroup, files)
    assert cgroup_cpus(root) == quota
    assert available_cpus(root, affinity=64) == workers


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    todo = [pid]
    while todo:
        children = subprocess.run(["pgrep", "-P", str(todo.pop())], capture_output=True,
                                  text=True).stdout.split()
        found.update(int(c) for c in children)
        todo.extend(int(c) for c in children)
    return found


async def test_workers_screen_long_bodies_in_processes_they_stop_when_they_stop(serve) -> None:
    """Under `--workers 2`, long request bodies are screened by screening processes of each
    worker; SIGTERM ends every one of them with the server."""
    served = await serve(Reply(content="Ok."), listen__workers=2)
    workers = _descendants(served.proc.pid)
    long = "a://a: " * 3000 + "my card is 4111 1111 1111 1111."
    async with aiohttp.ClientSession() as session:

        async def post() -> int:
            async with session.post(served.url("/v1/chat/completions"),
                                    json=user(long)) as resp:
                await resp.read()
                return resp.status

        assert await asyncio.gather(*(post() for _ in range(6))) == [200] * 6
    started = _descendants(served.proc.pid)
    assert len(workers) == 2 and len(started) >= 2 + 2  # (two screening processes or more)
    served.proc.send_signal(signal.SIGTERM)
    assert await _wait_exit(served.proc, 30) == 0
    # (multiprocessing's resource tracker ends on its own once the worker that started it
    # has: it reads a pipe from it)
    deadline = time.monotonic() + 30
    while left := {pid for pid in started if Path(f"/proc/{pid}/cmdline").exists()}:
        assert time.monotonic() < deadline, [Path(f"/proc/{pid}/cmdline").read_bytes()
                                             for pid in left]
        await asyncio.sleep(0.1)
