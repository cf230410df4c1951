"""The covenant game's API package (api/rulesets.py): its table page and forms, and its demo."""
