"""Bots: two strengths that play as their names promise, decisions made from the seat's view only, and
the simulator (``app/simulate.py``) checking every position of every game.

The strength figures are for fixed seeds, so the asserted margins are stable; the runs here are small
to keep CI quick. BENCHMARKS.md ("Bots and the simulator") has the 300-game figures and the command.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from app import simulate
from app.bots import fits, safe_decision
from app.games.base import (
    Budget,
    ModuleEngine,
    State,
    random_bot_action,
    random_legal_action,
    view_without_log,
)
from app.games.registry import ENGINES, checks_of

GAMES = sorted(ENGINES)
STRENGTH_GAMES = 200  # per game and pairing: "a few hundred" games, 5-35 s a game here


@pytest.mark.parametrize("game", GAMES)
def test_normal_beats_easy_clearly(game: str) -> None:
    summary = simulate.simulate(game, 4, STRENGTH_GAMES, ["normal", "easy"], seed=1, check=False)
    rates = summary.by_kind()
    print(summary.report())
    assert rates["normal"].mean > rates["easy"].mean + 0.08, summary.report()
    assert rates["normal"].mean > 0.25  # better than a fair share at a table of four


@pytest.mark.parametrize("game", GAMES)
def test_easy_beats_the_random_legal_bot(game: str) -> None:
    summary = simulate.simulate(game, 4, STRENGTH_GAMES, ["easy", "random"], seed=1, check=False)
    rates = summary.by_kind()
    print(summary.report())
    assert rates["easy"].mean > rates["random"].mean + 0.15, summary.report()


def positions(game: str, players: int, seed: int, every: int = 3) -> list[tuple[State, int]]:
    """Positions of a game of random legal moves, with a seat the game waits for."""
    engine = ENGINES[game]
    state = engine.setup(players, {}, seed)
    rng = random.Random(seed)
    found = []
    step = 0
    while not state["finished"] and step < 600:
        seat = engine.to_act(state)[0]
        if step % every == 0:
            found.append((state, seat))
        state = engine.apply(state, seat, random_bot_action(engine, state, seat, rng))
        step += 1
    return found


@pytest.mark.parametrize("game", GAMES)
def test_a_bot_decides_the_same_from_its_view_alone_and_whatever_others_hide(game: str) -> None:
    """The same decision whether the harness derives the view from the full state or the bot gets a
    stored copy of the view, and when another seat's secrets (and the deck orders) are changed."""
    engine = ENGINES[game]
    checked = 0
    for players in (3, 5):
        for state, seat in positions(game, players, seed=players):
            for strength in ("easy", "normal"):
                from_state = engine.bot_action(state, seat, random.Random(7), strength)
                stored_view = json.loads(json.dumps(engine.view(state, seat)))
                legal = engine.legal_actions(state, seat)
                from_view = engine.decide(stored_view, seat, legal, random.Random(7), strength)
                assert from_view == from_state
                for owner in range(players):
                    disguised, changed = checks_of(game).disguise(state, owner, random.Random(owner))
                    if seat in changed:
                        continue
                    assert engine.bot_action(disguised, seat, random.Random(7), strength) == from_state
                checked += 1
    assert checked > 50


