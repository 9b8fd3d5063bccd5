"""The coach: at every decision of every game, a few notes in the game's words from the seat's view
alone, said in each language, and the same whatever the other seats hide."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.games.base import view_without_log
from app.games.registry import ENGINES, checks_of, package_of
from app.i18n import format_message
from app.learn.coaching import decision_notes, option_message
from tests.platform.test_hints import decisions

LOCALES = ("en", "zh_Hant", "zh_Hans")


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_decision_has_notes_said_in_every_language(game: str) -> None:
    engine = ENGINES[game]
    phases = set()
    for players in (engine.info.min_players, engine.info.max_players):
        for state, seat in decisions(game, players, seed=players, every=3):
            view = view_without_log(engine, state, seat)
            legal = engine.legal_actions(state, seat)
            notes = decision_notes(game, view, seat, legal)
            if view.get("phase") not in ("round_summary",):  # Basari's "Continue" needs no coach
                assert notes, (game, view.get("phase"))
            phases.add(view.get("phase"))
            for locale in LOCALES:
                for text, params in notes:
                    said = format_message(locale, text, params, lambda s: f"P{s}", package_of(game))
                    assert "{" not in said and said.strip(), (locale, said)
                for template in legal:
                    action = {"type": template["type"]}
                    for name, domain in template.get("params", {}).items():
                        if domain["kind"] == "choice":
                            action[name] = domain["options"][0]
                        elif domain["kind"] == "int":
                            action[name] = domain["min"]
                        else:
                            action[name] = {key: 1 for key, top in domain["max"].items() if top}
                    text, params = option_message(game, action, view, seat, legal)
                    said = format_message(locale, text, params, lambda s: f"P{s}", package_of(game))
                    assert "{" not in said and said.strip(), (locale, said)
    assert len(phases) >= 3, phases


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_coach_says_the_same_whatever_another_seat_hides(game: str) -> None:
    engine, checks = ENGINES[game], checks_of(game)
    players = engine.info.min_players + 1
    rng = random.Random(3)
    tried = 0
    for state, seat in decisions(game, players, seed=21, every=2):
        owner = rng.choice([other for other in range(players) if other != seat])
        disguised, changed = checks.disguise(state, owner, random.Random(rng.getrandbits(32)))
        if seat in changed:
            continue
        before = decision_notes(
            game, view_without_log(engine, state, seat), seat, engine.legal_actions(state, seat)
        )
        after = decision_notes(
            game, view_without_log(engine, disguised, seat), seat, engine.legal_actions(disguised, seat)
        )
        assert before == after
        tried += 1
    assert tried >= 10


def test_a_move_posted_from_the_page_is_said_as_the_same_move_from_the_api() -> None:
    """A page's form posts counts as text ("0") and the log keeps them: a review said "Offer 0R 0Y 0G 1B"
    where the hint said "Offer 1B" (the newcomer trial)."""
    engine = ENGINES["basari"]
    state, seat = next(
        (state, seat)
        for state, seat in decisions("basari", 4, seed=4, every=1)
        if any(t["type"] == "offer" for t in engine.legal_actions(state, seat))
    )
    view = view_without_log(engine, state, seat)
    legal = engine.legal_actions(state, seat)
    posted = {"type": "offer", "gems": {"red": "0", "yellow": "0", "green": "0", "blue": "1"}}
    sent = {"type": "offer", "gems": {"blue": 1}}
    said = [
        format_message("en", *option_message("basari", action, view, seat, legal), str, "basari")
        for action in (posted, sent)
    ]
    assert said[0] == said[1] == "Offer 1B"


def test_tulip_bubbles_coach_says_how_prices_move_and_that_a_mortgage_keeps_a_tulip_from_collectors() -> None:
    """The newcomer trial bought a colour just before it fell and built a collector's order around a
    mortgaged tulip: the coach says both, from the seat's view."""
    engine = ENGINES["tulip-bubble"]
    seen_bidding = seen_mortgage = False
    for state, seat in decisions("tulip-bubble", 4, seed=6, every=1):
        view = view_without_log(engine, state, seat)
        legal = engine.legal_actions(state, seat)
        said = [
            format_message("en", text, params, str, "tulip_bubble")
            for text, params in decision_notes("tulip-bubble", view, seat, legal)
        ]
        if view["phase"] == "bidding":
            colours = [card["colour"] for row in view["rows"] for card in row["cards"]]
            counts = ", ".join(f"{colours.count(c)} {c}" for c in ("red", "white", "yellow"))
            assert any(note.endswith(f"In the rows now: {counts}.") for note in said), said
            seen_bidding = True
        mortgages = view["you"]["player"]["mortgages"]
        if view["phase"] == "selling" and mortgages:
            for mortgage in mortgages:
                assert (
                    f"{mortgage['label']} is mortgaged: no collector takes it until you redeem it for "
                    f"{mortgage['amount']}."
                ) in said
            seen_mortgage = True
    assert seen_bidding and seen_mortgage


