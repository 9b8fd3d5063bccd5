"""Tulip Bubble properties over random legal play with 3, 4 and 5 players: every tulip is somewhere
exactly once; money moves only between players and the bank as the rules say (a ledger kept here,
independent of the engine's bookkeeping); replay equals state; no view leaks another seat's secrets."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.games import base
from app.games.base import Action, State
from app.games.tulip_bubble import ENGINE, prices, rules
from app.games.tulip_bubble.data import COLLECTORS, START_CASH, all_tulips
from tests.games.tulip_bubble.tulip_bubble_helpers import where_is_every_tulip

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
# The same examples on every run (so in CI): derandomized, which also keeps no example database.
REPRODUCIBLE = settings(deadline=None, derandomize=True)


def expected_cash_flows(before: State, seat: int, action: Action) -> list[int]:
    """What the bank pays (+) or receives (−) per seat for one action, from the rulebook alone."""
    flows = [0] * before["players"]
    kind = action["type"]
    if kind == "sell":
        flows[seat] += prices.market_price(before, action["card"])
    elif kind == "sell_to_collector":
        cards = action["cards"].split(",")
        bonus = COLLECTORS[action["collector"]]["bonus"]
        assert isinstance(bonus, int)
        flows[seat] += sum(prices.market_price(before, c) for c in cards) + bonus
    elif kind in ("sell_mortgage", "redeem"):
        mortgage = rules.find_mortgage(before, seat, action["card"])
        assert mortgage is not None, action  # only a mortgaged card is sold mortgaged or redeemed
        amount = mortgage["amount"]
        flows[seat] += (
            prices.market_price(before, action["card"]) - amount if kind == "sell_mortgage" else -amount
        )
    elif kind == "pay":
        card, price = before["payment"]["card"], before["payment"]["price"]
        if action["method"] == "cash":
            flows[seat] -= price
        others = [s for s in before["tokens"][card] if s != seat]
        excess = price - prices.market_price(before, card)
        for other in others:
            flows[other] += max(excess, 0) // len(others)
    return flows


def choose(state: State, rng: random.Random) -> tuple[int, Action]:
    """A seat in turn plays the bot or a random legal action; now and then another seat redeems."""
    if rng.random() < 0.05:
        redeemers = [s for s in range(state["players"]) if any(
            t["type"] == "redeem" for t in ENGINE.legal_actions(state, s))]  # fmt: skip
        if redeemers:
            seat = rng.choice(redeemers)
            legal = [t for t in ENGINE.legal_actions(state, seat) if t["type"] == "redeem"]
            return seat, base.random_legal_action(legal, rng)
    seat = ENGINE.to_act(state)[0]
    if rng.random() < 0.6:
        return seat, ENGINE.bot_action(state, seat, rng)
    return seat, base.random_legal_action(ENGINE.legal_actions(state, seat), rng)


def play_out(players: int, seed: int, options: dict[str, bool] | None = None) -> tuple[State, list[Any]]:
    state = ENGINE.setup(players, options or {}, seed)
    rng = random.Random(seed * 7 + players)
    log: list[tuple[int, Action]] = []
    bank_paid_out = 0
    while not state["finished"]:
        seat, action = choose(state, rng)
        flows = expected_cash_flows(state, seat, action)
        after = ENGINE.apply(state, seat, action)  # every sampled legal action must be accepted
        assert after["cash"] == [c + f for c, f in zip(state["cash"], flows, strict=True)], action
        assert min(after["cash"]) >= 0
        bank_paid_out += sum(flows)
        assert sorted(where_is_every_tulip(after)) == sorted(all_tulips())
        assert all(len(ms) <= 3 for ms in after["mortgages"])
        assert all(rules.tokens_available(after, s) >= 0 for s in range(players))
        log.append((seat, action))
        state = after
    assert sum(state["cash"]) == players * START_CASH + bank_paid_out
    return state, log


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=12)
@given(seed=SEEDS, joining_mid_game=st.booleans(), no_margin_trading=st.booleans())
def test_random_play_conserves_tulips_and_money_and_replays_exactly(
    players: int, seed: int, joining_mid_game: bool, no_margin_trading: bool
) -> None:
    """Every tulip somewhere once; cash changes only by the rulebook's payments; replay == state."""
    options = {"joining_mid_game": joining_mid_game, "no_margin_trading": no_margin_trading}
    final, log = play_out(players, seed, options)
    result = ENGINE.result(final)
    assert result is not None and result.winners
    assert 8 <= final["round"] <= 10 or final["end"]["reason"] == "black_tulip"
    replay = ENGINE.setup(players, options, seed)
    for seat, action in log:
        replay = ENGINE.apply(replay, seat, action)
    assert replay == final
    json.dumps(final)  # plain JSON


def _secret_variant(state: State, owner: int, rng: random.Random) -> State | None:
    """The same table except for ``owner``'s secrets: cash, and hand cards swapped with deck cards."""
    if not state["deck"]:
        return None
    other = base.copy_state(state)
    other["cash"][owner] += 37
    hand = other["hands"][owner]
    for index in range(len(hand)):
        swap = rng.randrange(len(other["deck"]))
        hand[index], other["deck"][swap] = other["deck"][swap], hand[index]
    return other


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=4)
@given(seed=SEEDS)
def test_no_view_reveals_another_seats_hand_or_cash(players: int, seed: int) -> None:
    """Ruling 12: a seat's view (and a spectator's) is the same whatever another seat's hand and cash;
    the removed market card and the deck orders are never in a view."""
    state = ENGINE.setup(players, {}, seed)
    rng = random.Random(seed)
    step = 0
    while not state["finished"]:
        if step % 9 == 0:
            for owner in range(players):
                variant = _secret_variant(state, owner, rng)
                if variant is None:
                    continue
                for viewer in [None, *range(players)]:
                    if viewer == owner:
                        continue
                    assert ENGINE.view(state, viewer) == ENGINE.view(variant, viewer)
                assert ENGINE.view(state, owner) != ENGINE.view(variant, owner)
            hidden = base.copy_state(state)
            if hidden["market_deck"][0] != hidden["market_removed"]:
                hidden["market_deck"][0], hidden["market_removed"] = (
                    hidden["market_removed"], hidden["market_deck"][0])  # fmt: skip
                for viewer in [None, *range(players)]:
                    assert ENGINE.view(state, viewer) == ENGINE.view(hidden, viewer)
        seat, action = choose(state, rng)
        state = ENGINE.apply(state, seat, action)
        step += 1
    for viewer in [None, *range(players)]:
        dump = json.dumps(ENGINE.view(state, viewer))
        assert "market_removed" not in dump and '"deck"' not in dump


def test_bots_only_take_legal_actions_and_finish_with_sensible_results() -> None:
    """The bot plays every phase: it sells, places tokens, raises and pays; no bot goes broke on average."""
    kinds: set[str] = set()
    totals = []
    for seed in range(10):
        state = ENGINE.setup(4, {}, seed)
        rng = random.Random(seed)
        while not state["finished"]:
            seat = ENGINE.to_act(state)[0]
            action = ENGINE.bot_action(state, seat, rng)
            assert action["type"] in {t["type"] for t in ENGINE.legal_actions(state, seat)}
            kinds.add(action["type"])
            state = ENGINE.apply(state, seat, action)
        result = ENGINE.result(state)
        assert result is not None
        scores = [score for score in result.scores if score is not None]
        assert len(scores) == 4  # every seat is scored
        totals.append(sum(scores))
    assert {"sell", "place", "raise", "drop", "pay", "end_turn", "sell_to_collector"} <= kinds
    assert sum(totals) / len(totals) > 4 * START_CASH
