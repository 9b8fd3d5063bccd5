"""Q.E. properties over random legal play to the end, with 3, 4 and 5 players: conservation,
exact replay from the seed, and ruling 6 (who sees what) checked against every seat's view."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.games import base
from app.games.base import State
from app.games.qe import ENGINE, data, rules
from app.games.qe import view as qe_view
from app.web.render import render_regions, seat_context
from tests.support import people_table

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
# The same examples on every run (so in CI): derandomized, which also keeps no example database.
REPRODUCIBLE = settings(deadline=None, derandomize=True)
SECRET_PREFIX = "987654321"


def secret_amount(rng: random.Random) -> int:
    """A distinctive 15-digit bid: its digits cannot turn up by accident in another number."""
    return int(SECRET_PREFIX + str(rng.randrange(100000, 1000000)))


def choose(state: State, rng: random.Random) -> tuple[int, dict[str, Any]]:
    """A legal move: bots, random templates, peeks out of turn and distinctive secret bids."""
    players = state["players"]
    peekers = [s for s in range(players) if any(a["type"] == "peek" for a in ENGINE.legal_actions(state, s))]
    if peekers and rng.random() < 0.3:
        return rng.choice(peekers), {"type": "peek"}
    seat = rng.choice(ENGINE.to_act(state))
    roll = rng.random()
    if state["phase"] == "bidding" and roll < 0.3:
        return seat, {"type": "bid", "amount": str(secret_amount(rng))}
    if roll < 0.65:
        return seat, ENGINE.bot_action(state, seat, rng)
    return seat, base.random_legal_action(ENGINE.legal_actions(state, seat), rng)


# called after every move with the states before and after it
Watch = Callable[[State, State, int, dict[str, Any]], None]


def play(
    players: int, seed: int, watch: Watch | None = None
) -> tuple[State, list[tuple[int, dict[str, Any]]]]:
    rng = random.Random(f"qe/{players}/{seed}")
    state = ENGINE.setup(players, {}, seed)
    moves: list[tuple[int, dict[str, Any]]] = []
    while not state["finished"]:
        seat, action = choose(state, rng)
        before, state = state, ENGINE.apply(state, seat, action)
        moves.append((seat, action))
        if watch is not None:
            watch(before, state, seat, action)
    return state, moves


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=25)
@given(seed=SEEDS)
def test_random_play_ends_with_tiles_and_money_conserved_and_replays_exactly(players: int, seed: int) -> None:
    state, moves = play(players, seed)
    awarded = [r["tile"] for r in state["auctions"]]
    assert sorted(awarded) == sorted(data.tiles_in_play(players))
    assert state["deck"] == [] and len(state["auctions"]) == state["turns"]
    final = state["final"]
    assert sum(final["spends"]) == sum(r["amount"] for r in state["auctions"] if r["winner"] is not None)
    for seat in range(players):
        rounds = state["zero_rounds"][seat]
        assert len(rounds) == len(set(rounds)) and (players >= 4 or rounds == [])
    result = ENGINE.result(state)
    assert result is not None and result.winners
    assert not any(final["eliminated"][w] for w in result.winners)
    replay = ENGINE.setup(players, {}, seed)
    for seat, action in moves:
        replay = ENGINE.apply(replay, seat, action)
    assert replay == state
    assert json.loads(json.dumps(state)) == state


class SecretBidWatcher:
    """Checks every view against the seats allowed to see each distinctive secret bid.

    Allowed (ruling 6): the bidder always; the auctioneer once the bid has been evaluated; if it
    won, those who peeked at that auction, and everyone once the game is over.
    """

    def __init__(self) -> None:
        self.bidders: dict[int, int] = {}
        self.peeks: dict[int, set[int]] = {}

    def __call__(self, before: State, after: State, seat: int, action: dict[str, Any]) -> None:
        if action["type"] == "peek":
            self.peeks.setdefault(before["auctions"][-1]["number"], set()).add(seat)
        elif action["type"] == "bid" and str(action["amount"]).startswith(SECRET_PREFIX):
            self.bidders[int(action["amount"])] = seat
        allowed = self.allowed(after)
        for viewer in [None, *range(after["players"])]:
            seen = json.dumps(ENGINE.view(after, viewer))
            for amount, viewers in allowed.items():
                assert (str(amount) in seen) == (viewer in viewers), (viewer, amount, viewers)

    def allowed(self, state: State) -> dict[int, set[int | None]]:
        allowed: dict[int, set[int | None]] = {amount: {seat} for amount, seat in self.bidders.items()}
        records = [*state["auctions"], *([state["auction"]] if state["auction"] else [])]
        for record in records:
            auctioneer = record["auctioneer"]
            for step in record["steps"]:
                for amount in step:
                    if amount in allowed and auctioneer is not None:
                        allowed[amount].add(auctioneer)
            amount = record.get("amount")
            if record.get("winner") is not None and amount in allowed:
                allowed[amount] |= self.peeks.get(record["number"], set())
                if state["finished"]:
                    allowed[amount] |= {*range(state["players"]), None}
        return allowed


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=10)
@given(seed=SEEDS)
def test_no_view_shows_a_secret_bid_or_hidden_winning_amount_to_a_seat_that_may_not_see_it(
    players: int, seed: int
) -> None:
    """Ruling 6: a bid like 987654321123456 appears exactly in the views of those allowed."""
    play(players, seed, SecretBidWatcher())


def swap_tokens(state: State, a: int, b: int) -> State:
    swapped = base.copy_state(state)
    swapped["tokens"][a], swapped["tokens"][b] = state["tokens"][b], state["tokens"][a]
    return swapped


def check_tokens_secret(before: State, state: State, seat: int, action: dict[str, Any]) -> None:
    """Views of other seats are unchanged when B's token is swapped with C's (or the unused one)."""
    players = state["players"]
    b, c = 0, 1
    if players == 3:
        unused = next(t for t in data.industry_tokens(3) if t not in state["tokens"])
        twin = base.copy_state(state)
        twin["tokens"][b] = unused
        others = [1, 2]
    else:
        twin = swap_tokens(state, b, c)
        others = list(range(2, players))
    if state["finished"]:
        assert ENGINE.view(state, others[-1]) != ENGINE.view(twin, others[-1])  # revealed at the end
        return
    for viewer in [None, *others]:
        assert ENGINE.view(state, viewer) == ENGINE.view(twin, viewer)
    assert ENGINE.view(state, b)["sheet"]["token"] != ENGINE.view(twin, b)["sheet"]["token"]


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=3)
@given(seed=SEEDS)
def test_industry_tokens_stay_secret_until_the_end(players: int, seed: int) -> None:
    play(players, seed, check_tokens_secret)


def test_finished_game_reveals_every_full_sheet_to_everyone() -> None:
    state, _ = play(5, 1)
    for viewer in [None, 0, 3]:
        final = ENGINE.view(state, viewer)["final"]
        assert [s["token"] for s in final["sheets"]] == state["tokens"]
        assert [s["spent"] for s in final["sheets"]] == state["final"]["spends"]
        assert all(t["amount"] is not None for s in final["sheets"] for t in s["tiles"])


@pytest.mark.parametrize("players", [3, 4, 5])
@settings(REPRODUCIBLE, max_examples=10)
@given(seed=SEEDS)
def test_bot_plays_only_legal_actions_to_the_end(players: int, seed: int) -> None:
    rng = random.Random(seed)
    state = ENGINE.setup(players, {}, seed)
    while not state["finished"]:
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
    assert ENGINE.result(state) is not None
    assert rules.to_act(state) == []


def test_views_share_each_tile_and_nothing_that_reads_a_view_changes_it() -> None:
    """Every view shows a tile as one shared dict (a room's cached renderings keep their views' parts,
    so a dict a tile a view cost a room ~20 KB). Shared, a tile changed through one view would change
    in every view of every room: a whole game's views, each seat's pages drawn from them and the bots'
    choices leave every tile as the data makes it."""
    made_afresh = json.loads(json.dumps(qe_view._TILE_INFO))
    players, rng = 5, random.Random(7)
    state = ENGINE.setup(players, {}, 7)
    table = people_table("qe", players)
    steps = 0
    while not state["finished"]:
        if steps % 4 == 0:
            core = {**state, "events": []}
            for seat in [*range(players), None]:
                render_regions(ENGINE, seat_context(ENGINE, core, seat, table, "en"), "playing", "en")
        seat = ENGINE.to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.bot_action(state, seat, rng))
        steps += 1
    views = [ENGINE.view(state, seat) for seat in [*range(players), None]]
    first, second = views[0]["history"][0]["tile"], views[-1]["history"][0]["tile"]
    assert first is second  # one dict, whoever looks
    assert made_afresh == qe_view._TILE_INFO
