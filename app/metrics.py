"""What the server tells Prometheus at ``/metrics`` (``BOURSE_METRICS=on``; issue 47).

Two kinds of series, all named ``bourse_…`` in Prometheus' conventions (``_total`` for a counter,
``_seconds`` and ``_bytes`` for the unit):

* **events**, counted where they happen, in this process: a person's move accepted or refused and
  the time it took to commit (``app/rooms/turns.py``), a bot's decision and its search's playouts
  (the same file), a change published to a room's tabs, its time, the regions it drew and the bytes it
  queued (``app/web/live``), a database error (``app/db.py``). Each is a module-level metric of this
  process, cheap enough to count whether or not anyone scrapes;
* **state**, read at scrape time (``StateCollector``) from what the process keeps anyway: the rooms
  by state (one query), this process's open rooms, tabs and spectators (the live rooms), and the
  Web Push sender's queue and lost pushes.

Each app has its own registry (``Metrics``): the events and its own state. A process serves one app,
and each replica of the ``scale`` profile is a process of its own, so each exports its own series
(Prometheus tells them apart by the address it scrapes); no multiprocess mode is needed. The rooms
by state are the database's, so every replica reports the same numbers.

This module imports nothing of the rooms or the web layer (both count into it); what it reads at
scrape time it is handed as plain objects (the protocols below).
"""

from __future__ import annotations

import hmac
import logging
import time
from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Protocol
from weakref import WeakKeyDictionary

from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from app.games.base import STRENGTHS

log = logging.getLogger(__name__)

# A counter's ``_created`` series doubles what is sent for what no panel here uses.
disable_created_metrics()  # type: ignore[no-untyped-call]  # prometheus_client leaves it unannotated

SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
BYTES = tuple(float(1024 * 2**power) for power in range(0, 13))  # 1 KiB to 4 MiB
RENDERS = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0)

REFUSALS = (400, 403, 404, 409, 422)  # the statuses a move is refused with (``app/rooms/errors.py``)
BOT_OUTCOMES = ("chosen", "overran", "failed", "unfitting")  # ``app.bots.safe_decision``'s

# ------------------------------------------------------------ events (this process's)
MOVES_ACCEPTED = Counter(
    "bourse_moves_accepted", "People's moves applied and committed, by game", ["game"], registry=None
)
MOVES_REFUSED = Counter(
    "bourse_moves_refused",
    "People's moves refused (changing nothing), by the HTTP status of the refusal "
    "(409: made against an older table)",
    ["status"],
    registry=None,
)
MOVE_SECONDS = Histogram(
    "bourse_move_seconds",
    "Time from a person's move reaching the room service to its commit (the room's lock included)",
    ["game"],
    buckets=SECONDS,
    registry=None,
)
PUBLISH_SECONDS = Histogram(
    "bourse_publish_seconds",
    "Time to bring a room's tabs in this process up to a change (a move's or a bot's): their messages "
    "drawn and queued",
    buckets=SECONDS,
    registry=None,
)
PUBLISH_BYTES = Histogram(
    "bourse_publish_bytes",
    "Bytes queued for a room's tabs by one publish (a move, a tab opening, a seat going away), all tabs together",
    buckets=BYTES,
    registry=None,
)
PUBLISH_RENDERS = Histogram(
    "bourse_publish_renders",
    "Regions drawn for a room's tabs by one publish (a region already drawn for its inputs is not drawn again)",
    buckets=RENDERS,
    registry=None,
)
BOT_DECISIONS = Counter(
    "bourse_bot_decisions",
    "Decisions made by bots (and by a seat's bot when its clock ran out), by strength and outcome "
    "(chosen; overran, failed or unfitting: a random legal move was played instead)",
    ["strength", "outcome"],
    registry=None,
)
BOT_DECISION_SECONDS = Histogram(
    "bourse_bot_decision_seconds",
    "Time a bot took to decide, by strength",
    ["strength"],
    buckets=SECONDS,
    registry=None,
)
BOT_PLAYOUTS = Counter(
    "bourse_bot_search_playouts",
    "Games played out by the strong bots' search to choose their moves",
    registry=None,
)
DATABASE_ERRORS = Counter(
    "bourse_database_errors",
    "Database operations that failed (a full disk, a read-only or locked file, a lost connection)",
    registry=None,
)

