"""What one seat may know of a Q.E. game (ruling 6: who sees what).

Public: countries, the tile on offer, the auctioneer's bid, who has handed in a sealed bid, who
won each tile, zero bids (4–5 players), used peeks and the tiles still to come (not their order).
Private: a seat's own bids, token, amounts paid and running score; the auctioneer alone sees every
bid of their auctions; a winning amount is seen by the winner, the auctioneer and peekers (everyone
if the auctioneer won). At the end every sheet, token and amount paid is revealed.
"""

from __future__ import annotations

from typing import Any

from app.games import base
from app.games.base import State, View
from app.games.qe import data, rules


def tile_info(tile: str) -> dict[str, Any]:
    """A tile as views show it: the same dict in every view, as a tile never changes (views are read,
    never changed; a room's viewers keep theirs, and a dict a tile each time cost a room ~20 KB)."""
    return _TILE_INFO[tile]


_TILE_INFO = {
    tile: {
        **info,
        "country_name": data.COUNTRY_NAMES[str(info["country"])],
        "industry_name": data.INDUSTRY_NAMES[str(info["industry"])],
    }
    for tile, info in data.TILES.items()
}


def _amount_visible(state: State, record: dict[str, Any], seat: int | None) -> bool:
    if state["finished"] or record["winner"] == record["auctioneer"]:
        return True  # the auctioneer's winning bid is public, to spectators as well
    return seat is not None and seat in record["seen_by"]


def _history(state: State, seat: int | None) -> list[dict[str, Any]]:
    history = []
    for record in state["auctions"]:
        visible = record["winner"] is not None and _amount_visible(state, record, seat)
        auctioneer = record["auctioneer"]
        history.append(
            {
                "number": record["number"] + 1,
                "round": record["round"] + 1,
                "tile": tile_info(record["tile"]),
                "auctioneer": auctioneer,
                "open_bid": record["open_bid"],
                "winner": record["winner"],
                "amount": record["amount"] if visible else None,
                "amount_visible": visible,
                "all_bids": record["steps"] if seat is not None and seat == auctioneer else None,
                "your_bids": _own_bids(record["steps"], seat, auctioneer),
                "zero_bids": record["zero_bids"],
                "zero_scored": record["zero_scored"],
            }
        )
    return history


def _own_bids(steps: list[list[int | None]], seat: int | None, auctioneer: int | None) -> list[int]:
    """The bids the seat handed in: its first, then one per re-bid it was tied into."""
    if seat is None or seat == auctioneer or not steps:
        return []
    first = steps[0][seat]
    if first is None:
        return []
    own = [first]
    for before, step in zip(steps, steps[1:], strict=False):
        top = max(b for b in before if b is not None)
        bid = step[seat]
        if before[seat] == top and bid is not None:
            own.append(bid)
    return own


def _current_auction(state: State, seat: int | None) -> dict[str, Any] | None:
    auction = state["auction"]
    if auction is None:
        return None
    auctioneer = auction["auctioneer"]
    own = seat is not None and seat != auctioneer
    return {
        "number": auction["number"] + 1,
        "round": auction["round"] + 1,
        "tile": tile_info(auction["tile"]),
        "auctioneer": auctioneer,
        "open_bid": auction["open_bid"],
        "bidders": list(auction["bidders"]),
        "submitted": list(auction["submitted"]),
        "waiting_for": [s for s in auction["bidders"] if s not in auction["submitted"]],
        "you_submitted": seat is not None
        and seat in auction["submitted"],  # so a status need not name the seat
        "ties": auction["ties"],
        "rebid": auction["ties"] > 0,
        "your_bid": auction["bids"][seat] if own else None,
        "your_bids": _own_bids(auction["steps"], seat, auctioneer),
        "all_bids": auction["steps"] if seat is not None and seat == auctioneer else None,
        "forbidden_bid": auction["open_bid"],
        "min_bid": 1 if state["phase"] == "open_bid" else 0,
        "zero_bid_scores": own and zero_bid_would_score(state, seat),
        "last_round": auction["round"] + 1 >= rules.rounds_with_auctioneer(state["players"]),
        "auctions_left": state["turns"] - auction["number"],
    }


