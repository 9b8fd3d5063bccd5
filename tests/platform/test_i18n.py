"""Every user-facing string is translated into 繁體中文 and 简体中文, and the language is chosen well."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.i18n import choose_locale, format_message
from app.i18n_catalogues import TRANSLATED_LOCALES, missing, parts
from app.web.app import create_app


@pytest.mark.parametrize("part", parts(), ids=lambda part: part.name)
@pytest.mark.parametrize("locale", TRANSLATED_LOCALES)
def test_catalogue_is_complete(part: object, locale: str) -> None:
    assert missing(part, locale) == []  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("query", "cookie", "header", "expected"),
    [
        (None, None, "zh-TW,zh;q=0.9,en;q=0.8", "zh_Hant"),
        (None, None, "zh-HK", "zh_Hant"),
        (None, None, "zh-CN,zh;q=0.9", "zh_Hans"),
        (None, None, "zh", "zh_Hans"),
        (None, None, "fr-FR,en;q=0.5", "en"),
        (None, None, None, "en"),
        (None, "zh_Hans", "zh-TW", "zh_Hans"),
        ("en", "zh_Hans", "zh-TW", "en"),
        ("klingon", None, "zh-TW", "zh_Hant"),
    ],
)
def test_language_comes_from_query_then_cookie_then_browser(
    query: str | None, cookie: str | None, header: str | None, expected: str
) -> None:
    assert choose_locale(query, cookie, header) == expected


def test_engine_messages_are_translated_with_names_filled_in() -> None:
    names = {0: "Ann"}.__getitem__
    assert format_message("zh_Hant", "It is not your turn.", {}, names) == "還沒輪到你。"
    assert format_message("en", "{seat} wins.", {"seat": {"seat": 0}}, names) == "Ann wins."


def test_pages_follow_the_browser_and_the_switch(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        assert "開房間" in client.get("/", headers={"Accept-Language": "zh-TW"}).text
        assert "开房间" in client.get("/", headers={"Accept-Language": "zh-CN"}).text
        switched = client.get("/?lang=zh_Hant")
        assert "開房間" in switched.text and switched.cookies.get("bourse_lang") == "zh_Hant"
        assert "開房間" in client.get("/").text  # the cookie sticks
