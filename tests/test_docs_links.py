"""The docs point at files and sections that exist: Markdown links (with their #fragments), the
repository paths they name and the sections code and docs cite by title."""
from __future__ import annotations

import re

import pytest
from markdown_docs import DOCS, ROOT, anchors, doc_id, headings

LINK = re.compile(r"\]\(([^)\s]+)\)")
# a file of the repository named in prose or code, e.g. configs/aim/keglebillard.yaml
REPO_PATH = re.compile(r"\b((?:configs|agents|docs|experiments|tests|physics|rules|games|envs|play)"
                       r"/[\w./-]+\.(?:py|yaml|md|pt|zip|json|png|gif|npz|html|js|css))\b")


@pytest.mark.parametrize("doc", DOCS, ids=[doc_id(p) for p in DOCS])
def test_links_and_named_files_exist(doc):
    text = doc.read_text(encoding="utf-8")
    links = [m.group(1).split("#")[0] for m in LINK.finditer(text)]
    missing = [link for link in links
               if link and not re.match(r"[a-z]+:", link) and not (doc.parent / link).exists()]
    named = {m.group(1) for m in REPO_PATH.finditer(text)}
    missing += [p for p in named if not (ROOT / p).exists()]
    assert not missing, f"{doc_id(doc)} points at missing files: {sorted(missing)}"


def _md_target(doc, link):
    path, fragment = link.split("#", 1)
    return (doc.parent / path if path else doc), fragment


@pytest.mark.parametrize("doc", DOCS, ids=[doc_id(p) for p in DOCS])
def test_link_fragments_name_headings(doc):
    """A link to ``file.md#fragment`` lands on a heading of that file."""
    text = doc.read_text(encoding="utf-8")
    targets = [_md_target(doc, m.group(1)) for m in LINK.finditer(text)
               if "#" in m.group(1) and not re.match(r"[a-z]+:", m.group(1))]
    missing = [f"{doc_id(path)}#{fragment}" for path, fragment in targets
               if path.suffix == ".md"
               and fragment not in anchors(path.read_text(encoding="utf-8"))]
    assert not missing, f"{doc_id(doc)} links to headings that do not exist: {missing}"


# a section cited by name, e.g. docs/agents.md, "The leave" or docs/agents.md ("The leave")
SECTION_REF = re.compile(r"((?:docs/\w+|README)\.md),?\s+\(?\"([^\"]+)\"")
CITING = sorted(p for p in ROOT.rglob("*") if p.suffix in (".py", ".md")
                and not {".venv", "runs", ".venv-pooltool"} & set(p.relative_to(ROOT).parts))


def test_cited_sections_exist():
    """Code and docs that send the reader to a section by its title name one that exists."""
    stale = []
    for path in CITING:
        for m in SECTION_REF.finditer(path.read_text(encoding="utf-8", errors="replace")):
            title = " ".join(m.group(2).split())
            found = headings((ROOT / m.group(1)).read_text(encoding="utf-8"))
            if not any(h.replace("`", "").startswith(title.replace("`", "")) for h in found):
                stale.append(f"{doc_id(path)}: {m.group(1)}, {title!r}")
    assert not stale, f"sections cited by a title no heading has: {stale}"


def test_section_checks_can_fail():
    assert anchors("# The leave (`cuegym.agents.leave`)\n## A\n## A\n") == {
        "the-leave-cuegymagentsleave", "a", "a-1"}
    assert headings("```\n# not a heading\n```\n# Real\n") == ["Real"]
