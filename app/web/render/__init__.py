"""Turning one seat's view into HTML.

Templates receive only the engine's view for one seat (plus that seat's legal actions and public
room facts such as names), so a template cannot leak what the engine redacted. Each region of the
table is rendered on its own so a push can replace just the regions that changed, and only when what
its template read changed (``RegionCache``); the game log is a platform region pushed line by line.

A region is *public* or *private*. A public region (the seats, whose turn it is, and each game's
``GameInfo.public_regions``) is rendered from the spectators' context only — their view, no legal
actions, no seat — so it can carry nothing secret and is the same bytes for every viewer in one
language: rendered once per version and shared by every tab. What depends on who is looking ("you",
the host's buttons) is shown by the page itself, and so is whose turn it is on the seats and the
players' rows: most moves pass the turn, and the regions showing it would be drawn again for each.
A private region (the status, the lobby, a game's decision and hand) is rendered from one seat's
context and is kept small.

A push draws through one boundary, ``room.py`` (``RoomRegions``: a room's regions for each viewer, its
cache and what it lets go). ``BOURSE_PLAIN=1`` (``is_plain``) turns the caches here off: every region
and every ``{% cache %}`` block drawn afresh.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, MutableMapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache
from hashlib import blake2b
from marshal import dumps as marshal_dumps
from pathlib import Path
from types import FunctionType, MethodType
from typing import Any

from jinja2 import Environment, FileSystemLoader, TemplateNotFound, nodes, select_autoescape
from jinja2.ext import Extension
from jinja2.parser import Parser
from jinja2.runtime import Context, Macro
from markupsafe import Markup, escape

from app.config import get_settings
from app.games.base import Engine, State, visible_events
from app.games.registry import package_of
from app.i18n import (
    HTML_LANG,
    LOCALE_NAMES,
    LOCALES,
    dash,
    format_event,
    format_message,
    join_list,
    label_gap,
    labelled,
    parenthetical,
    person_name,
    translations,
)
from app.rooms.writer import TIMED_OUT
from app.web.assets import asset_url

ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = ROOT / "templates"
SEAT_COLOURS = 5  # player colours in bourse.css (--seat-0 ... --seat-4), one per seat, with its number


class _Environment(Environment):
    """Jinja's environment, with each template's globals as one plain dict.

    Jinja layers a template's globals over the environment's as a ``ChainMap``, which every render,
    include and import then walks in Python (copied into each context, its keys diffed at each
    ``{% import %}``): a good part of a publish's time. ``environment`` sets every global before
    the first template loads and none after, as Jinja asks anyway, so one flat copy says the same.
    """

    def make_globals(self, d: MutableMapping[str, Any] | None) -> MutableMapping[str, Any]:
        return {**self.globals, **(d or {})}

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``obj.attribute`` as Jinja gives it (an attribute first, then an item), with a dict's item
        looked up first when no attribute of a dict has that name: views are dicts, and Jinja's
        order raised and caught an ``AttributeError`` for nearly every ``view.key`` a template read."""
        if isinstance(obj, dict) and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


@lru_cache
def environment(locale: str, game_id: str | None = None) -> Environment:
    """The Jinja environment of a locale, translating with one game's catalogue (or all of them)."""
    env = _Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        extensions=["jinja2.ext.i18n", FragmentCache],
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # templates change only with a deploy; checking cost a stat() per render
    )
    env.context_class = _Recorded
    catalogue = translations(locale, package_of(game_id) if game_id else None)
    env.install_gettext_translations(catalogue, newstyle=True)  # type: ignore[attr-defined]  # jinja2.ext.i18n
    gettext, ngettext = _direct_gettext(catalogue)
    env.globals.update(_=gettext, gettext=gettext, ngettext=ngettext)
    env.globals.update(locale=locale, locales=LOCALES, locale_names=LOCALE_NAMES, html_lang=HTML_LANG[locale])
    env.filters["digits"] = _digits
    env.filters["iso_time"] = iso_time
    env.globals.update(_punctuation(locale))
    env.globals["rules_phases"] = rules_phases
    env.globals["asset"] = asset_url  # a static file's versioned address (app/web/assets.py)
    return env


def _punctuation(locale: str) -> dict[str, Any]:
    """Templates' helpers for the locale's punctuation (app.i18n), escaping what they are given:
    ``listed(items)`` "Ann, Bob" / "安妮、鮑伯"; ``labelled(label, text)`` "Ann: 12" / "安妮：12";
    ``aside(text)`` " (you)" / "（你）"; ``dash()``; ``label_gap(label)`` the space after a label's
    colon, only where the language puts one; ``person(name)`` a seat's name (a bot's translated)."""
    return {
        "listed": lambda items: Markup(join_list(locale, (str(escape(item)) for item in items))),
        "labelled": lambda label, text: Markup(labelled(locale, str(escape(label)), str(escape(text)))),
        "aside": lambda text: Markup(parenthetical(locale, str(escape(text)))),
        "dash": lambda: dash(locale),
        "label_gap": lambda label: Markup(label_gap(str(escape(label)))),
        "person": lambda name: person_name(locale, name),
    }


