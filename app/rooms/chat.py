"""A room's chat: messages and quick reactions, and the host's mute. Chat does not change the room's
version: it is not part of the game; a message does touch the room, so the sweep keeps a room whose
people are talking.

A mute holds for the room's life and names what the server can tie to a person: the message's
author (a seat's token, or a spectator's viewer key) and, for posts without a seat, the address it
came from (``ADDRESS_PREFIX``), so a spectator who drops the cookie, or a seated person who posts
without the token, stays muted. Another seat at that address (one home network) still writes. A
mute also takes the muted person's earlier lines out of the chat."""

from __future__ import annotations

import hashlib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, false, or_
from sqlmodel import col, select

from app.games.base import N_
from app.models import ChatMessage, ChatMute, Seat, utcnow
from app.rooms.errors import Forbidden, NotFound, RoomError
from app.rooms.names import as_int, clean_name
from app.rooms.seats import require_host
from app.rooms.writer import RoomWriter, room_id

CHAT_MAX = 280  # characters in a chat message
CHAT_KEPT = 100  # chat messages a room page shows (the newest)
REACTIONS = ("👍", "👏", "😄", "😮", "🤝", "⏳")  # the quick reactions, stored as themselves
# Characters a chat message may not hold: controls and the bidi overrides that turn text around.
CHAT_HIDDEN = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
ADDRESS_PREFIX = "address:"  # a mute of the posts without a seat from one address


@dataclass(frozen=True)
class ChatLine:
    """One chat message as every reader sees it (``name`` empty: an unnamed spectator)."""

    id: int
    seat: int | None  # None: a spectator's
    name: str
    text: str
    reaction: bool
    notice: bool = False  # a platform notice (``text``: its key, app.rooms.clocks), not a person's words

    @property
    def spectator(self) -> bool:
        return self.seat is None and not self.notice

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "seat": self.seat,
            "name": self.name,
            "spectator": self.spectator,
            "text": self.text,
            "reaction": self.reaction,
            "notice": self.notice,
        }


def clean_chat(raw: Any) -> str:
    """A chat message as stored: runs of white space one space, without control characters or the
    marks that turn text around; refused if empty or too long (it is escaped when drawn)."""
    if not isinstance(raw, str):
        raise RoomError(N_("Please write a message."))
    message = " ".join(
        "".join(c for c in raw if unicodedata.category(c) != "Cc" and c not in CHAT_HIDDEN).split()
    )
    if not message:
        raise RoomError(N_("Please write a message."))
    if len(message) > CHAT_MAX:
        raise RoomError(N_("A message can have at most {max} characters."), max=CHAT_MAX)
    return message


def chat_author(token_hash: str) -> str:
    """The author key of a seated person's chat messages (stable if seats are renumbered)."""
    return "seat:" + token_hash[:32]


def address_key(address: str) -> str:
    """How a message's client address is kept (``""``: none known): a digest of fixed length, which
    a mute compares; the address itself is not stored."""
    return hashlib.sha256(address.encode()).hexdigest()[:32] if address else ""


def _id_of(line: ChatMessage) -> int:
    assert line.id is not None
    return line.id