@pytest.mark.parametrize("game", GAMES)
def test_the_bot_is_never_handed_the_state(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call into the game's bot carries that seat's view and nothing of the state's own."""
    engine = ENGINES[game]
    assert isinstance(engine, ModuleEngine)  # every game's engine is one (make_engine)
    bot = engine._bot  # noqa: SLF001 - the module behind the engine, spied on
    received: list[tuple[Any, ...]] = []
    real = bot.bot_action

    def spy(*args: Any) -> Any:
        received.append(args)
        return real(*args)

    monkeypatch.setattr(bot, "bot_action", spy)
    for state, seat in positions(game, 4, seed=11, every=5):
        received.clear()
        engine.bot_action(state, seat, random.Random(1), "normal")
        (view, given_seat, legal, _rng, strength, budget) = received[0]
        assert view == view_without_log(engine, state, seat) and given_seat == seat
        assert "seed" not in view and "rng_step" not in view  # the state's own fields
        assert legal == engine.legal_actions(state, seat)
        assert strength == "normal" and isinstance(budget, Budget)


@pytest.mark.parametrize("game", GAMES)
def test_a_bot_is_handed_the_seats_view_without_the_log_and_decides_the_same(game: str) -> None:
    """What a bot gets is the seat's full view (the engine's redaction) but for the game log, which no
    bot reads and which grows with the game; from the full view it decides the same."""
    engine = ENGINES[game]
    for state, seat in positions(game, 4, seed=5, every=6):
        full = engine.view(state, seat)
        light = view_without_log(engine, state, seat)
        assert full["events"] and light["events"] == []
        assert {**full, "events": []} == light
        legal = engine.legal_actions(state, seat)
        for strength in ("easy", "normal"):
            assert engine.decide(full, seat, legal, random.Random(4), strength) == engine.decide(
                light, seat, legal, random.Random(4), strength
            )


@pytest.mark.parametrize("game", GAMES)
def test_bots_of_both_strengths_play_only_fitting_moves(game: str) -> None:
    engine = ENGINES[game]
    for state, seat in positions(game, 4, seed=3, every=4):
        for strength in ("easy", "normal"):
            action = engine.bot_action(state, seat, random.Random(2), strength)
            assert fits(action, engine.legal_actions(state, seat)), action
            engine.apply(state, seat, action)  # accepted


class BrokenBot:
    """An engine whose bot always fails: the guard must still give a legal move."""

    def __init__(self, game: str) -> None:
        self.engine = ENGINES[game]

    def decide(self, *args: Any) -> Any:
        raise RuntimeError("bot bug")

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)


def test_a_failing_bot_costs_a_random_legal_move_not_the_table() -> None:
    broken = BrokenBot("qe")
    state = broken.engine.setup(4, {}, 1)
    seat = broken.engine.to_act(state)[0]
    legal = broken.engine.legal_actions(state, seat)
    action = safe_decision(broken, broken.engine.view(state, seat), seat, legal, random.Random(1))
    assert action == random_legal_action(legal, random.Random(1))
    broken.engine.apply(state, seat, action)


class SlowBot(BrokenBot):
    """A bot that thinks far past its budget."""

    def decide(self, *args: Any) -> Any:
        time.sleep(3)
        return {"type": "nothing"}


def test_a_bot_over_its_time_budget_costs_a_random_legal_move_not_a_stalled_table() -> None:
    slow = SlowBot("qe")
    state = slow.engine.setup(4, {}, 1)
    seat = slow.engine.to_act(state)[0]
    legal = slow.engine.legal_actions(state, seat)
    started = time.monotonic()
    action = safe_decision(
        slow,
        slow.engine.view(state, seat),
        seat,
        legal,
        random.Random(1),
        budget=Budget(seconds=0.1),
    )
    assert time.monotonic() - started < 1, "the table did not wait for the bot"
    assert action == random_legal_action(legal, random.Random(1))
    slow.engine.apply(state, seat, action)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_the_simulator_checks_every_position_with_no_failure(game: str, players: int) -> None:
    summary = simulate.simulate(game, players, 1, ["normal", "easy", "random"], seed=players)
    assert not summary.failures, summary.failures
    assert summary.records[0].winners


def test_the_simulator_exits_non_zero_on_a_broken_invariant(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["--game", "qe", "--players", "3", "--games", "1", "--bots", "easy,random"]
    assert simulate.main(args) == 0
    monkeypatch.setattr(checks_of("qe"), "invariants", lambda state: ["money from nowhere"])
    assert simulate.main(args) == 1
    out = capsys.readouterr().out
    assert "FAILED" in out and "money from nowhere" in out and "easy" in out and "±" in out


def test_same_seed_same_games() -> None:
    first = simulate.simulate("basari", 3, 2, ["normal", "easy"], seed=5, check=False)
    again = simulate.simulate("basari", 3, 2, ["normal", "easy"], seed=5, check=False)
    assert [(r.winners, r.actions) for r in first.records] == [(r.winners, r.actions) for r in again.records]