def zero_bid_would_score(state: State, seat: int | None) -> bool:
    """Whether a zero bid handed in now would score (phase 04: 4–5 players, once per round)."""
    auction = state["auction"]
    if seat is None or auction is None or state["players"] < 4 or seat == auction["auctioneer"]:
        return False
    return auction["round"] not in state["zero_rounds"][seat]


def _public_seat(state: State, history: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    won = [h for h in history if h["winner"] == seat]
    return {
        "seat": seat,
        "country": state["countries"][seat],
        "country_name": data.COUNTRY_NAMES[state["countries"][seat]],
        "tiles": [{**h["tile"], "amount": h["amount"], "number": h["number"]} for h in won],
        "zero_rounds": [r + 1 for r in state["zero_rounds"][seat]],
        "peek_used": state["peek_used"][seat],
    }


def sheet(state: State, history: list[dict[str, Any]], seat: int) -> dict[str, Any]:
    """A player's score sheet (the player board): shown live to its owner, to all at the end."""
    players = state["players"]
    rounds = rules.rounds_with_auctioneer(players) if players >= 4 else 0
    won = [h for h in history if h["winner"] == seat]
    return {
        **_public_seat(state, history, seat),
        "token": state["tokens"][seat],
        "token_name": data.INDUSTRY_NAMES[state["tokens"][seat]],
        "zero_boxes": [r in state["zero_rounds"][seat] for r in range(rounds)],
        "scores": rules.sheet_scores(state, seat),
        "spent": sum(h["amount"] for h in won),
    }


def ending_story(final: dict[str, Any]) -> dict[str, Any]:
    """The facts of the decisive moment: who was eliminated for spending how much against whom,
    whether that cost them the best score, and what the winners scored (all revealed at the end)."""
    spends: list[int] = final["spends"]
    totals: list[int] = final["totals"]
    eliminated = [s for s, out in enumerate(final["eliminated"]) if out]
    survivors = [s for s in range(len(spends)) if s not in eliminated]
    next_spend = max(spends[s] for s in survivors) if eliminated else None
    winners: list[int] = final["winners"]
    winning_total = totals[winners[0]]
    best_eliminated = max((totals[s] for s in eliminated), default=None)
    return {
        "eliminated": eliminated,
        "top_spend": max(spends),
        "next_spend": next_spend,
        "next_spenders": [s for s in survivors if spends[s] == next_spend],
        "lowest_spenders": [s for s, bonus in enumerate(final["bonuses"]) if bonus],
        "eliminated_leader": best_eliminated is not None and best_eliminated > winning_total,
        "best_eliminated_total": best_eliminated,
        "winners": list(winners),
        "winning_total": winning_total,
    }


def view(state: State, seat: int | None) -> View:
    players = state["players"]
    history = _history(state, seat)
    finished = state["finished"]
    me = seat if seat is not None and 0 <= seat < players else None  # None: a spectator
    final = None
    if finished:
        f = state["final"]
        final = {
            "sheets": [
                {
                    **sheet(state, history, s),
                    "bonus": f["bonuses"][s],
                    "total": f["totals"][s],
                    "eliminated": f["eliminated"][s],
                    "winner": s in f["winners"],
                }
                for s in range(players)
            ],
            "winners": list(f["winners"]),
            "story": ending_story(f),
        }
    last = history[-1] if history else None
    return {
        "game": data.GAME_ID,
        "phase": state["phase"],
        "players": players,
        "seat": me,
        "to_act": rules.to_act(state),
        "turn": min(state["turn"] + 1, state["turns"]),
        "turns": state["turns"],
        "rounds": rules.rounds_with_auctioneer(players),
        "first_auctioneer": state["first_auctioneer"],
        "auction": _current_auction(state, seat),
        "last_award": last,
        "next_auctioneer": rules.next_auctioneer(state) if state["phase"] == "award" else None,
        "can_peek": me is not None and rules.peek_allowed(state, me),
        "zero_bids_score": players >= 4,
        "remaining_tiles": [tile_info(t) for t in data.TILES if t in state["deck"]],
        "table": [_public_seat(state, history, s) for s in range(players)],
        "history": history,
        "sheet": sheet(state, history, me) if me is not None and not finished else None,
        "final": final,
        "events": base.visible_events(state, seat),
    }
