"""Ratings (issue 31): OpenSkill's Plackett-Luce, one rating per game and subject, as a
projection of the event log. The rules are docs/ratings.md's; in short:

* a subject is an account ("account:<id>") or a bot level ("bot:<game>:<level>");
  a seat is its account's when a signed-in person took it (whoever played its
  moves while the person was away: SeatAway/SeatReturned change nothing), its
  bot level's when it was hosted as a bot, nobody's otherwise (a person
  without an account: left out, the others keep their order);
* Kaiser is two teams (seats 0 and 2, seats 1 and 3), every other game every
  seat for itself; the winners rank first, the others by their totals (the
  game's own direction: Hearts' lowest is best), equal totals tie;
* a finished game is rated; an abandoned game is rated on the scores as they
  stood, unless every score is equal (nothing to order); a forked table is
  never rated (it began from a position someone chose); fewer than two rated
  sides: not rated;
* one bot level at several seats of a table is rated at each from the same
  rating, and takes the mean of the new ones;
* games are rated in the order they ended (the ending event's time, then the
  table id): live, as each ends (:meth:`Ratings.game_ended`, called by the
  unit of work once a game's end is committed), and from the whole log by
  :meth:`Ratings.rebuild`, which gives the same numbers.

:func:`outcome` reads one table's events; the live path and the rebuild both
rate with :func:`rerate`, so they cannot differ.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from openskill.models import PlackettLuce

from parlour.engine.registry import all_games, get_game
from parlour.engine.results import WinnerRule
from parlour.service.app import paging
from parlour.service.domain.errors import BadRequest, shorten
from parlour.service.domain.events import (
    GameAbandoned,
    GameFinished,
    SeatLeft,
    SeatRemoved,
    SeatTaken,
    TableHosted,
    decode,
)
from parlour.service.domain.statuses import SeatKind
from parlour.service.store.protocol import (
    ABANDONED,
    FINISHED,
    EventStore,
    HomeStore,
    RatingRow,
    ResultRow,
    SeatRow,
    StoredEvent,
    TableRow,
    subject_of_account,
    subject_of_bot,
)

log = logging.getLogger("parlour.service.app.ratings")

#: fewer rated games than this: the rating is shown as provisional
PROVISIONAL_GAMES = 10

_MODEL = PlackettLuce()
_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Outcome:
    """An ended table as the ratings see it."""

    result: ResultRow
    #: the rated sides, each its seats' subjects (seat order), and each side's rank
    #: (1 = best; equal ranks tie)
    sides: tuple[tuple[str, ...], ...] = ()
    ranks: tuple[int, ...] = ()

    @property
    def subjects(self) -> list[str]:
        return sorted({subject for side in self.sides for subject in side})


def provisional(row: RatingRow) -> bool:
    return row.games < PROVISIONAL_GAMES


def outcome(events: Sequence[StoredEvent]) -> Outcome | None:
    """The outcome of a table's log, or None if it has not ended."""
    hosted: TableHosted | None = None
    accounts: dict[int, str] = {}
    for stored in events:
        event = decode(stored)
        match event:
            case TableHosted():
                hosted = event
            case SeatTaken(seat=seat, account_id=account_id):
                if account_id:
                    accounts[seat] = account_id
                else:
                    accounts.pop(seat, None)
            case SeatLeft(seat=seat) | SeatRemoved(seat=seat):
                accounts.pop(seat, None)
            case (
                GameFinished(scores=scores, winners=winners)
                | GameAbandoned(scores=scores, winners=winners)
            ):
                if hosted is None:
                    return None
                ending = FINISHED if isinstance(event, GameFinished) else ABANDONED
                return _outcome(hosted, accounts, stored, ending, scores, winners)
            case _:
                pass
    return None


def _outcome(
    hosted: TableHosted,
    accounts: Mapping[int, str],
    ending_event: StoredEvent,
    ending: str,
    scores: tuple[int, ...],
    winners: tuple[int, ...],
) -> Outcome:
    game = hosted.game
    result = ResultRow(
        ending_event.table_id, game, ending, ending_event.created_at, scores, winners, False
    )
    if hosted.forked_from or len(scores) != hosted.seats:
        return Outcome(result)
    if ending == ABANDONED and len(set(scores)) <= 1:
        return Outcome(result)

    def subject(seat: int) -> str | None:
        kinds = hosted.seat_kinds
        if seat < len(kinds) and kinds[seat] == SeatKind.BOT:
            level = hosted.bot_levels[seat] if seat < len(hosted.bot_levels) else ""
            return subject_of_bot(game, level or "default")
        account = accounts.get(seat)
        return subject_of_account(account) if account else None

    seats = range(hosted.seats)
    groups = [[0, 2], [1, 3]] if game == "kaiser" and hosted.seats == 4 else [[s] for s in seats]
    lowest_best = get_game(game).end_rule.winner is WinnerRule.LOWEST_TOTAL
    won = set(winners)
    sides: list[tuple[str, ...]] = []
    keys: list[tuple[int, int]] = []
    for group in groups:
        members = tuple(name for name in (subject(seat) for seat in group) if name is not None)
        if not members:
            continue
        score = scores[group[0]]
        sides.append(members)
        # winners first, then by total in the game's direction
        keys.append((0 if won & set(group) else 1, score if lowest_best else -score))
    if len(sides) < 2:
        return Outcome(result)
    ranks = tuple(1 + sum(1 for other in keys if other < key) for key in keys)
    return Outcome(replace(result, rated=True), tuple(sides), ranks)


