"""The deployment files are true to the code: every command, flag and variable in
docker-compose.yml exists and is read, required secrets have no default, the image
is built from the wheel, and `docker compose config` accepts the file where a
compose CLI is installed."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
VALUES = {"POSTGRES_PASSWORD": "pg-secret/with:odd@chars", "PARLOUR_WORKER_TOKEN": "w" * 32}


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def interpolate(value: str) -> str:
    """Compose's ${VAR:?msg} / ${VAR:-default} with VALUES as the environment."""

    def one(match: re.Match[str]) -> str:
        name, op, rest = match.group(1), match.group(2) or "", match.group(3) or ""
        if name in VALUES:
            return VALUES[name]
        assert op != ":?", f"{name} is required but the test did not set it"
        return rest if op == ":-" else ""

    return re.sub(r"\$\{(\w+)(:\?|:-)?([^}]*)\}", one, value)


def parlour_commands() -> list[tuple[str, list[str], dict[str, str]]]:
    """(service, argv, environment) of every parlour command in the file, healthchecks too."""
    found = []
    for name, service in compose()["services"].items():
        env = {k: interpolate(str(v)) for k, v in (service.get("environment") or {}).items()}
        command = service.get("command")
        if command and command[0] == "parlour":
            found.append((name, [interpolate(str(part)) for part in command], env))
        test = (service.get("healthcheck") or {}).get("test") or []
        if test[:2] == ["CMD", "parlour"]:
            found.append((f"{name} healthcheck", test[1:], env))
    return found


