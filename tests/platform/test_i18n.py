"""Every user-facing string is translated into 繁體中文 and 简体中文, and the language is chosen well."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient
from jinja2 import TemplateSyntaxError

from app.config import Settings
from app.i18n import APP_DIR, choose_locale, format_event, format_message, person_name, translations
from app.i18n_catalogues import TRANSLATED_LOCALES, Part, extract, missing, parts
from app.rooms import RoomService
from app.web.app import create_app
from app.web.render import environment


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
        ("zh-Hant", None, "en", "zh_Hant"),
        ("zh-hans", None, "zh-TW", "zh_Hans"),
        ("ZH_HANT", None, None, "zh_Hant"),
        (None, "zh-Hans", "zh-TW", "zh_Hans"),
    ],
)
def test_language_comes_from_query_then_cookie_then_browser(
    query: str | None, cookie: str | None, header: str | None, expected: str
) -> None:
    assert choose_locale(query, cookie, header) == expected


def test_the_extractor_reads_templates_with_the_fragment_cache() -> None:
    qe = next(part for part in parts() if part.name == "qe")
    messages = extract(qe)
    assert ("no companies yet", None) in messages  # inside {% cache %} in templates/games/qe/players.html
    assert ("Winner", "auction") in messages  # a pgettext context is its own entry


def test_the_extractor_fails_on_a_template_it_cannot_read(tmp_path: Path) -> None:
    broken = tmp_path / "broken.html"
    broken.write_text('{% frobnicate %}{{ _("Hidden") }}{% endfrobnicate %}')
    with pytest.raises(TemplateSyntaxError):
        extract(Part("broken", (broken,), tmp_path))


def test_a_message_asked_in_one_form_is_not_taken_for_a_plural_entry(tmp_path: Path) -> None:
    """gettext() never finds an entry kept with plural forms (nor ngettext() a single one): Tulip
    Bubble's ending headline read in English on Chinese pages that way, and the check said nothing."""
    template = tmp_path / "ending.html"
    template.write_text('{{ _("Ann wins.") }}{{ ngettext("%(num)s tulip", "%(num)s tulips", 2) }}')
    (tmp_path / "zh_Hant.po").write_text(
        'msgid "Ann wins."\nmsgid_plural "Ann and Bob win."\nmsgstr[0] "安妮獲勝。"\n\n'
        'msgid "%(num)s tulip"\nmsgstr "%(num)s 張鬱金香"\n',
        encoding="utf-8",
    )
    gaps = missing(Part("ending", (template,), tmp_path), "zh_Hant")
    assert gaps == [
        "Ann wins. (the code asks for one form)",
        "%(num)s tulip (the code asks for plural forms)",
    ]


def test_tulip_bubble_ending_headline_reads_in_chinese() -> None:
    catalogue = translations("zh_Hant", "tulip_bubble")
    headline = "%(names)s bought the black tulip in round %(round)s with %(cash)s guilders and wins."
    assert catalogue.gettext(headline) != headline


@pytest.mark.parametrize("locale", TRANSLATED_LOCALES)
def test_no_game_catalogue_changes_a_platform_word(locale: str) -> None:
    """A game's catalogue overlays the platform's on its pages: a msgid both hold must read the
    same, or the platform's word (the trophy's "Winner") changes meaning on that game's pages."""
    with (APP_DIR / "locale" / f"{locale}.po").open("rb") as handle:
        platform = read_po(handle, locale=locale)
    clashes = []
    for path in sorted(APP_DIR.glob(f"games/*/locale/{locale}.po")):
        with path.open("rb") as handle:
            for message in read_po(handle, locale=locale):
                ours = platform.get(message.id, context=message.context) if message.id else None
                if ours is not None and ours.string != message.string:
                    clashes.append((path.parent.parent.name, message.id, ours.string, message.string))
    assert clashes == []


def test_qe_buyer_column_and_the_trophy_keep_their_own_words() -> None:
    assert translations("zh_Hant", "qe").gettext("Winner") == "勝者"
    assert translations("zh_Hant", "qe").pgettext("auction", "Winner") == "得標者"
    assert translations("zh_Hans", "qe").gettext("Winner") == "胜者"
    assert translations("zh_Hans", "qe").pgettext("auction", "Winner") == "得标者"
    trophy = environment("zh_Hans", "qe").get_template("platform/trophy.html").render()
    assert 'aria-label="胜者"' in trophy


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
        standard = client.get("/?lang=zh-Hans")  # the BCP 47 tag, as the language links write it
        assert "开房间" in standard.text and standard.cookies.get("bourse_lang") == "zh_Hans"
        assert "开房间" in client.get("/").text


