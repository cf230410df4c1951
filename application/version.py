"""The release this is: the one version pyproject.toml names, read from the installed package's metadata."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def release() -> str:
    """``emissary``'s version as installed (a wheel, or ``pip install -e``); "unknown" if it is not installed."""
    try:
        return version("emissary")
    except PackageNotFoundError:  # the source tree on sys.path without an install: no metadata to read
        return "unknown"
