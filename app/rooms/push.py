"""Web Push subscriptions, stored with their seats, and the markers that send each push once.

A seated player opts in per room ("Tell me when it's my turn"): their browser's subscription (its
push service endpoint and the keys that encrypt for it) is kept with their seat, with the language
to write in. The sender (``app.web.push``) asks this store who is due a push and *claims* each
one before sending: a compare-and-set on the subscription's marker (``turn_told``, ``clock_told``,
``end_told``), so that a turn is told once however many processes, publishes or tabs see it.

A subscription is kept only for an endpoint at an allowed push service whose name resolves to
public addresses (``app.rooms.push_services``). It goes with its seat (a player removed from the
lobby, a room deleted: the foreign key cascades), when its player turns it off, and when the sender
gives up on its endpoint (``forget_endpoint``: its push service answers that it is gone, or it
failed several times in a row).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from app.config import DEFAULT_PUSH_SERVICES
from app.db import LOCK_ROWS
from app.games.base import N_
from app.models import PushSubscription, ServerKey
from app.rooms.errors import Forbidden, RoomError
from app.rooms.push_services import PushServices
from app.rooms.writer import RoomWriter

SUBSCRIPTIONS_PER_SEAT = 5  # browsers one seat may have opted in from; a sixth replaces the oldest
CLOCK_WARNING_SHARE = 4  # a clock's last quarter: its seat is warned once that its time runs out
CLOCK_WARNING_MIN = 600  # seconds: shorter clocks are not warned of (the turn's push is enough)
VAPID_KEY = "vapid"  # ServerKey.name of the key pair that signs this server's pushes
VAPID_PUBLIC_KEY = "vapid-public"  # ServerKey.name of its public half, as a browser subscribes with it

BAD_SUBSCRIPTION = N_("This browser's push subscription could not be read; try turning it on again.")
BAD_ENDPOINT = N_("This push service is not accepted by this server.")


@dataclass(frozen=True)
class Recipient:
    """One subscription that is due a push: where to send it, how to encrypt it, in which language."""

    id: int
    seat: int
    endpoint: str
    p256dh: str
    auth: str
    locale: str

    @property
    def subscription_info(self) -> dict[str, Any]:
        """The browser's ``PushSubscription.toJSON()``, as the Web Push library takes it."""
        return {"endpoint": self.endpoint, "keys": {"p256dh": self.p256dh, "auth": self.auth}}


def _decoded(value: Any, size: int) -> bytes | None:
    """``value`` as base64url (padded or not) that decodes to ``size`` bytes, else None."""
    if not isinstance(value, str) or len(value) > 2 * size:
        return None
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == size else None


def checked_keys(keys: Any) -> tuple[str, str]:
    """The subscription's ``p256dh`` (a point on P-256) and ``auth`` (16 bytes), or ``RoomError``."""
    if not isinstance(keys, dict):
        raise RoomError(BAD_SUBSCRIPTION)
    point, secret = _decoded(keys.get("p256dh"), 65), _decoded(keys.get("auth"), 16)
    if point is None or secret is None:
        raise RoomError(BAD_SUBSCRIPTION)
    # imported by the first subscription, not at start: ~8 MB a server with no push would keep
    from cryptography.hazmat.primitives.asymmetric import ec

    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError as bad:
        raise RoomError(BAD_SUBSCRIPTION) from bad
    return str(keys["p256dh"]), str(keys["auth"])


