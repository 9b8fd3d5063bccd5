"""The room socket as ``python -m app`` serves it: what uvicorn negotiates with a browser."""

from __future__ import annotations

import base64
import os
import socket
from pathlib import Path

import httpx

from tests.support import served


def upgrade_request(url: str, path: str, extensions: str | None = None) -> bytes:
    """A browser's WebSocket handshake request for ``path`` on the server at ``url``."""
    host, port = url.removeprefix("http://").split(":")
    lines = [
        f"GET {path} HTTP/1.1",
        f"Host: {host}:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
        f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}",
        "Sec-WebSocket-Version: 13",
        *([f"Sec-WebSocket-Extensions: {extensions}"] if extensions else []),
        f"Origin: {url}",
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def handshake_answer(url: str, path: str, extensions: str) -> bytes:
    """The head of the server's answer to a browser's WebSocket handshake on ``path``."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(upgrade_request(url, path, extensions))
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = connection.recv(4096)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n\r\n", 1)[0]


def test_a_tab_socket_is_not_compressed_though_the_browser_offers_it(tmp_path: Path) -> None:
    """Every browser offers permessage-deflate; accepted, each socket would keep a compressor for
    its life (~40-100 KB) and compress every message once a tab (app/__main__.py)."""
    with served(tmp_path) as url:
        made = httpx.post(f"{url}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"})
        assert made.status_code == 201, made.text
        head = handshake_answer(
            url, f"/ws/rooms/{made.json()['code']}?lang=en", "permessage-deflate; client_max_window_bits"
        )
    assert head.startswith(b"HTTP/1.1 101"), head
    assert b"sec-websocket-extensions" not in head.lower(), head
