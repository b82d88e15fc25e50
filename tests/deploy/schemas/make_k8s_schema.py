"""Write k8s-v1.30-strict.json: the Kubernetes JSON schemas of the kinds the deploy files use,
cut from the strict schemas `kubernetes-validate` ships (yannh/kubernetes-json-schema's
"local-strict" form of the v1.30 OpenAPI definitions), descriptions dropped to keep it small.

    pip download kubernetes-validate==1.37.0 --no-deps -d /tmp/kv
    unzip -q /tmp/kv/*.whl -d /tmp/kv
    python tests/deploy/schemas/make_k8s_schema.py \
      /tmp/kv/kubernetes_validate/kubernetes-json-schema/v1.30.0-local-strict/_definitions.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

#: (apiVersion, kind) -> the definition validating it.
KINDS = {
    ("v1", "ConfigMap"): "io.k8s.api.core.v1.ConfigMap",
    ("v1", "Secret"): "io.k8s.api.core.v1.Secret",
    ("v1", "Service"): "io.k8s.api.core.v1.Service",
    ("apps/v1", "Deployment"): "io.k8s.api.apps.v1.Deployment",
    ("autoscaling/v2", "HorizontalPodAutoscaler"):
        "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler",
}


def _refs(node: Any, out: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            out.add(ref.rsplit("/", 1)[1])
        for value in node.values():
            _refs(value, out)
    elif isinstance(node, list):
        for value in node:
            _refs(value, out)


def _strip(node: Any) -> Any:
    """Without descriptions, each `$ref` pointing into this file's `definitions`."""
    if isinstance(node, dict):
        return {k: ("#/definitions/" + v.rsplit("/", 1)[1]) if k == "$ref" else _strip(v)
                for k, v in node.items() if k != "description"}
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def main(source: str) -> None:
    document = json.loads(Path(source).read_text())
    definitions = document.get("definitions") or document["$defs"]
    keep: set[str] = set()
    todo = list(KINDS.values())
    while todo:
        name = todo.pop()
        if name in keep:
            continue
        keep.add(name)
        found: set[str] = set()
        _refs(definitions[name], found)
        todo.extend(found - keep)
    out = {"kinds": {f"{a} {k}": d for (a, k), d in KINDS.items()},
           "definitions": {n: _strip(definitions[n]) for n in sorted(keep)}}
    target = Path(__file__).with_name("k8s-v1.30-strict.json")
    target.write_text(json.dumps(out, separators=(",", ":"), sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
