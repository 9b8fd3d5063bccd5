"""Q.E.'s regions (issue 18): the auction, players and sales regions are public, drawn from the
spectators' view only, so they carry no seat's secret and are the same for everyone; what is a seat's
own (its decision, sheet, bids and the amounts it saw) is in the private decision, sheet and notes
regions, which draw nothing when the seat has nothing of its own; "you" is marked by the page."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from app.games.base import State
from app.games.qe import ENGINE, rules
from app.games.registry import checks_of
from app.web.render import PLATFORM_PUBLIC, Table, public_regions, render_regions, seat_context
from tests.games.qe.test_qe_auction import act, table

PUBLIC = public_regions(ENGINE) - PLATFORM_PUBLIC
SECRET_PREFIX = "987654321"


def regions(state: State, seat: int | None, locale: str = "en") -> dict[str, str]:
    """Every region of one viewer's table page (the game log aside), by region id."""
    finished = state["finished"]
    players = [
        {"seat": s, "name": f"P{s + 1}", "connected": True, "is_you": s == seat, "is_host": s == 0}
        for s in range(state["players"])
    ]
    status = "finished" if finished else "playing"
    room = Table("testroom", "qe", status, players, [] if finished else ENGINE.to_act(state), None, None, 5)
    context = seat_context(ENGINE, state, seat, room, locale, form_version=1)
    return render_regions(ENGINE, context, status, locale)


def test_the_public_regions_are_the_auction_the_players_and_the_sales() -> None:
    assert {"g-auction", "g-players", "g-sales"} == PUBLIC
    assert ENGINE.info.regions[0] == "decision"  # the seat's controls come first on every screen


def publicly_known(state: State, amount: int) -> bool:
    """Whether a sealed bid is for everyone to see: once the game is over, a winning amount."""
    return state["finished"] and any(record["amount"] == amount for record in state["auctions"])


def shows(html: str, amount: int) -> bool:
    return str(amount) in html or f"{amount:,}" in html


@pytest.mark.parametrize("players", [3, 4, 5])
def test_public_regions_carry_no_seats_secret_at_random_positions(players: int) -> None:
    """Through a bot game with distinctive sealed bids: for each seat, the public regions of its page
    are the spectators' and are unchanged when that seat's secrets (its industry token) are disguised;
    no sealed bid shows in them before the end; the disguise does change that seat's own sheet."""
    rng = random.Random(players + 70)
    checks = checks_of("qe")
    assert checks is not None
    state = ENGINE.setup(players, {}, players + 70)
    secrets: list[int] = []
    positions = 0
    while not state["finished"]:
        seat = rng.choice(ENGINE.to_act(state))
        action: dict[str, Any] = ENGINE.bot_action(state, seat, rng)
        if action["type"] == "bid" and rng.random() < 0.5:
            amount = int(SECRET_PREFIX + str(rng.randrange(100000, 1000000)))
            action = {"type": "bid", "amount": str(amount)}
            secrets.append(amount)
        state = ENGINE.apply(state, seat, action)
        if rng.random() > 0.25 or state["finished"]:
            continue
        positions += 1
        spectators = {region: regions(state, None)[region] for region in PUBLIC}
        for region, html in spectators.items():
            assert not any(shows(html, amount) for amount in secrets), region
        for owner in range(players):
            disguised, changed = checks.disguise(state, owner, random.Random(owner))
            page = regions(state, owner)
            twin = regions(disguised, owner)
            for region in PUBLIC:
                assert page[region] == twin[region] == spectators[region], (owner, region)
            assert page["g-sheet"] != twin["g-sheet"] and owner in changed
    assert positions > 5 and secrets


def test_secret_bids_show_in_public_regions_only_once_they_are_public() -> None:
    state = ENGINE.setup(4, {}, 74)
    rng = random.Random(74)
    secrets: list[int] = []
    while not state["finished"]:
        seat = rng.choice(ENGINE.to_act(state))
        action: dict[str, Any] = ENGINE.bot_action(state, seat, rng)
        if action["type"] == "bid":
            amount = int(SECRET_PREFIX + str(rng.randrange(100000, 1000000)))
            action = {"type": "bid", "amount": str(amount)}
            secrets.append(amount)
        state = ENGINE.apply(state, seat, action)
    final = "".join(regions(state, None)[region] for region in PUBLIC)
    won = [amount for amount in secrets if publicly_known(state, amount)]
    assert won and all(shows(final, amount) for amount in won)
    assert not any(shows(final, amount) for amount in secrets if amount not in won)


