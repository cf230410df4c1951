"""The table's commands, each declared once (``api.declare``): its JSON route, with its request schema, and its web
form. The platform finds this module through the plugin's API package (``PLUGIN.api``) and makes the routes, their
OpenAPI entries and the forms from it, as it does for every ruleset; no platform file names the table."""

from __future__ import annotations

from pydantic import Field

from api.declare import Declared, Route
from api.schemas import Id, Strict
from api.web.forms import Form
from emissary_fake.ruleset import Join, Post


class TableJoinRequest(Strict):
    seat_id: Id
    name: str = Field(min_length=1, max_length=80)


class TablePostRequest(Strict):
    seat_id: Id | None = Field(default=None, description="Defaults to your own seat")
    text: str = Field(min_length=1, max_length=2000)


DECLARED = (
    Declared(
        Join,
        Route("POST", "/table/seats", "join_table", "GM: seat a player at the table (TABLE-0).", TableJoinRequest, 201),
        Form(
            "join",
            "seats",
            "Seated.",
            lambda f, me: {"seat_id": f.get("seat_id", ""), "name": f.get("name", "")},
            gm=True,
        ),
    ),
    Declared(
        Post,
        Route(
            "POST",
            "/table/posts",
            "post_to_table",
            "Post to the table (TABLE-1).",
            TablePostRequest,
            201,
            seat="seat_id",
        ),
        Form("post", "posts", "Posted.", lambda f, me: {"seat_id": me, "text": f.get("text", "")}),
    ),
)
