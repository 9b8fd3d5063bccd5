"""``python -m app``: serve Bourse (HOST, PORT and BOURSE_* settings from the environment)."""

from __future__ import annotations

import gc
import subprocess
import sys

import uvicorn

from app.collector import Collector
from app.config import get_settings
from app.db import DATABASE_UNAVAILABLE
from app.logs import configure_logging
from app.web.app import create_app
from app.web.handshakes import PacedHttpProtocol


def main() -> None:
    settings = get_settings()
    configure_logging(settings)  # BOURSE_LOG_LEVEL and BOURSE_LOG_FORMAT, uvicorn's records included
    # The schema is brought up to date in a child process, so the server never imports Alembic
    # (app/migrate.py). A database it cannot reach or write does not stop the start, as in
    # ``create_app``: /healthz answers 503 until it can. Any other failure does: new code on a schema
    # it could not bring up to date would answer 500s.
    migration = subprocess.run([sys.executable, "-m", "app.migrate"], check=False)
    if migration.returncode not in (0, DATABASE_UNAVAILABLE):
        raise SystemExit(
            f"not started: the database's schema could not be brought up to date "
            f"(python -m app.migrate exited with {migration.returncode}; its error is above)"
        )
    application = create_app(settings, migrated=True)
    if settings.plain:
        # What exists now (modules, templates' code, the app) lives as long as the process: frozen once
        # out of the cycle collector's passes, which otherwise walk it again and again.
        gc.freeze()
    else:
        # So do a room's objects for seconds: kept out of the collector's passes too, every tenth of a
        # second, which otherwise pause every room's moves at a thousand rooms (app/collector.py)
        Collector().start()
    uvicorn.run(
        application,
        host=settings.host,
        port=settings.port,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        log_config=None,  # uvicorn's records, its access log included, go through ours (app/logs.py)
        # a crowd's WebSocket handshakes a few at a time, the other rooms' moves in between
        # (app/web/handshakes.py: through uvicorn's own protocol class, so off when plain)
        http="httptools" if settings.plain else PacedHttpProtocol,
        # websockets' sans-I/O protocol: a socket holds ~25 KB where uvicorn's older websockets protocol
        # holds ~32 KB (two queues and the handshake kept for the socket's life), and it is the one
        # uvicorn keeps
        ws="websockets-sansio",
        # No permessage-deflate (opt-in in Phoenix and Bun too): every browser offers it, and a
        # socket that accepts it keeps a compressor for its life (~40 KB with window bits 12, ~100 KB
        # with the defaults; 200-500 MB at 5000 tabs) and spends ~140 us compressing each 7 KB message,
        # once a tab, though the public regions are the same bytes for every tab (BENCHMARKS.md). And a
        # socket's compressed stream would mix its seat's secrets with text other players choose (chat,
        # names): message sizes an eavesdropper sees could then tell about the secrets, as in BREACH.
        ws_per_message_deflate=False,
        ws_ping_interval=20,
        # a page sends only its moves on its socket (app/web/moves.py): no larger than a form's body
        ws_max_size=settings.max_body_bytes,
    )


if __name__ == "__main__":
    main()
