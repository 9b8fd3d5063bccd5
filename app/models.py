"""Database tables: rooms (with their state snapshot), seats, the append-only action log, the
table chat, the seats' Web Push subscriptions and the server's own keys.

The game log is not in the snapshot: each action row holds the events it logged (see ``app.rooms``).

Game states and actions are stored as JSON text so integers of any size survive exactly.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


class Room(SQLModel, table=True):
    __tablename__ = "rooms"
    __table_args__ = (Index("ix_rooms_status_updated_at", "status", "updated_at"),)  # the cleanup sweep

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(index=True, unique=True, max_length=32)
    game: str = Field(max_length=40)
    players: int
    options: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    seed: str = Field(max_length=40)
    status: str = Field(default="waiting", max_length=16)  # waiting | playing | finished
    state: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # without the game log
    opening_events: str | None = Field(default=None, sa_column=Column(Text, nullable=True))  # the setup's
    event_count: int = 0  # events in the whole game log
    version: int = 0
    next_code: str | None = Field(default=None, max_length=32)
    clock: int = 0  # seconds each decision may take (0: no clock)
    full_record: bool = False  # the table agreed that the finished game's record holds every secret
    imported: bool = False  # made from an uploaded record: its names and moves are the record's claims
    hints: bool = False  # the table allows the coach and the search's hints (a practice room does)
    # The host paused the table's clock at this moment (epoch ms; None: running). While paused no
    # clock runs out, and resuming moves every deadline on by the length of the pause.
    clock_paused_at: int | None = Field(default=None, sa_column=Column(BigInteger, nullable=True))
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Seat(SQLModel, table=True):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("room_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="rooms.id", index=True)
    seat: int
    name: str = Field(max_length=40)
    token_hash: str | None = Field(default=None, index=True, max_length=64)
    is_bot: bool = False
    bot_controlled: bool = False  # a human's seat handed to a bot by the host
    bot_strength: str = Field(default="normal", max_length=16)  # easy | normal: how its bot plays
    is_host: bool = False
    legal_version: int = 0  # room version when this seat's legal actions last changed
    # With a clock: when this seat's current decision times out (epoch milliseconds; None: not waited for)
    deadline: int | None = Field(default=None, sa_column=Column(BigInteger, index=True))  # epoch ms
    timeouts: int = 0  # consecutive decisions its clock ran out on
    bot_turns: int = 0  # decisions a bot made for this person (timeouts, or the seat handed to a bot)
    created_at: datetime = Field(default_factory=utcnow)


class ActionRecord(SQLModel, table=True):
    __tablename__ = "actions"
    __table_args__ = (UniqueConstraint("room_id", "seq"),)

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="rooms.id", index=True)
    seq: int
    seat: int
    action: str = Field(sa_column=Column(Text, nullable=False))
    # the game-log events this action logged
    events: str = Field(default="[]", sa_column=Column(Text, nullable=False, server_default="[]"))
    created_at: datetime = Field(default_factory=utcnow)


class ChatMessage(SQLModel, table=True):
    """A line of table chat: what a person typed (or a quick reaction), kept with the room."""

    __tablename__ = "chat_messages"
    __table_args__ = (Index("ix_chat_messages_room_id_id", "room_id", "id"),)

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="rooms.id")
    seat: int | None = None  # None: a spectator
    author: str = Field(max_length=40)  # who wrote it, for a mute: "seat:<n>" or a spectator's key
    # the client address it came from, as a digest (app.rooms.chat.address_key; "": unknown), for a mute
    address: str = Field(default="", sa_column=Column(String(32), nullable=False, server_default=""))
    name: str = Field(default="", max_length=40)  # a spectator's chosen name (a seat's is its own)
    text: str = Field(sa_column=Column(Text, nullable=False))
    reaction: bool = False  # ``text`` is a quick reaction's key
    # ``text`` is the key of a platform notice (app.rooms.clocks: the host paused or resumed the clock)
    notice: bool = Field(default=False, sa_column=Column(Boolean, nullable=False, server_default=false()))
    created_at: datetime = Field(default_factory=utcnow)


class ChatMute(SQLModel, table=True):
    """An author the host has muted in a room ("address:<digest>": the posts without a seat from an
    address)."""

    __tablename__ = "chat_mutes"
    __table_args__ = (UniqueConstraint("room_id", "author"),)

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="rooms.id", index=True)
    author: str = Field(max_length=40)


class Health(SQLModel, table=True):
    """One row the health check rewrites, to learn that the database can still be written."""

    __tablename__ = "health"

    id: int | None = Field(default=None, primary_key=True)
    checked_at: datetime = Field(default_factory=utcnow)


class PushSubscription(SQLModel, table=True):
    """A browser's Web Push subscription for one seat: "Tell me when it's my turn" (``app.rooms.push``).

    One browser has one subscription (its endpoint) for all its rooms, so a row is one endpoint for
    one seat. It goes with its seat (a player removed, a room deleted) and when its push service says
    the endpoint is gone. Each ``*_told`` column is a sent-marker, moved on by a compare-and-set
    before sending, so that exactly one process sends each turn's push."""

    __tablename__ = "push_subscriptions"
    __table_args__ = (
        UniqueConstraint("seat_id", "endpoint"),
        Index("ix_push_subscriptions_endpoint", "endpoint"),  # a 404/410 forgets the endpoint everywhere
    )

    id: int | None = Field(default=None, primary_key=True)
    seat_id: int = Field(
        sa_column=Column(Integer, ForeignKey("seats.id", ondelete="CASCADE"), nullable=False)
    )
    endpoint: str = Field(sa_column=Column(String(1024), nullable=False))
    p256dh: str = Field(max_length=100)  # the browser's P-256 public key (base64url)
    auth: str = Field(max_length=40)  # the browser's authentication secret (base64url)
    locale: str = Field(max_length=16)  # the pushes' language: the page's when the player opted in
    turn_told: int = -1  # the seat's legal version whose decision this browser was told of
    clock_told: int = -1  # the legal version whose clock it was warned was running out
    end_told: bool = False  # told the game is over
    created_at: datetime = Field(default_factory=utcnow)


class ServerKey(SQLModel, table=True):
    """A key the server makes once, at its first start, and keeps with the data: the VAPID key pair
    that signs its pushes (``name`` "vapid", a PEM private key). Never in the repository."""

    __tablename__ = "server_keys"

    name: str = Field(primary_key=True, max_length=40)
    value: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class Review(SQLModel, table=True):
    """The review of one seat's decisions in a finished game (``app.learn.review``), kept with the
    room: filled in a decision at a time, in order, so that a restart resumes it where it was."""

    __tablename__ = "reviews"
    __table_args__ = (UniqueConstraint("room_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(
        sa_column=Column(Integer, ForeignKey("rooms.id", ondelete="CASCADE"), nullable=False)
    )
    seat: int
    status: str = Field(default="queued", max_length=16)  # queued | done
    decisions: int = 0  # the seat's decisions with a choice to weigh
    reviewed: int = 0  # how many of them are weighed (the first ones, in the game's order)
    marks: str = Field(default="[]", sa_column=Column(Text, nullable=False))  # JSON: the marked decisions
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    # the reviewer (one a server process) running it, and when it last saved: another process takes a
    # review over only once that is older than app.learn.review.CLAIM_SECONDS (its process died)
    claimed_by: str | None = Field(default=None, max_length=80)
    claimed_at: datetime | None = None
