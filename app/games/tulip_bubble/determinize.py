"""A Tulip Bubble table as one seat may imagine it, for the strong bot's search (``app/bots/search.py``).

Built from the seat's view alone. The seat sees its own hand and cash and everything public (ruling
12); it does not see the other hands (only their size), the others' cash, the tulip deck and the
discards (only their sizes), the collector piles below their tops, the market deck or the market card
removed at set-up. ``determinize`` deals the tulips it cannot see (on no row, in no mortgage, not in
its hand) afresh into the other hands, the deck and the discards in the sizes it sees, gives every
other seat its own cash as a guess, fills each collector pile below its top with others of its bonus,
and redraws the market deck and the removed card (the market cards not yet revealed) with the Bubble
Burst among the bottom cards, as the set-up buries it. ``tests/bots/test_search.py`` checks that the
world shows the seat its view unchanged.

Its ``SEARCH`` stops the search's playouts when the next round begins and values the position by the
seat's worth ahead of its best rival's, and searches in full only where the purchase tokens go.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from app.games import base
from app.games.base import Action, SearchHooks, State, View
from app.games.tulip_bubble import prices
from app.games.tulip_bubble.data import (
    AUCTION_ROWS,
    BLACK_TULIP_PRICE,
    BUBBLE_BURST,
    BURST_SHUFFLED_WITH,
    COLLECTOR_PILES,
    COLLECTORS,
    GAME_ID,
    MARKET_DECK,
    ROWS,
    all_tulips,
)

# The search's playouts in Tulip Bubble stop when the next round begins (its market card turned, its
# selling phase about to open) or the game ends: a round is about a sixth of a game, so a playout
# costs a fraction of one to the end and the search gets several times more of them for its budget;
# the position is then valued by ``position_value``.
WIN_BONUS = 40  # guilders: what a win (or a sure black tulip) is worth beyond the assets


def playout_over(start: State, state: State) -> bool:
    """Whether a playout from ``start`` has reached its horizon: a round after the one it began in has
    begun (or the game is over)."""
    return bool(state["finished"]) or state["round"] > start["round"]


def worths(state: State) -> list[float]:
    """Each seat's worth in guilders. Over: the assets (cash less debts), with ``WIN_BONUS`` shared by
    the winners. Going on (a selling phase about to open, where every tulip may be sold at the market
    price): cash, the hand at market prices and each mortgaged tulip's price less its debt, with
    ``WIN_BONUS`` shared by the richest of those who could then reach the black tulip's price."""
    players = state["players"]
    if state["finished"]:
        end = state["end"]
        worth = [float(assets) for assets in end["assets"]]
        winners = list(end["winners"])
    else:
        worth = [
            float(
                state["cash"][s]
                + sum(prices.market_price(state, card) for card in state["hands"][s])
                + sum(prices.market_price(state, m["card"]) - m["amount"] for m in state["mortgages"][s])
            )
            for s in range(players)
        ]
        able = [s for s in range(players) if worth[s] >= BLACK_TULIP_PRICE]
        winners = [s for s in able if worth[s] == max(worth[a] for a in able)]
    for winner in winners:
        worth[winner] += WIN_BONUS / len(winners)
    return worth


def position_value(state: State, seat: int) -> float:
    """The seat's worth (``worths``) ahead of its best rival's (behind: negative), in guilders."""
    worth = worths(state)
    return worth[seat] - max(w for s, w in enumerate(worth) if s != seat)


# Only the placement of purchase tokens is searched in full: outside the bidding phase the normal
# bot's move is weighed only against one move of each other kind (``candidates``). Measured on the
# same seeded games, 24 playouts to the next round a decision (BENCHMARKS.md): searching every
# decision, strong won 78.8% ± 10.9 of 52 against three normal bots, but a normal bot against three
# such strong bots won 26.0% ± 12.4 of 48 (the target is under 15%; with 8 such playouts 27.1% of 48,
# and leaving the auctions alone 24.0% of 48); searching only the placement, strong won 61.5% ± 9.5
# of 100 against three normal bots and a normal bot won 13.5% ± 4.7 of 200 against three strong ones.
# Before (8 playouts to the game's end, every decision searched): 41.0% ± 9.5 (39.6% of 164) and
# 11.5% ± 6.2 of 100. Keeping the normal bot's move unless another is clearly better (the default)
# stays: the best mean (8 playouts to the end) made strong 67.3% ± 12.9 against three normal bots,
# but its normal rival won 25.9% ± 11.4 of 56 against three of them.
UNSEARCHED_PHASES = ("selling", "auction", "payment")


def candidates(view: View, seat: int) -> list[Action] | None:
    """None in the bidding phase (the generic candidates: each card a token may go on, or none);
    elsewhere none of the search's variants of the normal bot's move (``[]``: the search then weighs
    against it only one move of each other kind, a sale, the end of the turn, a drop or the lowest
    raise)."""
    return [] if view["phase"] in UNSEARCHED_PHASES else None


SEARCH = SearchHooks(
    playout_over=playout_over,
    position_value=position_value,
    candidates=candidates,
    playouts=24,  # to the next round: 24 cost half what 8 to the game's end did
)


