"""The strong bot: worlds built from one seat's view only, and a search that keeps to its budget.

Each game's ``determinize`` (``app/games/<pkg>/determinize.py``) is handed the seat's view, never the
state: the world it builds must show that seat exactly that view (the same legal actions, no broken
invariant), and it must not change when another seat's secrets change (the game's ``checks.disguise``:
the seat's view is then the same, so this holds as long as nothing but the view reaches the draw).
BENCHMARKS.md ("Bots and the simulator") has the strength figures and their commands.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import json
import random

import pytest

from app import simulate
from app.bots import Thought, fits, safe_decision
from app.bots.search import (
    FLOOR_ROUNDS,
    LATENCY_SHARE,
    MAX_CANDIDATES,
    THINK_SHARE,
    Candidate,
    Clocks,
    best_mean,
    candidate_actions,
    clearly_better,
    drawn_by_mean,
    outcome_value,
    playout,
    strong_action,
)
from app.games.base import Budget, Result, SearchHooks, view_without_log
from app.games.registry import ENGINES, checks_of, determinizer_of, search_hooks_of
from tests.bots.test_bots import positions

GAMES = sorted(ENGINES)
SEARCH = Budget(seconds=30, iterations=6)  # few playouts, and a clock that never cuts them


def _plain(view: dict) -> str:
    return json.dumps(view, sort_keys=True)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("players", [3, 4, 5])
def test_a_world_drawn_from_a_view_shows_the_seat_that_view(game: str, players: int) -> None:
    engine, determinize, checks = ENGINES[game], determinizer_of(game), checks_of(game)
    checked = 0
    for number, (state, _) in enumerate(positions(game, players, seed=20 + players, every=2)):
        for seat in range(players):
            view = view_without_log(engine, state, seat)
            world = determinize(view, seat, random.Random(number * 7 + seat))
            assert _plain(view_without_log(engine, world, seat)) == _plain(view)
            assert engine.legal_actions(world, seat) == engine.legal_actions(state, seat)
            assert not checks.invariants(world)
            checked += 1
    assert checked > 50


@pytest.mark.parametrize("game", GAMES)
def test_a_drawn_world_depends_on_nothing_the_seat_cannot_see(game: str) -> None:
    engine, determinize, checks = ENGINES[game], determinizer_of(game), checks_of(game)
    compared = 0
    for number, (state, _) in enumerate(positions(game, 4, seed=31, every=2)):
        for seat in range(4):
            drawn = determinize(view_without_log(engine, state, seat), seat, random.Random(number))
            world = determinize(view_without_log(engine, state, seat), seat, random.Random(-number))
            again = determinize(view_without_log(engine, world, seat), seat, random.Random(number))
            assert again == drawn  # from a drawn world's view: the same world
            for owner in range(4):
                disguised, changed = checks.disguise(state, owner, random.Random(owner))
                if seat not in changed:
                    view = view_without_log(engine, disguised, seat)
                    assert determinize(view, seat, random.Random(number)) == drawn
                    compared += 1
    assert compared > 100


@pytest.mark.parametrize("game", GAMES)
def test_the_strong_bot_plays_only_fitting_moves_and_the_same_for_a_seed(game: str) -> None:
    engine = ENGINES[game]
    searched = 0
    for state, seat in positions(game, 4, seed=5, every=15)[:12]:
        view, legal = view_without_log(engine, state, seat), engine.legal_actions(state, seat)
        thought = Thought()
        chosen = strong_action(engine, view, seat, legal, random.Random(3), SEARCH, thought)
        assert fits(chosen, legal), chosen
        engine.apply(state, seat, chosen)  # accepted
        again = strong_action(engine, view, seat, legal, random.Random(3), SEARCH)
        assert again == chosen
        assert thought.playouts <= SEARCH.iterations and not thought.cut_by_clock
        searched += thought.candidates > 1
    assert searched >= 3  # positions with a real choice to weigh


def test_the_latency_cap_stops_even_the_first_rounds_and_the_normal_move_is_played() -> None:
    """A host so busy that the table's patience has gone before the first playout: no playout, no
    fallback, the normal bot's move (the table never waits past its cap)."""
    engine = ENGINES["basari"]
    state = engine.setup(4, {}, 2)
    seat = engine.to_act(state)[0]
    view, legal = view_without_log(engine, state, seat), engine.legal_actions(state, seat)
    budget = Budget(seconds=1.0, iterations=200)
    late = Clocks(wall=Readings(0.0, LATENCY_SHARE + 0.01), cpu=Readings(0.0))
    thought = Thought()
    action = safe_decision(
        engine, view, seat, legal, random.Random(1), "strong", budget, thought,
        search=functools.partial(strong_action, clocks=late),
    )  # fmt: skip
    assert thought.playouts == 0 and thought.cut_by_clock and thought.fallback is None
    assert action == engine.decide(view, seat, legal, random.Random(1), "normal", budget)


