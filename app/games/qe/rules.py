"""Q.E. rules: setup, the auction flow, ties, awards, zero bids, peeks and the end of the game.

Flow of one auction (``state["phase"]``):

``open_bid``
    The tile is face up; the auctioneer makes an open bid of at least 1.
``bidding``
    The seats in ``auction["bidders"]`` hand in sealed bids, simultaneously (a seat's bid is
    final once handed in). When all are in, the bids are evaluated: a single highest bidder wins;
    a tie sends the tied players into a re-bid (see ``_evaluate``).
``award``
    Five players only, between two auctions: the winning amount of the auction just awarded may
    be peeked at until the next auctioneer reveals the next tile (``reveal``). With 3–4 players
    nobody can peek, so the next tile is revealed at once and the game never waits.
``finished``
    Final scoring is done and every sheet is revealed.

Design choices where the rules are silent:

* Zero bids are the sealed bids that stand when the auction is awarded (a tied player who
  re-bids 0 has bid 0).
* After the third tie in a row the highest bidder outside the tie wins. If players outside the
  tie are themselves tied, the highest bid that nobody else matched wins. The auctioneer's bid
  can never be matched (nobody may bid it), so an auction with an auctioneer always finds a
  winner this way. Only the 3-player last tile has no auctioneer, and there a tie means nobody
  gets the tile (no re-bid); a tile nobody gets is out of the game.
* In 5-player games the peek window opens after every auction but the last: after the last
  one the game ends and every amount is revealed anyway.
"""

from __future__ import annotations

import re
from typing import Any

from app.games import base
from app.games.base import N_, IllegalAction, State
from app.games.qe import data, scoring


def setup(players: int, options: dict[str, Any], seed: int) -> State:
    """A new game; Q.E. has no options, so ``options`` is not kept."""
    if not data.MIN_PLAYERS <= players <= data.MAX_PLAYERS:
        raise ValueError(f"Q.E. is for 3 to 5 players, not {players}")
    state = base.new_state(data.GAME_ID, players, {}, seed)
    rng = base.draw_rng(state)
    countries = data.countries_in_play(players)
    rng.shuffle(countries)
    tokens = data.industry_tokens(players)
    rng.shuffle(tokens)
    deck = data.tiles_in_play(players)
    rng.shuffle(deck)
    state.update(
        {
            "countries": countries[:players],
            "tokens": tokens[:players],
            "deck": deck,
            "first_auctioneer": rng.randrange(players),
            "turn": 0,
            "turns": len(deck),
            "phase": "open_bid",
            "auction": None,
            "auctions": [],
            "zero_rounds": [[] for _ in range(players)],
            "peek_used": [False] * players,
            "final": None,
        }
    )
    base.log_event(
        state,
        N_("{seat} is the first auctioneer; the auctioneer's token passes left."),
        seat=base.seat_ref(state["first_auctioneer"]),
    )
    _start_auction(state)
    return state


def rounds_with_auctioneer(players: int) -> int:
    """Full rounds (every player auctioneer once); with 3 players one tile is left after them."""
    return data.auction_count(players) // players


def auctioneer_of(state: State, turn: int) -> int | None:
    """The auctioneer of auction ``turn`` (0-based), None for the 3-player last tile."""
    players: int = state["players"]
    if turn >= players * rounds_with_auctioneer(players):
        return None
    first: int = state["first_auctioneer"]
    return (first + turn) % players


def tile_params(tile: str) -> dict[str, Any]:
    info = data.TILES[tile]
    return {
        "country": data.COUNTRY_NAMES[str(info["country"])],
        "industry": data.INDUSTRY_NAMES[str(info["industry"])],
        "points": info["points"],
    }


def _start_auction(state: State) -> None:
    turn = state["turn"]
    players = state["players"]
    tile = state["deck"].pop(0)
    auctioneer = auctioneer_of(state, turn)
    others = [s for s in range(players) if s != auctioneer]
    state["auction"] = {
        "number": turn,
        "round": turn // players,
        "tile": tile,
        "auctioneer": auctioneer,
        "open_bid": None,
        "bids": [None] * players,
        "bidders": others,
        "submitted": [],
        "ties": 0,
        "steps": [],
    }
    if auctioneer is None:
        state["phase"] = "bidding"
        base.log_event(
            state,
            N_(
                "Last company: {country} {industry} (points: {points}). No auctioneer: everyone bids secretly."
            ),
            **tile_params(tile),
        )
        return
    state["phase"] = "open_bid"
    base.log_event(
        state,
        N_("{seat} reveals {country} {industry} (points: {points})."),
        seat=base.seat_ref(auctioneer),
        **tile_params(tile),
    )


def next_auctioneer(state: State) -> int | None:
    return auctioneer_of(state, state["turn"])


