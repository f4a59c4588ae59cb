"""What the browser tests need, found once: Chromium, chromedriver and Selenium (CI installs
them: .ci/run). ``needs_browser`` skips a test without them; API-only tests in the same files
still run."""

from __future__ import annotations

import json
import shutil
import urllib.request

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
try:
    import selenium  # noqa: F401
    HAVE_SELENIUM = True
except ImportError:  # pragma: no cover - CI installs it
    HAVE_SELENIUM = False
needs_browser = pytest.mark.skipif(not (CHROMIUM and DRIVER and HAVE_SELENIUM),
                                   reason="needs chromium and chromedriver (apt: chromium "
                                          "chromium-driver) and selenium")


def post(base: str, url: str, body) -> dict:
    """POST ``body`` as JSON to the app at ``base`` + ``url``; the JSON answer."""
    req = urllib.request.Request(base + url, json.dumps(body).encode(),
                                 {"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def get(base: str, url: str) -> dict:
    """GET ``base`` + ``url`` from the app; the JSON answer."""
    with urllib.request.urlopen(base + url) as r:
        return json.load(r)