class FragmentCache(Extension):
    """``{% cache (key, ...) %}…{% endcache %}``: the block is rendered once per key and language.

    For pieces drawn again and again with the same few values: a Q.E. tile is drawn for every seat,
    every player and every sale, and a public region's heavy parts (a board, a player's display)
    mostly stay the same from one move to the next while something else in the region changes. The
    key must name every value the block reads, locals and ``seat_names`` included: the block is not
    run again for a key it has seen, so what it reads is recorded (``RegionCache``) only through the
    key. Inside a room's rendering the fragments are the room's (``RegionCache``: kept while a
    rendering that used them is kept); elsewhere (a macro of an imported template, which sees no
    rendering's context, or a page) they belong to the environment, one per language and game.
    """

    tags = {"cache"}
    LIMIT = 4096  # fragments kept per environment; past it, the cache starts afresh

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        self.fragments: dict[bytes, Markup] = {}

    def parse(self, parser: Parser) -> nodes.Node:
        lineno = next(parser.stream).lineno
        key = parser.parse_expression()
        body = parser.parse_statements(("name:endcache",), drop_needle=True)
        call = self.call_method("_fragment", [nodes.ContextReference(), key])
        return nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    def _fragment(self, context: Context, value: Any, caller: Callable[[], str]) -> Markup:
        room: RoomFragments | None = context.parent.get(FRAGMENTS)  # not a recorded read
        if room is PLAIN_FRAGMENTS or (room is None and is_plain()):
            return Markup(caller())
        # keys may hold lists and dicts (a player's tiles): their exact bytes (``value_bytes``)
        key = value_bytes(value)
        if room is not None:
            return room.fragment(str(self.environment.globals["locale"]), key, caller)
        fragment = self.fragments.get(key)
        if fragment is None:
            if len(self.fragments) >= self.LIMIT:
                self.fragments.clear()
            fragment = self.fragments[key] = Markup(caller())
        return fragment


FRAGMENTS = "__bourse_fragments__"  # the context entry holding a room's fragments while it renders


def is_plain() -> bool:
    """Whether this process runs plain (``BOURSE_PLAIN``): no region cache, no fragment cache, every
    region drawn afresh and sent whole."""
    return get_settings().plain


FragmentKey = bytes  # a digest of the language and the key's bytes (one object, smaller than a pair)


class RoomFragments:
    """A room's ``{% cache %}`` fragments, and which of them the rendering under way used.

    Kept with the room's ``RegionCache``: a fragment stays while a rendering that used it stays, so
    a region drawn again after a move finds the parts that did not change (one room's board is no
    other room's, so they are not kept per environment, where a thousand rooms would push each
    other's out). Each is a copy of part of a kept rendering, so it is kept small: as UTF-8 (a
    region's "ƒ" or "●" makes Python keep the whole string at two bytes a character) under a
    128-bit digest of its key (a key's bytes can be as long as the fragment)."""

    def __init__(self, store: dict[FragmentKey, bytes], used: set[FragmentKey]) -> None:
        self.store = store
        self.used = used

    def fragment(self, locale: str, key: bytes, caller: Callable[[], str]) -> Markup:
        digest = blake2b(key, digest_size=16, person=locale.encode()).digest()  # a code of <= 16 bytes
        self.used.add(digest)
        kept = self.store.get(digest)
        if kept is not None:
            return Markup(kept.decode())
        fragment = Markup(caller())
        self.store[digest] = fragment.encode()
        return fragment


PLAIN_FRAGMENTS = RoomFragments({}, set())  # a plain cache's drawings: every ``{% cache %}`` block is run

TEXTS_KEPT = 4096  # translated texts without values a locale's environment keeps


def _direct_gettext(catalogue: Any) -> tuple[Callable[..., Markup], Callable[..., Markup]]:
    """Jinja's new-style ``gettext`` and ``ngettext`` for autoescaped templates, called directly.

    The same results (the translation is markup, its ``%(name)s`` values are escaped, and it is always
    formatted, so a literal % is written %%), without the per-call context lookups of the extension's
    versions, which were a good part of every render. Every template here is autoescaped (.html).
    A message without values is translated and formatted once (most calls a move make are
    without values); a template translates only its own texts and the games' names, so the memo
    stays small, and is started afresh past ``TEXTS_KEPT`` all the same.
    """
    texts: dict[str, Markup] = {}

    def gettext(message: str, /, **values: Any) -> Markup:
        if values:
            return Markup(catalogue.gettext(message)) % values
        text = texts.get(message)
        if text is None:
            if len(texts) >= TEXTS_KEPT:
                texts.clear()
            text = texts[message] = Markup(catalogue.gettext(message)) % values
        return text

    def ngettext(singular: str, plural: str, count: int, /, **values: Any) -> Markup:
        values.setdefault("num", count)
        return Markup(catalogue.ngettext(singular, plural, count)) % values

    return gettext, ngettext


def iso_time(epoch_ms: int) -> str:
    """An epoch-milliseconds moment as an ISO 8601 UTC time ("2026-12-03T14:05:00Z"): what a page
    puts in a ``<time datetime>`` for the reader's browser to show in their own time zone."""
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _digits(value: Any) -> str:
    """An integer of any size with thin grouping, exact to the last digit."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


@dataclass(eq=True)
class Table:
    """Everything public about a room that a seat's page shows besides the game view."""

    code: str
    game: str
    status: str
    # {seat, name, is_bot, connected, is_host, bot_controlled, ...}: the same for every viewer (the
    # viewer's own entry is the context's ``me``)
    players: list[dict[str, Any]]
    to_act: list[int]
    result: dict[str, Any] | None
    next_code: str | None
    capacity: int
    match: Any = None  # the group's running score over its games in a row (rooms.MatchScore), if any
    # The viewer's seat only: its last decision was made by a bot because its clock ran out (until
    # its next move), with the first log line of that decision it may read (none when no longer kept).
    timed_out: list[dict[str, Any]] | None = None
    clock: int = 0  # seconds per decision (0: no clock)
    clock_paused_at: int | None = None  # the host paused the clock then (epoch ms); None: it runs

    def name_of(self, seat: int) -> str:
        for player in self.players:
            if player["seat"] == seat:
                return str(player["name"])
        return f"#{seat + 1}"


EVENTS = "events"  # the game log's region: rendered by the platform, pushed a few lines at a time


PLATFORM_PUBLIC = frozenset({"seats", "turn"})
PUBLIC_FORM_VERSION = 0  # public regions draw no forms: their context names no version of anyone's


def public_regions(engine: Engine) -> frozenset[str]:
    """The region ids of a room page drawn from the spectators' context (see the module docstring)."""
    return PLATFORM_PUBLIC | {f"g-{region}" for region in engine.info.public_regions}


