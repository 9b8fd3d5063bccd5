"""Q.E. translations: every engine and template string has a 繁體 and a 简体 translation with
the same placeholders."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from jinja2.ext import babel_extract

ROOT = Path(__file__).resolve().parents[3]
PLACEHOLDER = re.compile(r"%\(\w+\)s|\{\w+\}")


def engine_msgids() -> set[str]:
    found = set()
    for path in (ROOT / "app/games/qe").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "N_":
                msgid = node.args[0]
                assert isinstance(msgid, ast.Constant) and isinstance(msgid.value, str), ast.dump(node)
                found.add(msgid.value)
    return found


def template_msgids() -> set[str]:
    found = set()
    options = {"extensions": "jinja2.ext.i18n", "trim_blocks": "true", "lstrip_blocks": "true"}
    for path in (ROOT / "templates/games/qe").glob("*.html"):
        with path.open("rb") as handle:
            for _, _, message, _ in babel_extract(handle, ["_", "gettext"], [], options):
                text = message[0] if isinstance(message, tuple) else message
                if isinstance(text, str):  # _(tile.country_name) translates an engine string
                    found.add(text)
    return found


@pytest.mark.parametrize("locale", ["zh_Hant", "zh_Hans"])
def test_every_string_is_translated_with_the_same_placeholders(locale: str) -> None:
    with (ROOT / f"app/games/qe/locale/{locale}.po").open("rb") as handle:
        catalog = read_po(handle, locale=locale)
    translated = {m.id: m.string for m in catalog if m.id}
    wanted = engine_msgids() | template_msgids()
    assert wanted - set(translated) == set()
    for msgid in wanted:
        translation = translated[msgid]
        assert translation and isinstance(translation, str), msgid
        assert sorted(PLACEHOLDER.findall(msgid)) == sorted(PLACEHOLDER.findall(translation)), msgid
