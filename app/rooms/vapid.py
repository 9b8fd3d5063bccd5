"""The server's VAPID key pair (RFC 8292): the private key signs each Web Push, the public one is
the ``applicationServerKey`` a browser subscribes with.

It belongs with the data, not with the web layer: made at the first start (by ``python -m
app.migrate``, before the server starts) and kept in the database beside the subscriptions
(``PushStore.stored_key``), unless the operator gives one (``BOURSE_VAPID_PRIVATE_KEY``). The
private key is a ``SecretStr`` wherever it is held, so no repr, log line or traceback shows it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from pydantic import SecretStr

from app.rooms.push import PushStore

if TYPE_CHECKING:
    from py_vapid import Vapid02


@dataclass(frozen=True)
class Vapid:
    """The key pair and the contact the push services are given.

    The private key is read (``key``) by the first push, not at start: the elliptic-curve library
    it needs is ~8 MB a server that sends no push would keep for nothing. So the public key comes
    as text (kept with the data beside the private key: ``PushStore.stored_public_key``)."""

    private_key: SecretStr  # its PEM (as stored) or base64url DER or raw key (``vapid --gen``, an operator's)
    public: str
    subject: str  # a contact for the push services: mailto: or https:

    @cached_property
    def key(self) -> Vapid02:
        return _signing_key(self.private_key)


def _signing_key(private_key: SecretStr) -> Vapid02:
    from py_vapid import Vapid02

    text = private_key.get_secret_value().strip()
    return Vapid02.from_pem(text.encode()) if text.startswith("-----") else Vapid02.from_string(text)


def new_private_pem() -> str:
    """A fresh P-256 key pair, as the PEM the database keeps."""
    from py_vapid import Vapid02

    vapid = Vapid02()
    vapid.generate_keys()
    return bytes(vapid.private_pem()).decode()


def public_key_of(private_key: SecretStr) -> str:
    """The public half of a private key as ``Vapid`` takes it (base64url of the uncompressed point)."""
    from cryptography.hazmat.primitives import serialization

    point = _signing_key(private_key).public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(point).rstrip(b"=").decode()


def load_vapid(private_key: SecretStr, subject: str) -> Vapid:
    """The key pair of a private key, its public half derived now."""
    return Vapid(private_key, public_key_of(private_key), subject)


def kept_vapid(store: PushStore, subject: str) -> Vapid:
    """The key pair kept with the data: made at the first start, its public half derived once and
    kept beside it."""
    private_key = SecretStr(store.stored_key(new_private_pem))
    return Vapid(private_key, store.stored_public_key(lambda: public_key_of(private_key)), subject)
