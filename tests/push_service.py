"""A Web Push service for the tests, on a loopback port: what a browser's push service (FCM, Mozilla's,
Apple's) does for the server, with the browser's side of the keys.

It hands out subscriptions (a P-256 key pair and a 16-byte auth secret per browser, made here, or
given by a browser test that made them with WebCrypto), takes the server's posts to
``/push/<name>``, checks their VAPID signature (RFC 8292) against the server's public key, and
decrypts them (RFC 8291, ``aes128gcm``) with that browser's private key, as the browser would. An
endpoint can be told to answer 410 (gone) or 500, answers 404 once forgotten, or can be slow, and the whole service can be down (its
port closed).

The server reaches it as ``http://localhost:<port>``, named in ``BOURSE_PUSH_SERVICES``: the one
way the server posts to this machine (``app.rooms.push_services``). ``Listener`` is a port that
accepts connections and never answers: a push service's tarpit, or a service of this machine's
that must never be reached (it counts what reaches it)."""

from __future__ import annotations

import base64
import json
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from tests.support import free_port


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """One browser's push subscription: the keys only it holds, and what it was sent."""

    name: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    received: list[dict[str, Any]] = field(default_factory=list)  # decrypted pushes, in order

    @property
    def p256dh(self) -> str:
        point = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return b64url(point)


@dataclass
class Post:
    """One post the server made, as the push service saw it."""

    browser: str
    headers: dict[str, str]
    vapid_key: str  # the server's public key the post was signed with (``k=``)
    audience: str  # the JWT's ``aud``
    status: int  # what the service answered


class PushService:
    def __init__(self) -> None:
        self.port = free_port()
        self.origin = f"http://localhost:{self.port}"
        self.browsers: dict[str, Browser] = {}
        self.posts: list[Post] = []
        self.gone: set[str] = set()  # endpoints answering 410
        self.failing: set[str] = set()  # endpoints answering 500 (the service's trouble, not theirs)
        self.delay = 0.0  # seconds every post waits before it is answered
        self.changed = threading.Condition()
        self._server: ThreadingHTTPServer | None = None

    # ------------------------------------------------------------ browsers
    def browser(
        self, name: str, private_key: ec.EllipticCurvePrivateKey | None = None, auth: bytes | None = None
    ) -> Browser:
        made = Browser(
            name, private_key or ec.generate_private_key(ec.SECP256R1()), auth or secrets.token_bytes(16)
        )
        self.browsers[name] = made
        return made

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def subscription(self, name: str) -> dict[str, Any]:
        """What ``PushSubscription.toJSON()`` gives in browser ``name`` (made if new)."""
        browser = self.browsers.get(name) or self.browser(name)
        return {
            "endpoint": self.endpoint(name),
            "keys": {"p256dh": browser.p256dh, "auth": b64url(browser.auth)},
        }

    def wait_for(self, count: int, browser: str, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Browser ``browser``'s pushes once it has ``count`` (or what it has after ``timeout``)."""
        with self.changed:
            self.changed.wait_for(lambda: len(self.browsers[browser].received) >= count, timeout)
            return list(self.browsers[browser].received)

    # ------------------------------------------------------------ the service
    def start(self) -> None:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
                service.take(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Down: its port refuses connections."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def take(self, request: BaseHTTPRequestHandler) -> None:
        body = request.rfile.read(int(request.headers.get("Content-Length", "0")))
        name = request.path.removeprefix("/push/")
        if self.delay:
            time.sleep(self.delay)
        headers = {key.lower(): value for key, value in request.headers.items()}
        vapid_key, audience = verified_vapid(headers.get("authorization", ""))
        status = (
            410
            if name in self.gone
            else 500
            if name in self.failing
            else 201
            if name in self.browsers
            else 404
        )
        if status == 201:
            browser = self.browsers[name]
            assert headers.get("content-encoding") == "aes128gcm"
            clear = http_ece.decrypt(body, private_key=browser.private_key, auth_secret=browser.auth)
            with self.changed:
                browser.received.append(json.loads(clear))
        with self.changed:
            self.posts.append(Post(name, headers, vapid_key, audience, status))
            self.changed.notify_all()
        request.send_response(status)
        request.send_header("Content-Length", "0")
        request.end_headers()


class Listener:
    """A loopback port that accepts every connection and never answers: it keeps them open until
    stopped, and counts them (``accepted``) and the most open at once (``most_open``)."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.server = socket.create_server((host, 0))
        self.port = int(self.server.getsockname()[1])
        self.origin = f"http://localhost:{self.port}"
        self.accepted = 0
        self.most_open = 0
        self._open: list[socket.socket] = []
        self._guard = threading.Lock()
        self._stopped = False
        threading.Thread(target=self._accept, daemon=True).start()

    def endpoint(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return  # stopped
            with self._guard:
                self.accepted += 1
                self._open = [c for c in self._open if not _closed_by_peer(c)] + [connection]
                self.most_open = max(self.most_open, len(self._open))

    def stop(self) -> None:
        self.server.close()
        with self._guard:
            for connection in self._open:
                connection.close()


def _closed_by_peer(connection: socket.socket) -> bool:
    """Whether the other end closed this connection (what it sent so far is read and dropped)."""
    try:
        while connection.recv(65536, socket.MSG_DONTWAIT):
            pass
    except BlockingIOError:
        return False
    except OSError:
        pass
    connection.close()
    return True


def verified_vapid(authorization: str) -> tuple[str, str]:
    """The public key (``k``) a ``vapid t=<JWT>, k=<key>`` header was signed with, and its audience;
    AssertionError unless the JWT's ES256 signature is that key's."""
    scheme, _, rest = authorization.partition(" ")
    assert scheme == "vapid", authorization
    parts = dict(part.strip().split("=", 1) for part in rest.split(","))
    token, key = parts["t"], parts["k"]
    header, claims, signature = token.split(".")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    raw = unb64url(signature)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if forged
    decoded = json.loads(unb64url(claims))
    assert decoded["exp"] > time.time() and decoded["sub"], decoded
    return key, str(decoded["aud"])