class Chat:
    """What a table's people and spectators say to each other."""

    def __init__(self, writer: RoomWriter) -> None:
        self.writer = writer

    def post(
        self,
        code: str,
        seat: int | None,
        author: str,
        raw: Any,
        name: Any = None,
        reaction: bool = False,
        address: str = "",
    ) -> ChatLine:
        """Keep one chat message (or quick reaction) of ``author`` (a seat's token hash, or a
        spectator's key) from client ``address``; refused if the host muted them (for a post
        without a seat, also if the host muted that address)."""
        if reaction:
            if raw not in REACTIONS:
                raise RoomError(N_("There is no such reaction."))
            message = str(raw)
        else:
            message = clean_chat(raw)
        spectator_name = "" if seat is not None or not name else clean_name(name)
        kept_address = address_key(address)
        with self.writer.db.write() as session:
            room = self.writer.room(session, code)
            mutes = set(session.exec(select(ChatMute.author).where(ChatMute.room_id == room.id)).all())
            if author in mutes:
                raise Forbidden(N_("The host has muted you at this table."))
            if seat is None and kept_address and ADDRESS_PREFIX + kept_address in mutes:
                raise Forbidden(N_("The host has muted spectators writing from your network at this table."))
            shown = spectator_name
            if seat is not None:
                row = session.exec(select(Seat).where(Seat.room_id == room.id, Seat.seat == seat)).first()
                if row is None:
                    raise Forbidden(N_("Only seated players and spectators can chat."))
                shown = row.name
            line = ChatMessage(
                room_id=room_id(room),
                seat=seat,
                author=author,
                address=kept_address,
                name=shown,
                text=message,
                reaction=reaction,
            )
            room.updated_at = utcnow()
            session.add(line)
            session.flush()
            assert line.id is not None
            return ChatLine(line.id, seat, shown, message, reaction)

    def lines(self, code: str, limit: int = CHAT_KEPT) -> list[ChatLine]:
        """The room's newest chat messages, oldest first."""
        with self.writer.db.read() as session:
            room = self.writer.room(session, code)
            rows = session.exec(
                select(ChatMessage)
                .where(ChatMessage.room_id == room.id)
                .order_by(col(ChatMessage.id).desc())
                .limit(limit)
            ).all()
            return [
                ChatLine(_id_of(row), row.seat, row.name, row.text, row.reaction, row.notice)
                for row in reversed(rows)
            ]

    def spectator_names(self, code: str, authors: Iterable[str]) -> dict[str, str]:
        """The name each of these spectators (chat author keys) last wrote under, for those who gave
        one: who is watching, as the table may know them."""
        wanted = sorted(set(authors))
        if not wanted:
            return {}
        with self.writer.db.read() as session:
            room = self.writer.room(session, code)
            rows = session.exec(
                select(ChatMessage.author, ChatMessage.name)
                .where(
                    ChatMessage.room_id == room.id,
                    col(ChatMessage.seat).is_(None),
                    col(ChatMessage.author).in_(wanted),
                    ChatMessage.name != "",
                )
                .order_by(col(ChatMessage.id))
            ).all()
            return dict(rows)  # the newest name of each wins

    def mute(self, code: str, actor: int | None, message_id: Any) -> list[int]:
        """The host mutes the writer of a chat message: their author (seat or viewer key) and, for
        posts without a seat, their address can no longer write at this table. Their earlier lines
        (those the mute covers) are deleted; returns those lines' ids, for the tabs to drop them.
        ``require_host`` lets anyone manage a room of bots only (made by the service, or imported);
        a mute silences people, so there it needs a seat, which such a room gives nobody."""
        number = as_int(message_id)
        with self.writer.db.write() as session:
            room = self.writer.room(session, code)
            seats = self.writer.seats(session, room)
            host = require_host(seats, actor)
            if host is None and actor is None:
                raise Forbidden(N_("Only the host can do that."))
            line = (
                session.exec(
                    select(ChatMessage).where(ChatMessage.room_id == room.id, ChatMessage.id == number)
                ).first()
                if number is not None
                else None
            )
            if line is None or line.notice:  # a notice is the platform's: nobody to mute
                raise NotFound(N_("There is no such message."))
            if host is not None and host.token_hash and line.author == chat_author(host.token_hash):
                raise RoomError(N_("You cannot mute yourself."))
            muted = {line.author} | ({ADDRESS_PREFIX + line.address} if line.address else set())
            known = set(session.exec(select(ChatMute.author).where(ChatMute.room_id == room.id)).all())
            for author in sorted(muted - known):
                session.add(ChatMute(room_id=room_id(room), author=author))
            covered = or_(
                col(ChatMessage.author) == line.author,
                (col(ChatMessage.seat).is_(None) & (col(ChatMessage.address) == line.address))
                if line.address
                else false(),
            )
            earlier = select(ChatMessage.id).where(ChatMessage.room_id == room.id, covered)
            removed = sorted(found for found in session.exec(earlier).all() if found is not None)
            session.execute(delete(ChatMessage).where(col(ChatMessage.id).in_(removed)))
            return removed
