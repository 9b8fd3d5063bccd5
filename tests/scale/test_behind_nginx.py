"""The `scale` set-up's proxy (deploy/nginx.conf.template) in front of an app process, as
docker-compose.scale.yml sets them up (the app trusts every proxy): a client cannot choose the address
the rate limits count by writing its own X-Forwarded-For (issue 21), not even from loopback while no
proxy in front is named (issue 43), and the replicas' metrics are not served to the internet. nginx is
Debian's, installed when missing (as root), and runs on loopback with the template's own header
handling."""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.scale.cluster import App
from tests.support import ROOT, free_port

pytestmark = pytest.mark.timeout(180)

TEMPLATE = ROOT / "deploy" / "nginx.conf.template"
COMPOSE = ROOT / "docker-compose.scale.yml"
NGINX = "/usr/sbin/nginx"
CREATIONS = 3  # the room-creation limit of the app behind the proxy, per hour


def installed_nginx() -> str:
    """Debian's nginx, installed now if missing (skips the test, or fails it under CI, if it cannot be)."""
    if not Path(NGINX).exists():
        script = f'. "{ROOT}/scripts/lib/debian.sh" && debian_install "the proxy test" nginx-light'
        installed = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=600)
        if installed.returncode != 0 or not Path(NGINX).exists():
            reason = f"nginx is not installed: {installed.stderr.strip()[-300:]}"
            if os.environ.get("CI"):
                pytest.fail(reason)
            pytest.skip(reason)
    return NGINX


def proxy_config(folder: Path, port: int, app_port: int, trusted_proxy: str) -> Path:
    """nginx.conf around the template: its server listens on loopback ``port`` and both replicas
    are the one app on ``app_port``; the rest (the headers it sends) is the template's."""
    server = (
        TEMPLATE.read_text()
        .replace("${NGINX_LOCAL_RESOLVERS}", "127.0.0.1")
        .replace("${BOURSE_TRUSTED_PROXY}", trusted_proxy)
    )
    for replica in ("$first", "$second"):
        assert f"http://{replica}:8000;" in server, "the template's upstreams changed: update this test"
        server = server.replace(f"http://{replica}:8000;", f"http://127.0.0.1:{app_port};")
    assert "listen 80;" in server, "the template's listen changed: update this test"
    server = server.replace("listen 80;", f"listen 127.0.0.1:{port};")
    temp = folder / "temp"
    temp.mkdir()
    config = folder / "nginx.conf"
    config.write_text(
        ("user root;\n" if os.geteuid() == 0 else "")
        + f"pid {folder}/nginx.pid;\nerror_log {folder}/error.log;\nevents {{}}\n"
        + f"http {{\n  access_log {folder}/access.log;\n"
        + "".join(
            f"  {kind}_temp_path {temp}/{kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        + server
        + "\n}\n"
    )
    return config


@pytest.fixture
def app_process(tmp_path: Path) -> Iterator[App]:
    env = {
        "BOURSE_DATABASE_URL": f"sqlite:///{tmp_path}/bourse.db",
        "BOURSE_RATE_CREATE": f"{CREATIONS}/hour",
        "BOURSE_CLEANUP_INTERVAL": "0",
        "FORWARDED_ALLOW_IPS": "*",  # as docker-compose.scale.yml's replicas
    }
    app = App(env, tmp_path / "app.log")
    yield app
    app.stop()


def start_proxy(folder: Path, app: App, trusted_proxy: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    config = proxy_config(folder, port, app.port, trusted_proxy)
    nginx = subprocess.Popen(
        [installed_nginx(), "-c", str(config), "-p", str(folder), "-g", "daemon off;"],
        stderr=(folder / "nginx.err").open("wb"),
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and nginx.poll() is None:
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return nginx, url
        except httpx.HTTPError:
            time.sleep(0.2)
    nginx.kill()
    raise RuntimeError(f"nginx did not start: {(folder / 'nginx.err').read_text()[-2000:]}")


@pytest.fixture
def proxy(tmp_path: Path, app_process: App, request: pytest.FixtureRequest) -> Iterator[str]:
    folder = tmp_path / "nginx"
    folder.mkdir()
    nginx, url = start_proxy(folder, app_process, getattr(request, "param", "192.0.2.1"))
    yield url
    nginx.terminate()
    nginx.wait(timeout=10)


def create_room(url: str, forwarded_for: str) -> int:
    answer = httpx.post(
        f"{url}/api/rooms",
        json={"game": "qe", "players": 3, "name": "Ann"},
        headers={"X-Forwarded-For": forwarded_for},
        timeout=30,
    )
    return answer.status_code


def test_a_forged_forwarded_for_does_not_get_a_client_past_the_room_limit(proxy: str) -> None:
    answers = [create_room(proxy, f"203.0.113.{number}") for number in range(CREATIONS + 2)]
    assert answers == [201] * CREATIONS + [429, 429]


@pytest.mark.parametrize("proxy", ["127.0.0.1"], indirect=True)
def test_a_trusted_proxy_in_front_names_each_visitor_by_the_address_it_appended(proxy: str) -> None:
    """An HTTPS proxy in front of nginx appends the address it saw: that one counts, not the ones
    before it (which its own client may have written)."""
    first = [create_room(proxy, f"203.0.113.{number}, 198.51.100.7") for number in range(CREATIONS + 1)]
    other = create_room(proxy, "203.0.113.1, 198.51.100.8")
    assert first == [201] * CREATIONS + [429]
    assert other == 201


def compose_default(variable: str) -> str:
    """The value docker-compose.scale.yml gives ``variable`` when the operator sets none."""
    found = re.search(rf"\${{{variable}:-([^}}]*)}}", COMPOSE.read_text())
    assert found, f"docker-compose.scale.yml gives {variable} no default"
    return found[1]


@pytest.mark.parametrize("proxy", [compose_default("BOURSE_TRUSTED_PROXY")], indirect=True)
def test_by_default_no_proxy_is_trusted_not_even_a_visitor_on_loopback(proxy: str) -> None:
    """This test's visitor reaches nginx from 127.0.0.1, as one behind host networking or a port
    forwarder does: with the compose file's default its X-Forwarded-For chooses nothing."""
    answers = [
        create_room(proxy, f"203.0.113.{number}, 198.51.100.{number}") for number in range(CREATIONS + 2)
    ]
    assert answers == [201] * CREATIONS + [429, 429]


@pytest.mark.parametrize("path", ["/metrics", "/metrics/", "//metrics", "/metrics?name[]=x", "/%6Detrics"])
def test_the_proxy_does_not_pass_metrics_to_the_internet(proxy: str, path: str) -> None:
    answer = httpx.get(f"{proxy}{path}", timeout=30)
    assert answer.status_code == 404
    assert "nginx" in answer.text and "application/json" not in answer.headers["content-type"]  # nginx's own
