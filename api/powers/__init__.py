"""Powers on the API: its commands' declarations (``declared``), battle reads (``service``, ``routes``), and pages and
forms (``web`` with ``templates/``), beside each other; registered in ``api.rulesets``."""