class PushStore:
    """The seats' push subscriptions, who is due a push, and the server's VAPID key."""

    def __init__(self, writer: RoomWriter) -> None:
        self.writer = writer
        self.services = PushServices.named(DEFAULT_PUSH_SERVICES)  # where endpoints may be (the settings')

    # ------------------------------------------------------------ a player's choice
    def subscribe(self, code: str, seat: int | None, endpoint: Any, keys: Any, locale: str) -> None:
        """Keep this browser's subscription for ``seat`` (again: its keys and language are renewed,
        what it was told stays). It is told of decisions that come from now on: one the seat has
        already (it is looking at it) is not pushed, but its clock may still be warned of.
        The endpoint's name is looked up last, for a seat only."""
        if not self.services.allows(endpoint):
            raise RoomError(BAD_ENDPOINT)
        p256dh, auth = checked_keys(keys)
        room = self.writer.load(code)
        mine = room.seat(seat)
        if seat is None or mine is None or mine.is_bot:
            raise Forbidden(N_("Only seated players can be told when it is their turn; join the room first."))
        if not self.services.reachable(endpoint):
            raise RoomError(BAD_ENDPOINT)
        told = mine.legal_version if seat in room.to_act() else -1
        with self.writer.db.write() as session:
            seat_id = self._seat_id(session, room.room_id, seat)
            existing = session.exec(
                select(PushSubscription).where(
                    PushSubscription.seat_id == seat_id, PushSubscription.endpoint == endpoint
                )
            ).first()
            if existing is not None:
                existing.p256dh, existing.auth, existing.locale = p256dh, auth, locale
                session.add(existing)
                return
            others = session.exec(
                select(PushSubscription)
                .where(PushSubscription.seat_id == seat_id)
                .order_by(PushSubscription.id)  # type: ignore[arg-type]
            ).all()
            for oldest in others[: max(0, len(others) - SUBSCRIPTIONS_PER_SEAT + 1)]:
                session.delete(oldest)
            session.add(
                PushSubscription(
                    seat_id=seat_id,
                    endpoint=endpoint,
                    p256dh=p256dh,
                    auth=auth,
                    locale=locale,
                    turn_told=told,
                    end_told=room.status == "finished",
                )
            )

    def unsubscribe(self, code: str, seat: int | None, endpoint: str) -> None:
        """This browser is no longer told of ``seat``'s turns (nothing to do if it was not)."""
        room = self.writer.load(code)
        if seat is None or room.seat(seat) is None:
            raise Forbidden(N_("Only seated players can be told when it is their turn; join the room first."))
        with self.writer.db.write() as session:
            session.execute(
                text(
                    "DELETE FROM push_subscriptions WHERE endpoint = :endpoint AND seat_id = "
                    "(SELECT id FROM seats WHERE room_id = :room AND seat = :seat)"
                ),
                {"endpoint": endpoint, "room": room.room_id, "seat": seat},
            )

    @staticmethod
    def _seat_id(session: Session, room: int, seat: int) -> int:
        """The seat's row id, its row locked on PostgreSQL: two posts of one subscription (a double
        click) queue here, so the second finds the first's row instead of breaking its uniqueness."""
        query = "SELECT id FROM seats WHERE room_id = :room AND seat = :seat"
        if session.info.get(LOCK_ROWS):
            query += " FOR UPDATE"
        found = session.execute(text(query), {"room": room, "seat": seat}).first()
        if found is None:
            raise Forbidden(N_("Only seated players can be told when it is their turn; join the room first."))
        return int(found.id)

    # ------------------------------------------------------------ who is due a push
    def of_room(self, room_id: int) -> list[tuple[Recipient, int, int, bool]]:
        """The room's subscriptions (one indexed read, outside any session: the sender asks after
        every turn, and most rooms have none): each with its ``turn_told``, ``clock_told`` and
        ``end_told`` markers."""
        rows = self.writer.db.rows(
            "SELECT p.id, seats.seat, p.endpoint, p.p256dh, p.auth, p.locale, p.turn_told, "
            "p.clock_told, p.end_told FROM push_subscriptions p "
            "JOIN seats ON seats.id = p.seat_id WHERE seats.room_id = ?",
            room_id,
        )
        return [
            (Recipient(key, seat, endpoint, p256dh, auth, locale), turn_told, clock_told, bool(end_told))
            for key, seat, endpoint, p256dh, auth, locale, turn_told, clock_told, end_told in rows
        ]

    def claim_turn(self, subscription: int, legal_version: int) -> bool:
        """Mark the decision ``legal_version`` told to this subscription; True for the one caller (in
        any process) that moved the marker, and so sends its push."""
        return self._claim(
            "UPDATE push_subscriptions SET turn_told = :v WHERE id = :id AND turn_told < :v",
            subscription,
            legal_version,
        )

    def claim_clock(self, subscription: int, legal_version: int) -> bool:
        """As ``claim_turn``, for the warning that this decision's clock runs out."""
        return self._claim(
            "UPDATE push_subscriptions SET clock_told = :v WHERE id = :id AND clock_told < :v",
            subscription,
            legal_version,
        )

    def claim_end(self, subscription: int) -> bool:
        """As ``claim_turn``, for the game being over."""
        return self._claim(
            "UPDATE push_subscriptions SET end_told = :v WHERE id = :id AND NOT end_told", subscription, True
        )

    def _claim(self, statement: str, subscription: int, value: int | bool) -> bool:
        with self.writer.db.write() as session:
            moved = session.execute(text(statement), {"id": subscription, "v": value})
            return bool(moved.rowcount == 1)  # type: ignore[attr-defined]

    def clocks_running_out(self, now: int) -> list[tuple[str, int, int]]:
        """(room, seat, legal version) of each subscribed seat whose clock (of ``CLOCK_WARNING_MIN``
        or more, not paused) is in its last ``1/CLOCK_WARNING_SHARE`` by ``now`` (epoch ms) and not
        yet warned of.
        One query over the subscriptions (a small table), joined to their seats and rooms."""
        with self.writer.db.read() as session:
            rows = session.execute(
                text(
                    "SELECT DISTINCT rooms.code, seats.seat, seats.legal_version FROM push_subscriptions p "
                    "JOIN seats ON seats.id = p.seat_id JOIN rooms ON rooms.id = seats.room_id "
                    "WHERE rooms.status = 'playing' AND rooms.clock >= :shortest "
                    "AND rooms.clock_paused_at IS NULL "  # a paused clock is not running out
                    "AND seats.deadline IS NOT NULL AND seats.deadline > :now "
                    "AND seats.deadline - :now <= rooms.clock * :ms_share AND NOT seats.bot_controlled "
                    "AND p.clock_told < seats.legal_version"
                ),
                {"now": now, "shortest": CLOCK_WARNING_MIN, "ms_share": 1000 // CLOCK_WARNING_SHARE},
            ).all()
        return [(row.code, row.seat, row.legal_version) for row in rows]

    def forget_endpoint(self, endpoint: str) -> int:
        """The sender gave up on this endpoint (gone, or failing): forget it for every seat. How many were."""
        with self.writer.db.write() as session:
            gone = session.execute(
                text("DELETE FROM push_subscriptions WHERE endpoint = :endpoint"), {"endpoint": endpoint}
            )
            return int(gone.rowcount)  # type: ignore[attr-defined]

    # ------------------------------------------------------------ the server's key
    def stored_key(self, make: Any) -> str:
        """The VAPID private key kept with the data: made by ``make()`` (a PEM) at the first start,
        read back ever after. Two processes starting at once keep the one stored first."""
        with self.writer.db.read() as session:
            found = session.get(ServerKey, VAPID_KEY)
        if found is not None:
            return found.value
        try:
            with self.writer.db.write() as session:
                if (found := session.get(ServerKey, VAPID_KEY)) is not None:
                    return found.value
                made = str(make())
                session.add(ServerKey(name=VAPID_KEY, value=made))
            return made
        except IntegrityError:  # another process stored one meanwhile (PostgreSQL): that one counts
            with self.writer.db.read() as session:
                stored = session.get(ServerKey, VAPID_KEY)
            assert stored is not None
            return stored.value

    def stored_public_key(self, derive: Callable[[], str]) -> str:
        """The public half of the stored key (``stored_key``), derived by ``derive()`` once and kept
        beside it: a start that reads it back needs no elliptic-curve library (``app.rooms.vapid.Vapid``).
        Two processes deriving it at once derive the same key."""
        with self.writer.db.read() as session:
            found = session.get(ServerKey, VAPID_PUBLIC_KEY)
        if found is not None:
            return found.value
        public = derive()
        with contextlib.suppress(IntegrityError), self.writer.db.write() as session:
            if session.get(ServerKey, VAPID_PUBLIC_KEY) is None:
                session.add(ServerKey(name=VAPID_PUBLIC_KEY, value=public))
        return public