def parse(argv: list[str], env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Any:
    from parlour.cli import build_parser

    for key in [k for k in os.environ if k.startswith("PARLOUR_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    parser, module = build_parser(argv[1])
    assert module is not None, f"parlour {argv[1]} does not exist"
    return parser.parse_args(argv[1:])  # SystemExit on an unknown flag


def test_compose_runs_every_part_and_builds_from_the_dockerfile() -> None:
    services = compose()["services"]
    assert {"postgres", "migrate", "game-1", "game-2", "worker", "gateway"} <= set(services)
    build = services["migrate"]["build"]
    assert (ROOT / build["context"] / build["dockerfile"]).is_file()
    assert services["worker"]["deploy"]["replicas"] == 2
    assert services["migrate"]["restart"] == "no"
    for name in ("postgres", "game-1", "game-2", "worker", "gateway"):
        assert services[name]["restart"] == "unless-stopped", name
        assert services[name]["healthcheck"]["test"], name
    assert services["postgres"]["healthcheck"]["test"][0] == "CMD-SHELL"
    # the worker's healthcheck fits it: it listens on no gRPC port
    assert "--server" not in services["worker"]["healthcheck"]["test"]


def test_every_parlour_command_and_flag_in_compose_exists(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    commands = parlour_commands()
    assert {argv[1] for _, argv, _ in commands} >= {"migrate", "serve", "worker", "gateway"}
    for _, argv, env in commands:
        parse(argv, env, monkeypatch)


def test_every_parlour_variable_in_compose_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    source = "\n".join(p.read_text() for p in (ROOT / "services/parlour").rglob("*.py"))
    source += "\n".join(p.read_text() for p in (ROOT / "clients").rglob("*.py"))
    named = {
        key
        for service in compose()["services"].values()
        for key in (service.get("environment") or {})
        if key.startswith("PARLOUR_")
    }
    assert named
    for key in named:
        assert f'"{key}"' in source, f"{key} is set in docker-compose.yml but never read"

    services = {name: (argv, env) for name, argv, env in parlour_commands()}
    argv, env = services["game-1"]
    serve = parse(argv, env, monkeypatch)
    from parlour.cli import options as ops

    assert ops.worker_token(serve) == VALUES["PARLOUR_WORKER_TOKEN"]
    assert serve.metrics_address == "0.0.0.0:9464" and serve.log_json
    from sqlalchemy import make_url

    url = make_url(serve.database_url)
    assert url.password == VALUES["POSTGRES_PASSWORD"] and url.host == "postgres"
    assert ops.tls_server_credentials(serve) is None  # TLS off unless .env names the files
    argv, env = services["worker"]
    worker = parse(argv, env, monkeypatch)
    assert ops.worker_token(worker) == VALUES["PARLOUR_WORKER_TOKEN"]
    assert worker.metrics_address and ops.tls_client_credentials(worker) is None


def test_the_nats_profile_runs_nats_and_the_replicas_can_be_told_to_use_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    services = compose()["services"]
    nats = services["nats"]
    assert nats["profiles"] == ["nats"] and nats["image"].startswith("nats:")
    assert nats["restart"] == "unless-stopped" and nats["healthcheck"]["test"]
    assert all("profiles" not in service for name, service in services.items() if name != "nats")
    argv, env = {name: (argv, env) for name, argv, env in parlour_commands()}["game-1"]
    assert env["PARLOUR_NOTIFY"] == ""  # unset: Postgres LISTEN/NOTIFY
    from parlour.service.notify import notify_setting

    parse(argv, {**env, "PARLOUR_NOTIFY": "nats://nats:4222"}, monkeypatch)
    assert notify_setting(None) == "nats://nats:4222"  # what serve reads when --notify is absent


def test_secrets_have_no_default_and_env_example_documents_them() -> None:
    text = COMPOSE.read_text()
    required = set(re.findall(r"\$\{(\w+):\?", text))
    assert required == {"POSTGRES_PASSWORD", "PARLOUR_WORKER_TOKEN"}
    assert not re.search(r"\$\{(POSTGRES_PASSWORD|PARLOUR_WORKER_TOKEN):-", text)
    passwords = re.findall(r"PASSWORD: (.*)", text)
    assert len(passwords) == 2 and all(p.startswith("${POSTGRES_PASSWORD:?") for p in passwords)
    assert re.findall(r"postgresql\+psycopg://([^@]*)@", text) == ["parlour"]  # none in the URL
    example = (ROOT / ".env.example").read_text()
    optional = set(re.findall(r"\$\{(\w+):-", text))
    for name in required | optional:
        assert re.search(rf"^#? ?{name}=", example, flags=re.MULTILINE), f".env.example: {name}"


def test_the_image_is_built_from_the_wheel_and_runs_as_a_user() -> None:
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    assert len(re.findall(r"^FROM ", dockerfile, flags=re.MULTILINE)) == 2
    assert "pip wheel" in dockerfile and "pip install -e" not in dockerfile
    user = re.findall(r"^USER (\S+)", dockerfile, flags=re.MULTILINE)
    assert user and user[-1] not in ("root", "0")
    extras = re.search(r"^ARG EXTRAS=(\S+)", dockerfile, flags=re.MULTILINE)
    assert extras and set(extras.group(1).split(",")) == {"service", "worker", "gateway"}
    ignored = (ROOT / ".dockerignore").read_text().splitlines()
    assert ignored[1:2] == ["*"] or "*" in ignored  # everything but what the build needs
    assert "**/*.so" in ignored  # a local build's compiled modules stay out


def test_the_image_is_compiled_has_a_healthcheck_and_takes_its_base_as_an_argument() -> None:
    dockerfile = (ROOT / "deploy/Dockerfile").read_text()
    base = re.search(r"^ARG BASE_IMAGE=(\S+)", dockerfile, flags=re.MULTILINE)
    assert base and base.group(1) == "python:3.11-slim"
    froms = re.findall(r"^FROM (\S+)", dockerfile, flags=re.MULTILINE)
    assert froms == ["${BASE_IMAGE}", "${BASE_IMAGE}"]
    build_stage = dockerfile.split("\nFROM ")[1]
    # setup.py compiles the engines when mypyc and a C compiler are there
    assert re.search(r"^COPY .*setup\.py", build_stage, flags=re.MULTILINE)
    assert "gcc" in build_stage and '"mypy' in build_stage
    assert "-none-any.whl" in build_stage  # a pure-Python wheel fails the build
    assert "!setup.py" in (ROOT / ".dockerignore").read_text().splitlines()
    health = re.search(r"^HEALTHCHECK .*\n?.*CMD (\[.*\])", dockerfile, flags=re.MULTILINE)
    assert health and json.loads(health.group(1))[:3] == ["parlour", "health", "--server"]


def compose_cli() -> list[str] | None:
    docker = shutil.which("docker")
    if (
        docker
        and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0
    ):
        return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


@pytest.mark.skipif(compose_cli() is None, reason="no docker compose CLI on this machine")
def test_docker_compose_config_accepts_the_file_and_refuses_missing_secrets(
    tmp_path: Path,
) -> None:
    cli = compose_cli()
    assert cli is not None
    env_file = tmp_path / "env"
    env_file.write_text("".join(f"{k}={v}\n" for k, v in VALUES.items()))
    environ = {k: v for k, v in os.environ.items() if k not in VALUES}
    base = [*cli, "--project-directory", str(ROOT), "-f", str(COMPOSE)]
    ok = subprocess.run(
        [*base, "--env-file", str(env_file), "config"],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    resolved = yaml.safe_load(ok.stdout)
    assert resolved["services"]["gateway"]["command"][:2] == ["parlour", "gateway"]
    empty = tmp_path / "empty"
    empty.write_text("")
    missing = subprocess.run(
        [*base, "--env-file", str(empty), "config"],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=False,
    )
    assert missing.returncode != 0
    assert "POSTGRES_PASSWORD" in missing.stderr or "PARLOUR_WORKER_TOKEN" in missing.stderr
    # the nats profile adds the NATS service, and the replicas take PARLOUR_NOTIFY from .env
    env_file.write_text(env_file.read_text() + "PARLOUR_NOTIFY=nats://nats:4222\n")
    with_nats = subprocess.run(
        [*base, "--env-file", str(env_file), "--profile", "nats", "config"],
        capture_output=True,
        text=True,
        env=environ,
        timeout=60,
        check=False,
    )
    assert with_nats.returncode == 0, with_nats.stderr
    services = yaml.safe_load(with_nats.stdout)["services"]
    assert services["nats"]["image"].startswith("nats:")
    for name in ("game-1", "game-2"):
        assert services[name]["environment"]["PARLOUR_NOTIFY"] == "nats://nats:4222"


def test_argparse_sees_no_secret_flag() -> None:
    """No subcommand that the deployment runs takes a secret on its command line."""
    from parlour.cli import build_parser

    for command in ("serve", "worker", "gateway", "migrate", "health"):
        parser, _ = build_parser(command)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[
            command
        ]
        flags = {flag for action in sub._actions for flag in action.option_strings}
        assert not {f for f in flags if re.search(r"token$|password$", f)}, (command, flags)


def test_the_readme_deploy_section_names_every_service_variable_and_metric() -> None:
    readme = (ROOT / "README.md").read_text()
    deploy = readme[readme.index("## Deploy") : readme.index("## Replay")]
    for name in compose()["services"]:
        assert f"`{name}`" in deploy, f"README's Deploy section does not describe {name}"
    text = COMPOSE.read_text()
    variables = set(re.findall(r"\$\{(\w+)", text)) | set(re.findall(r"(PARLOUR_\w+):", text))
    for name in variables:
        assert name in deploy, f"README's Deploy section does not name {name}"
    source = "\n".join(p.read_text() for p in (ROOT / "services/parlour").rglob("*.py"))
    metrics = set(re.findall(r"`(parlour_[a-z_]+)", deploy))
    assert len(metrics) >= 10
    for metric in metrics:
        base = metric.removesuffix("_total")
        assert f'"{base}"' in source, f"README names a metric {metric} that nothing exports"
    assert "http://localhost:8080/" in deploy and "/metrics" in deploy


def test_env_example_names_the_tls_folder_the_compose_file_and_readme_use() -> None:
    example = re.search(r"^# ?PARLOUR_TLS_DIR=(\S+)", (ROOT / ".env.example").read_text(), re.M)
    assert example, ".env.example does not show PARLOUR_TLS_DIR"
    defaults = set(re.findall(r"\$\{PARLOUR_TLS_DIR:-([^}]+)\}", COMPOSE.read_text()))
    assert defaults == {example.group(1)}
    folder = example.group(1).removeprefix("./")
    assert (ROOT / folder).is_dir()
    assert f"`{folder}/`" in (ROOT / "README.md").read_text()
