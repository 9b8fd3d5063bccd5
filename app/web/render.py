"""Turning one seat's view into HTML.

Templates receive only the engine's view for one seat (plus that seat's legal actions and public
room facts such as names), so a template cannot leak what the engine redacted. Each region of the
table is rendered on its own so a push can replace just the regions that changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from app.games.base import Engine, State
from app.games.registry import package_of
from app.i18n import HTML_LANG, LOCALE_NAMES, LOCALES, format_message, translations

ROOT = Path(__file__).resolve().parent.parent.parent
TEMPLATES = ROOT / "templates"


@lru_cache
def environment(locale: str, game_id: str | None = None) -> Environment:
    """The Jinja environment of a locale, translating with one game's catalogue (or all of them)."""
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_translations(
        translations(locale, package_of(game_id) if game_id else None), newstyle=True
    )  # type: ignore[attr-defined]
    env.globals.update(locale=locale, locales=LOCALES, locale_names=LOCALE_NAMES, html_lang=HTML_LANG[locale])
    env.filters["digits"] = _digits
    return env


def _digits(value: Any) -> str:
    """An integer of any size with thin grouping, exact to the last digit."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


@dataclass
class Table:
    """Everything public about a room that a seat's page shows besides the game view."""

    code: str
    game: str
    status: str
    version: int
    players: list[dict[str, Any]]  # {seat, name, is_bot, connected, is_you, is_host, bot_controlled}
    to_act: list[int]
    result: dict[str, Any] | None
    next_code: str | None
    capacity: int

    def name_of(self, seat: int) -> str:
        for player in self.players:
            if player["seat"] == seat:
                return str(player["name"])
        return f"#{seat + 1}"


def region_templates(engine: Engine, status: str) -> list[tuple[str, str]]:
    """(region id, template) pairs of a room page, in page order."""
    regions = [("status", "platform/status.html"), ("seats", "platform/seats.html")]
    if status == "waiting":
        regions.append(("lobby", "platform/lobby.html"))
    else:
        game_id = engine.info.id
        regions += [(f"g-{region}", f"games/{game_id}/{region}.html") for region in engine.info.regions]
    return regions


def seat_context(
    engine: Engine, state: State | None, seat: int | None, table: Table, locale: str
) -> dict[str, Any]:
    view = engine.view(state, seat) if state is not None else None
    legal = engine.legal_actions(state, seat) if state is not None and seat is not None else []
    if table.status != "playing":
        legal = []

    def t(text: str, params: dict[str, Any] | None = None) -> str:
        return format_message(locale, text, params or {}, table.name_of, package_of(engine.info.id))

    return {
        "view": view,
        "seat": seat,
        "legal": legal,
        "legal_types": {template["type"] for template in legal},
        "version": table.version,
        "players": table.players,
        "table": table,
        "info": engine.info,
        "name": table.name_of,
        "names": lambda seats: ", ".join(table.name_of(number) for number in seats),
        "act_url": f"/r/{table.code}/act",
        "t": t,
        "your_move": seat is not None and seat in table.to_act,
    }


def render_regions(
    engine: Engine, state: State | None, seat: int | None, table: Table, locale: str
) -> dict[str, str]:
    env = environment(locale, engine.info.id)
    context = seat_context(engine, state, seat, table, locale)
    return {
        region: env.get_template(template).render(context)
        for region, template in region_templates(engine, table.status)
    }


def wrap_region(region: str, html: str, oob: bool) -> Markup:
    oob_attr = ' hx-swap-oob="true"' if oob else ""
    return Markup(f'<section id="r-{region}" class="region region-{region}"{oob_attr}>{html}</section>')


def version_marker(version: int) -> str:
    """An empty flash region stamped with the room version a push brings: clears stale refusals, and
    tells the page (and load tests) which version it now shows."""
    return (
        f'<section id="r-flash" class="region region-flash" aria-live="assertive" '
        f'data-room-version="{version}" hx-swap-oob="true"></section>'
    )


def regions_container(regions: dict[str, str], oob: bool) -> Markup:
    """All regions in their container: pushed whole when the set of regions changes (game start)."""
    inner = "".join(wrap_region(region, html, oob=False) for region, html in regions.items())
    oob_attr = ' hx-swap-oob="true"' if oob else ""
    return Markup(f'<div id="regions"{oob_attr}>{inner}</div>')


def oob_fragments(regions: dict[str, str], only: Iterable[str] | None = None) -> str:
    chosen = regions if only is None else {key: regions[key] for key in only}
    return "".join(wrap_region(region, html, oob=True) for region, html in chosen.items())


def render_page(name: str, locale: str, game_id: str | None = None, **context: Any) -> str:
    return environment(locale, game_id).get_template(name).render(context)


def render_seat_html(
    engine: Engine,
    state: State,
    seat: int | None,
    locale: str = "en",
    names: Callable[[int], str] | None = None,
) -> str:
    """All regions of one seat's table page, as the room page renders them (for tests)."""
    naming = names or (lambda number: f"Player {number + 1}")
    result = engine.result(state)
    table = Table(
        code="testroom",
        game=engine.info.id,
        status="finished" if result is not None else "playing",
        version=1,
        players=[
            {
                "seat": number,
                "name": naming(number),
                "is_bot": False,
                "connected": True,
                "is_you": number == seat,
                "is_host": number == 0,
                "bot_controlled": False,
            }
            for number in range(state["players"])
        ],
        to_act=engine.to_act(state) if result is None else [],
        result=result.to_json() if result is not None else None,
        next_code=None,
        capacity=state["players"],
    )
    regions = render_regions(engine, state, seat, table, locale)
    return "".join(wrap_region(region, html, oob=False) for region, html in regions.items())