def rerate(found: Outcome, now: Mapping[str, RatingRow]) -> list[RatingRow]:
    """The new ratings of the outcome's subjects, from ``now`` (every subject in it)."""
    if not found.sides:
        return []
    game = found.result.game
    teams = [
        [_MODEL.rating(mu=now[subject].mu, sigma=now[subject].sigma) for subject in side]
        for side in found.sides
    ]
    rated = _MODEL.rate(teams, ranks=list(found.ranks))
    new: dict[str, list[tuple[float, float]]] = {}
    for side, team in zip(found.sides, rated, strict=True):
        for subject, player in zip(side, team, strict=True):
            new.setdefault(subject, []).append((player.mu, player.sigma))
    rows = []
    for subject in sorted(new):
        values = new[subject]
        mu = sum(value[0] for value in values) / len(values)
        sigma = sum(value[1] for value in values) / len(values)
        rows.append(RatingRow(game, subject, mu, sigma, now[subject].games + 1))
    return rows


class Ratings:
    """The rating projection: each game rated as it ends, the whole log on a rebuild."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.home: HomeStore = store.home
        self._lock = asyncio.Lock()

    async def game_ended(self, table_id: str) -> bool:
        """Record the table's result and move the ratings (once; True if this call did).
        A failure is logged and left to the next rebuild: a game's end never fails for it."""
        try:
            found = outcome(await self.store.read(table_id))
            if found is None:
                return False
            async with self._lock:
                return await self.home.record(
                    found.result, found.subjects, lambda now: rerate(found, now)
                )
        except Exception:
            log.exception("rating %s failed (`parlour ratings --rebuild` repairs it)", table_id)
            return False

    async def rebuild(self) -> tuple[int, int]:
        """Recompute every result and rating from the log; (games ended, games rated)."""
        outcomes = []
        for table_id in await self.home.ended_tables():
            found = outcome(await self.store.read(table_id))
            if found is not None:
                outcomes.append(found)
        outcomes.sort(key=lambda found: (found.result.ended_at, found.result.table_id))
        ratings: dict[tuple[str, str], RatingRow] = {}
        for found in outcomes:
            game = found.result.game
            now = {
                subject: ratings.get((game, subject), RatingRow(game, subject))
                for subject in found.subjects
            }
            for row in rerate(found, now):
                ratings[(game, row.subject)] = row
        async with self._lock:
            await self.home.replace_all(
                [found.result for found in outcomes], [ratings[key] for key in sorted(ratings)]
            )
        return len(outcomes), sum(1 for found in outcomes if found.sides)


class Leaderboard:
    """A game's ratings in pages, best first. A page token is the signed offset of the
    next page (``paging.Pager``), scoped to the game and whether bots are listed."""

    def __init__(self, home: HomeStore, pager: paging.Pager) -> None:
        self.home = home
        self.pager = pager

    async def page(
        self, game: str, *, include_bots: bool = False, page_size: int = 0, page_token: str = ""
    ) -> tuple[list[RatingRow], int, str]:
        """(the ratings, the 1-based rank of the first, the next page's token)."""
        if game not in {info.id for info in all_games()}:
            raise BadRequest(f"no game {shorten(game)}: leaderboards are per game")
        size = paging.page_size(page_size)
        scope = f"board:{game}:{int(include_bots)}"
        after = self.pager.decode(page_token, scope)
        offset = int(after.key) if after else 0
        rows = await self.home.leaderboard(
            game, include_bots=include_bots, offset=offset, limit=size + 1
        )
        token = ""
        if len(rows) > size:
            token = self.pager.encode(paging.Cursor(_EPOCH, str(offset + size)), scope)
        return rows[:size], offset + 1, token

    async def of_table(self, table: TableRow) -> list[RatingRow | None]:
        """Each seat's rating at the table (None: a free seat, a person without an
        account, or a subject not rated yet in this game)."""
        return (await self.of_tables([table]))[0]

    async def of_tables(self, tables: Sequence[TableRow]) -> list[list[RatingRow | None]]:
        """:meth:`of_table` for each table, with one ratings query per game."""
        subjects = [
            [_seat_subject(table.game, seat) for seat in table.seat_rows] for table in tables
        ]
        wanted: dict[str, set[str]] = {}
        for table, names in zip(tables, subjects, strict=True):
            wanted.setdefault(table.game, set()).update(name for name in names if name)
        found = {
            game: await self.home.ratings(game, sorted(names)) for game, names in wanted.items()
        }
        return [
            [found[table.game].get(name) if name else None for name in names]
            for table, names in zip(tables, subjects, strict=True)
        ]


def _seat_subject(game: str, seat: SeatRow) -> str | None:
    """Whose rating a seat shows: its bot level's, its account's, or nobody's."""
    if seat.kind == SeatKind.BOT:
        return subject_of_bot(game, seat.bot_level or "default")
    if seat.account_id:
        return subject_of_account(seat.account_id)
    return None
