"""In the browser: pages work under the strict Content-Security-Policy, the API docs come from our
own origin, and the personal link resumes a seat without its token reaching the server's log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.helpers import create_room, wait_live
from tests.support import served

pytestmark = pytest.mark.browser


@pytest.fixture
def logged_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A server of its own, so the test can read its access log."""
    with served(tmp_path) as url:
        yield url, tmp_path / "server.log"


def policy_breaches(messages: list[str]) -> list[str]:
    return [text for text in messages if "Content Security Policy" in text or "Refused to" in text]


def test_pages_work_under_the_policy_and_the_personal_link_stays_out_of_the_log(
    browser: Any, logged_server: tuple[str, Path], artifacts: Path
) -> None:
    url, log_path = logged_server
    host = browser.new_context(bypass_csp=False)  # the policy applies (conftest lifts it elsewhere)
    page = host.new_page()
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    page.goto(url + "/docs")
    page.wait_for_selector(".opblock", timeout=15_000)
    assert page.locator(".opblock").count() >= 10
    page.screenshot(path=str(artifacts / "public-api-docs.png"))

    create_room(page, url, "tulip-bubble", "Ann", 3)
    wait_live(page)
    page.get_by_role("button", name="Fill with bots").click()
    page.wait_for_selector(".seat >> nth=2")
    page.get_by_role("button", name="Start the game").click()
    page.wait_for_selector("#r-status [data-your-move]")
    personal = page.locator(".resume-link input.copy").input_value()  # in the room's menu
    code, token = personal.split("/r/", 1)[1].split("/resume#")
    page.screenshot(path=str(artifacts / "public-room-under-csp.png"))
    assert policy_breaches(messages) == []

    phone = browser.new_context(viewport={"width": 360, "height": 800}, bypass_csp=False)
    other = phone.new_page()
    other.on("console", lambda message: messages.append(message.text))
    other.goto(personal)
    other.wait_for_url(f"{url}/r/{code}")
    other.wait_for_selector(".seat.you")
    wait_live(other)
    assert "#" not in other.url
    assert policy_breaches(messages) == []
    host.close()
    phone.close()
    log = log_path.read_text(errors="replace")
    assert f"/r/{code}/resume" in log and token not in log
