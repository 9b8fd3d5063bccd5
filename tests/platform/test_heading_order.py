"""The room page's headings go down one level at a time (Lighthouse's and axe's heading-order, which
the browser tests' axe run does not fail on, being of moderate impact): a screen reader's outline of
the table skips no level, in every phase of every game, for a seat and for a spectator."""

from __future__ import annotations

import random
import re

import pytest

from app.games.registry import ENGINES
from app.web.render import render_seat_html

GAMES = sorted(ENGINES)
HEADING = re.compile(r"<h([1-6])[\s>]")
ROOM_TITLE = 1  # the room page's <h1> (platform/room.html) comes before every region


def skipped_levels(html: str) -> list[str]:
    """Each heading that lies more than one level below the heading before it."""
    skips = []
    previous = ROOM_TITLE
    for match in HEADING.finditer(html):
        level = int(match.group(1))
        if level > previous + 1:
            skips.append(f"h{previous} then h{level}: {html[match.start() : match.start() + 120]!r}")
        previous = level
    return skips


@pytest.mark.parametrize("game", GAMES)
def test_headings_skip_no_level_through_a_game(game: str) -> None:
    engine = ENGINES[game]
    rng = random.Random(5)
    state = engine.setup(engine.info.min_players, {}, 5)
    skips: dict[str, list[str]] = {}
    for step in range(400):
        finished = engine.result(state) is not None
        if finished or step % 4 == 0:
            to_act = [] if finished else engine.to_act(state)
            for seat in [*to_act[:1], None]:
                found = skipped_levels(render_seat_html(engine, state, seat))
                if found:
                    skips.setdefault(f"step {step}, seat {seat}", found)
        if finished:
            break
        seat = engine.to_act(state)[0]
        state = engine.apply(state, seat, engine.bot_action(state, seat, rng))
    assert engine.result(state) is not None, "the game reached its end"
    assert skips == {}