def _basari_gain(card: str, seat: dict[str, Any], bank: dict[str, int]) -> str:
    """What performing ``card`` brings a seat, read off its view as a player reads the table: its
    workers before A's draw, its top card's points (B), or its top card's gems the bank has (C)."""
    if card == "A":
        return str(seat["workers"])
    top = seat["top"] or {"points": 0, "gems": {}}
    if card == "B":
        return f"{top['points']}★"
    letters = {"red": "R", "yellow": "Y", "green": "G", "blue": "B"}
    taken = [(min(top["gems"].get(c, 0), bank[c]), letter) for c, letter in letters.items()]
    return " ".join(f"{count}{letter}" for count, letter in taken if count) or "0"


def test_basaris_coach_says_what_each_bargainer_walks_away_with() -> None:
    """The newcomer trial, asked to accept an offer, could not tell what the other bidder would gain by
    it: the coach says what each side walks away with (the gems offered; the card performed, in the
    numbers of the performer's top card or worker count), when answering an offer and when making one."""
    engine = ENGINES["basari"]
    seen = set()
    for state, seat in decisions("basari", 4, seed=4, every=1):
        view = view_without_log(engine, state, seat)
        if view["phase"] != "bargain":
            continue
        legal = engine.legal_actions(state, seat)
        said = [
            format_message("en", text, params, lambda s: f"P{s}", "basari")
            for text, params in decision_notes("basari", view, seat, legal)
        ]
        bargain, me = view["bargain"], view["you"]
        card = bargain["card"]
        other = next(s for s in view["seats"] if s["seat"] in bargain["bidders"] and s["seat"] != seat)
        mine, theirs = (_basari_gain(card, s, view["bank"]) for s in (me, other))
        types = {template["type"] for template in legal}
        if "accept" in types:
            offered = " ".join(
                f"{bargain['current']['gems'][c]}{c[0].upper()}"
                for c in ("red", "yellow", "green", "blue")
                if bargain["current"]["gems"][c]
            )
            accept = next(note for note in said if note.startswith("Accept,"))
            assert accept.startswith(
                f"Accept, and you walk away with {offered} while P{other['seat']} performs card {card}"
            ), accept
            assert f" {theirs}" in accept, (accept, theirs)
            seen.add((card, "accept"))
        if "offer" in types:
            verb = "Raise" if bargain["current"] else "Offer"
            offer = next(note for note in said if note.startswith(f"{verb}, and if"))
            assert offer.startswith(
                f"{verb}, and if P{other['seat']} accepts, they walk away with the gems you offer while "
                f"you perform card {card}"
            ), offer
            assert f" {mine}" in offer, (offer, mine)
            if verb == "Offer":
                assert f" {theirs}" in offer, (offer, theirs)
            seen.add((card, verb))
    assert seen == {(card, kind) for card in "ABC" for kind in ("accept", "Offer", "Raise")}