def test_candidates_start_with_the_normal_choice_and_scale_its_bid_within_the_domain() -> None:
    legal = [{"type": "bid", "params": {"amount": {"kind": "int", "min": 0, "max": None, "exclude": [10]}}}]
    found = candidate_actions({"type": "bid", "amount": 8}, legal, random.Random(1))
    assert found[0] == {"type": "bid", "amount": 8}
    assert sorted(a["amount"] for a in found) == [0, 4, 6, 8, 11, 13]  # 1.25 x 8 = 10 is excluded: 11


def test_the_normal_move_stands_unless_another_beats_it_clearly_round_by_round() -> None:
    def candidate(name: str, scores: list[float]) -> Candidate:
        return Candidate({"type": name}, dict(enumerate(scores)))

    normal = candidate("normal", [1.0, 0.0, 1.0, 0.0])
    noisy = candidate("noisy", [1.0, 1.0, 0.0, 0.2])  # a better mean, but as often worse as better
    once = candidate("once", [1.2])  # one round: no spread to judge it by
    assert clearly_better([normal, noisy, once]).action == {"type": "normal"}
    steady = candidate("steady", [1.2, 0.2, 1.2, 0.2])  # 0.2 better in every world
    assert clearly_better([normal, noisy, once, steady]).action == {"type": "steady"}
    refused = Candidate({"type": "refused"}, refused=True)
    assert clearly_better([refused, noisy, once]).action == {"type": "once"}  # the best mean


def test_where_caution_costs_more_than_noise_the_best_mean_is_played() -> None:
    def candidate(name: str, scores: list[float]) -> Candidate:
        return Candidate({"type": name}, dict(enumerate(scores)))

    normal = candidate("normal", [1.0, 0.0, 1.0, 0.0])
    noisy = candidate("noisy", [1.0, 1.0, 0.0, 0.2])
    assert best_mean([normal, noisy]).action == {"type": "noisy"}  # clearly_better keeps "normal"
    assert best_mean([normal, candidate("level", [0.0, 1.0, 0.0, 1.0])]).action == {"type": "normal"}  # a tie
    assert best_mean([normal, Candidate({"type": "unplayed"})]).action == {"type": "normal"}
    assert best_mean([Candidate({"type": "refused"}, refused=True), Candidate({"type": "x"})]).action == {
        "type": "refused"
    }  # nothing was played: the normal bot's move, as clearly_better gives it


def test_a_drawn_choice_favours_the_best_mean_by_its_temperature() -> None:
    def candidate(name: str, scores: list[float]) -> Candidate:
        return Candidate({"type": name}, dict(enumerate(scores)))

    good, level, poor = (
        candidate("good", [3.0, 3.0]),
        candidate("level", [3.0, 3.0]),
        candidate("poor", [0.0]),
    )
    rng = random.Random(4)
    drawn = [drawn_by_mean([poor, good, level], 1.0, rng).action["type"] for _ in range(400)]
    assert 150 < drawn.count("good") < 250 and 150 < drawn.count("level") < 250  # e^-3: ~5% "poor"
    assert 5 <= drawn.count("poor") <= 40
    assert all(drawn_by_mean([poor, good], 0.01, rng).action == {"type": "good"} for _ in range(20))
    refused = Candidate({"type": "refused"}, refused=True)
    assert drawn_by_mean([refused, Candidate({"type": "unplayed"})], 1.0, rng).action == {"type": "refused"}


def test_each_game_tells_the_search_its_own_way_of_thinking_in_its_determinize_module() -> None:
    """``SEARCH`` in the game's determinize module, read by ``registry.search_hooks_of``; the figures
    behind each choice are beside it (and in BENCHMARKS.md)."""
    from app.games.basari import determinize as basari
    from app.games.tulip_bubble import determinize as tulip_bubble

    assert search_hooks_of("qe") == SearchHooks(best_mean=True)
    # the defaults (the caution, to the end), with twice their playouts
    assert search_hooks_of("tulipmania-1637") == SearchHooks(playouts=32)
    assert search_hooks_of("tulip-bubble") == SearchHooks(
        playout_over=tulip_bubble.playout_over,
        position_value=tulip_bubble.position_value,
        candidates=tulip_bubble.candidates,
        playouts=24,
    )
    assert search_hooks_of("basari") == SearchHooks(
        playout_over=basari.playout_over,
        position_value=basari.position_value,
        candidates=basari.candidates,
        choice_temperature=basari.choice_temperature,
        playouts=24,
    )
    with pytest.raises(ValueError, match="both"):
        SearchHooks(playout_over=basari.playout_over)  # a horizon with no value there


