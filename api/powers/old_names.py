"""The names Powers' clients sent before the platform spoke seats (issue 26), which the platform still accepts
(``api.rulesets.old_names``): old name -> the platform's name."""

FIELDS = {"power_id": "seat"}  # a JSON body's field (a seat's time zone, contact, readiness, extension) or a command's
QUERY = {"power": "seat"}  # a query parameter: the seat the audit is filtered by (GET /games/{id}/audit, its page)
