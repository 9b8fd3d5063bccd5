"""Hints allowed, practice rooms and the search's hints: kept with the room, refused where the table
does not allow them, only ever one seat's, and unchanged by anything that seat cannot see."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.games.base import Budget, random_legal_action, view_without_log
from app.games.registry import ENGINES, checks_of
from app.learn.hints import Weighed, hint_for
from app.learn.workers import LearnWorkers
from app.web.app import create_app

QUICK = Budget(seconds=60, iterations=24)  # a hint that stops at its playouts, never at the clock


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        client.app.state.learn = LearnWorkers(processes=False)  # type: ignore[attr-defined]
        yield client


def qe_room(client: TestClient, hints: bool | None) -> tuple[str, list[str]]:
    body: dict[str, Any] = {"game": "qe", "players": 3, "name": "Ann"}
    if hints is not None:
        body["hints"] = hints
    created = client.post("/api/rooms", json=body)
    assert created.status_code == 201, created.text
    code, tokens = created.json()["code"], [created.json()["token"]]
    for name in ("Bob", "Cy"):
        tokens.append(client.post(f"/api/rooms/{code}/join", json={"name": name}).json()["token"])
    assert client.post(f"/api/rooms/{code}/start", headers=auth(tokens[0])).status_code == 200
    return code, tokens


def test_a_room_says_whether_its_table_allows_hints(client: TestClient) -> None:
    plain, _ = qe_room(client, None)
    allowed, _ = qe_room(client, True)
    assert client.get(f"/api/rooms/{plain}").json()["hints"] is False
    assert client.get(f"/api/rooms/{allowed}").json()["hints"] is True
    assert "Hints allowed" in client.get(f"/r/{allowed}").text
    assert "Hints allowed" not in client.get(f"/r/{plain}").text


def test_a_hint_is_the_seats_own_at_its_decision(client: TestClient) -> None:
    code, tokens = qe_room(client, True)
    room = client.get(f"/api/rooms/{code}").json()
    actor = room["to_act"][0]
    hint = client.get(f"/api/rooms/{code}/hint", headers=auth(tokens[actor]))
    assert hint.status_code == 200, hint.text
    options = hint.json()["options"]
    assert 1 <= len(options) <= 3
    legal = client.get(f"/api/rooms/{code}", headers=auth(tokens[actor])).json()["legal"]
    types = {template["type"] for template in legal}
    for option in options:
        assert option["action"]["type"] in types
        assert option["label"] and option["text"].startswith(option["label"])
    weighed = [o for o in options if o["won"] is not None]
    assert all(0 <= o["won"] <= 1 and o["playouts"] > 0 for o in weighed)
    # the best first, and the answer can be played as it is
    assert [o["won"] for o in weighed] == sorted((o["won"] for o in weighed), reverse=True)
    played = client.post(
        f"/api/rooms/{code}/actions",
        json={"version": room["version"], "action": options[0]["action"]},
        headers=auth(tokens[actor]),
    )
    assert played.status_code == 200, played.text


def test_hints_are_refused_where_the_table_does_not_allow_them_and_to_anyone_but_the_deciding_seat(
    client: TestClient,
) -> None:
    plain, plain_tokens = qe_room(client, False)
    actor = client.get(f"/api/rooms/{plain}").json()["to_act"][0]
    assert client.get(f"/api/rooms/{plain}/hint", headers=auth(plain_tokens[actor])).status_code == 403
    client.cookies.set(f"bourse_seat_{plain}", plain_tokens[actor])
    assert client.get(f"/r/{plain}/hint").status_code == 403
    page = client.get(f"/r/{plain}").text
    assert "hint-button" not in page and 'id="r-coach"' not in page  # no coach's region at all
    client.cookies.clear()

    code, tokens = qe_room(client, True)
    room = client.get(f"/api/rooms/{code}").json()
    actor = room["to_act"][0]
    others = [seat for seat in range(3) if seat not in room["to_act"]]
    assert client.get(f"/api/rooms/{code}/hint").status_code == 403  # a spectator
    assert client.get(f"/r/{code}/hint").status_code == 403
    assert "hint-button" not in client.get(f"/r/{code}").text
    assert 'id="coach"' not in client.get(f"/r/{code}").text
    for other in others:  # a seat the game is not waiting for
        assert client.get(f"/api/rooms/{code}/hint", headers=auth(tokens[other])).status_code == 409
    assert client.get(f"/api/rooms/{code}/hint", headers=auth("not-a-seat")).status_code == 403
    client.cookies.set(f"bourse_seat_{code}", tokens[actor])
    page = client.get(f"/r/{code}/hint")
    assert page.status_code == 200 and "<li>" in page.text
    assert "hint-button" in client.get(f"/r/{code}").text


def test_learn_opens_a_started_practice_room_against_normal_bots_with_hints(client: TestClient) -> None:
    for game in sorted(ENGINES):
        assert f'value="{game}"' in client.get(f"/games/{game}/rules").text
        made = client.post("/rooms", data={"game": game, "practice": "yes"}, follow_redirects=False)
        assert made.status_code == 303, made.text
        code = made.headers["location"].rsplit("/", 1)[1]
        room = client.get(f"/api/rooms/{code}").json()
        assert room["hints"] is True and room["status"] in ("playing", "finished")
        assert room["seats"][0]["is_bot"] is False
        assert all(s["is_bot"] and s["bot_strength"] == "normal" for s in room["seats"][1:])
        assert len(room["seats"]) == room["players"]
    assert "Learn Q.E." in client.get("/").text
    made = client.post("/rooms", data={"game": "qe", "practice": "yes"}, headers={"Accept-Language": "zh-TW"})
    assert made.status_code == 200
    assert "學習者" in made.text  # the learner's seat is named in the page's language


def test_the_host_may_allow_hints_at_creation_on_the_start_page(client: TestClient) -> None:
    made = client.post(
        "/rooms", data={"game": "qe", "players": "3", "name": "Ann", "hints": "on"}, follow_redirects=False
    )
    code = made.headers["location"].rsplit("/", 1)[1]
    assert client.get(f"/api/rooms/{code}").json()["hints"] is True
    made = client.post("/rooms", data={"game": "qe", "players": "3", "name": "Ann"}, follow_redirects=False)
    code = made.headers["location"].rsplit("/", 1)[1]
    assert client.get(f"/api/rooms/{code}").json()["hints"] is False


def decisions(game: str, players: int, seed: int, every: int) -> Iterator[tuple[dict[str, Any], int]]:
    """Positions of a random game, every ``every`` moves, with a seat the game waits for."""
    engine = ENGINES[game]
    rng = random.Random(seed)
    state = engine.setup(players, {}, seed)
    for number in range(2000):
        if engine.result(state) is not None:
            return
        seat = engine.to_act(state)[0]
        if number % every == 0:
            yield state, seat
        legal = engine.legal_actions(state, seat)
        for _ in range(50):
            try:
                state = engine.apply(state, seat, random_legal_action(legal, rng))
                break
            except Exception:
                continue


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_hint_is_unchanged_when_another_seats_secrets_change(game: str) -> None:
    """Each game's disguise changes one seat's secrets and the hidden deck orders: no other seat's
    hint may change (the hint is handed that seat's view alone)."""
    engine, checks = ENGINES[game], checks_of(game)
    players = engine.info.min_players + 1
    rng = random.Random(5)
    tried = 0
    for state, seat in decisions(game, players, seed=11, every=7):
        owner = rng.choice([other for other in range(players) if other != seat])
        disguised, changed = checks.disguise(state, owner, random.Random(rng.getrandbits(32)))
        if seat in changed:
            continue
        assert hint_for(engine, disguised, seat, 99, QUICK) == hint_for(engine, state, seat, 99, QUICK)
        tried += 1
        if tried == 4:
            break
    assert tried == 4


def test_a_process_thinks_a_capped_number_of_hints_at_once_and_keeps_the_last_ones() -> None:
    from app.learn import workers as learn_workers

    engine = ENGINES["qe"]
    state = engine.setup(3, {}, 4)
    seat = engine.to_act(state)[0]
    view, legal = engine.view(state, seat), engine.legal_actions(state, seat)
    thinking = LearnWorkers(processes=False)
    for _ in range(learn_workers.HINTS_AT_ONCE):  # as many hints as are allowed at once, under way
        assert thinking._hints.acquire(blocking=False)
    with pytest.raises(learn_workers.Busy) as busy:
        thinking.hint(("room", 1, seat), "qe", view, seat, legal, 7)
    assert busy.value.status == 503
    thinking._hints.release()
    first = thinking.hint(("room", 1, seat), "qe", view, seat, legal, 7)
    thinking._hints.acquire(blocking=False)  # the last slot taken again: the same moment is kept
    assert thinking.hint(("room", 1, seat), "qe", view, seat, legal, 7) == first


def test_a_seats_page_of_a_table_with_hints_starts_the_hints_processes(client: TestClient) -> None:
    class Warmed(LearnWorkers):
        times = 0

        def warm(self) -> None:
            Warmed.times += 1

    client.app.state.learn = Warmed(processes=False)  # type: ignore[attr-defined]
    plain, plain_tokens = qe_room(client, False)
    code, tokens = qe_room(client, True)
    client.get(f"/r/{code}")  # a spectator asks for no hint
    client.cookies.set(f"bourse_seat_{plain}", plain_tokens[0])
    client.get(f"/r/{plain}")
    assert Warmed.times == 0
    client.cookies.set(f"bourse_seat_{code}", tokens[1])
    client.get(f"/r/{code}")
    assert Warmed.times == 1


def test_a_hint_out_of_time_says_it_rests_on_no_playout(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The hint's clock runs from the ask: when no playout ended by then, the answer is the bots'
    usual move, said to rest on none."""
    from app.learn import workers as learn_workers

    monkeypatch.setattr(learn_workers, "HINT_BUDGET", Budget(seconds=0.0, iterations=320))
    monkeypatch.setattr(learn_workers, "HINT_HARD_SECONDS", 0.0)
    code, tokens = qe_room(client, True)
    actor = client.get(f"/api/rooms/{code}").json()["to_act"][0]
    hint = client.get(f"/api/rooms/{code}/hint", headers=auth(tokens[actor]))
    assert hint.status_code == 200, hint.text
    [option] = hint.json()["options"]
    assert option["playouts"] == 0 and option["won"] is None
    assert "no time to play it out" in option["text"] and "only option" not in option["text"]


def test_hints_are_thought_in_processes_started_before_the_first_is_asked() -> None:
    engine = ENGINES["basari"]
    state = engine.setup(4, {}, 3)
    seat = engine.to_act(state)[0]
    view, legal = view_without_log(engine, state, seat), engine.legal_actions(state, seat)
    thinking = LearnWorkers()
    try:
        thinking.warm()
        assert thinking._hint_pool._ready.wait(60)  # started without being asked for a hint
        options = thinking.hint(("room", 1, seat), "basari", view, seat, legal, 7)
        assert options and thinking._hint_pool._pool is not None
    finally:
        thinking.stop()


@pytest.mark.parametrize(
    ("language", "sure", "unsure"),
    [
        (
            "en",
            "you win about 5 in 10 of these games (from 12 playouts)",
            "won 1 of its 1 playout, too few to tell",
        ),
        ("zh-Hant", "（根據 12 局推演）", "1 局推演中贏了 1 局，太少，還說不準"),
    ],
)
def test_a_share_from_too_few_playouts_is_given_as_a_count_and_said_to_be_too_few(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, language: str, sure: str, unsure: str
) -> None:
    """ "10 in 10 (from 1 playout)" read as a certainty to the newcomer trial: under ten playouts a
    hint gives what they came to and says they are too few."""
    code, tokens = qe_room(client, True)
    actor = client.get(f"/api/rooms/{code}").json()["to_act"][0]
    legal = client.get(f"/api/rooms/{code}", headers=auth(tokens[actor])).json()["legal"]
    action = random_legal_action(legal, random.Random(1))

    def weighed(*_: Any) -> list[Weighed]:  # what the search measured, fixed: the words are under test
        return [Weighed(action, 12, 0.5), Weighed(action, 1, 1.0)]

    monkeypatch.setattr(client.app.state.learn, "hint", weighed)  # type: ignore[attr-defined]
    hint = client.get(f"/api/rooms/{code}/hint?lang={language}", headers=auth(tokens[actor]))
    assert hint.status_code == 200, hint.text
    first, second = hint.json()["options"]
    assert first["text"].endswith(sure) and first["playouts"] == 12
    assert second["text"].endswith(unsure) and second["won"] == 1.0
