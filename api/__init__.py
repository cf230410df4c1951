"""Edges: the FastAPI app (JSON API), and the ``emissary`` command line."""
