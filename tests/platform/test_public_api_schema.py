"""The OpenAPI document says what the server answers: a bounded schemathesis run over every API route
(random rooms, a waiting room and a game under way, as a seat), and the errors it documents."""

from __future__ import annotations

from typing import Any

import hypothesis
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given
from schemathesis.checks import not_a_server_error
from schemathesis.core.result import Ok
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from app.config import Settings
from app.web.app import create_app
from app.web.live import LiveRooms
from tests.platform.test_api import auth, new_qe_room

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
    negative_data_rejection,
]
EXAMPLES = 20  # per operation, mode and room: the whole run stays well under a minute


@pytest.mark.timeout(120)
def test_the_api_answers_what_its_schema_says(settings: Settings) -> None:
    app = create_app(settings.model_copy(update={"cleanup_interval": 0}))
    with TestClient(app) as client:
        waiting = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
        playing, tokens = new_qe_room(client, 3)
    rooms: list[dict[str, Any]] = [
        {},
        {"path_parameters": {"code": waiting["code"]}, "headers": auth(waiting["token"])},
        {"path_parameters": {"code": playing}, "headers": auth(tokens[0])},
    ]
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    failures: list[str] = []
    runs = 0
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result.err()
        operation = result.ok()
        for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
            for room in rooms:
                if room and "{code}" not in operation.path:
                    continue

                @given(case=operation.as_strategy(generation_mode=mode, **room))
                @hypothesis.settings(
                    max_examples=EXAMPLES,
                    deadline=None,
                    database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )
                def call(case: schemathesis.Case) -> None:
                    case.call_and_validate(checks=CHECKS)

                runs += 1
                try:
                    call()
                except hypothesis.errors.Unsatisfiable:
                    pass  # no invalid request exists for this operation (e.g. no parameters)
                except BaseException as failure:  # noqa: BLE001 - every failure is reported below
                    failures.append(f"{operation.label} ({mode.value}, {room or 'any room'}):\n{failure}")
    assert runs > 20
    assert not failures, "\n\n".join(failures)


def test_errors_are_documented_as_they_are_answered(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        document = client.get("/openapi.json").json()
    problem = document["components"]["schemas"]["Problem"]
    assert problem["properties"]["detail"]["type"] == "string"
    assert "HTTPValidationError" not in document["components"]["schemas"]
    actions = document["paths"]["/api/rooms/{code}/actions"]["post"]["responses"]
    assert {"400", "403", "404", "409", "413", "422", "429"} <= actions.keys()
    for path in document["paths"].values():
        for operation in path.values():
            for status, answer in operation["responses"].items():
                if status.startswith(("4", "5")):
                    reference = answer["content"]["application/json"]["schema"]["$ref"]
                    assert reference.endswith(("/Problem", "/StaleProblem")), (status, reference)


def test_taking_back_a_seat_no_bot_plays_changes_nothing(settings: Settings) -> None:
    # Only a seat whose player is away may be handed to a bot: here every seat without a tab is.
    away_at_once = settings.model_copy(update={"away_grace": 0})
    with TestClient(create_app(away_at_once)) as client:
        code, tokens = new_qe_room(client, 3)
        before = client.get(f"/api/rooms/{code}").json()["version"]
        answer = client.post(f"/api/rooms/{code}/takeback", headers=auth(tokens[1]))
        assert answer.status_code == 200 and answer.json()["version"] == before
        handed = client.post(f"/api/rooms/{code}/bots", json={"seat": 1}, headers=auth(tokens[0]))
        assert handed.json()["version"] > before
        live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
        assert client.portal is not None  # inside `with TestClient(...)`
        client.portal.call(live.idle)  # its bot may move
        settled = client.get(f"/api/rooms/{code}").json()["version"]
        again = client.post(f"/api/rooms/{code}/bots", json={"seat": 1}, headers=auth(tokens[0]))
        assert again.json()["version"] == settled  # already a bot's: no change either


def test_every_api_route_documents_what_it_answers(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    operations = [
        (method, path, operation)
        for path, item in document["paths"].items()
        if path.startswith("/api/")
        for method, operation in item.items()
    ]
    assert len(operations) == 18  # with the host pausing the clock, a seat's hint and its review
    for method, path, operation in operations:
        successes = [status for status in operation["responses"] if status.startswith("2")]
        assert len(successes) == 1, (method, path, successes)
        schema = operation["responses"][successes[0]]["content"]["application/json"]["schema"]
        reference = schema.get("$ref") or schema.get("items", {}).get("$ref")
        assert reference, (method, path, schema)  # a named model, not FastAPI's empty schema
        assert schemas[reference.rsplit("/", 1)[1]]["properties"], (method, path, reference)
    room = schemas["Room"]["properties"]
    assert room["seats"]["items"]["$ref"].endswith("/SeatState")
    assert room["view"]["anyOf"][0] == {"type": "object", "additionalProperties": True}