EVENTS: tuple[Collector, ...] = (
    MOVES_ACCEPTED,
    MOVES_REFUSED,
    MOVE_SECONDS,
    PUBLISH_SECONDS,
    PUBLISH_BYTES,
    PUBLISH_RENDERS,
    BOT_DECISIONS,
    BOT_DECISION_SECONDS,
    BOT_PLAYOUTS,
    DATABASE_ERRORS,
)


def move_accepted(game: str, seconds: float) -> None:
    MOVES_ACCEPTED.labels(game).inc()
    MOVE_SECONDS.labels(game).observe(seconds)


def move_refused(status: int) -> None:
    MOVES_REFUSED.labels(str(status)).inc()


def bot_decided(strength: str, outcome: str, seconds: float, playouts: int) -> None:
    BOT_DECISIONS.labels(strength, outcome).inc()
    BOT_DECISION_SECONDS.labels(strength).observe(seconds)
    if playouts:
        BOT_PLAYOUTS.inc(playouts)


def database_error() -> None:
    DATABASE_ERRORS.inc()


class Renders(Protocol):
    """A room's region cache (``app.web.render.RegionCache``): how many regions it has drawn."""

    @property
    def renders(self) -> int: ...


# Each open room's cache, and its ``renders`` at its last publish: a publish's renders are the difference.
_renders_seen: WeakKeyDictionary[Renders, int] = WeakKeyDictionary()


def published(cache: Renders, messages: Iterable[tuple[object, str]]) -> None:
    """One publish to a room's tabs: the regions its cache drew since the room's last publish, and
    the bytes of the ``(tab, message)`` pairs it queued (a message shared by tabs is measured once)."""
    drawn = cache.renders - _renders_seen.get(cache, 0)
    _renders_seen[cache] = cache.renders
    sizes: dict[int, int] = {}
    queued = 0
    for _, message in messages:
        size = sizes.get(id(message))
        if size is None:
            size = sizes[id(message)] = len(message.encode())
        queued += size
    PUBLISH_RENDERS.observe(max(drawn, 0))
    PUBLISH_BYTES.observe(queued)


@contextmanager
def timed_publish(tabs_here: bool) -> Iterator[None]:
    """``with timed_publish(…): await …publish(…)``: the publish's time, into ``bourse_publish_seconds``,
    if the room has tabs on this process (``tabs_here``; else there is nothing to publish here)."""
    started = time.perf_counter()
    try:
        yield
    finally:
        if tabs_here:
            PUBLISH_SECONDS.observe(time.perf_counter() - started)


# ------------------------------------------------------------ state (read at scrape time)
class Tab(Protocol):
    @property
    def seat(self) -> int | None: ...


class LiveRoom(Protocol):
    @property
    def tabs(self) -> Collection[Tab]: ...


class PushQueue(Protocol):
    """The Web Push sender (``app.web.push.PushSender``): what waits, and what was lost."""

    def waiting(self) -> tuple[int, int]:
        """(rooms queued to be told, pushes handed to the posting loop and not yet done with)."""
        ...

    def failures(self) -> Mapping[str, int]:
        """Pushes not delivered since the start, by why."""
        ...


