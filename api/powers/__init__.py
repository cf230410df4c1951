"""Powers on the API: its convenience commands (``service``), JSON routes (``routes``), and pages and
forms (``web`` with ``templates/``), beside each other; registered in ``api.rulesets``."""
