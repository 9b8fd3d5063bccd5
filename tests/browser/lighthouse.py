"""Lighthouse (mobile) on each game's room page, as a seat at a decision and as a spectator
(``scripts/lighthouse``; issue 45's bound: accessibility at least 98, best practices 100).

A server of its own on loopback (``python -m app``, a fresh SQLite file in a temporary folder), a room
per game made over the API with bots in the other seats, and Ann brought to a decision after a few
random legal moves (as ``scripts/screenshots`` does, so the pages are the README's). One Chromium is
started here, headless, with no background traffic and every host name but loopback unresolvable;
Lighthouse's CLI (``node_modules``, an npm dev dependency) drives it over its debugging port, a page
at a time, and a seat's page is asked for with the seat's cookie. Each page's scores and failing
audits are printed, and any request that left loopback. The server, Chromium and Lighthouse are
stopped at the end, on errors and timeouts too. The exit status is 1 when a page misses the bound.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from tests.browser.screenshots import GAMES, play, started_room
from tests.conftest import CHROMIUM
from tests.support import ROOT, free_port, served

LIGHTHOUSE = ROOT / "node_modules" / ".bin" / "lighthouse"
CATEGORIES = ("accessibility", "best-practices")
BOUNDS = {"accessibility": 98, "best-practices": 100}
# The flags of the task, and what keeps a page on loopback: a host name resolves to nothing.
CHROME_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-quic",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
PAGE_SECONDS = 150
CHINESE_PAGES = {"zh-Hant": "tulip-bubble", "zh-Hans": "qe"}  # one seat's page in each


@dataclass(frozen=True)
class Page:
    game: str
    viewer: str  # "seat" (Ann's, at her decision) or "spectator"
    language: str

    @property
    def name(self) -> str:
        return f"{self.game} {self.viewer} {self.language}"


@dataclass
class Result:
    page: Page
    scores: dict[str, int]
    failing: list[str]
    off_loopback: list[str]

    @property
    def within_bounds(self) -> bool:
        met = all(self.scores.get(category, 0) >= bound for category, bound in BOUNDS.items())
        return met and not self.off_loopback


def pages_to_audit(games: list[str], every_language: bool) -> list[Page]:
    pages = [Page(game, viewer, "en") for game in games for viewer in ("seat", "spectator")]
    for language, game in CHINESE_PAGES.items():
        if every_language:
            pages += [Page(game, viewer, language) for game in games for viewer in ("seat", "spectator")]
        elif game in games:
            pages.append(Page(game, "seat", language))
    return pages


@contextmanager
def own_group(command: list[str], **options: Any) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` started in a process group of its own, which is killed whole when the block ends
    (Chromium's renderers and Lighthouse's children with it)."""
    process = subprocess.Popen(command, start_new_session=True, **options)
    try:
        yield process
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


@contextmanager
def chromium(folder: Path) -> Iterator[int]:
    """A headless Chromium with a profile in ``folder``; its debugging port."""
    port = free_port()
    command = [str(CHROMIUM), *CHROME_FLAGS, f"--remote-debugging-port={port}", f"--user-data-dir={folder}"]
    with (
        (folder.parent / "chromium.log").open("wb") as log,
        own_group(command, stdout=log, stderr=log) as process,
    ):
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/json/version", timeout=1).raise_for_status()
                break
            except httpx.HTTPError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        f"Chromium did not start (see {folder.parent / 'chromium.log'})"
                    ) from None
                time.sleep(0.2)
        yield port


def lighthouse(url: str, chrome_port: int, report: Path, cookie: str | None) -> dict[str, Any]:
    """Lighthouse's report (its JSON) on ``url``, in the mobile preset, with the categories audited."""
    command = [
        str(LIGHTHOUSE),
        url,
        f"--port={chrome_port}",
        f"--only-categories={','.join(CATEGORIES)}",
        # every request the page made, to tell any that left loopback
        "--only-audits=network-requests",
        "--output=json",
        f"--output-path={report}",
        "--no-enable-error-reporting",
        "--max-wait-for-load=30000",
        "--quiet",
    ]
    if cookie:
        command.append("--extra-headers=" + json.dumps({"Cookie": cookie}))
    with own_group(command, cwd=ROOT, stdin=subprocess.DEVNULL) as process:
        try:
            process.wait(timeout=PAGE_SECONDS)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"Lighthouse took more than {PAGE_SECONDS} s on {url}") from None
    if process.returncode != 0 or not report.exists():
        raise RuntimeError(f"Lighthouse failed on {url} (exit status {process.returncode})")
    return dict(json.loads(report.read_text(encoding="utf-8")))