def peek_allowed(state: State, seat: int) -> bool:
    """5 players, once per game, during the award window, for an amount the seat cannot see."""
    if state["phase"] != "award" or state["peek_used"][seat]:
        return False
    record = state["auctions"][-1]
    return record["winner"] is not None and seat not in record["seen_by"]


def to_act(state: State) -> list[int]:
    phase = state["phase"]
    auction = state["auction"]
    if phase == "open_bid":
        return [auction["auctioneer"]]
    if phase == "bidding":
        return [s for s in auction["bidders"] if s not in auction["submitted"]]
    if phase == "award":
        auctioneer = next_auctioneer(state)
        # Only 5-player games have an award window, and only 3-player games a last tile with no auctioneer.
        assert auctioneer is not None
        return [auctioneer]
    return []


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    phase = state["phase"]
    if phase == "award":
        legal: list[dict[str, Any]] = []
        if seat == next_auctioneer(state):
            legal.append({"type": "reveal", "label": N_("Reveal the next company"), "params": {}})
        if peek_allowed(state, seat):
            legal.append(
                {"type": "peek", "label": N_("Peek at the winning amount"), "params": {}, "window": True}
            )
        return legal
    if seat not in to_act(state):
        return []
    auction = state["auction"]
    if phase == "open_bid":
        amount = {"kind": "int", "min": 1, "max": data.LARGEST_BID, "exclude": []}
        return [{"type": "open_bid", "label": N_("Open the bidding"), "params": {"amount": amount}}]
    exclude = [] if auction["open_bid"] is None else [auction["open_bid"]]
    amount = {"kind": "int", "min": 0, "max": data.LARGEST_BID, "exclude": exclude}
    return [{"type": "bid", "label": N_("Hand in a sealed bid"), "params": {"amount": amount}}]


REFUSALS = base.Refusals(
    not_an_action=N_("That is not an action."),
    game_over=N_("The game is over."),
    not_seated=N_("You are not playing in this game."),
)


def apply(state: State, seat: int, action: Any) -> State:
    kind = base.open_apply(state, seat, action, REFUSALS).get("type")
    handlers = {"open_bid": _open_bid, "bid": _bid, "reveal": _reveal, "peek": _peek}
    if not isinstance(kind, str) or kind not in handlers:
        raise IllegalAction(N_("Q.E. has no such action."))
    new = base.copy_state_sharing_log(state)
    handlers[kind](new, seat, action)
    return new


def _open_bid(state: State, seat: int, action: dict[str, Any]) -> None:
    auction = state["auction"]
    if state["phase"] != "open_bid" or seat != auction["auctioneer"]:
        raise IllegalAction(N_("Only the auctioneer opens the bidding, once the company is revealed."))
    amount = parse_bid(action.get("amount"))
    if amount < 1:
        raise IllegalAction(N_("As auctioneer you must open with a bid of at least 1."))
    auction["open_bid"] = amount
    state["phase"] = "bidding"
    base.log_event(
        state, N_("{seat} opens the bidding at {amount}."), seat=base.seat_ref(seat), amount=amount
    )


def _bid(state: State, seat: int, action: dict[str, Any]) -> None:
    auction = state["auction"]
    if state["phase"] != "bidding" or seat not in auction["bidders"]:
        raise IllegalAction(N_("You have no bid to make now."))
    if seat in auction["submitted"]:
        raise IllegalAction(N_("You have already handed in your bid."))
    amount = parse_bid(action.get("amount"))
    if amount == auction["open_bid"]:
        raise IllegalAction(
            N_("Your bid may not equal the auctioneer's bid of {amount}; bid more or less."),
            amount=amount,
        )
    auction["bids"][seat] = amount
    auction["submitted"].append(seat)
    base.log_event(state, N_("You bid {amount} in secret."), to=[seat], amount=amount)
    if len(auction["submitted"]) == len(auction["bidders"]):
        _evaluate(state)


# --- reading a bid as a player typed it: exact whole numbers of any size, up to 30 digits ---------

_FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")
_DIGITS = re.compile(r"[0-9]+")
_DECIMAL = re.compile(r"[0-9]*[.,][0-9]*")


def parse_bid(value: Any) -> int:
    """The bid as an exact ``int``, or an ``IllegalAction`` saying what is wrong with it.

    Accepts ints and strings of ASCII (or full-width, as typed with a Chinese input method)
    digits, with surrounding spaces ignored. Refuses negatives, decimals, signs, words, blanks
    and anything longer than 30 digits.
    """
    if isinstance(value, bool):
        raise IllegalAction(N_("A bid must be a whole number such as 12."))
    if isinstance(value, int):
        return _checked_size(value)
    if isinstance(value, float):
        raise IllegalAction(N_("A bid must be a whole number, without decimals."))
    if not isinstance(value, str):
        raise IllegalAction(N_("A bid must be a whole number such as 12."))
    return _parse_typed_bid(value)


