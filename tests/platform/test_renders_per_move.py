"""What publishing a move renders (issue 18): each changed public region once, each private region
once per distinct thing it shows, and nothing for a region whose inputs did not change.

A whole bot game of each game at its largest player count, every seat and the spectators looking
after every move, sharing one ``RegionCache`` as a room's tabs do.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from app.games.registry import ENGINES
from app.web.render import RegionCache, Table, public_regions, render_regions, seat_context

# Renders per move through a whole game (5 seats and the spectators), measured with a margin: they
# were 11.7 (Q.E.), 11.4 (Basari), 12.8 (Tulip Bubble) and 19.2 (Tulipmania) before the status was
# shared between the seats and the private regions read the seat's own entry (``view.you``).
RENDERS_PER_MOVE = {"qe": 10.5, "basari": 9.5, "tulip-bubble": 9.5, "tulipmania-1637": 11.5}


def _table(game: str, players: int, seat: int | None, to_act: list[int]) -> Table:
    seats = [
        {"seat": n, "name": f"P{n}", "is_host": n == 0, "connected": True, "is_you": n == seat}
        for n in range(players)
    ]
    return Table("x", game, "playing", seats, to_act, None, None, players)


def _whole_game(game: str) -> tuple[int, Counter[str], list[str]]:
    """(moves, renders per region, the steps where a status was rendered more often than the
    viewers have distinct statuses)."""
    engine = ENGINES[game]
    players = engine.info.max_players
    state = engine.setup(players, {}, 7)
    rng = random.Random(11)
    cache = RegionCache()
    unshared = []
    moves = 0
    legal: dict[int | None, list[dict[str, object]]] = {}
    legal_versions: Counter[int | None] = Counter()  # a seat's forms name it: it moves with its legal actions
    while engine.result(state) is None:
        core = {**state, "events": []}
        before = cache.renders_of["status"]
        statuses = set()
        for seat in [None, *range(players)]:
            actions = engine.legal_actions(core, seat) if seat is not None else []
            if legal.get(seat) != actions:
                legal[seat], legal_versions[seat] = actions, moves
            table = _table(game, players, seat, engine.to_act(core))
            context = seat_context(engine, core, seat, table, "en", actions, legal_versions[seat])
            statuses.add(render_regions(engine, context, "playing", "en", cache)["status"])
        if cache.renders_of["status"] - before > len(statuses):
            unshared.append(
                f"move {moves}: {cache.renders_of['status'] - before} renders, {len(statuses)} statuses"
            )
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))
        moves += 1
    return moves, cache.renders_of, unshared


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_move_renders_few_regions_and_viewers_who_see_the_same_status_share_it(game: str) -> None:
    moves, renders, unshared = _whole_game(game)
    assert not unshared  # the seats not to act read nothing that names them
    for region in public_regions(ENGINES[game]):
        assert renders[region] <= moves + 1, region  # once per change at most, whoever looks
    assert sum(renders.values()) / moves <= RENDERS_PER_MOVE[game], dict(renders)
