"""Every command the docs show is one the command line accepts.

The `cuegym ...` and `python experiments/<script>.py ...` commands in README.md, docs/*.md and
agents/pretrained/README.md (code blocks and inline code) are parsed by the real entry points
with their real argument parsers; parsing stops there (a sentinel raised from
``ArgumentParser.parse_args``), so nothing trains or plays. Commands written as templates
(``<game>``, ``[--game golfbillard]``, ``...``, ``score/new/play``) are not commands.
"""
from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path

import pytest
from markdown_docs import DOCS, Parsed, doc_id, fenced_blocks

from cuegym import cli

COMMAND = re.compile(r"^(python experiments/\w+\.py|cuegym \w)")
TEMPLATE = re.compile(r"<|\[-|\[\w+/|\.\.\.|score/new|shot/game|\b[A-Z]{1,3}$|--game G\b|\bPKG\b")


def documented_commands() -> dict[str, str]:
    """command -> the file that shows it first."""
    found: dict[str, str] = {}
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        spans: list[str] = []
        for _, block in fenced_blocks(text, "(?:bash|sh|console|shell)?"):
            spans += block.replace("\\\n", " ").splitlines()
        prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
        # indented code blocks (four spaces) show commands too
        spans += [line for line in prose.replace("\\\n", " ").splitlines()
                  if line.startswith("    ")]
        spans += [s.replace("\n", " ") for s in re.findall(r"`([^`]+)`", prose)]
        for span in spans:
            cmd = re.sub(r"\s+#.*$", "", span).strip()
            cmd = re.split(r"\s*[<>|]\s", cmd + " ")[0].strip()  # drop redirections and pipes
            cmd = cmd.removeprefix(".venv/bin/")  # the same command, from the project's venv
            if COMMAND.match(cmd) and not TEMPLATE.search(cmd):
                found.setdefault(" ".join(cmd.split()), doc_id(path))
    return found


COMMANDS = documented_commands()


def run_parser(command: str) -> int | None:
    """Run `command`'s entry point up to its parser; None when the arguments parsed."""
    argv = shlex.split(command)
    try:
        if argv[0] == "cuegym":
            return cli.main(argv[1:])
        script = Path(argv[1]).stem
        return importlib.import_module(f"cuegym.experiments.{script}").main(argv[2:])
    except Parsed:
        return None
    except SystemExit as exc:  # argparse refused, or --help printed
        return exc.code


def test_the_docs_show_commands():
    assert len(COMMANDS) >= 40
    assert any(c.startswith("python experiments/evaluate.py") for c in COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_documented_command_parses(command, stop_after_parsing, capsys):
    code = run_parser(command)
    err = capsys.readouterr().err
    if command.endswith("--help"):
        assert code in (0, None), err
    else:
        assert code is None, f"{command} ({COMMANDS[command]}) exited {code}: {err}"


def test_a_bad_documented_command_would_fail(stop_after_parsing, capsys):
    assert run_parser("python experiments/evaluate.py --game keglebillard --no-such-flag") == 2
    assert run_parser("cuegym evaluate --game keglebillard --games 10") is None


def test_fences_pair_in_order():
    """A closing fence is never read as an unlabelled opening one (that hid the commands of
    the bash block after a python block, and read the prose between them as code)."""
    text = "```python\nx = 1\n```\nprose `a`\n```bash\ncuegym --help\n```\n"
    assert fenced_blocks(text, "(?:bash|sh|console|shell)?") == [(6, "cuegym --help\n")]
    assert [b for _, b in fenced_blocks(text, r"[\w-]*")] == ["x = 1\n", "cuegym --help\n"]


def test_commands_of_every_kind_of_block_are_found():
    """Commands after a python block, in a continued bash block and in an indented block."""
    assert ("python experiments/evaluate.py --game keglebillard --agents "
            "pretrained,geometric,random --games 100 --seed 0 --json") in COMMANDS
    assert any(c.startswith("python experiments/expert_retrain.py --runs") for c in COMMANDS)
