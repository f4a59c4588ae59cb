"""The project's Markdown docs, as the docs tests read them (not a test module)."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: README.md, the shipped agents' README and docs/*.md
DOCS = [ROOT / "README.md", ROOT / "agents" / "pretrained" / "README.md",
        *sorted((ROOT / "docs").glob("*.md"))]


def doc_id(path: Path) -> str:
    """A doc's path relative to the repository root (test ids, messages)."""
    return str(path.relative_to(ROOT))


def fenced_blocks(text: str, info: str) -> list[tuple[int, str]]:
    """(first line number, source) of each fenced code block whose info string matches the
    regular expression `info` (``"python"``; ``"(?:bash|sh)?"`` also takes unlabelled ones)."""
    # Every fence is paired in order and only then filtered: matching just the wanted info
    # strings would take the closing fence of a ```python block for an unlabelled opening one.
    block = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)
    return [(text[:m.start(2)].count("\n") + 1, m.group(2)) for m in block.finditer(text)
            if re.fullmatch(info, m.group(1).strip())]


_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def headings(text: str) -> list[str]:
    """The text of each Markdown heading (``#`` to ``######``), fenced code left out."""
    return [m.group(1).strip()
            for m in re.finditer(r"^#{1,6} +(.+?)\s*#*$", _FENCE.sub("", text), re.M)]


def anchors(text: str) -> set[str]:
    """The fragment ids GitHub gives the headings: lower case, punctuation dropped, spaces to
    hyphens, ``-1``, ``-2`` ... after a repeated one."""
    seen: dict[str, int] = {}
    out = set()
    for heading in headings(text):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        out.add(f"{slug}-{n}" if n else slug)
        seen[slug] = n + 1
    return out


class Parsed(BaseException):
    """Raised once a command's arguments parsed: BaseException, so no CLI wrapper catches it."""

