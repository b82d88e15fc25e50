"""The Kustomize overlays render offline (`kubectl kustomize`), every object is valid against
the Kubernetes schemas (v1.30, strict: no unknown field), the ServiceMonitor (a custom
resource) is checked by its structure, and the settings, probes, scrape annotations and
ports they hold agree with each other and with what ReplyGuard reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import render

from replyguard.config.rules import load_rules
from replyguard.config.settings import Settings, load_settings

SCHEMAS = json.loads((Path(__file__).parent / "schemas" / "k8s-v1.30-strict.json").read_text())


def _validate(doc: dict[str, Any]) -> None:
    name = SCHEMAS["kinds"][f"{doc['apiVersion']} {doc['kind']}"]
    schema = {"$ref": f"#/definitions/{name}", "definitions": SCHEMAS["definitions"]}
    jsonschema.Draft7Validator(schema).validate(doc)


def _by_kind(docs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for doc in docs:
        out.setdefault(doc["kind"], []).append(doc)
    return out


def _settings(docs: list[dict[str, Any]], tmp_path: Path) -> Settings:
    """The rendered ConfigMap's settings and rules, read as ReplyGuard reads them."""
    (config,) = _by_kind(docs)["ConfigMap"]
    for name, text in config["data"].items():
        (tmp_path / name).write_text(text)
    settings = load_settings(tmp_path / "replyguard.yaml", env={})
    assert settings.replies.rules == tmp_path / "reply-rules.yaml"
    load_rules(settings.replies.rules)
    return settings


def _port(container: dict[str, Any], ref: int | str) -> int:
    if isinstance(ref, int):
        return ref
    (port,) = [p["containerPort"] for p in container["ports"] if p["name"] == ref]
    return int(port)


def _check_service_monitor(kinds: dict[str, list[dict[str, Any]]]) -> None:
    """A ServiceMonitor selects a rendered Service and names its metrics port."""
    (monitor,) = kinds["ServiceMonitor"]
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    wanted = monitor["spec"]["selector"]["matchLabels"]
    services = [s for s in kinds["Service"]
                if wanted.items() <= s["metadata"].get("labels", {}).items()]
    assert services, "the ServiceMonitor selects no Service"
    for endpoint in monitor["spec"]["endpoints"]:
        assert set(endpoint) <= {"port", "path", "interval", "scrapeTimeout"}
        assert endpoint["path"] == "/metrics"
        for service in services:
            assert endpoint["port"] in [p["name"] for p in service["spec"]["ports"]]


@pytest.mark.parametrize("overlay", ["sidecar", "standalone"])
def test_overlay_renders_and_is_valid(overlay: str) -> None:
    docs = render(overlay)
    for doc in docs:
        if doc["kind"] != "ServiceMonitor":
            _validate(doc)
    kinds = _by_kind(docs)
    _check_service_monitor(kinds)
    assert [s["metadata"]["name"] for s in kinds["Secret"]] == ["replyguard"]


