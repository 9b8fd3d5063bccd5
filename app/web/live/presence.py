"""Presence (issue 11): which seats have a tab open, here or on another process, and which are away.

A seat whose tabs have all been closed for longer than the grace period is *away* (everyone's seat
list says so, pushed when it turns away). A seat with no tab open since this process started counts
as gone since then; one whose last tab closed later is noted until its grace period ends, so only
recent leavers are kept. Seats another process has tabs for (``remote.py`` hears of them) count as
connected; when they go, they are noted as gone at that moment, as for this process's own tabs, so
every process counts them away at the same time.

Spectators come and go unseen: a tab without a seat changes no one's page when it opens or closes.
Who is watching (``Crowd``: how many spectators' tabs, and the names of those who wrote in chat under
one) is counted here for this process's tabs, and heard from the others for theirs; the timer shows
the total every few seconds (``timers.py``), so a crowd arriving costs each tab one push at most.

This only keeps the record: the callers publish what changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from app.rooms import RoomSnapshot
from app.web.live.fanout import RoomLive, Tab

NAMES_SHOWN = 3  # spectators' names a table shows; the others are "and N more"


@dataclass(frozen=True)
class Crowd:
    """Who watches a room without a seat: how many spectators' tabs, and some of their names."""

    count: int = 0
    names: tuple[str, ...] = ()  # at most NAMES_SHOWN, each a spectator who gave one in chat

    def __add__(self, other: Crowd) -> Crowd:
        names = tuple(dict.fromkeys(self.names + other.names))[:NAMES_SHOWN]
        return Crowd(self.count + other.count, names)


def crowd_of(tabs: Iterable[Tab], names: Mapping[str, str]) -> Crowd:
    """The crowd of these tabs: those without a seat (one person's tabs once, if their browser is
    known by its viewer key), named as ``names`` (author key -> name) has them."""
    watching = [tab for tab in tabs if tab.seat is None]
    known = {tab.viewer for tab in watching if tab.viewer}
    count = len(known) + sum(1 for tab in watching if not tab.viewer)
    named = sorted({names[viewer] for viewer in known if viewer in names})
    return Crowd(count, tuple(named[:NAMES_SHOWN]))


