"""The platform: what every play-by-post game needs, whatever its rules (DESIGN "Rulesets on one platform").

Nothing here imports a ruleset (``domain.powers`` ...); a ruleset imports the platform and registers
itself in ``domain.platform.ruleset``.
"""
