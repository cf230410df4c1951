"""The Lodge's API package (README "Adding a ruleset"): its pages and forms (``web.py``)."""
