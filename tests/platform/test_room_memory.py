"""What a room keeps for its live tabs, it keeps once: values every viewer and every version make
afresh are shared, so a thousand open rooms do not hold a copy of each per viewer (BENCHMARKS.md,
issue 18's memory figures)."""

from __future__ import annotations

import random
import sys
from typing import Any

from jinja2 import DictLoader

from app.games.base import random_bot_action
from app.games.registry import ENGINES
from app.rooms import RoomService
from app.web.render import RegionCache, SeatContext, environment, region_templates, seat_context, value_bytes
from app.web.render.room import RoomRegions
from tests.support import people_table


def test_a_pages_regions_and_a_contexts_small_values_are_made_once() -> None:
    qe = ENGINES["qe"]
    assert region_templates(qe, "playing") is region_templates(qe, "playing")  # its ids key every map
    assert [region for region, _ in region_templates(qe, "waiting")] == ["status", "seats", "lobby"]
    state = qe.setup(3, {}, 4)
    core = {**state, "events": []}
    seat = qe.to_act(state)[0]
    # two rooms' tables with the same players, drawn for the seat to act: the same values, one copy
    first = seat_context(qe, core, seat, people_table("qe", 3, seat), "en").values
    second = seat_context(qe, dict(core), seat, people_table("qe", 3, seat), "en").values
    assert first["legal_types"] and first["legal_types"] is second["legal_types"]
    assert first["seat_names"] == ("P0", "P1", "P2") and first["seat_names"] is second["seat_names"]
    other = seat_context(qe, core, None, people_table("qe", 3), "en").values
    assert other["legal_types"] == frozenset()  # a spectator's: nothing to decide


def test_a_shared_table_keeps_its_players_list_while_they_do_not_change(service: RoomService) -> None:
    code, _, _ = service.seats.create_room("qe", 3, {}, "Ann")  # seat 0, the host
    for name in ("Bob", "Cy"):
        service.seats.join(code, name)
    service.seats.start(code, 0)
    room = RoomRegions()
    host_here = frozenset({0})
    before = service.load(code)
    first = room.viewer(before, None, "en", host_here).table
    seat = before.to_act()[0]
    assert before.core is not None
    move = random_bot_action(before.engine, before.core, seat, random.Random(1))
    service.turns.act(code, seat, before.version, move)
    after = service.load(code)
    second = room.viewer(after, None, "en", host_here).table
    assert after.version > before.version and second is not first
    assert second.players is first.players  # the same players: one list for both versions' renderings
    gone = room.viewer(after, None, "en", frozenset()).table  # once the host's tab has closed
    assert gone.players is not second.players and gone.players[0]["connected"] is False


def test_a_context_keeps_the_rooms_players_unless_a_bots_name_is_translated() -> None:
    """Bots' names are drawn in the reader's language; where none changes (English) every viewer's
    context reads the room's own players list, which renderings keep as what they read."""
    qe = ENGINES["qe"]
    state = qe.setup(3, {}, 4)
    core = {**state, "events": []}
    table = people_table("qe", 3)
    table.players[1] |= {"name": "Bot Ada", "is_bot": True}
    english = seat_context(qe, core, 0, table, "en").values
    assert english["players"] is table.players and english["table"].players is table.players
    chinese = seat_context(qe, core, 0, table, "zh_Hant").values
    assert chinese["players"] is not table.players and chinese["players"][1]["name"] != "Bot Ada"
    assert table.players[1]["name"] == "Bot Ada"  # the room's own list is never changed