def _checked_size(bid: int) -> int:
    if bid < 0:
        raise IllegalAction(N_("A bid cannot be negative."))
    if bid >= 10**data.MAX_BID_DIGITS:
        raise IllegalAction(N_("A bid may have at most {digits} digits."), digits=data.MAX_BID_DIGITS)
    return bid


def _parse_typed_bid(value: str) -> int:
    """A bid as a person typed it, with what is wrong with it named."""
    text = value.strip().translate(_FULLWIDTH_DIGITS)
    if not text:
        raise IllegalAction(N_("Write your bid first: a whole number such as 12."))
    if len(text) > data.MAX_BID_DIGITS:
        raise IllegalAction(N_("A bid may have at most {digits} digits."), digits=data.MAX_BID_DIGITS)
    if text.startswith("-"):
        raise IllegalAction(N_("A bid cannot be negative."))
    if text.startswith("+"):
        raise IllegalAction(N_("Write the bid without a + sign, digits only."))
    if _DECIMAL.fullmatch(text):
        raise IllegalAction(N_("A bid must be a whole number, without decimals or separators."))
    if not _DIGITS.fullmatch(text):
        raise IllegalAction(N_("A bid is written with the digits 0 to 9 only."))
    return int(text)


def _standing_bids(auction: dict[str, Any]) -> list[int | None]:
    bids = list(auction["bids"])
    if auction["auctioneer"] is not None:
        bids[auction["auctioneer"]] = auction["open_bid"]
    return bids


def _evaluate(state: State) -> None:
    """Reveal the sealed bids to the auctioneer and settle the auction or call a re-bid."""
    auction = state["auction"]
    auctioneer = auction["auctioneer"]
    bids = _standing_bids(auction)
    auction["steps"].append(bids)
    if auctioneer is not None:
        for bidder in auction["bidders"]:
            base.log_event(
                state,
                N_("{seat} bid {amount} (you see every bid as auctioneer)."),
                to=[auctioneer],
                seat=base.seat_ref(bidder),
                amount=bids[bidder],
            )
    top = max(b for b in bids if b is not None)
    tied = [s for s, b in enumerate(bids) if b == top]
    if len(tied) == 1:
        _award(state, tied[0], top)
        return
    if auctioneer is None:
        base.log_event(
            state,
            N_("{seats} tied for the highest bid: nobody gets {country} {industry}."),
            seats=[base.seat_ref(s) for s in tied],
            **tile_params(auction["tile"]),
        )
        _award(state, None, None)
        return
    auction["ties"] += 1
    if auction["ties"] >= 3:
        winner = highest_unmatched_bidder(bids, exclude=tied)
        base.log_event(
            state,
            N_("{seats} tied for the third time in a row: the highest bidder outside the tie wins."),
            seats=[base.seat_ref(s) for s in tied],
        )
        _award(state, winner, None if winner is None else bids[winner])
        return
    auction["bidders"] = tied
    auction["submitted"] = []
    for seat in tied:
        auction["bids"][seat] = None
    base.log_event(
        state,
        N_("{seats} tied for the highest bid and bid again (tie {ties} of 3)."),
        seats=[base.seat_ref(s) for s in tied],
        ties=auction["ties"],
    )


def highest_unmatched_bidder(bids: list[int | None], exclude: list[int]) -> int | None:
    """The seat with the highest bid outside ``exclude`` that no other such seat matched."""
    others = [b for s, b in enumerate(bids) if b is not None and s not in exclude]
    for amount in sorted(set(others), reverse=True):
        holders = [s for s, b in enumerate(bids) if b == amount and s not in exclude]
        if len(holders) == 1:
            return holders[0]
    return None


