"""Running reads the compiled catalogues (.mo) with the standard library's gettext: Babel, a dev
dependency, only compiles them (scripts/lib/compile_catalogues.py) and checks them (test_i18n)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from app.i18n import APP_DIR, Catalogue, CatalogueNotCompiled
from tests.support import ROOT

COMPILE = ROOT / "scripts/lib/compile_catalogues.py"
SOURCES = sorted([*APP_DIR.glob("locale/*.po"), *APP_DIR.glob("games/*/locale/*.po")])

# The app, with any import of babel (or babel.*) failing: the start page in 繁體中文, whose turn
# clocks are plurals (120 s: "2 minutes per move"), and a plural from the one catalogue without a
# Plural-Forms header (Q.E.'s), which the compiler gives its locale's single form.
WITHOUT_BABEL = """
import json, sys
sys.modules["babel"] = None
from fastapi.testclient import TestClient
from app.config import Settings
from app.i18n import translations
from app.web.app import create_app
with TestClient(create_app(Settings(BOURSE_DATABASE_URL=sys.argv[1], BOURSE_BOT_DELAY=0))) as client:
    page = client.get("/?lang=zh_Hant")
print(json.dumps({
    "status": page.status_code,
    "page": page.text,
    "qe_points": translations("zh_Hans", "qe").ngettext("%(num)s point", "%(num)s points", 5),
    "babel": sorted(name for name, module in sys.modules.items() if module and name.split(".")[0] == "babel"),
}))
"""


def test_running_needs_no_babel(tmp_path: Path) -> None:
    ran = subprocess.run(
        [sys.executable, "-c", WITHOUT_BABEL, f"sqlite:///{tmp_path / 'bourse.db'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ran.returncode == 0, ran.stderr
    answer = json.loads(ran.stdout.splitlines()[-1])
    assert answer["status"] == 200 and answer["babel"] == []
    clocks = re.findall(r'<option value="(\d+)">([^<]*)</option>', answer["page"])
    assert ("120", "每步 2 分鐘") in clocks and ("30", "每步 30 秒") in clocks
    assert answer["qe_points"] == "%(num)s 分"


def compile_catalogues(root: Path) -> str:
    ran = subprocess.run([sys.executable, COMPILE, root], capture_output=True, text=True, check=True)
    return ran.stdout


def test_a_changed_po_is_compiled_again_and_its_stale_mo_refused(tmp_path: Path) -> None:
    po = tmp_path / "app/locale/zh_Hant.po"
    po.parent.mkdir(parents=True)
    po.write_bytes((APP_DIR / "locale/zh_Hant.po").read_bytes())
    mo = po.with_suffix(".mo")
    with pytest.raises(CatalogueNotCompiled, match="run scripts/setup"):
        Catalogue.load(mo)  # never compiled
    assert compile_catalogues(tmp_path) == "compiled app/locale/zh_Hant.mo\n"
    assert Catalogue.load(mo).gettext("Only in this test") == "Only in this test"

    with po.open("a", encoding="utf-8") as added:
        added.write('\nmsgid "Only in this test"\nmsgstr "只在這個測試"\n')
    earlier = po.stat().st_mtime - 5  # a file system's clock may be coarser than the two writes
    os.utime(mo, (earlier, earlier))
    with pytest.raises(CatalogueNotCompiled, match="zh_Hant.mo is missing or older than zh_Hant.po"):
        Catalogue.load(mo)
    assert compile_catalogues(tmp_path) == "compiled app/locale/zh_Hant.mo\n"
    assert Catalogue.load(mo).gettext("Only in this test") == "只在這個測試"
    assert compile_catalogues(tmp_path) == ""  # nothing changed since: nothing compiled


@pytest.mark.parametrize("po", SOURCES, ids=lambda po: str(po.relative_to(APP_DIR)))
def test_each_compiled_catalogue_says_what_its_po_says(po: Path) -> None:
    with po.open("rb") as handle:
        source = read_po(handle, locale=po.stem)
    assert source.num_plurals == 1  # Chinese has one plural form
    compiled = Catalogue.load(po.with_suffix(".mo"))
    translated = [m for m in source if m.id and m.string and not m.fuzzy]
    for message in translated:
        assert _compiled_text(compiled, message.id, message.context) == _source_text(message.string), (
            message.id
        )
    assert sorted(compiled.messages()) == sorted(
        m.id for m in translated if isinstance(m.id, str)
    )  # app.web.messages knows these (the messages a URL may name)


def _compiled_text(
    compiled: Catalogue, message_id: str | tuple[str, ...] | list[str], context: str | None
) -> str:
    if not isinstance(message_id, str):  # a plural: the one form, whatever the count
        singular, plural = message_id
        forms = {
            compiled.npgettext(context, singular, plural, count)
            if context
            else compiled.ngettext(singular, plural, count)
            for count in (1, 2, 5)
        }
        assert len(forms) == 1
        return forms.pop()
    return compiled.pgettext(context, message_id) if context else compiled.gettext(message_id)


def _source_text(string: str | tuple[str, ...] | list[str] | None) -> str:
    assert string
    return string if isinstance(string, str) else string[0]