def region_templates(engine: Engine, status: str, hints: bool = False) -> tuple[tuple[str, str], ...]:
    """(region id, template) pairs of a room page, in page order (the game log comes after them);
    ``hints``: the table allows them (the room's ``hints``), so the page has the coach's region."""
    return _region_templates(engine.info.id, tuple(engine.info.regions), status, hints)


COACH = "coach"
"""The coach's region (``app/learn``, platform/coach.html), in rooms whose table allows hints: a seat's
own, drawn from its context's ``coach`` (``app.learn.coaching.coach_notes``), which only a seat's
context has."""


@lru_cache(maxsize=64)
def _region_templates(
    game_id: str, game_regions: tuple[str, ...], status: str, hints: bool
) -> tuple[tuple[str, str], ...]:
    """Made once per game and state: a room's viewers, renderings and tabs keep the ids as keys, and
    each call made new strings of them."""
    regions = [("status", "platform/status.html"), ("seats", "platform/seats.html")]
    if status == "waiting":
        regions.append(("lobby", "platform/lobby.html"))
    else:
        regions.append(("turn", "platform/turn.html"))
        regions += [(f"g-{region}", f"games/{game_id}/{region}.html") for region in game_regions]
        if hints:
            regions.append((COACH, "platform/coach.html"))
    return tuple(regions)


@dataclass
class SeatContext:
    """What one viewer's regions are rendered from, and what each of its names stands for.

    ``tokens`` gives the comparable value behind each function in the context (they only read
    the players' names), so a region's recorded inputs can be compared with another viewer's.
    """

    values: dict[str, Any]
    view: dict[str, Any]
    tokens: dict[str, Any]
    core: State | None = None  # the state it was made from (without its game log)
    # read -> the digest of its long value here (``_Digested``), made once however many renderings
    # of however many regions compare it
    digests: dict[tuple[str, Any], bytes] = field(default_factory=dict)


def seat_context(
    engine: Engine,
    core: State | None,
    seat: int | None,
    table: Table,
    locale: str,
    legal: list[dict[str, Any]] | None = None,
    form_version: int = 0,
) -> SeatContext:
    """One viewer's context. ``core`` is the state without its game log; ``form_version`` is the
    version the seat's forms name (its legal version: it moves only when its legal actions do)."""
    view = engine.view(core, seat) if core is not None else {}
    # bots' names in the reader's language; the room's own list where none changes (in English), as
    # renderings that read the players keep what they read: a copy per viewer and version adds up
    # in a bot game's room
    if any(p.get("is_bot") and person_name(locale, p["name"]) != p["name"] for p in table.players):
        bots = [
            {**p, "name": person_name(locale, p["name"])} if p.get("is_bot") else p for p in table.players
        ]
        table = replace(table, players=bots)
    if legal is None:
        legal = engine.legal_actions(core, seat) if core is not None and seat is not None else []
    if table.status != "playing":
        legal = []
    names = _one_copy(tuple(player["name"] for player in table.players))
    me = (
        next((player for player in table.players if player["seat"] == seat), None)
        if seat is not None
        else None
    )

    def t(text: str, params: dict[str, Any] | None = None) -> str:
        return format_message(locale, text, params or {}, table.name_of, package_of(engine.info.id))

    values = {
        "view": view if core is not None else None,
        "seat": seat,
        "legal": legal,
        "legal_types": _one_copy(frozenset(template["type"] for template in legal)),
        "version": form_version,
        "players": table.players,
        # Every viewer's regions read the same table; what is the viewer's own is in ``me`` (its
        # player entry, None for spectators) and ``timed_out``, so a region that reads only the
        # table and what ``me`` holds the same way is shared between the seats (``RegionCache``).
        "table": spectators_table(table),
        "me": me,
        "info": engine.info,
        "name": table.name_of,
        "names": lambda seats: join_list(locale, (table.name_of(number) for number in seats)),
        "seat_names": names,  # what ``name`` reads: for the key of a ``{% cache %}`` block that names seats
        "act_url": f"/r/{table.code}/act",
        "t": t,
        "your_move": seat is not None and seat in table.to_act,
        # Read by the status line instead of ``me``, so a seat with nothing to decide shares the
        # spectators' line (which says "you are watching" only through the page: bourse.css).
        "bot_plays_for_you": bool(me and me.get("bot_controlled")),
        "match": table.match,
        "timed_out": None
        if table.timed_out is None
        else " ".join(
            format_event(locale, event, table.name_of, package_of(engine.info.id))
            for event in table.timed_out
        ),
    }
    return SeatContext(values, view, {"name": names, "names": names, "t": names}, core)


# Small values each viewer's context makes afresh (its legal actions' types, the players' names), kept
# once per process: a rendering that reads one keeps it as an input, in every room and version.
_VALUES_SEEN: dict[Any, Any] = {}
VALUES_SEEN_LIMIT = 8192  # distinct values kept; past it the table starts afresh


def _one_copy(value: Any) -> Any:
    """The one copy of ``value`` (hashable) this process keeps: an equal one seen before, or this."""
    if len(_VALUES_SEEN) >= VALUES_SEEN_LIMIT:
        _VALUES_SEEN.clear()
    return _VALUES_SEEN.setdefault(value, value)


def spectators_table(table: Table) -> Table:
    """The room's public facts as a spectator has them: nobody at the table is "you"."""
    if table.timed_out is None and not any(player.get("is_you") for player in table.players):
        return table
    return replace(table, players=[{**player, "is_you": False} for player in table.players], timed_out=None)


def timed_out_move(
    events: Iterable[dict[str, Any]], seat: int | None, timeouts: int
) -> list[dict[str, Any]] | None:
    """For ``Table.timed_out``: ``None`` unless ``seat``'s last decision timed out (``timeouts``, its
    consecutive timeouts, is reset by its own next move); else the first line ``seat`` may read of
    what its bot did then, from ``events`` (the newest of the log), or nothing when they no longer
    reach back to it."""
    if seat is None or timeouts <= 0:
        return None
    recent = list(events)
    for index in range(len(recent) - 1, -1, -1):
        event = recent[index]
        if event["text"] == TIMED_OUT and event["params"].get("seat") == {"seat": seat}:
            return visible_events({"events": recent[index + 1 :]}, seat)[:1]
    return []