def test_a_playout_scores_the_win_share_and_a_little_for_each_rival_outscored() -> None:
    assert outcome_value(Result(winners=[0], scores=[9, 5, 5, 1]), 0) == pytest.approx(1.2)
    assert outcome_value(Result(winners=[0, 1], scores=[9, 9, 5, 1]), 1) == pytest.approx(0.5 + 0.2 * 2.5 / 3)
    assert outcome_value(Result(winners=[3], scores=[4, None, 5, 9]), 0) == 0.0


def test_a_basari_playout_stops_when_its_round_is_scored_and_values_the_lead() -> None:
    from app.games.basari.determinize import playout_over, position_value

    engine = ENGINES["basari"]
    for state, _ in positions("basari", 4, seed=9, every=40)[:6]:
        end = playout(engine, state, random.Random(1), over=functools.partial(playout_over, state))
        assert end is not None
        assert len(end["round_summaries"]) == len(state["round_summaries"]) + 1
        assert end["finished"] or end["phase"] == "round_summary"
        values = [position_value(end, seat) for seat in range(4)]
        assert max(values) >= 0 and sum(value > 0 for value in values) <= 1  # only the leader is ahead
    final = playout(engine, engine.setup(4, {}, 3), random.Random(2))
    assert final is not None and final["finished"]
    scores = final["scores"]
    assert position_value(final, 0) == scores[0] - max(scores[1:])  # at the end: the points alone


def test_a_tulip_bubble_playout_stops_when_the_next_round_begins_and_values_the_lead() -> None:
    from app.games.tulip_bubble import prices
    from app.games.tulip_bubble.determinize import WIN_BONUS, playout_over, position_value

    engine = ENGINES["tulip-bubble"]
    for state, _ in positions("tulip-bubble", 4, seed=9, every=7)[:10]:
        end = playout(engine, state, random.Random(1), over=functools.partial(playout_over, state))
        assert end is not None
        assert end["finished"] or end["round"] > state["round"]
        values = [position_value(end, seat) for seat in range(4)]
        assert max(values) >= 0 and sum(value > 0 for value in values) <= 1  # only the leader is ahead
        if not end["finished"]:  # cash, the hand at market prices, mortgages less their debts
            worth = [
                end["cash"][s]
                + sum(prices.market_price(end, card) for card in end["hands"][s])
                + sum(prices.market_price(end, m["card"]) - m["amount"] for m in end["mortgages"][s])
                for s in range(4)
            ]
            if max(worth) < 120:  # no one can reach the black tulip: the worth alone
                assert values[0] == worth[0] - max(worth[1:])
    final = playout(engine, engine.setup(4, {}, 3), random.Random(2))
    assert final is not None and final["finished"]
    assets, winners = final["end"]["assets"], final["end"]["winners"]
    bonus = [WIN_BONUS / len(winners) if s in winners else 0 for s in range(4)]
    worth = [assets[s] + bonus[s] for s in range(4)]
    assert position_value(final, 0) == worth[0] - max(worth[1:])  # at the end: the assets and the win
    assert position_value(final, winners[0]) > 0


def test_tulip_bubble_weighs_variants_of_the_normal_move_only_where_its_tokens_go() -> None:
    """In the bidding phase, the generic candidates (each card a token may go on); elsewhere no variant
    of the normal bot's move (no other card to sell, no jump bid), only one move of each other kind."""
    from app.games.tulip_bubble.determinize import candidates

    engine = ENGINES["tulip-bubble"]
    phases = set()
    for state, seat in positions("tulip-bubble", 4, seed=11, every=1):
        view = view_without_log(engine, state, seat)
        legal = engine.legal_actions(state, seat)
        own = candidates(view, seat)
        phases.add(state["phase"])
        assert own == (None if state["phase"] == "bidding" else [])
        normal = engine.decide(view, seat, legal, random.Random(3), "normal", SEARCH)
        found = candidate_actions(normal, legal, random.Random(3), own)
        if own == []:
            assert found[0] == normal and all(a["type"] != normal["type"] for a in found[1:])
    assert {"selling", "bidding", "auction", "payment"} <= phases


