"""Every registered engine keeps the platform's contract (app/games/base.py) through whole games."""

from __future__ import annotations

import copy
import json
import random

import pytest

from app.games.base import Engine, IllegalAction
from app.games.registry import ENGINES, checks_of
from app.web.render import render_seat_html

CASES = [
    (game_id, players)
    for game_id, engine in sorted(ENGINES.items())
    for players in range(engine.info.min_players, engine.info.max_players + 1)
]
MAX_STEPS = 5000


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_a_bot_game_keeps_the_contract(game_id: str, players: int) -> None:
    engine: Engine = ENGINES[game_id]
    seed = 424242 + players
    state = engine.setup(players, {}, seed)
    assert state == engine.setup(players, {}, seed), "set-up must depend only on the seed"
    rng = random.Random(seed)
    seed_text = str(seed)
    for step in range(MAX_STEPS):
        assert json.loads(json.dumps(state)) == state, "state must be plain JSON data"
        if step % 25 == 0 or engine.result(state) is not None:
            check_views_and_pages(engine, state, seed_text, full=step % 100 == 0)
        if engine.result(state) is not None:
            break
        waiting = engine.to_act(state)
        assert waiting, "a running game waits for someone"
        seat = rng.choice(waiting)
        assert engine.legal_actions(state, seat), f"seat {seat} is awaited but has no legal action"
        before = copy.deepcopy(state)
        action = engine.bot_action(state, seat, rng)
        assert state == before, "bot_action must not change the state"
        state = engine.apply(state, seat, json.loads(json.dumps(action)))
        assert before == copy.deepcopy(before)
    else:
        pytest.fail(f"{game_id} with {players} players did not end in {MAX_STEPS} steps")
    result = engine.result(state)
    assert result is not None and result.winners and len(result.scores) == players
    assert engine.to_act(state) == []


def check_views_and_pages(engine: Engine, state: dict, seed_text: str, full: bool) -> None:
    for seat in [None, *range(state["players"])]:
        view = engine.view(state, seat)
        dumped = json.dumps(view)
        assert '"seed"' not in dumped and '"rng_step"' not in dumped, "a view must not carry the RNG seed"
        for locale in ("en", "zh_Hant", "zh_Hans") if full else ("en",):
            html = render_seat_html(engine, state, seat, locale=locale)
            assert seed_text not in html


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_apply_opens_with_the_shared_refusals(game_id: str) -> None:
    """``base.open_apply``: no action object, no seat at the table, or a finished game is refused,
    and the state is untouched."""
    engine = ENGINES[game_id]
    state = engine.setup(engine.info.min_players, {}, 1)
    before = copy.deepcopy(state)
    seat = engine.to_act(state)[0]
    action = engine.bot_action(state, seat, random.Random(1))
    refused = [
        (seat, "bid"),
        (seat, None),
        (engine.info.min_players, action),
        (-1, action),
        (True, action),
        (str(seat), action),
    ]
    for who, what in refused:
        with pytest.raises(IllegalAction):
            engine.apply(state, who, what)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="^That is not an action.$"):
        engine.apply(state, seat, ["bid"])  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="^The game is over.$"):
        engine.apply({**state, "finished": True}, seat, action)
    assert state == before


@pytest.mark.parametrize("game_id", sorted(ENGINES))
def test_every_game_has_checks_that_pass_at_the_start(game_id: str) -> None:
    """The simulator and the tests find a game's invariants and disguise through the registry."""
    engine = ENGINES[game_id]
    state = engine.setup(engine.info.max_players, {}, 2)
    assert checks_of(game_id).invariants(state) == []
    disguised, changed = checks_of(game_id).disguise(state, 0, random.Random(0))
    assert 0 in changed and disguised != state
