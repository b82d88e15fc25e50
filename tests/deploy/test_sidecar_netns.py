"""The rendered sidecar, run as a pod would run it: ReplyGuard started with the manifest's
command, arguments, environment and ConfigMap in a network namespace of its own (its own IP
on a veth pair, like a pod's), then checked from outside as the kubelet and Prometheus would:
the probes and the scrape answer on the addresses and ports the manifest names, while model
traffic on the pod IP is refused. The ConfigMap's files go to a temporary folder standing in
for the mount path (nothing is written to the manifest's paths on this machine). Addresses
are in 198.18.0.0/15, the range set aside for benchmark networks (RFC 2544)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import render, tool

HOST_IP, POD_IP = "198.18.19.1", "198.18.19.2"


def _run(*args: str) -> None:
    subprocess.run(args, check=True, capture_output=True, timeout=30)


@pytest.fixture
def pod_netns() -> Iterator[str]:
    """A network namespace with POD_IP, reachable from here at HOST_IP; removed after."""
    ip = tool("ip", "iproute2 creates the pod's network namespace")
    if os.geteuid() != 0:
        if os.environ.get("REPLYGUARD_CI") == "1":
            pytest.fail("network namespaces need root")
        pytest.skip("network namespaces need root")
    name, host, pod = f"rgpod{os.getpid()}", f"rgh{os.getpid()}", f"rgp{os.getpid()}"
    _run(ip, "netns", "add", name)
    try:
        _run(ip, "link", "add", host, "type", "veth", "peer", "name", pod)
        _run(ip, "link", "set", pod, "netns", name)
        _run(ip, "addr", "add", f"{HOST_IP}/30", "dev", host)
        _run(ip, "link", "set", host, "up")
        _run(ip, "-n", name, "addr", "add", f"{POD_IP}/30", "dev", pod)
        _run(ip, "-n", name, "link", "set", pod, "up")
        _run(ip, "-n", name, "link", "set", "lo", "up")
        yield name
    finally:
        subprocess.run([ip, "link", "del", host], capture_output=True, timeout=30)
        subprocess.run([ip, "netns", "del", name], capture_output=True, timeout=30)


def _get(url: str, data: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=data, headers={"Content-Type":
                                                              "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as resp:  # noqa: S310 - test URL
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _sidecar(tmp_path: Path) -> tuple[list[str], dict[str, str], dict[str, Any]]:
    """The sidecar's command line and environment as the manifest gives them, the mount path
    replaced by a temporary folder holding the ConfigMap's files; and the pod template."""
    docs = render("sidecar")
    (config,) = [d for d in docs if d["kind"] == "ConfigMap"]
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]
    (container,) = pod["spec"]["initContainers"]
    (mount,) = [m for m in container["volumeMounts"] if m["name"] == "replyguard-config"]
    folder = tmp_path / "config"
    folder.mkdir()
    (data,) = [m for m in container["volumeMounts"] if m["name"] == "replyguard-data"]
    (tmp_path / "data").mkdir()
    for name, text in config["data"].items():  # the store's volume: a temporary folder too
        (folder / name).write_text(text.replace(data["mountPath"], str(tmp_path / "data")))
    argv = [a.replace(mount["mountPath"], str(folder))
            for a in container["command"] + container["args"]]
    assert argv[0] == "replyguard"
    argv[0] = str(Path(sys.executable).parent / "replyguard")
    env = {"PATH": os.environ["PATH"]}
    for var in container.get("env", []):
        if "value" in var:
            env[var["name"]] = var["value"]  # secretKeyRef: the optional Secret left empty
    return argv, env, pod


def test_rendered_sidecar_answers_probes_and_scrapes_on_the_pod_ip(
        pod_netns: str, tmp_path: Path) -> None:
    ip = tool("ip", "iproute2 runs the sidecar in the pod's network namespace")
    argv, env, pod = _sidecar(tmp_path)
    (container,) = pod["spec"]["initContainers"]
    log = tmp_path / "replyguard.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([ip, "netns", "exec", pod_netns, *argv], env=env, stderr=out)
    try:
        deadline = time.monotonic() + 30
        while '"event": "serving"' not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        serving = next(json.loads(line) for line in log.read_text().splitlines()
                       if '"event": "serving"' in line)
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            get = container[probe]["httpGet"]
            port = ports.get(get["port"], get["port"])
            status, body = _get(f"http://{POD_IP}:{port}{get['path']}")
            assert status == 200, (probe, body)
        annotations = pod["metadata"]["annotations"]
        status, body = _get(f"http://{POD_IP}:{annotations['prometheus.io/port']}"
                            f"{annotations['prometheus.io/path']}")
        assert status == 200 and b"replyguard_requests_total" in body \
            and b"process_resident_memory_bytes" in body
        chat = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        with pytest.raises(urllib.error.URLError) as refused:  # nothing listens on the pod IP
            _get(f"http://{POD_IP}:{serving['port']}/v1/chat/completions", chat.encode())
        assert isinstance(refused.value.reason, ConnectionRefusedError)
        status, body = _get(f"http://{POD_IP}:{serving['admin_port']}/v1/chat/completions",
                            chat.encode())
        assert status == 404 and json.loads(body)["error"]["code"] == "unknown_route"
        inside = subprocess.run(  # the app container's view: loopback serves model traffic
            [ip, "netns", "exec", pod_netns, sys.executable, "-c",
             "import urllib.request as u;"
             f"print(u.urlopen('http://127.0.0.1:{serving['port']}/readyz').status)"],
            capture_output=True, text=True, timeout=30)
        assert inside.stdout.strip() == "200", inside.stderr
    finally:
        proc.terminate()
        proc.wait(30)
    assert proc.returncode == 0