def _item_text(item: dict[str, Any]) -> str:
    node = item.get("node") or {}
    if isinstance(node, dict) and node.get("snippet"):
        explanation = " ".join((node.get("explanation") or "").split())
        return f"{node.get('selector', '')}: {node['snippet'][:160]} {explanation[:200]}".rstrip()
    for key in ("description", "value", "url", "source"):
        value = item.get(key)
        if isinstance(value, str) and value:
            return value[:200]
        if isinstance(value, dict) and value.get("url"):
            return str(value["url"])[:200]
    return json.dumps(item)[:200]


def failing_audits(report: dict[str, Any]) -> list[str]:
    """Each audit of the categories that did not pass: its id, title and (a few of) the elements."""
    lines = []
    for category in CATEGORIES:
        for ref in report["categories"][category]["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if audit.get("scoreDisplayMode") not in ("binary", "numeric") or audit.get("score") in (None, 1):
                continue
            lines.append(f"{category}: {audit['id']} (weight {ref['weight']}): {audit['title']}")
            items = (audit.get("details") or {}).get("items") or []
            lines += [f"    {_item_text(item)}" for item in items[:6]]
            if len(items) > 6:
                lines.append(f"    … and {len(items) - 6} more")
    return lines


def requests_off_loopback(report: dict[str, Any]) -> list[str]:
    audit = report["audits"].get("network-requests") or {}
    urls = [item.get("url", "") for item in (audit.get("details") or {}).get("items") or []]
    return [
        url
        for url in urls
        if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).hostname != "127.0.0.1"
    ]


def audit_page(server_url: str, chrome_port: int, room: tuple[str, str], page: Page, folder: Path) -> Result:
    code, token = room
    cookie = f"bourse_seat_{code}={token}" if page.viewer == "seat" else None
    url = f"{server_url}/r/{code}?lang={page.language}"
    # Lighthouse sends the seat's cookie as a header of its own: the server must take it for Ann's seat
    # at her decision, or the page audited would be a spectator's.
    headers = {"Cookie": cookie} if cookie else {}
    wanted = 'data-your-move="yes"' if cookie else 'data-viewer-seat=""'
    if wanted not in httpx.get(url, headers=headers).text:
        what = "Ann's seat at her decision" if cookie else "a spectator's"
        raise RuntimeError(f"{url} is not {what} page")
    report_path = folder / f"{page.game}-{page.viewer}-{page.language}.json"
    report = lighthouse(url, chrome_port, report_path, cookie)
    if report.get("runtimeError"):
        raise RuntimeError(f"Lighthouse could not audit {page.name}: {report['runtimeError']}")
    scores = {
        category: round(100 * (report["categories"][category]["score"] or 0)) for category in CATEGORIES
    }
    return Result(page, scores, failing_audits(report), requests_off_loopback(report))


def report_result(result: Result) -> None:
    scores = ", ".join(f"{category} {score}" for category, score in result.scores.items())
    mark = "ok" if result.within_bounds else "BELOW THE BOUND"
    print(f"{result.page.name}: {scores} ({mark})", flush=True)
    for line in result.failing:
        print(f"  {line}", flush=True)
    for url in result.off_loopback:
        print(f"  a request left loopback: {url}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--every-language", action="store_true", help="every page in all three languages")
    parser.add_argument("--moves", type=int, default=3, help="Ann's random moves before the audits")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="keep Lighthouse's JSON reports in this folder")
    arguments = parser.parse_args()
    # Stopped by a signal, it still stops what it started (the blocks below end as on an error).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if not LIGHTHOUSE.exists():
        print(
            "scripts/lighthouse: Lighthouse is not installed: run `npm ci` (or scripts/setup --dev)",
            file=sys.stderr,
        )
        return 2
    results = []
    with tempfile.TemporaryDirectory(prefix="bourse-lighthouse-") as temporary:
        folder = Path(temporary)
        reports = arguments.keep or folder
        reports.mkdir(parents=True, exist_ok=True)
        (folder / "profile").mkdir()
        with served(folder, bot_delay=0.05) as server_url, chromium(folder / "profile") as chrome_port:
            rooms = {}
            for page in pages_to_audit(arguments.games, arguments.every_language):
                if page.game not in rooms:
                    rooms[page.game] = started_room(server_url, page.game, GAMES[page.game])
                    play(server_url, *rooms[page.game], arguments.moves, random.Random(arguments.seed))
                results.append(audit_page(server_url, chrome_port, rooms[page.game], page, reports))
                report_result(results[-1])
    below = [result.page.name for result in results if not result.within_bounds]
    print(f"{len(results) - len(below)} of {len(results)} pages within the bounds {BOUNDS}")
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
