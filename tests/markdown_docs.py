"""The project's Markdown docs, as the docs tests read them (not a test module)."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: README.md, the shipped agents' README and docs/*.md
DOCS = [ROOT / "README.md", ROOT / "agents" / "pretrained" / "README.md",
        *sorted((ROOT / "docs").glob("*.md"))]


def doc_id(path: Path) -> str:
    """A doc's path relative to the repository root (test ids, messages)."""
    return str(path.relative_to(ROOT))
