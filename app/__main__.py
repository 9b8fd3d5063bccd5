"""``python -m app``: serve Bourse (HOST, PORT and BOURSE_* settings from the environment)."""

from __future__ import annotations

import logging

import uvicorn

from app.config import get_settings
from app.web.app import create_app


def main() -> None:
    settings = get_settings()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    uvicorn.run(
        create_app(settings),
        host=settings.host,
        port=settings.port,
        proxy_headers=True,
        forwarded_allow_ips=settings.forwarded_allow_ips,
        ws_ping_interval=20,
    )


if __name__ == "__main__":
    main()
