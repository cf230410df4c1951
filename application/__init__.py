"""The application layer (DESIGN "Commands"): load, decide, save, retry on conflict, receipt. It stands below
``api`` and ``workers``, which both import it; it imports neither (issue 26)."""