def determinize(view: View, seat: int, rng: random.Random) -> State:
    """A state the seat cannot tell from the table it sees in ``view``, what it cannot see drawn from ``rng``."""
    players = len(view["players"])  # the seats' entries
    you = view["you"]
    rows = {row["id"]: [card["id"] for card in row["cards"]] for row in view["rows"]}
    tokens = {
        card["id"]: list(card["tokens"]) for row in view["rows"] for card in row["cards"] if card["tokens"]
    }
    mortgages = [
        [{"card": mortgage["id"], "amount": mortgage["amount"]} for mortgage in entry["mortgages"]]
        for entry in view["players"]
    ]
    hand = [card["id"] for card in you["hand"]]
    seen = {
        *hand,
        *(card for row in rows.values() for card in row),
        *(m["card"] for ms in mortgages for m in ms),
    }
    unseen = [card for card in all_tulips() if card not in seen]
    rng.shuffle(unseen)
    hands: list[list[str]] = []
    for other, entry in enumerate(view["players"]):
        if other == seat:
            hands.append(hand)
        else:
            hands.append(unseen[: entry["hand_size"]])
            unseen = unseen[entry["hand_size"] :]
    market_deck, market_removed = _market(view, rng)
    phase, turn = view["phase"], view["turn"]
    world = base.new_state(GAME_ID, players, dict(view["options"]), rng.getrandbits(64))
    world.update(
        {
            "finished": view["finished"],
            "round": view["round"],
            "phase": phase,
            "levels": dict(view["levels"]),
            "deck": unseen[: view["deck_size"]],
            "discard": unseen[view["deck_size"] :],
            "reshuffles": 0,  # only ever compared with itself, to tell that a deal reshuffled
            "rows": {row: rows[row] for row in ROWS},
            "hands": hands,
            "cash": [you["cash"]] * players,
            "mortgages": mortgages,
            "tokens": tokens,
            "collector_sold": [entry["seat"] for entry in view["players"] if entry["sold_to_collector"]],
            "start_player": view["start_player"],
            "turn": turn if phase in ("selling", "bidding") else None,
            "placement": _placement(view),
            "queue": _queue(view, rows, tokens),
            "auction": _auction(view["auction"]),
            "payment": _payment(view["payment"]),
            "history": base.copy_plain(view["history"]),
            "end": None,
            "collectors": [
                _pile(entry, bonus, rng)
                for entry, bonus in zip(view["collectors"], COLLECTOR_PILES, strict=True)
            ],
            "market_deck": market_deck,
            "market_removed": market_removed,
            "market_discard": [card["id"] for card in view["market_revealed"]],
        }
    )
    if phase == "selling":
        world["selling_index"] = (turn - view["start_player"]) % players
    return world


def _placement(view: View) -> dict[str, Any] | None:
    placement = view["placement"]
    if placement is None:
        return None
    players = len(view["players"])
    order = (placement["seat"] - view["start_player"]) % players
    index = order if placement["turn"] == 1 else order + players
    return {"index": index, "quota": placement["quota"], "placed": placement["placed"]}


def _queue(view: View, rows: dict[str, list[str]], tokens: dict[str, list[int]]) -> list[str]:
    """The cards with tokens still to be auctioned after the one under way (in the rows' order)."""
    if view["phase"] not in ("auction", "payment"):
        return []
    settling = (view["auction"] or view["payment"])["card"]["id"]
    cards = [card for row in AUCTION_ROWS for card in rows[row] if tokens.get(card)]
    return cards[cards.index(settling) + 1 :] if settling in cards else cards


def _auction(auction: dict[str, Any] | None) -> dict[str, Any] | None:
    if auction is None:
        return None
    keys = ("market", "bidders", "active", "high", "high_bidder", "turn")
    return {"card": auction["card"]["id"], **{key: base.copy_plain(auction[key]) for key in keys}}


def _payment(payment: dict[str, Any] | None) -> dict[str, Any] | None:
    if payment is None:
        return None
    keys = ("winner", "price", "market", "participants")
    return {"card": payment["card"]["id"], **{key: base.copy_plain(payment[key]) for key in keys}}


def _pile(entry: dict[str, Any], bonus: int, rng: random.Random) -> list[str]:
    """A collector pile: its top as seen, below it others of its bonus (which are left the seat does
    not know without the log)."""
    if entry["top"] is None:
        return []
    top = entry["top"]["id"]
    others = sorted(name for name, spec in COLLECTORS.items() if spec["bonus"] == bonus and name != top)
    rng.shuffle(others)
    return [top, *others[: entry["size"] - 1]]


def _market(view: View, rng: random.Random) -> tuple[list[str], str]:
    """The market cards not yet revealed, dealt into the deck and the removed one; the Burst (still to
    come while the game goes on) at any of the bottom places it may be in."""
    left = Counter([*MARKET_DECK, BUBBLE_BURST]) - Counter(card["id"] for card in view["market_revealed"])
    burst_to_come = left.pop(BUBBLE_BURST, 0) > 0
    cards = sorted(left.elements())
    rng.shuffle(cards)
    removed = cards.pop()
    if burst_to_come:
        places = min(BURST_SHUFFLED_WITH + 1, view["market_deck_size"])
        cards.insert(len(cards) + 1 - places + rng.randrange(places), BUBBLE_BURST)
    return cards, removed