def test_basari_proposes_offers_to_weigh_in_a_bargain_and_each_is_legal() -> None:
    from app.games.basari.determinize import candidates

    engine = ENGINES["basari"]
    first = answers = 0
    for state, seat in positions("basari", 4, seed=11, every=1):
        view = view_without_log(engine, state, seat)
        found = candidates(view, seat)
        if state["phase"] != "bargain":
            assert found is None
            continue
        assert found
        for action in found:
            engine.apply(state, seat, action)  # legal, constraint included
        if state["bargain"]["offers"]:
            answers += 1
            assert found[0] == {"type": "accept"}
        else:
            first += 1
            assert all(action["type"] == "offer" for action in found)
    assert first and answers


@pytest.mark.parametrize("game", GAMES)
def test_a_short_sample_of_strong_against_normal_in_each_ordering(game: str) -> None:
    """CI's short sample (BENCHMARKS.md has the long runs): a game of each ordering plays to its end,
    and no strong decision falls back to a random move."""
    for bots in (["strong", "normal", "normal", "normal"], ["normal", "strong", "strong", "strong"]):
        summary = simulate.simulate(
            game, 4, 1, bots, seed=2, budget=Budget(seconds=30, iterations=2), check=False
        )
        assert not summary.failures, summary.failures
        thoughts = [t for r in summary.records for t in r.thoughts]
        assert thoughts and all(t.fallback is None for t in thoughts)


class Readings:
    """A fake clock: ``first`` at its first reading, ``then`` ever after, plus ``step`` more at each
    further reading (no test here waits for a real clock)."""

    def __init__(self, first: float, then: float | None = None, step: float = 0.0) -> None:
        self.readings = 0
        self.first, self.then, self.step = first, first if then is None else then, step

    def __call__(self) -> float:
        self.readings += 1
        return self.first if self.readings == 1 else self.then + self.step * (self.readings - 2)


def _qe_decision() -> tuple:
    engine = ENGINES["qe"]
    state, seat = positions("qe", 4, seed=3, every=5)[1]
    return engine, engine.view(state, seat), seat, engine.legal_actions(state, seat)


def test_a_busy_host_leaves_the_strong_bot_its_whole_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Budgeted in playouts and in its own CPU time, the search plays the game's count and the same move
    on an idle host and on one so busy that most of the table's patience has gone by the wall clock
    (the wall-clock budget before left it a playout or two there), beyond its first rounds too."""
    module = importlib.import_module("app.games.qe.determinize")
    count = (FLOOR_ROUNDS + 2) * MAX_CANDIDATES
    monkeypatch.setattr(module, "SEARCH", dataclasses.replace(module.SEARCH, playouts=count))
    engine, view, seat, legal = _qe_decision()
    budget = Budget(seconds=1.0, iterations=200)
    idle, busy = Thought(), Thought()
    idle_clocks = Clocks(wall=Readings(0.0, step=1e-7), cpu=Readings(0.0, step=1e-7))
    busy_clocks = Clocks(wall=Readings(0.0, 0.9 * LATENCY_SHARE), cpu=Readings(0.0, step=1e-7))
    here = strong_action(engine, view, seat, legal, random.Random(1), budget, idle, clocks=idle_clocks)
    there = strong_action(engine, view, seat, legal, random.Random(1), budget, busy, clocks=busy_clocks)
    assert idle.candidates > 1
    assert idle.playouts == busy.playouts == count
    assert not idle.cut_by_clock and not busy.cut_by_clock
    assert here == there


def test_the_cpu_allowance_cuts_a_long_search_but_not_its_first_rounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Playouts so long that the CPU allowance is spent at once: every candidate is still played out
    ``FLOOR_ROUNDS`` times (within the latency cap), and no more."""
    module = importlib.import_module("app.games.qe.determinize")
    monkeypatch.setattr(module, "SEARCH", dataclasses.replace(module.SEARCH, playouts=200))
    engine, view, seat, legal = _qe_decision()
    budget = Budget(seconds=1.0, iterations=200)
    spent = Clocks(wall=Readings(0.0), cpu=Readings(0.0, 2 * THINK_SHARE))
    thought = Thought()
    strong_action(engine, view, seat, legal, random.Random(1), budget, thought, clocks=spent)
    assert thought.candidates > 1 and thought.cut_by_clock
    assert thought.playouts == FLOOR_ROUNDS * thought.candidates
    assert thought.cpu_seconds > THINK_SHARE * budget.seconds


def test_the_budgets_iterations_cap_the_games_playout_count() -> None:
    engine, view, seat, legal = _qe_decision()
    clocks = Clocks(wall=Readings(0.0), cpu=Readings(0.0))
    capped = Thought()
    strong_action(engine, view, seat, legal, random.Random(1), Budget(1.0, 5), capped, clocks=clocks)
    assert capped.playouts == 5
