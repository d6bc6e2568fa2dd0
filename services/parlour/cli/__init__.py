"""The ``parlour`` command: one subcommand per module.

Each subcommand lives in its own module exposing ``add_arguments(parser)``
and ``run(args) -> int``; to add one, add a line to :data:`COMMANDS`. The
options several commands share (database URL, TLS, logging, metrics, secrets)
are defined once, in :mod:`parlour.cli.options`. Only the chosen subcommand's
module is imported, so ``parlour serve`` does not load the terminal client
and ``parlour --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Command:
    name: str
    module: str
    help: str


#: Every subcommand, in the order ``parlour --help`` lists them.
COMMANDS: tuple[Command, ...] = (
    Command("serve", "parlour.cli.serve", "run a game service (gRPC)"),
    Command("migrate", "parlour.cli.migrate", "bring the database schema up to date"),
    Command("worker", "parlour.cli.worker", "run an AI worker that plays the bot seats"),
    Command("selfplay", "parlour.cli.selfplay", "measure the computer opponents against baselines"),
    Command("export", "parlour.cli.export", "write a table's event log as JSON lines"),
    Command("replay", "parlour.cli.replay", "rebuild a game from its log, hand by hand"),
    Command("fork", "parlour.cli.fork", "start a new table from any point of a game"),
    Command("ratings", "parlour.cli.ratings", "show the ratings, or --rebuild them from the log"),
    Command("play", "parlour.cli.play", "play in the terminal (lobby, tables, bots)"),
    Command("gateway", "parlour.cli.gateway", "serve the REST/JSON gateway and browser client"),
    Command("health", "parlour.cli.health", "exit 0 if a game service (or an HTTP URL) answers"),
    # `make run` calls this one; the module may not exist in every build.
    Command("demo", "parlour.cli.demo", "start a local game against computer opponents"),
)


def _load(command: Command) -> ModuleType | None:
    """The command's module, or None if this build does not have it."""
    try:
        return importlib.import_module(command.module)
    except ModuleNotFoundError as missing:
        if missing.name is not None and command.module.startswith(missing.name):
            return None  # the module itself is absent (not something it imports)
        raise


def build_parser(chosen: str | None) -> tuple[argparse.ArgumentParser, ModuleType | None]:
    """The parser, with the full options of ``chosen`` only (the others show their help)."""
    parser = argparse.ArgumentParser(
        prog="parlour", description="Parlour: Wizard, Crazy 8s, Kaiser and Hearts over gRPC."
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    module = None
    for command in COMMANDS:
        # no abbreviations: "--worker-token T" must not pass as "--worker-token-file T"
        sub = commands.add_parser(
            command.name, help=command.help, description=command.help, allow_abbrev=False
        )
        if command.name == chosen:
            module = _load(command)
            if module is not None:
                module.add_arguments(sub)
    return parser, module


def quiet_grpc_core_for_json_logs(args_in: Sequence[str]) -> None:
    """With ``--log-json`` (or ``$PARLOUR_LOG_JSON``), silence gRPC's C core.

    The C core writes its own plain-text lines straight to stderr (a failed TLS
    handshake, for one), past Python's logging, and grpcio offers no hook to
    route them; ``GRPC_VERBOSITY=NONE`` silences them, and it is read when grpc is
    first imported, so it is set here, before any subcommand's module loads. An
    operator's own ``GRPC_VERBOSITY`` is kept.
    """
    json_logs = "--log-json" in args_in or os.environ.get("PARLOUR_LOG_JSON", "") not in (
        "",
        "0",
        "false",
    )
    if json_logs:
        os.environ.setdefault("GRPC_VERBOSITY", "NONE")


def main(argv: Sequence[str] | None = None) -> int:
    args_in = list(sys.argv[1:] if argv is None else argv)
    quiet_grpc_core_for_json_logs(args_in)
    chosen = next((arg for arg in args_in if not arg.startswith("-")), None)
    parser, module = build_parser(chosen)
    args = parser.parse_args(args_in)
    if module is None:
        parser.error(f"'parlour {args.command}' is not available in this build")
    return int(module.run(args) or 0)
