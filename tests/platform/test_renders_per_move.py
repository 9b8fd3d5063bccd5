"""What publishing a move renders (issue 18): each changed public region once, each private region
once per distinct thing it shows, and nothing for a region whose inputs did not change.

A whole bot game of each game at its largest player count, every seat and the spectators looking
after every move, sharing one ``RegionCache`` as a room's tabs do.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from jinja2 import DictLoader

from app.games.registry import ENGINES
from app.web.render import (
    RegionCache,
    Table,
    environment,
    public_regions,
    render_regions,
    seat_context,
)
from tests.support import people_table

# Renders per move through a whole game (5 seats and the spectators), measured with a margin: they
# were 11.7 (Q.E.), 11.4 (Basari), 12.8 (Tulip Bubble) and 19.2 (Tulipmania) before the status was
# shared between the seats and the private regions read the seat's own entry (``view.you``), and
# 9.06, 8.26, 7.64 and 10.67 before the table was read field by field (8.55, 8.21, 7.16, 10.26), and
# those before a seat with nothing to decide shared the spectators' status (7.72, 7.64, 6.17, 9.81),
# then 7.16, 7.51, 5.89 and 9.83 once the page marked whose turn it is (the turn's own one-line region
# included: the seats and the players' boards are no longer drawn again each time the turn passes),
# and Q.E. 6.65 once it also marked which sealed bids are handed in. Tulip Bubble's market became six
# regions (7.29), so a move sends only the parts it changed: a row's change draws the other two rows'
# small regions again too (the view's rows are one list), the same bytes, not sent.
RENDERS_PER_MOVE = {"qe": 7.0, "basari": 7.8, "tulip-bubble": 7.6, "tulipmania-1637": 10.2}


def _whole_game(game: str) -> tuple[int, Counter[str], list[str], int]:
    """(moves, renders per region, the steps where a status was rendered more often than the
    viewers have distinct statuses, the steps where a seat not to act had the spectators' status)."""
    engine = ENGINES[game]
    players = engine.info.max_players
    state = engine.setup(players, {}, 7)
    rng = random.Random(11)
    cache = RegionCache(plain=False)  # what the cache does, whichever mode the tests run in
    unshared = []
    shared_with_spectators = 0
    moves = 0
    legal: dict[int | None, list[dict[str, object]]] = {}
    legal_versions: Counter[int | None] = Counter()  # a seat's forms name it: it moves with its legal actions
    while engine.result(state) is None:
        core = {**state, "events": []}
        before = cache.renders_of["status"]
        statuses = set()
        spectators = ""
        for seat in [None, *range(players)]:
            actions = engine.legal_actions(core, seat) if seat is not None else []
            if legal.get(seat) != actions:
                legal[seat], legal_versions[seat] = actions, moves
            table = people_table(game, players, seat, engine.to_act(core))
            context = seat_context(engine, core, seat, table, "en", actions, legal_versions[seat])
            status = render_regions(engine, context, "playing", "en", cache)["status"]
            statuses.add(status)
            if seat is None:
                spectators = status
            elif status == spectators and seat not in table.to_act:
                shared_with_spectators += 1
                spectators = ""  # counted once a step
        if cache.renders_of["status"] - before > len(statuses):
            unshared.append(
                f"move {moves}: {cache.renders_of['status'] - before} renders, {len(statuses)} statuses"
            )
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))
        moves += 1
    return moves, cache.renders_of, unshared, shared_with_spectators


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_move_renders_few_regions_and_viewers_who_see_the_same_status_share_it(game: str) -> None:
    moves, renders, unshared, shared_with_spectators = _whole_game(game)
    assert not unshared  # the seats not to act read nothing that names them
    # ... nor, where they have nothing of their own to be told, anything that tells them from a
    # spectator ("You are watching" is the page's to show: bourse.css)
    assert shared_with_spectators > moves / 10
    for region in public_regions(ENGINES[game]):
        assert renders[region] <= moves + 1, region  # once per change at most, whoever looks
    assert sum(renders.values()) / moves <= RENDERS_PER_MOVE[game], dict(renders)


def test_a_region_depends_on_the_fields_of_the_table_it_reads_not_on_the_whole_table() -> None:
    env = environment("en").overlay(
        loader=DictLoader(
            {
                "code.html": "{{ table.code }} {{ table.status }} {{ table.name_of(1) }}",
                "turn.html": "{{ table.to_act }}",
                "result.html": "{{ table.result.winners if table.result else '' }}",
            }
        )
    )
    cache = RegionCache(plain=False)  # what the cache does, whichever mode the tests run in
    qe = ENGINES["qe"]

    def draw(template: str, table: Table) -> str:
        return cache.region(env, template, template, seat_context(qe, None, None, table, "en"), "en").decode()

    first = people_table("qe", 3, None, [0])
    assert [draw(name, first) for name in ("code.html", "turn.html", "result.html")] == [
        "x playing P1",
        "[0]",
        "",
    ]
    assert cache.renders == 3
    moved = people_table("qe", 3, None, [1])  # whose turn it is: only what reads it is drawn again
    assert (draw("code.html", moved), draw("turn.html", moved), draw("result.html", moved)) == (
        "x playing P1",
        "[1]",
        "",
    )
    assert cache.renders == 4
    renamed = people_table("qe", 3, None, [1])
    renamed.players[1]["name"] = "Ada"  # ``name_of`` reads the players
    assert draw("code.html", renamed) == "x playing Ada" and cache.renders == 5
    over = people_table("qe", 3, None, [])
    over.result = {"winners": [2], "scores": [1, 2, 3]}
    assert draw("result.html", over) == "[2]" and cache.renders == 6
    over.result = {"winners": [2], "scores": [3, 2, 1]}  # a field read path by path: not the scores
    assert draw("result.html", over) == "[2]" and cache.renders == 6
