"""The Kubernetes manifests in deploy/k8s/ are valid against the API's schemas
(kubernetes-validate, strict: no unknown fields) and say what the deployment needs:
the game service, workers and gateway as Deployments with probes (the game
service's through gRPC health), migrations as a Job, Services, a
PodDisruptionBudget, CPU autoscaling, NetworkPolicies, secrets only from a Secret,
Postgres and NATS named by configuration; every parlour command and flag exists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.deploy.test_compose_file import parse

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
#: the Kubernetes release the manifests are checked against
VERSION = "1.30.0"
SECRET_VARIABLES = {"PARLOUR_DATABASE_PASSWORD", "PARLOUR_WORKER_TOKEN"}


def documents() -> list[tuple[Path, dict[str, Any]]]:
    found = []
    for path in sorted([*K8S.glob("*.yaml"), *K8S.glob("examples/*.yaml")]):
        for doc in yaml.safe_load_all(path.read_text()):
            if doc:
                found.append((path, doc))
    return found


def by_kind(kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for _, d in documents() if d["kind"] == kind}


@pytest.mark.parametrize(
    "where,doc", documents(), ids=lambda v: v.name if isinstance(v, Path) else v["kind"]
)
def test_each_manifest_is_valid_against_the_api_schemas(where: Path, doc: dict[str, Any]) -> None:
    try:
        kubernetes_validate.validate(doc, VERSION, strict=True)
    except kubernetes_validate.ValidationError as problem:
        pytest.fail(f"{where.name}: {doc['kind']} {doc['metadata']['name']}: {problem.message}")


def test_a_wrong_field_is_refused() -> None:
    """The check can fail: a misspelt field in a Deployment is caught."""
    deployment = by_kind("Deployment")["parlour-game"]
    broken = yaml.safe_load(yaml.safe_dump(deployment))
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["grcp"] = {"port": 1}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, VERSION, strict=True)


def container(deployment: dict[str, Any]) -> dict[str, Any]:
    containers = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    found: dict[str, Any] = containers[0]
    return found


def test_the_parts_and_their_probes() -> None:
    deployments = by_kind("Deployment")
    assert set(deployments) == {"parlour-game", "parlour-worker", "parlour-gateway"}
    game = container(deployments["parlour-game"])
    for probe in ("readinessProbe", "livenessProbe"):
        assert game[probe]["grpc"]["port"] == 50051
    assert "--no-migrate" in game["command"]
    for name in ("parlour-worker", "parlour-gateway"):
        assert container(deployments[name])["livenessProbe"]["httpGet"]
    for deployment in deployments.values():
        spec = deployment["spec"]
        assert spec["replicas"] >= 2
        assert spec["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
        assert container(deployment)["resources"]["requests"]["cpu"]  # the HPA needs it
        labels = spec["template"]["metadata"]["labels"]
        assert spec["selector"]["matchLabels"].items() <= labels.items()
    (job,) = by_kind("Job").values()
    assert job["spec"]["template"]["spec"]["containers"][0]["command"] == ["parlour", "migrate"]
    services = by_kind("Service")
    assert set(services) == {"parlour-game", "parlour-gateway"}
    for name, service in services.items():
        labels = deployments[name]["spec"]["template"]["metadata"]["labels"]
        assert service["spec"]["selector"].items() <= labels.items()
    (pdb,) = by_kind("PodDisruptionBudget").values()
    assert pdb["spec"]["minAvailable"] >= 1
    game_labels = deployments["parlour-game"]["spec"]["template"]["metadata"]["labels"]
    assert pdb["spec"]["selector"]["matchLabels"].items() <= game_labels.items()
    scalers = by_kind("HorizontalPodAutoscaler")
    assert scalers["parlour-game"]["spec"]["scaleTargetRef"]["name"] == "parlour-game"
    for scaler in scalers.values():
        assert [m["resource"]["name"] for m in scaler["spec"]["metrics"]] == ["cpu"]
    policies = by_kind("NetworkPolicy")
    assert {"parlour-game", "parlour-gateway", "parlour-worker"} <= set(policies)


def environment(spec: dict[str, Any]) -> dict[str, str]:
    """A container's variables as the pod would get them (the ConfigMap's, the examples')."""
    config = by_kind("ConfigMap")["parlour-config"]["data"]
    secret = by_kind("Secret")["parlour-secrets"]["stringData"]
    env = {}
    for source in spec.get("envFrom", []):
        assert source["configMapRef"]["name"] == "parlour-config"
        env.update(config)
    for item in spec.get("env", []):
        if "value" in item:
            env[item["name"]] = item["value"]
            continue
        ref = item["valueFrom"]
        if "secretKeyRef" in ref:
            assert ref["secretKeyRef"]["name"] == "parlour-secrets"
            env[item["name"]] = secret[ref["secretKeyRef"]["key"]]
        else:
            env[item["name"]] = config[ref["configMapKeyRef"]["key"]]
    return env


def test_secrets_come_only_from_the_secret_and_the_services_outside_from_config() -> None:
    config = by_kind("ConfigMap")["parlour-config"]["data"]
    assert not SECRET_VARIABLES & set(config)
    assert (
        "@postgres" in config["PARLOUR_DATABASE_URL"]
        and ":" not in (config["PARLOUR_DATABASE_URL"].split("://", 1)[1].split("@")[0])
    ), "no password in the URL"
    assert "PARLOUR_NOTIFY" in config
    for _, doc in documents():
        if doc["kind"] in ("Deployment", "Job"):
            for item in doc["spec"]["template"]["spec"]["containers"][0].get("env", []):
                if item["name"] in SECRET_VARIABLES:
                    assert "secretKeyRef" in item["valueFrom"], item["name"]
    # and not applied by `kubectl apply -f deploy/k8s/`: the example lives below it
    assert not [d for p, d in documents() if d["kind"] == "Secret" and p.parent == K8S]


def test_every_parlour_command_and_flag_in_the_manifests_exists(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for _, doc in documents():
        if doc["kind"] not in ("Deployment", "Job"):
            continue
        spec = doc["spec"]["template"]["spec"]["containers"][0]
        env = {k: v for k, v in environment(spec).items() if v != ""}
        parse(spec["command"], env, monkeypatch)