def test_a_rendering_keeps_a_long_list_as_a_digest_and_a_short_one_it_shares_once() -> None:
    """What a rendering read is what a later viewer's values are compared with. A long list (a game's
    history grows with every sale) is kept as a 16-byte digest: an equal list made afresh still finds
    the rendering, a changed one draws the region anew. A short list equal to one a kept rendering
    read is kept as that one, not as this version's copy."""
    env = environment("en").overlay(
        loader=DictLoader(
            {
                "log.html": "{% for line in view.history %}{{ line }};{% endfor %}",
                "turn.html": "{{ view.turn }} {{ view.order }}",
            }
        )
    )
    cache = RegionCache()

    def context(**view: Any) -> SeatContext:
        return SeatContext({"view": view}, view, {})

    history = [f"sale {number}: tile {number} went for {number * 3}" for number in range(40)]
    first = cache.rendering(env, "log", "log.html", context(history=history), "en")
    kept = dict(zip(first.reads, first.inputs, strict=True))[("view", ("history",))]
    assert isinstance(kept, bytes) and len(kept) == 16  # not the list: its digest
    assert cache.rendering(env, "log", "log.html", context(history=list(history)), "en") is first
    changed = cache.rendering(env, "log", "log.html", context(history=[*history[:-1], "sale 39: none"]), "en")
    assert changed is not first and cache.renders == 2
    assert cache.html(env, "log.html", context(history=history), first).decode().startswith("sale 0: tile 0")

    order = [2, 0, 1]
    before = cache.rendering(env, "turn", "turn.html", context(turn=1, order=order), "en")
    after = cache.rendering(env, "turn", "turn.html", context(turn=2, order=list(order)), "en")
    assert after is not before and after.html == b"2 [2, 0, 1]"
    assert (
        dict(zip(after.reads, after.inputs, strict=True))[("view", ("order",))] is order
    )  # one list for both


def test_a_long_value_is_known_by_what_it_holds_not_by_how_its_parts_are_shared() -> None:
    """A long value's digest is made from ``value_bytes``: equal plain data, whose strings and numbers
    are shared or interned one way in one version's view and another way in the next, gives the same
    bytes (the formats of ``marshal`` after 2 mark such objects), so the rendering is found again;
    other data gives other bytes."""
    env = environment("en").overlay(loader=DictLoader({"log.html": "{{ view.history|length }} sales"}))
    cache = RegionCache()
    name, amount = sys.intern("Ann Lee"), 10**6 + 1
    shared = [{"buyer": name, "paid": amount, "bid": amount} for _ in range(40)]
    fresh = [
        {"buyer": "".join(["Ann", " Lee"]), "paid": int("1000001"), "bid": int("1000001")} for _ in range(40)
    ]
    assert value_bytes(shared) == value_bytes(fresh) and len(value_bytes(shared)) > 512
    assert value_bytes(shared) != value_bytes([*fresh[:-1], {**fresh[-1], "paid": 7}])
    first = cache.rendering(
        env, "log", "log.html", SeatContext({"view": {"history": shared}}, {"history": shared}, {}), "en"
    )
    again = cache.rendering(
        env, "log", "log.html", SeatContext({"view": {"history": fresh}}, {"history": fresh}, {}), "en"
    )
    assert again is first and cache.renders == 1


def test_a_cache_key_holding_a_part_of_the_view_reads_all_of_that_part() -> None:
    """A ``{% cache %}`` key may name a dict of the view (``view.auction``), which a drawing sees
    wrapped to note what is read of it: marshal cannot write the wrapper, so the key's bytes come
    from its ``repr``, which reads the whole dict. A change the block's output does not show (the
    bid, where it prints the tile) then still draws the region again: the next time the block's
    fragment is found, the key is all that says what the block depends on."""
    env = environment("en").overlay(
        loader=DictLoader(
            {"auction.html": '{% cache ("auction", view.auction) %}{{ view.auction.tile }}{% endcache %}'}
        )
    )
    cache = RegionCache()

    def context(auction: dict[str, Any]) -> SeatContext:
        return SeatContext({"view": {"auction": auction}}, {"auction": auction}, {})

    first = cache.rendering(env, "auction", "auction.html", context({"tile": "gold", "bid": 2}), "en")
    assert cache.rendering(env, "auction", "auction.html", context({"tile": "gold", "bid": 2}), "en") is first
    raised = cache.rendering(env, "auction", "auction.html", context({"tile": "gold", "bid": 3}), "en")
    assert raised is not first and cache.renders == 2 and raised.html == first.html == b"gold"