def test_the_viewers_own_card_and_auctioneer_tag_are_marked_by_the_page() -> None:
    """The players region names every seat's card by data-seat-row (bourse.js marks the viewer's
    "you") and data-turn-seat (the stylesheet marks the seats the game waits for); the auctioneer's
    line carries the "you" tag, which the stylesheet shows to the viewer only."""
    state = act(table(4, first=2), 2, "open_bid", 5)
    for seat in (None, 0, 2):
        page = regions(state, seat)
        cards = re.findall(
            r'<div class="qe-seat-card" id="part-qe-seat-(\d)" data-seat-row="\1" data-turn-seat="\1">',
            page["g-players"],
        )
        assert cards == ["0", "1", "2", "3"], seat
        assert "qe-you" not in page["g-players"] and " you" not in page["g-players"]
        assert re.search(
            r'<p data-seat-row="2">Auctioneer: P3 <span class="tag turn you-tag">you</span></p>',
            page["g-auction"],
        )
    css = (Path(__file__).resolve().parents[3] / "static/games/qe.css").read_text(encoding="utf-8")
    assert ".qe-seat-card.you {" in css and ".qe-auction .you > .you-tag { display: inline; }" in css


def test_the_decision_region_holds_the_controls_and_the_seats_own_bids() -> None:
    state = act(table(4, first=0), 0, "open_bid", 5)
    state = act(state, 1, "bid", 7)
    bidder, auctioneer, waiting, spectator = (regions(state, seat) for seat in (2, 0, 1, None))
    for page in (bidder, auctioneer, waiting, spectator):
        held = [region for region, html in page.items() if 'class="decision' in html]
        assert held == (["g-decision"] if page is bidder else [])
        assert 'data-track="qe-your-bid"' not in page["g-auction"]
    assert "Your sealed bid: <strong" in waiting["g-decision"]
    assert spectator["g-decision"] == "" and spectator["g-notes"] == ""
    for seat, amount in ((2, 7), (3, 1)):
        state = act(state, seat, "bid", amount)  # Bob and Cy tie: they bid again
    tied, auctioneer = regions(state, 1), regions(state, 0)
    assert "Your bids before the tie: 7" in tied["g-decision"]
    assert "Bids so far (only you, the auctioneer, see them)" in auctioneer["g-decision"]
    assert "Bids so far" not in regions(state, 3)["g-decision"] + auctioneer["g-auction"]


def test_the_notes_keep_each_seats_bids_and_the_amounts_it_saw() -> None:
    """After a sale the public sales table hides the amount; the winner, the auctioneer and a peeker
    see it in their notes (and the auctioneer every bid), each bidder its own bids, nobody else's."""
    state = act(table(5, first=0), 0, "open_bid", 5)
    for seat, amount in ((1, 987654321001), (2, 987654321002), (3, 987654321003), (4, 987654321004)):
        state = act(state, seat, "bid", amount)  # Eve (4) wins; Ann (0) ran the auction
    assert state["phase"] == "award" and rules.peek_allowed(state, 2)
    state = act(state, 2, "peek")
    pages = {seat: regions(state, seat) for seat in (None, 0, 1, 2, 3, 4)}
    assert not any(shows(pages[None][region], 987654321004) for region in PUBLIC)
    notes = {seat: page["g-notes"] for seat, page in pages.items()}
    assert [seat for seat, html in notes.items() if shows(html, 987654321004)] == [0, 2, 4]
    assert all(shows(notes[0], 987654321000 + s) for s in (1, 2, 3, 4))  # the auctioneer's bids table
    assert shows(notes[3], 987654321003) and not shows(notes[3], 987654321002)
    seen = [seat for seat, page in pages.items() if "What you see of the last sale" in page["g-decision"]]
    assert seen == [0, 2, 4]
