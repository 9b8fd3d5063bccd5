"""A review's mark opens the replay at the position the marked move was made from, and says so: the
newcomer trial (issue 46) followed a mark for move 41 to a page headed "Move 40" and took it for the
wrong move."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.rooms import RoomService
from app.web.app import create_app
from app.web.render import environment
from tests.platform.test_replay import bot_game


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def position_line(html: str) -> str:
    found = re.search(r'<p class="replay-position">(.*?)</p>', html, re.S)
    assert found, "the replay's position line"
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split())


def table_of(html: str) -> str:
    found = re.search(r'<div class="replay-table">(.*)</div>\s*</div>', html, re.S)
    assert found, "the replay's table"
    return found.group(1)


def test_a_marks_link_opens_the_position_before_its_move() -> None:
    mark = {"move": 41, "kind": "mistake", "text": "Move 41: you played Offer 1B; Accept was clearly better."}
    review = {"status": "done", "decisions": 12, "reviewed": 12, "marks": [mark]}
    html = (
        environment("en")
        .get_template("platform/review.html")
        .render(review=review, code="abc", seat=1, kinds={"mistake": "Mistake:"})
    )
    assert '<a href="/r/abc/replay?before=41&amp;seat=1">See it in the replay</a>' in html


def test_the_position_before_a_move_is_headed_so_and_is_the_table_that_move_was_made_from(
    client: TestClient,
) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, states = bot_game(service, "basari", 3)
    last = len(states) - 1
    move = 5
    mover = service.records.action_log(code)[move - 1][0]
    name = service.load(code).name_of(mover)
    before = client.get(f"/r/{code}/replay?before={move}&seat={mover}&lang=en")
    assert before.status_code == 200, before.text
    assert position_line(before.text) == (
        f"Before move {move} of {last} {name} made move {move} from this position: the move the review "
        "marks. Next shows it played."
    )
    # The table is the one that move was made from (the step after the move before it).
    step = client.get(f"/r/{code}/replay?step={move - 1}&seat={mover}&lang=en")
    assert table_of(before.text) == table_of(step.text)
    assert position_line(step.text).startswith(f"Move {move - 1} of {last}")
    # Seen by another seat, it is still the position before that move; "Next" shows the move played.
    assert f'href="/r/{code}/replay?before={move}&amp;seat=0"' in before.text
    assert f'href="/r/{code}/replay?step={move}&amp;seat={mover}"' in before.text
    fragment = client.get(f"/r/{code}/replay?before={move}", headers={"HX-Request": "true"})
    assert fragment.headers["HX-Push-Url"] == f"/r/{code}/replay?before={move}"


@pytest.mark.parametrize(("locale", "said"), [("zh_Hant", "第 5 步之前"), ("zh_Hans", "第 5 步之前")])
def test_the_heading_reads_in_chinese(client: TestClient, locale: str, said: str) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, _ = bot_game(service, "basari", 3)
    assert position_line(client.get(f"/r/{code}/replay?before=5&lang={locale}").text).startswith(said)


def test_a_move_before_the_first_or_past_the_last_is_refused(client: TestClient) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, states = bot_game(service, "basari", 3)
    for before in ("0", str(len(states)), "x"):
        assert client.get(f"/r/{code}/replay?before={before}").status_code == 400, before
    assert client.get(f"/r/{code}/replay?before={len(states) - 1}").status_code == 200