class Presence:
    def __init__(self, rooms: Mapping[str, RoomLive], clock: Callable[[], float], away_grace: float) -> None:
        self.rooms = rooms  # this process's open rooms (the fan-out's)
        self.clock = clock
        self.away_grace = away_grace
        self._since = clock()
        self._started_away = False
        self._left: dict[str, dict[int, float]] = {}  # room -> seat -> when its last tab closed
        self._elsewhere: dict[str, dict[str, frozenset[int]]] = {}  # room -> process -> seats it has tabs for
        self._crowds: dict[str, dict[str, Crowd]] = {}  # room -> process -> who watches there
        self._wrote: set[str] = set()  # rooms with chat lines since their spectators were last named
        # rooms whose crowd may have changed since it was last shown (timers.py shows only those)
        self._crowd_changed: set[str] = set()

    def connected_here(self, code: str) -> frozenset[int]:
        """The seats with a tab open on this process."""
        room = self.rooms.get(code)
        return room.connected() if room is not None else frozenset()

    def elsewhere(self, code: str) -> frozenset[int]:
        """The seats with a tab open on another process."""
        return frozenset().union(*self._elsewhere.get(code, {}).values())

    def connected(self, code: str) -> frozenset[int]:
        """The seats with a tab open on any process."""
        return self.connected_here(code) | self.elsewhere(code)

    def came_back(self, code: str, seat: int) -> None:
        """A seat that had no tab open anywhere opened one."""
        left = self._left.get(code)
        if left is not None:
            left.pop(seat, None)
            if not left:
                del self._left[code]

    def went(self, code: str, seat: int) -> None:
        """A seat's last tab anywhere closed: its grace period starts now."""
        self._left.setdefault(code, {})[seat] = self.clock()

    def away(
        self, code: str, snapshot: RoomSnapshot, connected: frozenset[int] | None = None
    ) -> frozenset[int]:
        """The people's seats that have had no tab open for longer than the grace period."""
        if connected is None:
            connected = self.connected(code)
        left = self._left.get(code, {})
        gone_by = self.clock() - self.away_grace
        return frozenset(
            s.seat
            for s in snapshot.seats
            if not s.is_bot and s.seat not in connected and left.get(s.seat, self._since) <= gone_by
        )

    def turned_away(self) -> list[str]:
        """Rooms in which a seat has just turned away (each is reported once)."""
        gone_by = self.clock() - self.away_grace
        codes = []
        for code, left in list(self._left.items()):
            for seat, since in list(left.items()):
                if since <= gone_by:
                    del left[seat]
                    codes.append(code)
            if not left:
                del self._left[code]
        if not self._started_away and self._since <= gone_by:
            self._started_away = True  # seats nobody opened since the start are away now
            codes.extend(self.rooms)
        return list(dict.fromkeys(codes))

    def seen_elsewhere(self, code: str, origin: str, seats: frozenset[int]) -> None:
        """Process ``origin`` now has tabs open on the room for ``seats`` (none: it has no seat's tab)."""
        remote = self._elsewhere.setdefault(code, {})
        if seats:
            remote[origin] = seats
        else:
            remote.pop(origin, None)
            if not remote:
                del self._elsewhere[code]

    def crowd_may_have_changed(self, code: str) -> None:
        """A tab of the room opened or closed here (a new tab is to be shown the crowd), or its showing
        failed: the timer shows the room's crowd at its next show."""
        self._crowd_changed.add(code)

    def crowd_changes(self) -> list[str]:
        """The rooms whose crowd may have changed since this was last asked (each given once)."""
        changed = list(self._crowd_changed)
        self._crowd_changed.clear()
        return changed

    def crowd_elsewhere(self, code: str, origin: str, crowd: Crowd) -> None:
        """Process ``origin`` now has ``crowd`` watching the room."""
        self._crowd_changed.add(code)
        remote = self._crowds.setdefault(code, {})
        if crowd.count:
            remote[origin] = crowd
        else:
            remote.pop(origin, None)
            if not remote:
                del self._crowds[code]

    def wrote(self, code: str) -> None:
        """Someone wrote in the room's chat: a spectator may have given a name."""
        self._wrote.add(code)
        self._crowd_changed.add(code)

    def names_stale(self, code: str) -> bool:
        """Whether the room's chat had lines since this was last asked (then it is asked afresh)."""
        if code in self._wrote:
            self._wrote.discard(code)
            return True
        return False

    def crowd(self, code: str, here: Crowd) -> Crowd:
        """Who watches the room on every process, given who watches it on this one."""
        total = here
        for crowd in self._crowds.get(code, {}).values():
            total += crowd
        return total

    def forget(self, origins: set[str]) -> dict[str, frozenset[int]]:
        """Drop the tabs of processes that died; the rooms they had seats in, each with the seats
        connected before."""
        for code, crowds in list(self._crowds.items()):
            if origins & crowds.keys():
                self._crowd_changed.add(code)
            for origin in origins:
                crowds.pop(origin, None)
            if not crowds:
                del self._crowds[code]
        changed = {}
        for code, remote in list(self._elsewhere.items()):
            if origins & remote.keys():
                changed[code] = self.connected(code)
                for origin in origins:
                    remote.pop(origin, None)
                if not remote:
                    del self._elsewhere[code]
        return changed

    def settle(self, code: str, before: frozenset[int]) -> bool:
        """Seats came online or went offline on another process: note since when those are gone.
        Whether the room's connected seats changed (so its tabs must be told)."""
        now = self.connected(code)
        if now == before:
            return False
        left = self._left.setdefault(code, {})
        for seat in before - now:
            left[seat] = self.clock()
        for seat in now - before:
            left.pop(seat, None)
        if not left:
            del self._left[code]
        return True
