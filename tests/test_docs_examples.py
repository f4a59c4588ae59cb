"""The Python examples in README.md and docs/*.md run as written.

Each ```python block runs top-level statement by statement, in one namespace per file (a later
block may continue an earlier one, as in docs/physics_api.md), with the working directory in a
temporary folder (examples that record videos write there). A statement followed by a comment
line ``# SomeError: message`` documents a refusal: it must raise that error with that message; a
statement whose line ends in ``# -> text`` documents its output: it must print exactly that.
"""
from __future__ import annotations

import ast
import contextlib
import io
import re
from pathlib import Path

import pytest
from markdown_docs import DOCS, doc_id, fenced_blocks

EXPECTED_ERROR = re.compile(r"^\s*#\s*(\w+(?:Error|Exception)): (.*)$")
EXPECTED_OUTPUT = re.compile(r"#\s*->\s?(.*)$")


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(first line number, source) of each ```python block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    return fenced_blocks(text, "python")


def expected_error(lines: list[str], stmt: ast.stmt) -> tuple[str, str] | None:
    """(exception name, message) documented on the line after `stmt`, if any."""
    after = stmt.end_lineno  # 1-based end line == 0-based index of the next line
    if after < len(lines):
        m = EXPECTED_ERROR.match(lines[after])
        if m:
            return m.group(1), m.group(2)
    return None


def run_block(source: str, namespace: dict, where: str) -> None:
    lines = source.splitlines()
    for stmt in ast.parse(source, filename=where).body:
        code = compile(ast.Module(body=[stmt], type_ignores=[]), where, "exec")
        error = expected_error(lines, stmt)
        output = EXPECTED_OUTPUT.search(lines[stmt.end_lineno - 1])
        if output:
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                exec(code, namespace)
            assert printed.getvalue().strip() == output.group(1).strip(), \
                f"{where}:{stmt.lineno} printed {printed.getvalue()!r}"
            continue
        if error is None:
            exec(code, namespace)
            continue
        name, message = error
        with pytest.raises(Exception) as info:
            exec(code, namespace)
        assert type(info.value).__name__ == name, f"{where}:{stmt.lineno}: {info.value!r}"
        assert message.strip() in str(info.value), f"{where}:{stmt.lineno}: {info.value}"


FILES = [p for p in DOCS if python_blocks(p)]


def test_the_docs_have_python_examples():
    assert sum(len(python_blocks(p)) for p in DOCS) >= 10


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_python_examples_run(path, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs_example__"}
    for line, source in python_blocks(path):
        run_block(source, namespace, f"{doc_id(path)}:{line}")


def test_a_documented_refusal_must_happen():
    """The checker itself: a documented error that does not come is a failure."""
    source = "x = 1\n# ValueError: never raised\n"
    with pytest.raises(pytest.fail.Exception):
        run_block(source, {}, "inline")
    run_block("int('a')\n# ValueError: invalid literal\n", {}, "inline")


def test_a_documented_output_must_be_printed():
    run_block("print(1 + 1)  # -> 2\n", {}, "inline")
    with pytest.raises(AssertionError, match="printed '3"):
        run_block("print(1 + 2)  # -> 2\n", {}, "inline")