def test_sidecar_probes_and_scrapes_reach_the_admin_listener(tmp_path: Path) -> None:
    docs = render("sidecar")
    kinds = _by_kind(docs)
    settings = _settings(docs, tmp_path)
    (deployment,) = kinds["Deployment"]
    pod = deployment["spec"]["template"]
    (sidecar,) = pod["spec"]["initContainers"]
    assert sidecar["restartPolicy"] == "Always"  # a native sidecar: up before the app
    assert settings.listen.host == "127.0.0.1"  # model traffic: loopback only
    assert settings.listen.admin_host == "0.0.0.0"
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        get = sidecar[probe]["httpGet"]
        assert _port(sidecar, get["port"]) == settings.listen.admin_port
        assert get["path"] == ("/healthz" if probe == "livenessProbe" else "/readyz")
    annotations = pod["metadata"]["annotations"]
    assert int(annotations["prometheus.io/port"]) == settings.listen.admin_port
    assert annotations["prometheus.io/path"] == "/metrics"
    (app,) = pod["spec"]["containers"]
    assert {"name": "OPENAI_BASE_URL",
            "value": f"http://127.0.0.1:{settings.listen.port}/v1"} in app["env"]
    assert settings.listen.shutdown_timeout_s < pod["spec"]["terminationGracePeriodSeconds"]
    security = sidecar["securityContext"]
    assert security["readOnlyRootFilesystem"] is True and security["runAsNonRoot"] is True
    mounts = {m["mountPath"]: m["name"] for m in sidecar["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
    assert "emptyDir" in volumes[mounts["/var/lib/replyguard"]]  # writable: the SQLite store
    (config,) = kinds["ConfigMap"]
    assert volumes[mounts["/etc/replyguard"]]["configMap"]["name"] == \
        config["metadata"]["name"]


def test_standalone_service_hpa_and_workers(tmp_path: Path) -> None:
    docs = render("standalone")
    kinds = _by_kind(docs)
    settings = _settings(docs, tmp_path)
    assert settings.listen.host == "0.0.0.0" and settings.listen.workers == "auto"
    (deployment,) = kinds["Deployment"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    (service,) = kinds["Service"]
    ports = {p["name"]: _port(container, p["targetPort"]) for p in service["spec"]["ports"]}
    assert ports == {"http": settings.listen.port, "metrics": settings.listen.admin_port}
    assert service["spec"]["selector"].items() <= \
        deployment["spec"]["template"]["metadata"]["labels"].items()
    (hpa,) = kinds["HorizontalPodAutoscaler"]
    assert hpa["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment",
                                             "name": deployment["metadata"]["name"]}
    assert container["resources"]["limits"]["cpu"] == "2"  # auto: 2 workers per pod


@pytest.mark.parametrize("overlay", ["sidecar", "standalone"])
def test_the_sqlite_store_is_on_a_writable_volume(overlay: str, tmp_path: Path) -> None:
    """The root filesystem is read-only: the store's file must be on a mounted volume that
    is not (a relative path would name the read-only working directory)."""
    docs = render(overlay)
    url = _settings(docs, tmp_path).store.url
    assert url.startswith("sqlite:////")
    folder = str(Path(url.removeprefix("sqlite:///")).parent)
    (deployment,) = _by_kind(docs)["Deployment"]
    spec = deployment["spec"]["template"]["spec"]
    (container,) = [c for c in spec.get("initContainers", []) + spec["containers"]
                    if c["name"] == "replyguard"]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    writable = [m["mountPath"] for m in container["volumeMounts"] if not m.get("readOnly")]
    assert writable == [folder]


def test_an_unknown_field_is_refused_by_the_schemas() -> None:
    docs = render("standalone")
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    deployment["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    with pytest.raises(jsonschema.ValidationError):
        _validate(deployment)


@pytest.mark.parametrize("overlay", ["sidecar", "standalone"])
def test_every_secret_key_reaches_the_setting_it_fills(overlay: str) -> None:
    """Each key of the Secret is given to ReplyGuard's container as the environment variable
    of its setting: a token filled in the Secret takes effect."""
    kinds = _by_kind(render(overlay))
    (secret,) = kinds["Secret"]
    (deployment,) = kinds["Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    (container,) = [c for c in pod["containers"] + pod.get("initContainers", [])
                    if c["name"] == "replyguard"]  # (the sidecar: a native one, an init one)
    env = {e["valueFrom"]["secretKeyRef"]["key"]: e["name"] for e in container["env"]
           if "secretKeyRef" in e.get("valueFrom", {})}
    assert sorted(env) == sorted(secret["stringData"])
    settings = load_settings(None, env={name: f"value-of-{key}" for key, name in env.items()})
    assert (settings.upstream.api_key, settings.admin.token) == (
        "value-of-upstream-api-key", "value-of-admin-token")