class StateCollector(Collector):
    """What the process keeps anyway, read when Prometheus scrapes: ``rooms_by_state`` (a query:
    state -> rooms; it may raise, and the rooms are then left out of that scrape), ``live_rooms``
    (this process's open rooms, by code) and ``push`` (the Web Push sender, if pushes are on)."""

    def __init__(
        self,
        rooms_by_state: Callable[[], Mapping[str, int]],
        live_rooms: Mapping[str, LiveRoom],
        push: PushQueue | None,
    ) -> None:
        self.rooms_by_state = rooms_by_state
        self.live_rooms = live_rooms
        self.push = push

    def collect(self) -> Iterator[Metric]:
        yield from self._rooms()
        rooms = list(self.live_rooms.values())  # a snapshot: the event loop changes the map meanwhile
        tabs = [tab for room in rooms for tab in list(room.tabs)]
        yield GaugeMetricFamily(
            "bourse_live_rooms", "Rooms with a tab open on this process", value=len(rooms)
        )
        yield GaugeMetricFamily(
            "bourse_live_tabs",
            "Tabs (live sockets) open on this process, players' and spectators'",
            value=len(tabs),
        )
        yield GaugeMetricFamily(
            "bourse_live_spectators",
            "Tabs open on this process by spectators (no seat)",
            value=sum(1 for tab in tabs if tab.seat is None),
        )
        yield from self._push()

    def _rooms(self) -> Iterator[Metric]:
        try:
            counts = self.rooms_by_state()
        except Exception as failure:  # the database is down: the other series still go out
            log.warning("/metrics: the rooms could not be counted: %s", failure)
            return
        rooms = GaugeMetricFamily(
            "bourse_rooms", "Rooms in the database by state (the same on every replica)", labels=["state"]
        )
        for state in ("waiting", "playing", "finished"):
            rooms.add_metric([state], counts.get(state, 0))
        yield rooms

    def _push(self) -> Iterator[Metric]:
        rooms, sending = self.push.waiting() if self.push is not None else (0, 0)
        yield GaugeMetricFamily(
            "bourse_push_rooms_queued",
            "Rooms waiting for the Web Push sender to tell their seats",
            value=rooms,
        )
        yield GaugeMetricFamily(
            "bourse_push_sends_waiting",
            "Pushes handed to the posting loop and not yet done with",
            value=sending,
        )
        failures = CounterMetricFamily(
            "bourse_push_failures",
            "Pushes not delivered, by why: dropped (too many waiting, in all or for its push service), "
            "failed (any answer but 2xx, a timeout, an address that is not public); forgotten counts "
            "the endpoints dropped after a gone answer or failures in a row",
            labels=["reason"],
        )
        lost = self.push.failures() if self.push is not None else {}
        for reason in ("dropped", "failed", "forgotten"):
            failures.add_metric([reason], lost.get(reason, 0))
        yield failures


class Metrics:
    """One app's ``/metrics``: the process's events, its state, and the process's own figures
    (CPU, memory, open files: ``process_…``)."""

    def __init__(self, state: StateCollector, games: Iterable[str] = ()) -> None:
        self.registry = CollectorRegistry()
        for events in EVENTS:
            self.registry.register(events)
        self.registry.register(state)
        ProcessCollector(registry=self.registry)
        # the series a panel or alert reads from the start, at zero, rather than once each first happens
        for game in games:
            MOVES_ACCEPTED.labels(game)
            MOVE_SECONDS.labels(game)
        for status in REFUSALS:
            MOVES_REFUSED.labels(str(status))
        for strength in STRENGTHS:
            BOT_DECISION_SECONDS.labels(strength)
            for outcome in BOT_OUTCOMES:
                BOT_DECISIONS.labels(strength, outcome)

    def exposition(self) -> bytes:
        """The text Prometheus scrapes: its classic text format (``CONTENT_TYPE_PLAIN_0_0_4``), which every
        Prometheus reads (our names need none of the newer formats' escaping)."""
        return generate_latest(self.registry)


class Rows(Protocol):
    """The database (``app.db.Database``): one short read."""

    def rows(self, sql: str, *params: Any, limit: int | None = None) -> list[tuple[Any, ...]]: ...


class Live(Protocol):
    """The live rooms (``app.web.live.LiveRooms``): this process's open rooms, by code."""

    @property
    def rooms(self) -> Mapping[str, LiveRoom]: ...


ROOMS_BY_STATE = "SELECT status, COUNT(*) FROM rooms GROUP BY status"
NEEDS_TOKEN = "/metrics needs the token of BOURSE_METRICS_TOKEN: Authorization: Bearer <token>\n"


def metrics_endpoint(
    db: Rows, live: Live, push: PushQueue | None, token: str = "", games: Iterable[str] = ()
) -> Callable[[Request], Awaitable[Response]]:
    """The ``/metrics`` route of an app: its series in Prometheus' text format, to a request that
    carries ``Authorization: Bearer <token>`` when ``token`` is set (else 401)."""
    metrics = Metrics(
        StateCollector(lambda: dict(db.rows(ROOMS_BY_STATE)), live.rooms, push),
        games,
    )

    async def scrape(request: Request) -> Response:
        if token and not token_matches(request.headers.get("authorization"), token):
            return PlainTextResponse(NEEDS_TOKEN, status_code=401, headers={"WWW-Authenticate": "Bearer"})
        # a query and a look at /proc: off the event loop
        return Response(await run_in_threadpool(metrics.exposition), media_type=CONTENT_TYPE_PLAIN_0_0_4)

    return scrape


def token_matches(authorization: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header is ``Bearer <token>``, compared in constant time."""
    scheme, _, given = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())
