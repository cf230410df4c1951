"""Help in the service (issue 28): pages made from the code, never written twice. The help index lists every
registered ruleset; a ruleset's page lists its commands as it declares them (``api.declare``: each command's web
form and JSON route), every line of its mail grammar with an example (its API package's ``help`` module, ``MAIL``;
each example is read by the real grammar in the tests), and links each rule id it cites to the rules text that ships
in the package's ``rules/`` folder (``rules.py``). The routes' reference is made from the app's routes."""