def _award(state: State, winner: int | None, amount: int | None) -> None:
    auction = state["auction"]
    players = state["players"]
    auctioneer = auction["auctioneer"]
    params = tile_params(auction["tile"])
    if winner is None:
        seen_by: list[int] = []
    elif winner == auctioneer:
        seen_by = list(range(players))
        base.log_event(
            state,
            N_("{seat} won {country} {industry} for {amount}."),
            seat=base.seat_ref(winner),
            amount=amount,
            **params,
        )
    else:
        seen_by = sorted({winner} | ({auctioneer} if auctioneer is not None else set()))
        base.log_event(
            state,
            N_("{seat} won {country} {industry} for {amount}."),
            to=seen_by,
            seat=base.seat_ref(winner),
            amount=amount,
            **params,
        )
        base.log_event(
            state,
            N_("{seat} won {country} {industry}; the amount stays secret."),
            not_to=seen_by,  # everyone else, spectators included
            seat=base.seat_ref(winner),
            **params,
        )
    zero_bids, zero_scored = _zero_bids(state) if players >= 4 else ([], [])
    state["auctions"].append(
        {
            "number": auction["number"],
            "round": auction["round"],
            "tile": auction["tile"],
            "auctioneer": auctioneer,
            "open_bid": auction["open_bid"],
            "steps": auction["steps"],
            "winner": winner,
            "amount": amount,
            "seen_by": seen_by,
            "zero_bids": zero_bids,
            "zero_scored": zero_scored,
        }
    )
    state["auction"] = None
    state["turn"] += 1
    if state["turn"] == state["turns"]:
        _finish(state)
    elif players == 5:
        state["phase"] = "award"
    else:
        _start_auction(state)


def _zero_bids(state: State) -> tuple[list[int], list[int]]:
    """Reveal the standing zero bids; each scores 2 if it is the bidder's first this round."""
    auction = state["auction"]
    zero_bids = [s for s in range(state["players"]) if s != auction["auctioneer"] and auction["bids"][s] == 0]
    scored = []
    for seat in zero_bids:
        if auction["round"] in state["zero_rounds"][seat]:
            base.log_event(
                state, N_("{seat} bid 0 again this round: no more points for it."), seat=base.seat_ref(seat)
            )
            continue
        state["zero_rounds"][seat].append(auction["round"])
        scored.append(seat)
        base.log_event(
            state,
            N_("{seat} bid 0 and scores {points} points for this round."),
            seat=base.seat_ref(seat),
            points=data.ZERO_BID_POINTS,
        )
    return zero_bids, scored


def _reveal(state: State, seat: int, action: dict[str, Any]) -> None:
    if state["phase"] != "award" or seat != next_auctioneer(state):
        raise IllegalAction(N_("Only the next auctioneer reveals the next company."))
    _start_auction(state)


def _peek(state: State, seat: int, action: dict[str, Any]) -> None:
    if state["players"] != 5:
        raise IllegalAction(N_("Peeking is a 5-player rule."))
    if state["peek_used"][seat]:
        raise IllegalAction(N_("You have already used your peek in this game."))
    if state["phase"] != "award":
        raise IllegalAction(N_("You can peek only after an award, before the next company is revealed."))
    if not peek_allowed(state, seat):
        raise IllegalAction(N_("You can already see that amount; keep your peek for later."))
    record = state["auctions"][-1]
    state["peek_used"][seat] = True
    record["seen_by"] = sorted([*record["seen_by"], seat])
    base.log_event(state, N_("{seat} uses their peek."), seat=base.seat_ref(seat))
    base.log_event(
        state,
        N_("You peek: {winner} paid {amount} for {country} {industry}."),
        to=[seat],
        winner=base.seat_ref(record["winner"]),
        amount=record["amount"],
        **tile_params(record["tile"]),
    )


def tiles_won(state: State, seat: int) -> list[dict[str, Any]]:
    return [r for r in state["auctions"] if r["winner"] == seat]


def spent(state: State, seat: int) -> int:
    return sum(r["amount"] for r in tiles_won(state, seat))


def sheet_scores(state: State, seat: int) -> dict[str, int]:
    return scoring.score_sheet(
        state["players"],
        state["countries"][seat],
        state["tokens"][seat],
        [r["tile"] for r in tiles_won(state, seat)],
        len(state["zero_rounds"][seat]),
    )


def _finish(state: State) -> None:
    players = state["players"]
    sheets = [sheet_scores(state, s) for s in range(players)]
    spends = [spent(state, s) for s in range(players)]
    standings = scoring.final_standings(players, [sh["subtotal"] for sh in sheets], spends)
    state["final"] = {"sheets": sheets, "spends": spends, **standings}
    state["phase"] = "finished"
    state["finished"] = True
    base.log_event(state, N_("All companies are sold: final scoring."))
    for seat in range(players):
        if standings["eliminated"][seat]:
            base.log_event(
                state,
                N_("{seat} spent the most ({amount}) and is eliminated."),
                seat=base.seat_ref(seat),
                amount=spends[seat],
            )
    if not any(standings["eliminated"]):
        base.log_event(state, N_("Everyone spent the same, so nobody is eliminated."))
    for seat in standings["winners"]:
        base.log_event(
            state,
            N_("{seat} wins with a final score of {points}."),
            seat=base.seat_ref(seat),
            points=standings["totals"][seat],
        )


def result(state: State) -> base.Result | None:
    if not state["finished"]:
        return None
    final = state["final"]
    return base.Result(winners=list(final["winners"]), scores=list(final["totals"]))
