"""Two `replyguard serve` processes sharing one PostgreSQL store, as two replicas of a fleet:
a version activated through one is in force in the other within 2 s."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
from conftest import STORE_AUTH, STORE_TOKEN, user

from replyguard.proxy.fake_script import Reply
from replyguard.proxy.fake_upstream import ScriptedUpstream


async def _start(config: dict, folder: Path, name: str) -> tuple[subprocess.Popen[bytes], int]:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(config))
    log = folder / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "replyguard.proxy.cli", "serve", "--config", str(path)],
            stderr=out, env={k: v for k, v in os.environ.items()
                             if not k.startswith("REPLYGUARD_")})
    deadline = time.monotonic() + 30
    while not (lines := log.read_text().splitlines()):
        assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
        await asyncio.sleep(0.05)
    return proc, int(json.loads(lines[0])["port"])


async def test_two_replicas_see_an_activation_within_2_s(pg_url: str, tmp_path: Path) -> None:
    up = ScriptedUpstream(lambda _m: Reply(content="It is a guaranteed refund. Thanks."),
                          created=1)
    config = {"listen": {"port": 0}, "upstream": {"base_url": await up.start()},
              "admin": {"token": STORE_TOKEN}, "store": {"url": pg_url}}
    procs = []
    try:
        for name in ("a", "b"):
            procs.append(await _start(config, tmp_path, name))
        (_, port_a), (_, port_b) = procs
        async with aiohttp.ClientSession() as session:
            async def reply(port: int) -> tuple[str, str]:
                async with session.post(f"http://127.0.0.1:{port}/v1/chat/completions",
                                        json=user("hi")) as resp:
                    body = await resp.json()
                    return (body["choices"][0]["message"]["content"],
                            resp.headers["X-ReplyGuard-Rules-Version"])

            assert await reply(port_b) == ("It is a guaranteed refund. Thanks.", "builtin")
            async with session.put(f"http://127.0.0.1:{port_a}/v1/reply-rules",
                                   json={"never_say": ["guaranteed refund"]},
                                   headers=STORE_AUTH) as resp:
                assert (resp.status, await resp.json()) == (201, {"version": 1})
            activated = time.monotonic()
            assert await reply(port_a) == ("Thanks.", "1")
            while (got := await reply(port_b)) != ("Thanks.", "1"):
                assert time.monotonic() - activated < 2.0, got
                await asyncio.sleep(0.05)
            async with session.put(f"http://127.0.0.1:{port_b}/v1/reply-rules",
                                   json={"never_say": ["thanks"]},
                                   headers=STORE_AUTH) as resp:
                assert (resp.status, await resp.json()) == (201, {"version": 2})
            async with session.post(
                    f"http://127.0.0.1:{port_b}/v1/reply-rules/versions/1/activate",
                    headers=STORE_AUTH) as resp:
                assert resp.status == 200
            activated = time.monotonic()
            while (got := await reply(port_a)) != ("Thanks.", "1"):
                assert time.monotonic() - activated < 2.0, got
                await asyncio.sleep(0.05)
    finally:
        for proc, _ in procs:
            proc.send_signal(signal.SIGTERM)
        for proc, _ in procs:
            await asyncio.to_thread(proc.wait, 30)
        await up.close()