def spectators_context(engine: Engine, context: SeatContext, locale: str) -> SeatContext:
    """The context public regions are drawn from: the same table, seen by a spectator."""
    if context.values["seat"] is None and context.values["version"] == PUBLIC_FORM_VERSION:
        return context
    table = spectators_table(context.values["table"])
    return seat_context(engine, context.core, None, table, locale, legal=[], form_version=PUBLIC_FORM_VERSION)


# --------------------------------------------------------------------------- rendering once
READS = "__bourse_reads__"  # the context entry where a render notes the names it looks up
_MISSING = object()


class _Recorded(Context):
    """A template context that notes every name the template looks up (includes share it)."""

    def resolve_or_missing(self, key: str) -> Any:
        reads = self.parent.get(READS)
        if reads is not None:
            reads.add(("name", key))
        return super().resolve_or_missing(key)

    def call(__self, __obj: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - Jinja's names
        """A template's call of ``__obj``, as Jinja makes it, with a short way for a plain function
        that asks for no context (``_``, ``ngettext``, ``name``, ``listed``…: most calls a render
        makes) and for a template's macro (which asks for the evaluation context), which Jinja's
        version probed for that twice a call: a form's fields and a card's picture are macros, a
        decision calls dozens of them."""
        if type(__obj) is Macro:
            args = (__self.eval_ctx, *args)
        else:
            plain = __obj.__func__ if type(__obj) is MethodType else __obj  # a bound method: ``name``
            if type(plain) is not FunctionType or "jinja_pass_arg" in plain.__dict__:
                return super().call(__obj, *args, **kwargs)
        kwargs.pop("_block_vars", None)
        kwargs.pop("_loop_vars", None)
        try:
            return __obj(*args, **kwargs)
        except StopIteration:
            return __self.environment.undefined(
                "value was undefined because a callable raised a StopIteration exception"
            )


_WHOLE = object()  # a read of a whole dict (walked, compared, printed)
_TRUTH = object()  # a read of whether a dict is empty
_A_DICT = object()  # a read of whether a value is a dict (``x is none`` reads nothing else)


# the context's entries whose reads are noted path by path (``_RecordedView``, ``_RecordedTable``)
RECORDED = ("view", "me", "table")


class _RecordedView(dict[str, Any]):
    """A view (or ``me``, or a dict inside either) that notes the paths a template reads.

    Reading a key that holds a dict gives that dict recorded in turn, so ``view.auction.auctioneer``
    depends on the auctioneer alone, not on the whole auction; any other value (a list, a number) is
    a read of that value as a whole. Walking, sizing or comparing a dict is a read of all of it.
    Reads are noted as (the context name it hangs from, its path).
    """

    __slots__ = ("_bourse_reads", "_bourse_path", "_bourse_root")

    def __init__(
        self,
        data: dict[str, Any],
        reads: set[tuple[str, Any]],
        path: tuple[Any, ...] = (),
        root: str = "view",
    ) -> None:
        super().__init__(data)
        self._bourse_reads = reads
        self._bourse_path = path
        self._bourse_root = root

    def _read(self, key: Any, value: Any) -> Any:
        path = (*self._bourse_path, key)
        if type(value) is dict:
            self._bourse_reads.add((self._bourse_root, (*path, _A_DICT)))
            return _RecordedView(value, self._bourse_reads, path, self._bourse_root)
        self._bourse_reads.add((self._bourse_root, path))
        return value

    def __getitem__(self, key: str) -> Any:
        try:
            value = super().__getitem__(key)
        except KeyError:
            self._bourse_reads.add((self._bourse_root, (*self._bourse_path, key)))
            raise
        return self._read(key, value)

    def get(self, key: str, default: Any = None) -> Any:
        if super().__contains__(key):
            return self._read(key, super().__getitem__(key))
        self._bourse_reads.add((self._bourse_root, (*self._bourse_path, key)))
        return default

    def __contains__(self, key: object) -> bool:
        self._bourse_reads.add((self._bourse_root, (*self._bourse_path, key)))
        return super().__contains__(key)

    def __bool__(self) -> bool:
        self._bourse_reads.add((self._bourse_root, (*self._bourse_path, _TRUTH)))
        return super().__len__() > 0

    def _whole(self) -> None:
        self._bourse_reads.add((self._bourse_root, (*self._bourse_path, _WHOLE)))

    def __iter__(self) -> Any:
        self._whole()
        return super().__iter__()

    def __len__(self) -> int:
        self._whole()
        return super().__len__()

    def __eq__(self, other: object) -> bool:
        self._whole()
        return dict(super().items()) == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = None  # a dict is unhashable; defining __eq__ says so again

    def __repr__(self) -> str:
        self._whole()
        return repr(dict(super().items()))

    __str__ = __repr__

    def keys(self) -> Any:
        self._whole()
        return super().keys()

    def values(self) -> Any:
        self._whole()
        return super().values()

    def items(self) -> Any:
        self._whole()
        return super().items()


# What ``x.name`` finds as an attribute on a view (a dict, or a recorded one): ``_Environment.getattr``
_DICT_ATTRIBUTES = frozenset(dir(dict)) | frozenset(dir(_RecordedView))


class _RecordedTable:
    """The room's ``Table`` in a rendering, noting which of its fields the template reads.

    Read as one name, a table changed with nearly every move (whose turn it is, ``to_act``), so every
    region reading any of it was drawn again for every viewer: a status line that reads only the
    room's code and state is now the same across moves. A field holding a dict is read path by path
    (``_RecordedView``); ``name_of`` reads the players."""

    __slots__ = ("_bourse_table", "_bourse_reads")

    def __init__(self, table: Table, reads: set[tuple[str, Any]]) -> None:
        self._bourse_table = table
        self._bourse_reads = reads

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # Python's and Jinja's probes (``__html__``): a table has none
            raise AttributeError(name)
        if name == "name_of":
            self._bourse_reads.add(("table", ("players",)))
            return self._bourse_table.name_of
        value = getattr(self._bourse_table, name, _MISSING)
        if type(value) is dict:
            self._bourse_reads.add(("table", (name, _A_DICT)))
            return _RecordedView(value, self._bourse_reads, (name,), "table")
        self._bourse_reads.add(("table", (name,)))
        if value is _MISSING:
            raise AttributeError(name)
        return value


def _input(read: tuple[str, Any], context: SeatContext) -> Any:
    """The value behind one recorded read, for this viewer."""
    kind, key = read
    if kind != "name":  # a path in one of the RECORDED entries
        value: Any = context.view if kind == "view" else context.values[kind]
        if kind == "table":  # its first step is a field of the dataclass, the rest are keys
            value = getattr(value, key[0], _MISSING)
            if value is _MISSING:
                return value
            key = key[1:]
        for step in key:
            if step is _WHOLE:
                return value
            if step is _TRUTH:
                return bool(value)
            if step is _A_DICT:
                return type(value) is dict
            if not isinstance(value, dict) or step not in value:
                return _MISSING
            value = value[step]
        return value
    if key in RECORDED:  # the name alone: whether there is one (what it holds is read by path)
        return context.values[key] is None
    if key in context.tokens:
        return context.tokens[key]
    return context.values.get(key, _MISSING)


Html = bytes
"""A region's HTML as a room keeps it: UTF-8. Kept as ``str``, nearly every region (its "·", "★" or
"ƒ") would take two bytes a character; as UTF-8 the markup, most of it, takes one (a Q.E. room's
renderings nearly halved: BENCHMARKS.md history). Shared as they are, compared by digest (``Rendering``); decoded only into
what is sent. (Kept deflated they took less still, but a busy server then did fewer moves.)"""


Digest = int
"""What stands for a rendering's HTML, what a tab is known to have been sent: its length and Python's
keyed hash (SipHash, its key random per process, which is the only one to compare them): much
quicker than blake2b, and smaller (a thousand rooms keep tens of thousands)."""


def digest_of(html: Html) -> Digest:
    return len(html) << 64 | hash(html) & 0xFFFF_FFFF_FFFF_FFFF


@dataclass(slots=True)  # a thousand rooms keep tens of thousands
class Rendering:
    """One drawing of a region: what its template read, the values it read, and its HTML.

    The HTML of a seat's own (private) rendering is let go once its tab was sent it
    (``RegionCache.sweep``): the tab keeps the rendering, whose ``digest`` says what it has, and
    the HTML is drawn again only if a tab that lacks it needs it (a reconnect, another tab of the
    seat, a seat whose region came to look like another seat's)."""

    reads: tuple[tuple[str, Any], ...]
    inputs: tuple[Any, ...]
    html: Html | None
    digest: Digest
    used: int  # the sweep generation it was last used in
    # the room's fragments it was drawn with (kept with it); a tuple: most have none, and an empty
    # frozenset is an object of its own where the empty tuple is one shared object
    fragments: tuple[FragmentKey, ...]


# What renderings read, kept once per process and by the set a drawing noted: a region's renderings,
# in every room of a game, mostly read the same names and paths, and each rendering kept its own copy
# of them; and putting a set in order (``_read_order``: a ``repr`` a read) cost more
# than a new rendering's other bookkeeping together. The four games make a few hundred distinct sets.
_READS_SEEN: dict[frozenset[tuple[str, Any]], tuple[tuple[str, Any], ...]] = {}
READS_SEEN_LIMIT = 8192  # distinct read sets kept; past it the table starts afresh


# Context names that differ between the viewers of one version (``seat_context``).
VIEWER_NAMES = frozenset(
    {"seat", "me", "legal", "legal_types", "version", "your_move", "bot_plays_for_you", "timed_out", COACH}
)


def _read_order(read: tuple[str, Any]) -> tuple[int, str]:
    """How a rendering's reads are kept: first the context names that differ between viewers, then
    the view's and ``me``'s paths (they differ between versions), then the other names, mostly the
    same for every viewer of a room: a lookup stops at the first read that differs. Each group is
    in ``repr`` order, so equal sets give equal tuples."""
    kind, key = read
    rank = (0 if key in VIEWER_NAMES else 2) if kind == "name" else 1
    return rank, repr(read)


DIGESTED_FROM = 512  # bytes of a list's or dict's ``value_bytes`` from which a rendering keeps its digest


def value_bytes(value: Any) -> bytes:
    """Bytes equal only for equal values: a view's plain data as ``marshal`` writes it (format 2,
    the last that writes values alone: later ones mark which objects are shared or interned, which
    equal values need not be), quicker than ``repr`` for a history or a player's tiles; what
    it cannot write (a template's wrapper of a view, ``Markup``) as its ``repr``, after a byte no
    marshal output starts with. Values equal in another form (a dict built in another order, a set
    iterated otherwise) may give other bytes: what reads them is drawn again, never wrongly kept."""
    try:
        return marshal_dumps(value, 2)
    except ValueError:
        return b"\0" + repr(value).encode()


class _Digested(bytes):
    """A long list or dict a rendering read (a history, a player's tiles), kept as a digest of its
    ``value_bytes``."""

    __slots__ = ()


def _value_digest(read: tuple[str, Any], value: Any, context: SeatContext, shortest: int = 0) -> bytes | None:
    """The digest of ``value`` (what ``read`` finds in ``context``), made once a context; None when its
    bytes are fewer than ``shortest`` (and no digest of it was made yet)."""
    digest = context.digests.get(read)
    if digest is None:
        data = value_bytes(value)
        if len(data) < shortest:
            return None
        digest = context.digests[read] = blake2b(data, digest_size=16).digest()
    return digest


def _same_inputs(entry: Rendering, context: SeatContext) -> bool:
    """Whether ``context`` has the values ``entry`` was drawn from (its reads in order: the first
    that differs ends the look)."""
    for read, kept in zip(entry.reads, entry.inputs, strict=True):
        value = _input(read, context)
        if type(kept) is _Digested:
            if type(value) not in (list, dict) or _value_digest(read, value, context) != kept:
                return False
        elif value != kept:
            return False
    return True


def _kept_inputs(
    reads: tuple[tuple[str, Any], ...], context: SeatContext, kept: list[Rendering]
) -> tuple[Any, ...]:
    """The values a new rendering read (``reads`` in ``context``) as it keeps them: a long list or
    dict as its digest (``_Digested``: what a history grows to is kept in 16 bytes), a shorter one
    that equals what a kept rendering of the region read there as that one. A region is drawn again
    when a few of its inputs changed; the others are equal to what the last drawing read, but parts
    of a view made afresh for this version: kept twice, and each a young object that the renderings
    would keep until the interpreter's slowest collections look at it."""
    inputs: list[Any] = []
    for read in reads:
        value = _input(read, context)
        if type(value) in (list, dict):
            digest = _value_digest(read, value, context, shortest=DIGESTED_FROM)
            if digest is not None:
                value = _Digested(digest)
        inputs.append(value)
    for other in kept:
        if other.reads is not reads:
            continue
        for index, (new, old) in enumerate(zip(inputs, other.inputs, strict=True)):
            if new is not old and type(new) in (list, dict) and type(old) is type(new) and new == old:
                inputs[index] = old
    return tuple(inputs)


def _recorded_reads(reads: set[tuple[str, Any]]) -> tuple[tuple[str, Any], ...]:
    """What a drawing read (``reads``, as noted) as a rendering keeps it: in ``_read_order``, the one
    copy this process keeps of that set. A set's copy reuses the hashes its entries were noted with."""
    noted = frozenset(reads)
    recorded = _READS_SEEN.get(noted)
    if recorded is None:
        if len(_READS_SEEN) >= READS_SEEN_LIMIT:
            _READS_SEEN.clear()
        recorded = _READS_SEEN[noted] = tuple(sorted(noted - {("name", READS)}, key=_read_order))
    return recorded


class RegionCache:
    """Renders a room's regions once per distinct input.

    A region's HTML is a pure function of what its template reads: the context names it looks up
    and the view keys it reads, both noted while it renders. A viewer whose values for those reads
    equal a cached rendering's gets that rendering without rendering again: a region that did not
    change is not rendered, and viewers who see the same thing (every spectator, and every seat for
    public regions) share one rendering. Only a few renderings per region are kept.
    """

    KEEP = 12

    def __init__(self, plain: bool | None = None) -> None:
        """``plain``: keep nothing, draw every region afresh (``is_plain()`` when not given)."""
        self.plain = is_plain() if plain is None else plain
        self._entries: dict[tuple[str, str], list[Rendering]] = {}
        self._fragments: dict[FragmentKey, bytes] = {}  # the room's ``{% cache %}`` fragments
        self._guard = threading.Lock()
        self._generation = 0
        self.renders = 0  # for tests and benchmarks
        self.renders_of: Counter[str] = Counter()  # the same, per region
        self.redraws = 0  # renders of a rendering whose HTML had been let go (counted in ``renders`` too)

    def sweep(self, showing: Iterable[Rendering], keeping_html: Iterable[Rendering] = ()) -> None:
        """Forget the renderings neither used since the last sweep nor in ``showing`` (what the
        room's tabs show now; call after bringing every tab up to date), and the HTML of those of
        them not in ``keeping_html`` (the tabs were sent it: they keep its digest)."""
        shown = {id(rendering) for rendering in showing}
        kept_html = {id(rendering) for rendering in keeping_html}
        with self._guard:
            for key, entries in list(self._entries.items()):
                entries[:] = [e for e in entries if e.used == self._generation or id(e) in shown]
                if not entries:
                    del self._entries[key]
                for entry in entries:
                    if id(entry) not in kept_html:
                        entry.html = None
            kept = {
                fragment for entries in self._entries.values() for e in entries for fragment in e.fragments
            }
            for fragment in self._fragments.keys() - kept:
                del self._fragments[fragment]
            self._generation += 1

    def region(self, env: Environment, region: str, template: str, context: SeatContext, locale: str) -> Html:
        """The region's HTML for ``context`` (drawn unless a kept rendering has it)."""
        return self.html(env, template, context, self.rendering(env, region, template, context, locale))

    def rendering(
        self,
        env: Environment,
        region: str,
        template: str,
        context: SeatContext,
        locale: str,
        hint: Rendering | None = None,
    ) -> Rendering:
        """The region's rendering for ``context``: a kept one whose inputs are this context's values
        (its HTML may have been let go: ``html``), or a new one. ``hint``: the one this viewer's tab
        shows, looked at first: a seat's region mostly stays as it was, and its rendering is among
        the other seats' (the last looked up first), each compared until a read differs."""
        if self.plain:
            html = self._draw(env, template, context)[0]
            with self._guard:
                self.renders += 1
                self.renders_of[region] += 1
            return Rendering((), (), html, digest_of(html), self._generation, ())
        key = (locale, region)
        with self._guard:
            entries = self._entries.setdefault(key, [])
            looked_at = None  # the hint, once compared (first is looked at first anyway)
            if hint is not None and entries and entries[0] is not hint:
                looked_at = hint
                if _same_inputs(hint, context):
                    kept = next((index for index, entry in enumerate(entries) if entry is hint), None)
                    if kept is not None:  # else let go since: not the cache's any more
                        return self._used(entries, kept)
            for index, entry in enumerate(entries):
                if entry is not looked_at and _same_inputs(entry, context):
                    return self._used(entries, index)
        html, reads, fragments = self._draw(env, template, context)
        recorded = _recorded_reads(reads)
        with self._guard:
            entries = self._entries.setdefault(key, [])
            entry = Rendering(
                recorded,
                _kept_inputs(recorded, context, entries),
                html,
                digest_of(html),
                self._generation,
                tuple(fragments),
            )
            self.renders += 1
            self.renders_of[region] += 1
            entries.insert(0, entry)
            del entries[self.KEEP :]
        return entry

    def _used(self, entries: list[Rendering], index: int) -> Rendering:
        """``entries[index]``, found for a viewer: put first and marked used (under the guard)."""
        entry = entries[index]
        if index:
            entries.insert(0, entries.pop(index))
        entry.used = self._generation
        return entry

    def html(self, env: Environment, template: str, context: SeatContext, rendering: Rendering) -> Html:
        """``rendering``'s HTML, drawn again from ``context`` (whose values are its inputs) if it was
        let go. The same bytes: a region is a pure function of what it reads."""
        html = rendering.html
        if html is None:
            html = rendering.html = self._draw(env, template, context)[0]
            with self._guard:
                self.renders += 1
                self.redraws += 1
        return html

    def _draw(
        self, env: Environment, template: str, context: SeatContext
    ) -> tuple[Html, set[tuple[str, Any]], set[FragmentKey]]:
        """The template drawn from ``context``: its HTML, what it read, the fragments it used."""
        reads: set[tuple[str, Any]] = set()
        fragments = PLAIN_FRAGMENTS if self.plain else RoomFragments(self._fragments, set())
        me = context.values.get("me")
        table = context.values.get("table")
        values = {
            **context.values,
            "view": _RecordedView(context.view, reads) if context.values["view"] is not None else None,
            "me": _RecordedView(me, reads, root="me") if me is not None else None,
            "table": _RecordedTable(table, reads) if table is not None else None,
            READS: reads,
            FRAGMENTS: fragments,
        }
        return env.get_template(template).render(values).encode(), reads, fragments.used


def public_renderings(
    engine: Engine, spectators: SeatContext, status: str, locale: str, cache: RegionCache
) -> dict[str, Rendering]:
    """The public regions of a room page, from the spectators' context: what every tab shares."""
    env = environment(locale, engine.info.id)
    shared = public_regions(engine)
    return {
        region: cache.rendering(env, region, template, spectators, locale)
        for region, template in region_templates(engine, status)
        if region in shared
    }


def render_regions(
    engine: Engine, context: SeatContext, status: str, locale: str, cache: RegionCache | None = None
) -> dict[str, str]:
    """``region_html`` as text (a page, a replay)."""
    return {
        region: html.decode() for region, html in region_html(engine, context, status, locale, cache).items()
    }


def region_html(
    engine: Engine, context: SeatContext, status: str, locale: str, cache: RegionCache | None = None
) -> dict[str, Html]:
    """Every region of a viewer's page but the game log, rendered or taken from ``cache``; the public
    ones drawn from the spectators' context."""
    env = environment(locale, engine.info.id)
    cache = cache or RegionCache()
    shared = public_regions(engine)
    spectators: SeatContext | None = None
    regions = {}
    for region, template in region_templates(engine, status):
        drawn_from = context
        if region in shared:
            drawn_from = spectators = spectators or spectators_context(engine, context, locale)
        regions[region] = cache.region(env, region, template, drawn_from, locale)
    return regions


def region_renderings(
    engine: Engine,
    context: SeatContext,
    status: str,
    locale: str,
    cache: RegionCache,
    public: Mapping[str, Rendering],
    hints: Mapping[str, Rendering] | None = None,
    coach: bool = False,
) -> dict[str, Rendering]:
    """Every region of a viewer's page but the game log, as renderings (``RegionCache.rendering``):
    its public regions are ``public`` (the spectators' of the same version and language, rendered
    once for every tab); ``hints``: what a tab of the viewer shows, looked at first; ``coach``: the
    table allows hints (``region_templates``)."""
    env = environment(locale, engine.info.id)
    hints = hints or {}
    return {
        region: public[region]
        if region in public
        else cache.rendering(env, region, template, context, locale, hints.get(region))
        for region, template in region_templates(engine, status, coach)
    }


# --------------------------------------------------------------------------- the game log
def event_line(event: dict[str, Any], locale: str, game_id: str, name_of: Callable[[int], str]) -> str:
    """One game-log line (the same for every viewer allowed to read it); a line opening a round or a
    turn (the game's ``log_headings``) is a heading for the lines after it."""
    formatted = escape(format_event(locale, event, _seat_placeholder, package_of(game_id)))
    text = _with_seat_marks(formatted, locale, name_of)
    to: list[int] = event.get("to") or []
    if len(to) == 1 and not SEAT_PLACEHOLDER.search(formatted):
        # a line for one seat alone ("You bid 12 in secret."): that seat's colour disc before it
        text = f'<span class="seat-mark sc-{to[0] % SEAT_COLOURS}" data-n="{to[0] + 1}" aria-hidden="true"></span>{text}'
    if event["text"] in _log_headings(game_id):
        return f'<li class="log-heading">{text}</li>'
    return f"<li>{text}</li>"


# A seat's name in a log line is drawn with its player colour and number (platform/marks.html's
# seat_mark): the line is formatted with a placeholder per seat (private-use characters, which no
# translation or name holds and escaping keeps), then each placeholder becomes the marked name.
SEAT_PLACEHOLDER = re.compile("\ue000(\\d+)\ue001")


def _seat_placeholder(seat: int) -> str:
    return f"\ue000{seat}\ue001"


def seat_marked_name(seat: int, name: str) -> str:
    """A seat's name with its player colour and number before it (HTML; ``name`` is escaped). The
    number is drawn by the stylesheet from ``data-n``, so the line's text stays the sentence."""
    return f'<span class="seat-mark sc-{seat % SEAT_COLOURS}" data-n="{seat + 1}" aria-hidden="true"></span>{escape(name)}'


def _with_seat_marks(text: str, locale: str, name_of: Callable[[int], str]) -> str:
    return SEAT_PLACEHOLDER.sub(
        lambda found: seat_marked_name(int(found[1]), person_name(locale, name_of(int(found[1])))), text
    )


@lru_cache
def _log_headings(game_id: str) -> frozenset[str]:
    from app.games.registry import ENGINES  # the registry imports every game; render is imported by them

    engine = ENGINES.get(game_id)
    return frozenset(engine.info.log_headings) if engine is not None else frozenset()


def events_region(lines_newest_first: Iterable[str], locale: str) -> str:
    """The game log's region: its heading and every line it shows, oldest first (a log reads down,
    like a conversation: the newest line is at the bottom, where the page scrolls it into view)."""
    catalogue = translations(locale)
    heading = escape(catalogue.gettext("Game log"))
    lines = "".join(reversed(list(lines_newest_first)))
    return (
        f'<div class="panel event-log" role="log" aria-labelledby="event-log-title">'
        f'<h2 id="event-log-title">{heading}</h2><ol class="log" id="event-list" tabindex="0" hx-ext="ignore:morph">{lines}</ol></div>'
    )


def events_added(lines_newest_first: list[str]) -> str:
    """Lines to add at the bottom of the game log a tab already shows. The list opts out of the morph
    extension (``hx-ext="ignore:morph"`` in ``events_region``): idiomorph's extension calls every swap
    style not its own "inline", and htmx then appends this wrapper itself, not its lines (a ``<div>`` in
    an ``<ol>``), as it did when motion.js handed a held push back to the socket."""
    if not lines_newest_first:
        return ""
    return f'<div hx-swap-oob="beforeend:#event-list">{"".join(reversed(lines_newest_first))}</div>'


MORPH = ' hx-swap-oob="morph"'
"""How a push swaps a region in: htmx's idiomorph extension morphs the element of its id into the
one sent, keeping the elements that stay (their classes, focus, open details, CSS transitions)."""


def wrap_region(region: str, html: str, oob: bool) -> Markup:
    oob_attr = MORPH if oob else ""
    return Markup(f'<section id="r-{region}" class="region region-{region}"{oob_attr}>{html}</section>')


def version_marker(version: int) -> str:
    """An empty flash region stamped with the room version a push brings: clears stale refusals, and
    tells the page (and load tests) which version it now shows."""
    return (
        f'<section id="r-flash" class="region region-flash" aria-live="assertive" '
        f'data-room-version="{version}" hx-swap-oob="true"></section>'
    )


def regions_container(regions: dict[str, str], oob: bool) -> Markup:
    """All regions: the table's in their container, then the game log beside it (a side column on a
    laptop, a drawer on a phone). Pushed whole when the set of regions changes (game start). Before
    the game starts the log's place is kept empty, so the push that starts it has a target."""
    inner = "".join(
        wrap_region(region, html, oob=False) for region, html in regions.items() if region != EVENTS
    )
    oob_attr = MORPH if oob else ""
    log = (
        wrap_region(EVENTS, regions[EVENTS], oob=oob)
        if EVENTS in regions
        else Markup(f'<section id="r-{EVENTS}" class="region region-{EVENTS}" hidden{oob_attr}></section>')
    )
    return Markup(f'<div id="regions"{oob_attr}>{inner}</div>{log}')


def oob_fragments(regions: dict[str, str]) -> str:
    return "".join(wrap_region(region, html, oob=True) for region, html in regions.items())


def render_page(name: str, locale: str, game_id: str | None = None, **context: Any) -> str:
    return environment(locale, game_id).get_template(name).render(context)


# --------------------------------------------------------------------------- rules at the table
# A game's rules.html marks the elements that explain a phase with data-phases="<phase> ...", the
# names its view gives view.phase; the "?" beside a decision shows those elements in place.
RULES_PART = re.compile(r'<(?P<tag>[a-z][a-z0-9]*)\b[^>]*\bdata-phases="(?P<phases>[^"]*)"[^>]*>')


@lru_cache(maxsize=64)
def rules_for_phase(game_id: str, phase: str, locale: str) -> str:
    """The elements of the game's rules page marked for ``phase``, whole and in page order ("" if
    none is)."""
    html = render_page(f"games/{game_id}/rules.html", locale, game_id)
    parts = [
        _element_from(html, found.start(), found["tag"])
        for found in RULES_PART.finditer(html)
        if phase in found["phases"].split()
    ]
    return "".join(f"<ul>{part}</ul>" if part.startswith("<li") else part for part in parts)


@lru_cache
def rules_phases(game_id: str) -> frozenset[str]:
    """The phases the game's rules page has a part for (the room shows a "?" only for those; a game
    without a rules page, such as the tests' toy game, has none)."""
    try:
        html = render_page(f"games/{game_id}/rules.html", "en", game_id)
    except TemplateNotFound:
        return frozenset()
    return frozenset(phase for found in RULES_PART.finditer(html) for phase in found["phases"].split())


def _element_from(html: str, start: int, tag: str) -> str:
    """The element whose opening tag is at ``start``, up to its own closing tag (nesting counted)."""
    depth = 0
    for found in re.finditer(rf"<(/?){tag}\b[^>]*>", html[start:]):
        depth += -1 if found[1] else 1
        if depth == 0:
            return html[start : start + found.end()]
    return html[start:]


def render_seat_html(
    engine: Engine,
    state: State,
    seat: int | None,
    locale: str = "en",
    names: Callable[[int], str] | None = None,
) -> str:
    """All regions of one seat's table page, game log included, as the room page renders them (tests)."""
    naming = names or (lambda number: f"Player {number + 1}")
    result = engine.result(state)
    table = Table(
        code="testroom",
        game=engine.info.id,
        status="finished" if result is not None else "playing",
        players=[
            {
                "seat": number,
                "name": naming(number),
                "is_bot": False,
                "connected": True,
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
    core = {**state, "events": []}
    regions = render_regions(
        engine, seat_context(engine, core, seat, table, locale, form_version=1), table.status, locale
    )
    lines = [
        event_line(event, locale, engine.info.id, table.name_of) for event in visible_events(state, seat)
    ]
    regions[EVENTS] = events_region(reversed(lines), locale)
    return "".join(wrap_region(region, html, oob=False) for region, html in regions.items())
