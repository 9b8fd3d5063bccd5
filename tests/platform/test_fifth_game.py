"""Issue 19: a fifth game is added by creating files only in its own folders plus its registry entry.

The fixture copies the throwaway game in ``tests/platform/fifth_game/`` to where a real game's files go
(``app/games/fifth_guess/`` and ``templates/games/fifth-guess/``) and adds its one registry line; the
tests then find it everywhere the platform lists, plays, checks and draws games.
"""

from __future__ import annotations

import importlib
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app import simulate
from app.config import Settings
from app.games import registry
from app.games.registry import ENGINES, checks_of, package_of
from app.web.app import create_app
from tests.platform import test_engine_contract as contract

GAME, PACKAGE = "fifth-guess", "fifth_guess"
SOURCE = Path(__file__).parent / "fifth_game"
ROOT = Path(__file__).resolve().parents[2]
FOLDERS = {
    SOURCE: ROOT / "app" / "games" / PACKAGE,
    SOURCE / "templates": ROOT / "templates" / "games" / GAME,
}


@pytest.fixture
def fifth_game(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The game's files in its own two folders, and its line in ``registry._PACKAGES``, for one test."""
    for target in FOLDERS.values():
        assert not target.exists(), f"{target} is left over from an earlier run: remove it"
    try:
        for source, target in FOLDERS.items():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("templates", "__pycache__"))
        importlib.invalidate_caches()
        monkeypatch.setitem(registry._PACKAGES, GAME, PACKAGE)  # the registry line
        for game_id, engine in registry._load().items():
            monkeypatch.setitem(ENGINES, game_id, engine)
        yield GAME
    finally:
        for target in FOLDERS.values():
            shutil.rmtree(target, ignore_errors=True)
        for name in [name for name in sys.modules if name.startswith(f"app.games.{PACKAGE}")]:
            del sys.modules[name]


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


def test_the_registry_lists_the_fifth_game_with_its_package_and_checks(fifth_game: str) -> None:
    assert fifth_game in ENGINES and package_of(fifth_game) == PACKAGE
    assert repr(ENGINES[fifth_game]) == f"<ModuleEngine {fifth_game!r}>"
    assert checks_of(fifth_game).invariants(ENGINES[fifth_game].setup(3, {}, 1)) == []


def test_the_simulator_checks_the_fifth_game_through_the_registry(fifth_game: str) -> None:
    summary = simulate.simulate(fifth_game, 3, 3, ["normal", "easy", "random", "strong"], seed=1)
    assert not summary.failures and all(record.winners for record in summary.records)
    assert any(record.thoughts for record in summary.records)  # its strong seats searched


@pytest.mark.parametrize("players", [2, 4])
def test_the_fifth_game_keeps_the_engine_contract(fifth_game: str, players: int) -> None:
    contract.test_a_bot_game_keeps_the_contract(fifth_game, players)


def test_the_pages_offer_explain_and_draw_the_fifth_game(fifth_game: str, client: TestClient) -> None:
    assert fifth_game in {game["id"] for game in client.get("/api/games").json()}
    assert f'id="game-{fifth_game}"' in client.get("/?lang=en").text
    rules = client.get(f"/games/{fifth_game}/rules?lang=en")
    assert rules.status_code == 200 and "nobody else picked scores a point" in rules.text

    created = client.post("/api/rooms", json={"game": fifth_game, "players": 2, "name": "Ann"}).json()
    code, ann = created["code"], created["token"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
    assert (
        client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {ann}"}).status_code == 200
    )
    client.cookies.set(f"bourse_seat_{code}", ann)
    page = client.get(f"/r/{code}").text
    assert "Pick 1, 2 or 3 in secret." in page and 'id="f-pick-3"' in page and 'name="version"' in page

    mine = client.get(f"/api/rooms/{code}", headers={"Authorization": f"Bearer {bob}"}).json()
    bid = {"version": mine["version"], "action": {"type": "pick", "number": 2}}
    assert (
        client.post(
            f"/api/rooms/{code}/actions", json=bid, headers={"Authorization": f"Bearer {bob}"}
        ).status_code
        == 200
    )
    act = client.post(
        f"/r/{code}/act",
        data={"version": str(mine["version"] + 1), "type": "pick", "number": "3"},
        headers={"HX-Request": "true"},
    )
    assert act.status_code == 200, act.text
    assert "Ann wins round 1." in client.get(f"/r/{code}").text
