"""The rule books' "rule -> tests" tables name tests that exist (docs/rules_*.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _test_functions() -> set[str]:
    names: set[str] = set()
    for path in (ROOT / "tests").rglob("*.py"):
        names |= set(re.findall(r"^\s*def (test_\w+)\(", path.read_text(), re.M))
    return names


@pytest.mark.parametrize("book", ["rules_keglebillard.md", "rules_golfbillard.md"])
def test_every_test_a_rule_book_cites_exists(book):
    cited = set(re.findall(r"`(test_\w+)`", (ROOT / "docs" / book).read_text()))
    assert cited, f"{book} cites no tests"
    missing = sorted(cited - _test_functions())
    assert not missing, f"{book} cites tests that do not exist: {missing}"
