"""Whose turn it is, shown by the page (issue 18): the turn region names the seats the game waits for,
and the page's stylesheet marks their pills and the games' player rows (``data-turn-seat``), so the
regions that show the turn are not drawn again each time it passes."""

from __future__ import annotations

import random
import re

import pytest

from app.games.registry import ENGINES
from app.web.render import ROOT, RegionCache, public_regions, render_regions, seat_context
from tests.support import people_table

TO_ACT = ("to_act",)
# The regions that mark the seats the game waits for (their pills, the games' player cards and rows);
# others may say it in words ("Still choosing: Ann, Bob"), which they must draw again.
MARKING = {
    "basari": {"seats", "g-players"},
    "qe": {"seats", "g-players", "g-auction"},
    "tulip-bubble": {"seats", "g-players"},
    "tulipmania-1637": {"seats"},
}
WHILE_BIDDING = {"g-auction"}  # Q.E.'s sealed bids, marked only while they are handed in


def _reads_to_act(reads: tuple[tuple[str, object], ...]) -> bool:
    """Whether a rendering read whose turn it is: the table's ``to_act`` or the view's, or what Q.E.'s
    sealed bids say of it (the bidders who handed theirs in are those the game no longer waits for)."""
    if ("view", ("auction", "submitted")) in reads:
        return True
    return any(
        kind in ("table", "view") and isinstance(path, tuple) and path[:1] == TO_ACT for kind, path in reads
    )


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_regions_that_mark_the_turn_do_not_read_it(game: str) -> None:
    """Through a whole bot game: the public regions that mark whose turn it is carry every seat's
    ``data-turn-seat`` and never read ``to_act``; the seats are drawn only when a seat itself changes
    (never here: nobody comes or goes); the turn region names exactly the seats the game waits for."""
    engine = ENGINES[game]
    players = engine.info.max_players
    assert MARKING[game] <= public_regions(engine)
    state = engine.setup(players, {}, 3)
    rng = random.Random(17)
    cache = RegionCache(plain=False)  # what the cache does, whichever mode the tests run in
    moves = 0
    while engine.result(state) is None:
        core = {**state, "events": []}
        to_act = engine.to_act(core)
        table = people_table(game, players, None, to_act)
        regions = render_regions(
            engine, seat_context(engine, core, None, table, "en"), "playing", "en", cache
        )
        shown = re.fullmatch(r'<span class="turn-marks" data-to-act="([0-9 ]*)"></span>\s*', regions["turn"])
        assert shown is not None and shown[1].split() == [str(seat) for seat in to_act], regions["turn"]
        if moves == 0:
            for region in MARKING[game] - WHILE_BIDDING:
                assert all(f'data-turn-seat="{seat}"' in regions[region] for seat in range(players)), region
        seat = to_act[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))
        moves += 1
    assert moves > 20
    for (_, region), renderings in cache._entries.items():
        if region in MARKING[game]:
            assert not any(_reads_to_act(rendering.reads) for rendering in renderings), region
    assert cache.renders_of["seats"] == 1


def test_the_stylesheet_marks_the_turn_of_every_seat_of_the_largest_table() -> None:
    css = (ROOT / "static" / "css" / "bourse.css").read_text()
    marked = {
        int(seat)
        for seat, again in re.findall(
            r':has\(\.turn-marks\[data-to-act~="(\d)"\]\) \[data-turn-seat="(\d)"\]', css
        )
        if seat == again
    }
    largest = max(engine.info.max_players for engine in ENGINES.values())
    assert marked == set(range(largest))
