"""The deployment files parse and point at things that exist."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_docker_compose_parses_and_builds_from_the_dockerfile() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"postgres", "migrate", "game-1", "game-2", "worker"} <= set(services)
    build = services["migrate"]["build"]
    assert (ROOT / build["context"] / build["dockerfile"]).is_file()


def test_every_parlour_command_in_compose_is_a_cli_subcommand() -> None:
    from parlour.cli import build_parser

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    commands = [s["command"] for s in compose["services"].values() if "command" in s]
    assert commands
    for command in commands:
        assert command[0] == "parlour"
        parser, module = build_parser(command[1])
        assert module is not None, f"parlour {command[1]} does not exist"
        parser.parse_args(command[1:])  # SystemExit on an unknown flag
