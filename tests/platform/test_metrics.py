"""/metrics (issue 47): Prometheus' text format, off unless ``BOURSE_METRICS=on`` (then a 404 like any
unknown path), guarded by ``BOURSE_METRICS_TOKEN`` when set, and each ``bourse_…`` series moving
when its event happens: rooms created and started, tabs and spectators opening, moves accepted and
refused, publishes, bot decisions and search playouts, pushes waiting and lost, database errors."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from app.bots.search import strong_action
from app.config import Settings
from app.db import Statement
from app.metrics import token_matches
from app.web import push as push_module
from app.web.app import create_app
from app.web.live import LiveRooms
from app.web.push import PushSender
from tests.platform.test_api import auth
from tests.platform.test_socket_moves import answers, until_answered
from tests.push_service import PushService
from tests.support import ROOT

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
TOKEN = "a-long-random-scrape-token"


def scrape(client: TestClient, token: str | None = None) -> Samples:
    answer = client.get("/metrics", headers=auth(token) if token else {})
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


def a_legal_move(client: TestClient, code: str, token: str) -> dict[str, Any]:
    """The seat's first legal action in Q.E. (open the bidding, or a sealed bid), at the least amount
    it may name (a bid is at least 1), against the room's version."""
    room = client.get(f"/api/rooms/{code}", headers=auth(token)).json()
    template = room["legal"][0]
    domain = template["params"]["amount"]
    amount = next(number for number in range(max(domain["min"], 1), 20) if number not in domain["exclude"])
    return {"version": room["version"], "action": {"type": template["type"], "amount": amount}}


def idle(client: TestClient) -> None:
    """Wait until no publish, push to a tab or bot runs."""
    live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
    assert client.portal is not None
    client.portal.call(live.idle)


@pytest.fixture
def metrics_settings(database_url: str) -> Settings:
    return Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_BOT_DELAY=0,
        BOURSE_METRICS=True,
        BOURSE_BOT_THINK_SECONDS=0.3,
    )


@pytest.fixture
def client(metrics_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(metrics_settings)) as client:
        yield client


def test_metrics_are_off_by_default_a_404_like_any_unknown_path(settings: Settings) -> None:
    assert not settings.metrics
    with TestClient(create_app(settings)) as client:
        assert client.get("/metrics").status_code == 404
        assert client.get("/metrics", headers=auth(TOKEN)).status_code == 404


def test_a_metrics_token_is_asked_for_as_a_bearer_token(database_url: str) -> None:
    settings = Settings(
        BOURSE_DATABASE_URL=database_url, BOURSE_METRICS=True, BOURSE_METRICS_TOKEN=SecretStr(TOKEN)
    )
    with TestClient(create_app(settings)) as client:
        for headers in (
            {},
            {"Authorization": "Bearer"},
            {"Authorization": "Bearer wrong"},
            {"Authorization": f"Bearer {TOKEN}x"},
            {"Authorization": f"Basic {TOKEN}"},
            {"Cookie": f"token={TOKEN}"},
        ):
            refused = client.get("/metrics", headers=headers)
            assert refused.status_code == 401, headers
            assert refused.headers["www-authenticate"] == "Bearer"
            assert "bourse_" not in refused.text
        assert client.get("/metrics?token=" + TOKEN).status_code == 401  # never in a URL (logs keep URLs)
        assert value(scrape(client, TOKEN), "bourse_rooms", state="waiting") == 0
    assert TOKEN not in repr(settings)  # the settings keep it secret


def test_the_token_is_compared_whole_whatever_its_case_of_scheme() -> None:
    assert token_matches(f"Bearer {TOKEN}", TOKEN)
    assert token_matches(f"bearer {TOKEN}", TOKEN)
    assert not token_matches(f"Bearer {TOKEN[:-1]}", TOKEN)
    assert not token_matches(None, TOKEN)
    assert not token_matches("Bearer ", TOKEN)


