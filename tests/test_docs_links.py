"""The docs point at files that exist: Markdown links and the repository paths they name."""
from __future__ import annotations

import re

import pytest
from markdown_docs import DOCS, ROOT, doc_id

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
