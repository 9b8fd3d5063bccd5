"""Steps a person takes in the browser, shared by the games' browser tests."""

from __future__ import annotations

from typing import Any


def create_room(page: Any, server_url: str, game_id: str, name: str, players: int) -> str:
    """Create a room from the start page; returns the invite link shown in the room."""
    page.goto(server_url + "/?lang=en")
    card = page.locator(f"#game-{game_id}")
    card.locator("input[name=name]").fill(name)
    card.locator("select[name=players]").select_option(str(players))
    card.get_by_role("button", name="Create a room").click()
    page.wait_for_url("**/r/*")
    return str(page.locator(".invite input.copy").first.input_value())


def join_room(page: Any, invite_url: str, name: str) -> None:
    page.goto(invite_url)
    page.locator("form.join input[name=name]").fill(name)
    page.get_by_role("button", name="Join the game").click()
    page.wait_for_selector(".seat.you")


def wait_live(page: Any) -> None:
    """Wait until the page's WebSocket is connected (live updates flowing)."""
    page.wait_for_selector("body.ws-online", timeout=10_000)


def game_over(page: Any) -> bool:
    return bool(page.locator("#r-status .status-finished").count())