def test_rooms_tabs_moves_publishes_and_bots_are_counted_as_they_happen(client: TestClient) -> None:
    before = scrape(client)
    created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, ann = created["code"], created["token"]
    tokens = [ann, client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]]
    client.post(f"/api/rooms/{code}/bots", headers=auth(ann), json={})
    waiting = scrape(client)
    assert moved(before, waiting, "bourse_rooms", state="waiting") == 1

    ann_tab = client.websocket_connect(f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"})
    spectator_tab = client.websocket_connect(f"/ws/rooms/{code}")
    with ann_tab, spectator_tab:
        assert client.post(f"/api/rooms/{code}/start", headers=auth(ann)).status_code == 200
        idle(client)
        started = scrape(client)
        assert moved(waiting, started, "bourse_rooms", state="waiting") == -1
        assert moved(waiting, started, "bourse_rooms", state="playing") == 1
        assert value(started, "bourse_live_rooms") == 1
        assert value(started, "bourse_live_tabs") == 2
        assert value(started, "bourse_live_spectators") == 1

        room = client.get(f"/api/rooms/{code}").json()
        opener = tokens[room["to_act"][0]]  # the bot has decided: a person is to act
        move = a_legal_move(client, code, opener)
        assert client.post(f"/api/rooms/{code}/actions", headers=auth(opener), json=move).status_code == 200
        idle(client)
        played = scrape(client)
        assert moved(started, played, "bourse_moves_accepted_total", game="qe") == 1
        assert moved(started, played, "bourse_move_seconds_count", game="qe") == 1
        assert 0 < moved(started, played, "bourse_move_seconds_sum", game="qe") < 10
        assert moved(started, played, "bourse_publish_seconds_count") >= 1
        assert moved(started, played, "bourse_publish_bytes_count") >= 1
        assert moved(started, played, "bourse_publish_bytes_sum") > 1000  # the two tabs' new table
        assert moved(started, played, "bourse_publish_renders_sum") >= 1
        # the bot opened the bidding or answered the opening bid with its sealed one
        assert moved(before, played, "bourse_bot_decisions_total", strength="normal", outcome="chosen") >= 1
        assert moved(before, played, "bourse_bot_decision_seconds_count", strength="normal") >= 1

        # refused, changing nothing: the same move again (made against an older table), a move by
        # nobody seated, a move without a type
        assert client.post(f"/api/rooms/{code}/actions", headers=auth(opener), json=move).status_code == 409
        assert client.post(f"/api/rooms/{code}/actions", json=move).status_code == 403
        typeless = {"version": move["version"] + 1, "action": {"amount": 5}}
        assert (
            client.post(f"/api/rooms/{code}/actions", headers=auth(opener), json=typeless).status_code == 400
        )
        refused = scrape(client)
        assert moved(played, refused, "bourse_moves_refused_total", status="409") == 1
        assert moved(played, refused, "bourse_moves_refused_total", status="403") == 1
        assert moved(played, refused, "bourse_moves_refused_total", status="400") == 1
        assert moved(played, refused, "bourse_moves_accepted_total", game="qe") == 0
    closed = scrape(client)
    assert value(closed, "bourse_live_tabs") == 0
    assert value(closed, "bourse_live_rooms") == 0


def test_a_move_over_the_live_socket_is_counted_as_one_posted(client: TestClient) -> None:
    created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, ann = created["code"], created["token"]
    tokens = [ann, client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]]
    client.post(f"/api/rooms/{code}/bots", headers=auth(ann), json={})
    client.post(f"/api/rooms/{code}/start", headers=auth(ann))
    idle(client)
    opener = tokens[client.get(f"/api/rooms/{code}").json()["to_act"][0]]  # a person: the bot has decided
    move = a_legal_move(client, code, opener)
    fields = [
        ["version", str(move["version"])],
        *([name, str(value)] for name, value in move["action"].items()),
    ]
    before = scrape(client)
    with client.websocket_connect(
        f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={opener}"}
    ) as tab:
        tab.send_json({"move": 1, "fields": fields})
        tab.send_json({"move": 2, "fields": fields})  # the same again: made against an older table
        answered = answers(until_answered(tab, 2))
    assert [(answer["move"], answer["status"]) for answer in answered] == [(1, 200), (2, 409)]
    after = scrape(client)
    assert moved(before, after, "bourse_moves_accepted_total", game="qe") == 1
    assert moved(before, after, "bourse_moves_refused_total", status="409") == 1


def test_a_strong_bot_counts_its_search_playouts(client: TestClient) -> None:
    client.app.state.service.turns.strong_search = strong_action  # type: ignore[attr-defined]  # in process
    before = scrape(client)
    created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, ann = created["code"], created["token"]
    client.post(f"/api/rooms/{code}/bots", headers=auth(ann), json={"strength": "strong", "fill": True})
    assert client.post(f"/api/rooms/{code}/start", headers=auth(ann)).status_code == 200
    idle(client)
    if client.get(f"/api/rooms/{code}").json()["to_act"] == [0]:  # Ann opens the bidding: the bots answer
        client.post(f"/api/rooms/{code}/actions", headers=auth(ann), json=a_legal_move(client, code, ann))
        idle(client)
    after = scrape(client)
    assert moved(before, after, "bourse_bot_decisions_total", strength="strong", outcome="chosen") >= 1
    assert moved(before, after, "bourse_bot_search_playouts_total") >= 1


def test_database_errors_are_counted_whichever_way_the_statement_went(client: TestClient) -> None:
    db = client.app.state.db  # type: ignore[attr-defined]
    before = scrape(client)
    with pytest.raises(OperationalError), db.read() as session:  # through SQLAlchemy
        session.execute(text("SELECT missing FROM no_such_table"))
    with pytest.raises(Exception, match="no_such_table"):  # the driver's own cursor: a hot read
        db.rows("SELECT missing FROM no_such_table")
    with pytest.raises(Exception, match="no_such_table"), db.writing() as write:  # and a move's write
        write.execute(Statement("UPDATE no_such_table SET missing = :value"), {"value": 1})
    after = scrape(client)
    assert moved(before, after, "bourse_database_errors_total") == 3


