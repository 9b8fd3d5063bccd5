"""Punctuation belongs to each locale: templates put names and words together through the
environment's helpers (app.web.render._punctuation), never with English punctuation of their own."""

from __future__ import annotations

import re

import pytest

from app.web.render import TEMPLATES, environment

# What is left of a template once its expressions, statements, comments, tags and scripts are taken
# out: only the literal text it writes between them.
_COMMENT = re.compile(r"\{#.*?#\}", re.S)
_EXPRESSION = re.compile(r"\{\{.*?\}\}", re.S)
_STATEMENT = re.compile(r"\{%.*?%\}", re.S)
_SCRIPT = re.compile(r"<(script|style)\b.*?</\1>", re.S)
_TAG = re.compile(r"<[^>]*>", re.S)
# English punctuation written beside a value: "name: …", "a, b", "name (you)", "a — b".
_HARD_CODED = re.compile(r"E\s*[:,]\s|\(\s*E\s*\)|E *— *| *— *E")


def _literal_text(source: str) -> str:
    text = _COMMENT.sub("", source)
    text = _SCRIPT.sub("", text)
    text = _EXPRESSION.sub("E", text)
    text = _STATEMENT.sub("", text)
    return _TAG.sub("", text)


@pytest.mark.parametrize(
    "template",
    sorted(str(path.relative_to(TEMPLATES)) for path in TEMPLATES.rglob("*.html")),
)
def test_no_template_writes_english_punctuation_beside_a_value(template: str) -> None:
    text = _literal_text((TEMPLATES / template).read_text(encoding="utf-8"))
    assert _HARD_CODED.findall(text) == []


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("en", "Ann, Bob &lt;3|Ann: 12|Ann (you)|Bourse — games|Cash: 5"),
        ("zh_Hant", "Ann、Bob &lt;3|Ann：12|Ann（你）|Bourse——games|現金：5"),
        ("zh_Hans", "Ann、Bob &lt;3|Ann：12|Ann（你）|Bourse——games|现金：5"),
    ],
)
def test_the_helpers_write_each_languages_punctuation(locale: str, expected: str) -> None:
    source = (
        '{{ listed(["Ann", "Bob <3"]) }}|{{ labelled("Ann", 12) }}|Ann{{ aside(_("you")) }}'
        '|Bourse{{ dash() }}games|{{ label_gap(_("Cash:")) }}5'
    )
    assert environment(locale, "tulip-bubble").from_string(source).render() == expected


@pytest.mark.parametrize(
    ("locale", "name"), [("en", "Bot Ada"), ("zh_Hant", "電腦·愛達"), ("zh_Hans", "电脑·艾达")]
)
def test_a_bots_chat_line_names_it_in_the_readers_language(locale: str, name: str) -> None:
    line = {"id": 1, "seat": 2, "name": "Bot Ada", "text": "👍", "reaction": True, "spectator": False}
    html = (
        environment(locale)
        .get_template("platform/chat_line.html")
        .render(line=line, code="abc", show_mute=False)
    )
    assert f'<strong class="chat-name">{name}</strong>' in html


def test_labels_keep_no_space_after_a_full_width_colon() -> None:
    for locale in ("zh_Hant", "zh_Hans"):
        rendered = environment(locale, "tulip-bubble").from_string('{{ label_gap(_("Cash:")) }}5').render()
        assert "： " not in rendered and rendered.endswith("：5")