def test_language_links_name_valid_tags(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        page = client.get("/?lang=en").text
    tags = re.findall(r'hreflang="([^"]+)"', page)
    assert sorted(tags) == ["zh-Hans", "zh-Hant"]
    assert '?lang=zh-Hant"' in page


# Taiwanese wording a character conversion leaves in 简体中文, with what the mainland writes instead.
TAIWANESE_IN_SIMPLIFIED = {
    "平手": "打平 / 并列 / 相同",
    "依序": "依次",
    "代打": "托管",
    "范例": "示例",
    "接著": "接着",
    "千分位": "千位分隔符",
    "拍得": "得标 (Q.E.'s own word)",
    "成交价": "得标价格 (Q.E.'s own word)",
}


@pytest.mark.parametrize("part", parts(), ids=lambda part: part.name)
def test_simplified_chinese_is_written_the_mainland_way(part: Part) -> None:
    with (part.locale_dir / "zh_Hans.po").open("rb") as handle:
        catalog = read_po(handle, locale="zh_Hans")
    found = []
    for message in catalog:
        strings = [
            text
            for text in (message.string if isinstance(message.string, tuple) else (message.string,))
            if text
        ]
        found += [(word, text) for text in strings for word in TAIWANESE_IN_SIMPLIFIED if word in text]
    assert found == []


def test_qe_uses_the_editions_words_in_both_scripts() -> None:
    for locale, peek, won in (("zh_Hant", "看得標價格", "得標"), ("zh_Hans", "看得标价格", "得标")):
        catalogue = translations(locale, "qe")
        assert catalogue.gettext("Peek at the winning amount") == peek
        assert won in catalogue.gettext("{seat} won {country} {industry} for {amount}.")


def test_bots_are_named_in_the_readers_language() -> None:
    assert person_name("zh_Hant", "Bot Euler") == "電腦·歐拉"
    assert person_name("zh_Hans", "Bot Ada (2)") == "电脑·艾达（2）"  # the language's parentheses
    assert person_name("zh_Hant", "Bot Ada (12)") == "電腦·愛達（12）"
    assert person_name("en", "Bot Ada (2)") == "Bot Ada (2)"
    assert person_name("en", "Bot Ada") == "Bot Ada"
    assert person_name("zh_Hans", "Botany") == "Botany"  # a person's own name stays as written
    names = {0: "Bot Gauss", 1: "Ann"}.__getitem__
    assert format_message("zh_Hans", "{seats} tied.", {"seats": [{"seat": 0}, {"seat": 1}]}, names) == (
        "电脑·高斯、Ann tied."
    )


def test_a_room_page_names_its_bots_in_chinese(
    service: RoomService, settings: Settings, toy_game: str
) -> None:
    code, _, _ = service.seats.create_room(toy_game, 3, {}, "Ann")
    service.seats.add_bot(code, 0, fill=True)
    with TestClient(create_app(settings)) as client:
        page = client.get(f"/r/{code}?lang=zh-Hans").text
        assert "电脑·伯努利" in page and "Bot Bernoulli" not in page
        assert "Bot Bernoulli" in client.get(f"/r/{code}?lang=en").text


def test_the_turn_clock_counts_days_in_the_pages_language(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        assert 'data-clock-days="{days}天 {time}"' in client.get("/?lang=zh-Hant").text
        assert 'data-clock-days="{days}d {time}"' in client.get("/?lang=en").text


# Working notes of ours that a publisher would never print on a rules page, in every language.
WORKING_NOTES = (
    "our transcription",
    "our ruling",
    "our reconstruction",
    "我們的",
    "我们的",
    "我們依",
    "我们依",
    "裁定",
)


@pytest.mark.parametrize("game", ["basari", "qe", "tulip-bubble", "tulipmania-1637"])
@pytest.mark.parametrize("locale", ["en", "zh_Hant", "zh_Hans"])
def test_no_rules_page_shows_working_notes(game: str, locale: str) -> None:
    html = environment(locale, game).get_template(f"games/{game}/rules.html").render()
    assert [note for note in WORKING_NOTES if note in html.casefold()] == []


def test_english_log_lines_tell_basaris_action_cards_from_its_blue_gems() -> None:
    from app.games.registry import ENGINES

    engine = ENGINES["basari"]
    state = engine.setup(3, {}, 7)
    for seat in range(3):
        state = engine.apply(state, seat, {"type": "choose", "card": "ABC"[seat]})
    names = ["Ann", "Bob", "Cleo"].__getitem__
    lines = [format_event("en", event, names, "basari") for event in state["events"]]
    assert "Ann played card A." in lines and "Bob played card B." in lines
    assert any(line.startswith("Bob performs card B and scores") for line in lines)


@pytest.mark.parametrize("game", ["basari", "tulip-bubble", "tulipmania-1637", "qe"])
def test_every_rules_page_heads_its_setup_the_same_way(game: str) -> None:
    html = environment("en", game).get_template(f"games/{game}/rules.html").render()
    assert "Set-up" not in html and "Setup" in html


def test_tulipmania_names_the_priority_action_card_as_its_rulebook_does() -> None:
    html = environment("en", "tulipmania-1637").get_template("games/tulipmania-1637/rules.html").render()
    assert "Priority Action card" in html and "priority card" not in html