def test_a_database_that_refuses_writes_shows_in_the_errors(tmp_path: Path) -> None:
    """A read-only volume: the server answers 503, and the errors say why before anyone complains."""
    path = tmp_path / "bourse.db"
    with TestClient(create_app(Settings(BOURSE_DATABASE_URL=f"sqlite:///{path}"))):
        pass  # migrated
    read_only = Settings(BOURSE_DATABASE_URL=f"sqlite:///file:{path}?mode=ro&uri=true", BOURSE_METRICS=True)
    with TestClient(create_app(read_only, migrated=True)) as client:
        before = scrape(client)
        assert client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).status_code == 503
        after = scrape(client)
        assert moved(before, after, "bourse_database_errors_total") >= 1
        assert value(after, "bourse_rooms", state="waiting") == 0  # reads still answer


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService()
    service.start()
    yield service
    service.stop()


def test_pushes_waiting_and_lost_are_counted(
    database_url: str, push_service: PushService, toy_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_BOT_DELAY=0,
        BOURSE_METRICS=True,
        BOURSE_PUSH_SERVICES=push_service.origin,
        BOURSE_PUSH_TIMEOUT=5,
    )
    with TestClient(create_app(settings)) as client:
        sender: PushSender = client.app.state.push  # type: ignore[attr-defined]
        code, tokens = toy_room(client, toy_game, 4)
        for seat, name in enumerate(("ann", "bob", "cy", "di")):
            subscribe(client, code, tokens[seat], push_service.subscription(name))
        push_service.gone.add("ann")  # 410
        push_service.failing.add("bob")  # 500
        push_service.delay = 1.5  # cy's and di's pushes wait for their answer meanwhile
        before = scrape(client)
        assert client.post(f"/api/rooms/{code}/start", headers=auth(tokens[0])).status_code == 200
        assert waited_for(lambda: value(scrape(client), "bourse_push_sends_waiting") > 0)
        assert sender.wait_idle()
        after = scrape(client)
        assert value(after, "bourse_push_sends_waiting") == 0
        assert moved(before, after, "bourse_push_failures_total", reason="forgotten") == 1  # ann's
        assert moved(before, after, "bourse_push_failures_total", reason="failed") == 1  # bob's

        # a push service that hangs: pushes past the waiting bound are dropped
        monkeypatch.setattr(push_module, "WAITING_MAX", 1)
        other, others = toy_room(client, toy_game, 3)
        for seat, name in enumerate(("eve", "fay", "gus")):
            subscribe(client, other, others[seat], push_service.subscription(name))
        client.post(f"/api/rooms/{other}/start", headers=auth(others[0]))
        assert sender.wait_idle()
        assert moved(after, scrape(client), "bourse_push_failures_total", reason="dropped") == 2

        # rooms queued while the sender is busy telling another
        telling = threading.Event()
        told = sender.tell

        def slow_tell(*arguments: Any) -> None:
            telling.wait(10)
            told(*arguments)

        monkeypatch.setattr(sender, "tell", slow_tell)
        sender.note("first", None)
        sender.note("second", None)
        assert waited_for(lambda: value(scrape(client), "bourse_push_rooms_queued") == 1)
        telling.set()
        assert sender.wait_idle()
        assert value(scrape(client), "bourse_push_rooms_queued") == 0


def toy_room(client: TestClient, game: str, players: int) -> tuple[str, list[str]]:
    created = client.post("/api/rooms", json={"game": game, "players": players, "name": "Ann"}).json()
    code, tokens = created["code"], [created["token"]]
    for name in ("Bob", "Cy", "Di")[: players - 1]:
        tokens.append(client.post(f"/api/rooms/{code}/join", json={"name": name}).json()["token"])
    return code, tokens


def subscribe(client: TestClient, code: str, token: str, subscription: dict[str, Any]) -> None:
    client.cookies.set(f"bourse_seat_{code}", token)
    assert client.post(f"/r/{code}/push", json=subscription).status_code in (200, 201, 204)
    client.cookies.clear()


def waited_for(condition: Any, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return False


def test_the_sample_dashboard_reads_every_series_and_only_those_the_server_exports(
    client: TestClient,
) -> None:
    dashboard = json.loads((ROOT / "deploy" / "grafana-dashboard.json").read_text())
    answer = client.get("/metrics").text
    families = {family.name for family in text_string_to_metric_families(answer)}
    samples = {sample.name for family in text_string_to_metric_families(answer) for sample in family.samples}
    expressions = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    read = {name for expr in expressions for name in re.findall(r"\b(?:bourse|process)_\w+", expr)}
    assert read <= samples, read - samples
    shown = {re.sub(r"_(bucket|sum|count|total)$", "", name) for name in read}
    assert {family for family in families if family.startswith("bourse_")} <= shown
