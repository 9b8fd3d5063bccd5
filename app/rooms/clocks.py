"""The table's turn clock as the host keeps it: paused and resumed (issue 23). Clocks live in the
platform, not in the rules: a paused room keeps every seat's deadline; no clock runs out while it
is paused (``Turns.due_deadlines`` and ``Turns.time_out`` skip it), a decision that comes meanwhile
is timed from the pause (``RoomSnapshot.clock_now``), and resuming moves every deadline on by the
pause's length, so each seat has the time it had left. The pause is a column of the room's row, so
it survives a restart and holds for every process. Each pause and resume is said in the table chat
as a platform notice."""

from __future__ import annotations

from app.games.base import N_
from app.models import ChatMessage
from app.rooms import wallclock
from app.rooms.chat import ChatLine
from app.rooms.errors import Conflict
from app.rooms.seats import require_host
from app.rooms.writer import RoomWriter, room_id

CLOCK_PAUSED = "clock-paused"  # the chat notices' keys (drawn in templates/platform/chat_line.html)
CLOCK_RESUMED = "clock-resumed"
NOTICE_AUTHOR = "platform"  # a notice's author: nobody a mute could name


class Clocks:
    """Pausing and resuming a room's turn clock (a host action, logged in the chat)."""

    def __init__(self, writer: RoomWriter) -> None:
        self.writer = writer

    def pause(self, code: str, actor: int | None) -> ChatLine | None:
        """The host stops the table's clock; the chat notice it adds (``None``: already paused)."""
        return self._set(code, actor, paused=True)

    def resume(self, code: str, actor: int | None) -> ChatLine | None:
        """The host starts the clock again where it stood; the chat notice (``None``: it ran)."""
        return self._set(code, actor, paused=False)

    def _set(self, code: str, actor: int | None, paused: bool) -> ChatLine | None:
        with self.writer.editing(code) as edit:
            room, seats = edit.room, edit.seats
            host = require_host(seats, actor)
            if not room.clock:
                raise Conflict(N_("This table has no turn clock."))
            if room.status != "playing":
                raise Conflict(N_("The game is not running."))
            if (room.clock_paused_at is not None) == paused:
                edit.nothing_changed()
                return None
            now = wallclock.now_ms()
            if paused:
                room.clock_paused_at = now
            else:
                assert room.clock_paused_at is not None
                waited = max(0, now - room.clock_paused_at)
                for seat in seats:
                    if seat.deadline is not None:
                        seat.deadline += waited
                        edit.session.add(seat)
                room.clock_paused_at = None
            edit.session.add(room)
            name = host.name if host is not None else ""
            notice = ChatMessage(
                room_id=room_id(room),
                seat=host.seat if host is not None else None,
                author=NOTICE_AUTHOR,
                name=name,
                text=CLOCK_PAUSED if paused else CLOCK_RESUMED,
                notice=True,
            )
            edit.session.add(notice)
            edit.session.flush()
            assert notice.id is not None
            return ChatLine(notice.id, notice.seat, name, notice.text, reaction=False, notice=True)
