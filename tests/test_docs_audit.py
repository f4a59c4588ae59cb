"""Figures, names and defaults the docs state, checked against the code and the shipped files.

test_docs_examples runs the Python blocks, test_docs_commands parses the `cuegym ...` and
`python experiments/...` commands and test_docs_links checks the files named. This module checks
what those do not reach: `python -m cuegym...` and `make` commands, flags named on their own,
the env cards' observation tables and info keys, the tables of docs/envs.md (actions, rewards,
noise, position banks) and docs/physics.md (constants), the JSON shot interface's keys, the web
app's limits, the agent option strings, the version and what the wheel holds.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from fractions import Fraction

import numpy as np
import pytest
import yaml
from markdown_docs import DOCS, ROOT, Parsed, doc_id, fenced_blocks

from cuegym import cli

try:  # the rl extra: the envs, the agents and the training scripts' command lines
    import gymnasium as gym
    import torch  # noqa: F401
except ImportError:  # pragma: no cover - the test extra installs it
    gym = None
needs_rl = pytest.mark.skipif(gym is None, reason="needs the rl extra (gymnasium, torch)")

README = (ROOT / "README.md").read_text(encoding="utf-8")
ENVS_MD = (ROOT / "docs" / "envs.md").read_text(encoding="utf-8")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def code_spans(text: str) -> list[str]:
    """Lines of the fenced blocks and the inline code of a Markdown text."""
    spans: list[str] = []
    for _, block in fenced_blocks(text, r"[\w-]*"):
        spans += block.replace("\\\n", " ").splitlines()
    spans += [s.replace("\n", " ") for s in re.findall(r"`([^`]+)`", _FENCE.sub("", text))]
    return spans


def section(text: str, heading: str) -> str:
    """The text of the Markdown section whose heading starts with `heading` (to the next heading
    of the same or a higher level)."""
    m = re.search(rf"^(#+) {re.escape(heading)}.*$", text, re.M)
    assert m, f"no section {heading!r}"
    end = re.search(rf"^#{{1,{len(m.group(1))}}} ", text[m.end():], re.M)
    return text[m.end():m.end() + end.start() if end else len(text)]


# ---------------------------------------------------------------------------------------------
# version, commands, flags
# ---------------------------------------------------------------------------------------------


def test_version_is_one_number(capsys):
    """pyproject.toml, cuegym.__version__ and `cuegym --version` say the same version."""
    import cuegym

    pyproject = (ROOT / "pyproject.toml").read_text()
    project = re.search(r'^\[project\][^\[]*?^version = "([^"]+)"', pyproject, re.S | re.M).group(1)
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"cuegym {project}"
    assert cuegym.__version__ == project


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text()
    return set(re.findall(r"^([a-z][\w-]*):", text, re.M))


def test_make_targets_named_in_the_docs_exist():
    named = {(doc_id(p), m.group(1)) for p in DOCS
             for span in code_spans(p.read_text(encoding="utf-8"))
             for m in re.finditer(r"(?:^|[\s(;`])make ([a-z][\w-]*)", span)}
    assert len(named) >= 8
    missing = sorted(f"{d}: make {t}" for d, t in named if t not in _make_targets())
    assert not missing, f"the docs name Makefile targets that do not exist: {missing}"


def test_make_help_lists_every_phony_target():
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    phony = set(" ".join(re.findall(r"^\.PHONY:(.*)$", text, re.M)).split())
    helped = set(re.findall(r"[\w-]+", text[text.index("\nhelp:"):]))
    assert {"demo", "test", "reproduce-golfbillard"} <= phony <= _make_targets()
    assert phony - helped - {"help"} == set(), f"`make help` leaves out {sorted(phony - helped)}"


#: `python -m <module>` -> the function that is its command line
MODULE_MAINS = {"cuegym": "cuegym.cli", "cuegym.cli": "cuegym.cli",
                "cuegym.physics": "cuegym.physics.__main__",
                "cuegym.rules": "cuegym.rules.__main__", "cuegym.play": "cuegym.play.__main__"}


def python_m_commands() -> dict[str, str]:
    """`python -m cuegym... args` commands of the docs (code blocks and inline code)."""
    found: dict[str, str] = {}
    for path in DOCS:
        for span in code_spans(path.read_text(encoding="utf-8")):
            m = re.search(r"\bpython -m (cuegym[\w.]*)((?: +[^\s|<>#;)]+)*)", span)
            if not m or "..." in m.group(2) or "/" in m.group(2).replace("runs/", ""):
                continue
            cmd = f"python -m {m.group(1)}{m.group(2)}".strip()
            found.setdefault(" ".join(cmd.split()), doc_id(path))
    return found


PYTHON_M = python_m_commands()


def test_the_docs_show_python_m_commands():
    assert len(PYTHON_M) >= 10
    assert {c.split()[2] for c in PYTHON_M} >= {"cuegym.play", "cuegym.rules", "cuegym.physics"}


@pytest.mark.parametrize("command", sorted(PYTHON_M))
def test_python_m_command_parses(command, stop_after_parsing, capsys):
    argv = shlex.split(command)[3:]
    module = command.split()[2]
    main = importlib.import_module(MODULE_MAINS[module]).main
    if module.endswith("play"):
        pytest.importorskip("fastapi")
    if module.endswith("play") and not argv:
        argv = ["--no-warmup"]  # parsed, never served: parsing stops at the sentinel
    try:
        code = main(argv)
    except Parsed:
        code = None
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    if module in ("cuegym", "cuegym.cli") and not argv:
        return  # the usage
    if module == "cuegym.physics" and not argv:
        assert code is not None  # names its subcommand; the docs show it with `simulate`
        return
    if module == "cuegym.rules" and not argv:
        return
    assert code is None, f"{command} ({PYTHON_M[command]}) exited {code}: {err}"


def _all_help() -> str:
    """The --help text of every command line of the package."""
    out = io.StringIO()
    argvs = [[c, "--help"] for c in cli.COMMANDS if c != "bench"]
    argvs += [["bench", b, "--help"] for b in cli.BENCHES]
    argvs += [["rules", s, "--help"] for s in ("score", "new", "play")]
    scripts = sorted(p.stem for p in (ROOT / "experiments").glob("*.py")
                     if p.stem not in ("__init__", "pooltool_runner")
                     and "def main(" in p.read_text())
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        for argv in argvs:
            with contextlib.suppress(SystemExit):
                cli.main(argv)
        for s in scripts:
            with contextlib.suppress(SystemExit):
                importlib.import_module(f"cuegym.experiments.{s}").main(["--help"])
        for m in ("cuegym.play.__main__", "cuegym.physics.__main__"):
            with contextlib.suppress(SystemExit):
                importlib.import_module(m).main(["--help"])
    return out.getvalue()


#: flags of other programs that the docs name (tensorboard, pip)
FOREIGN_FLAGS = {"--logdir", "--no-deps"}


@needs_rl
def test_every_flag_the_docs_name_exists():
    """A `--flag` named anywhere in the docs (alone, as in "`--extras`", or in a command that
    test_docs_commands does not parse) is an option of some cuegym command line."""
    pytest.importorskip("fastapi")
    known = set(re.findall(r"(--[a-z][\w-]*)", _all_help()))
    assert {"--save-games", "--benchmark", "--per-event", "--sb3-native"} <= known
    stale = sorted({f"{doc_id(p)}: {f}" for p in DOCS
                    for f in re.findall(r"(?<![\w-])(--[a-z][\w-]*)", p.read_text(encoding="utf-8"))
                    if f not in known | FOREIGN_FLAGS})
    assert not stale, f"flags the docs name that no command line has: {stale}"


def test_readme_lists_the_cli_commands():
    block = next(b for _, b in fenced_blocks(README, "bash") if "cuegym --help" in b)
    listed = re.search(r"cuegym --help\s+#(.*?)\n(?:\s+#(.*?)\n)?", block)
    names = re.findall(r"\w+", listed.group(1) + (listed.group(2) or ""))
    assert names == list(cli.COMMANDS), names


def test_envs_md_command_table_names_the_modules():
    """docs/envs.md, "The `cuegym` command": each row's module is the one the command runs."""
    rows = re.findall(r"^\| `cuegym (\w+)[^|]*` \| `([\w.*]+)` \|", ENVS_MD, re.M)
    assert [c for c, _ in rows] == list(cli.COMMANDS)
    for command, module in rows:
        real = cli.COMMANDS[command][0]
        if command == "bench":
            assert all(re.fullmatch(module.replace(".", r"\.").replace("*", r"\w+"), m)
                       for m in cli.BENCHES.values()), module
        else:
            assert module == real, (command, module, real)


def test_quick_start_names_the_extra_cuegym_play_needs():
    """`cuegym play` needs the web extra (FastAPI, uvicorn); the rl extra alone refuses it."""
    quick = section(README, "Quick start")
    assert "cuegym play" in quick
    assert '".[web]"' in quick or "cuegym[web]" in quick


# ---------------------------------------------------------------------------------------------
# envs: the cards, docs/envs.md's tables
# ---------------------------------------------------------------------------------------------


ENV_IDS = {"cuegym/KeglebillardShot-v0": "KeglebillardShotEnv",
           "cuegym/GolfbillardShot-v0": "GolfbillardShotEnv",
           "cuegym/Keglebillard-v0": "KeglebillardEnv",
           "cuegym/Golfbillard-v0": "GolfbillardEnv"}


def _layout(env_id):
    from cuegym.envs.golf import OBS_LAYOUT as golf
    from cuegym.envs.kegle import OBS_LAYOUT as kegle

    return kegle if "Kegle" in env_id else golf


def _indices(spec: str) -> list[int]:
    out: list[int] = []
    for part in spec.split(","):
        lo, _, hi = part.strip().partition("..")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


@needs_rl
@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_card_observation_table_is_the_layout(env_id):
    """Each card's observation table (index, names, bounds) is the env's OBS_LAYOUT."""
    import cuegym.envs as E

    doc = getattr(E, ENV_IDS[env_id]).__doc__
    table = doc[doc.index("## Observation Space"):doc.index("## Rewards")]
    layout = _layout(env_id)
    size = int(re.search(r"Box\(\((\d+),\)", table).group(1))
    space = gym.make(env_id).observation_space
    assert space.shape == (size,) == (len(layout),)
    seen: list[int] = []
    for idx, names, bounds in re.findall(r"^\s*\| ([\d., ]+) \| ([^|]+) \| [^|]+ \| ([^|]+) \|",
                                         table, re.M):
        rows = _indices(idx)
        seen += rows
        tokens = [t.strip() for t in re.split(r",|\.\.", names) if t.strip()]
        assert layout[rows[0]][0] == tokens[0], (idx, names)
        if "*" not in tokens[-1]:
            assert layout[rows[-1]][0] == tokens[-1], (idx, names)
        m = re.fullmatch(r"\[(-?[\d.]+), (-?[\d.]+)\]|\{0, 1\}", bounds.strip())
        if m:
            lo, hi = (float(m.group(1)), float(m.group(2))) if m.group(1) else (0.0, 1.0)
            assert all(layout[i][1:] == (lo, hi) for i in rows), (idx, bounds)
            assert np.allclose(space.low[rows], lo) and np.allclose(space.high[rows], hi)
    assert seen == list(range(size)), "the rows do not cover the observation once, in order"


@needs_rl
@pytest.mark.parametrize("env_id", sorted(ENV_IDS))
def test_card_info_keys_are_the_info(env_id):
    import cuegym.envs as E

    doc = getattr(E, ENV_IDS[env_id]).__doc__
    para = doc[doc.index("``info``:"):doc.index("## Version History")]
    card = set(re.findall(r"``([a-z_][a-z0-9_]*)``", para)) - {"info"}
    env = gym.make(env_id)
    env.reset(seed=0)
    info = env.step(env.action_space.sample())[4]
    assert card == set(info), (sorted(card - set(info)), sorted(set(info) - card))


@needs_rl
def test_envs_md_observation_sizes():
    assert re.search(r"Keglebillard, `Box\(\((\d+),\)\)`", ENVS_MD).group(1) == str(
        len(_layout("Kegle")))
    assert re.search(r"Golfbillard, `Box\(\((\d+),\)\)`", ENVS_MD).group(1) == str(
        len(_layout("Golf")))
    assert "(473, 800, 3) uint8" in ENVS_MD
    env = gym.make("cuegym/KeglebillardShot-v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert env.render().shape == (473, 800, 3)


def _settings(game: str) -> dict:
    return yaml.safe_load((ROOT / "configs" / "envs" / f"{game}.yaml").read_text())


def test_envs_md_action_table_is_the_configs():
    table = section(ENVS_MD, "Actions")
    kegle, golf = _settings("keglebillard"), _settings("golfbillard")
    row0 = re.search(r"^\| 0 \| `V0` cue speed ([\d.]+) \.\. ([\d.]+) m/s \| `V0` ([\d.]+) \.\. "
                     r"([\d.]+) m/s \|", table, re.M)
    assert [float(x) for x in row0.groups()] == [*kegle["action"]["V0"], *golf["action"]["V0"]]
    theta = re.search(r"`theta` cue elevation ([\d.]+) \.\. ([\d.]+) deg", table)
    assert [float(x) for x in theta.groups()] == kegle["action"]["theta"] == golf["action"]["theta"]
    spin = float(re.search(r"`a`, `b` = ([\d.]+) u", table).group(1))
    assert spin == kegle["action"]["spin"] == golf["action"]["spin"]
    limits = section(ENVS_MD, "Starting states")
    for game in (kegle, golf):
        assert f"`max_steps` learner steps ({game['max_steps']})" in limits
        assert f"`max_opponent_shots` ({game['max_opponent_shots']})" in limits


def test_envs_md_noise_preset_is_the_config():
    from cuegym.configs import load_params
    from cuegym.games.noise import load_noise

    noise = load_noise("tournament")
    m = re.search(r"phi ([\d.]+) deg, V0 ([\d.]+) m/s, a and b ([\d.]+) mm, i\.e\. ([\d.]+) / R,\s+"
                  r"theta ([\d.]+) deg", ENVS_MD)
    phi, V0, mm, frac, theta = map(float, m.groups())
    R = load_params("keglebillard").R
    assert (phi, V0, theta) == (noise.phi, noise.V0, noise.theta)
    assert frac == mm / 1000 and noise.a == noise.b == pytest.approx(frac / R)


@needs_rl
@pytest.mark.parametrize("game", ["keglebillard", "golfbillard"])
def test_envs_md_reward_table_is_the_config(game):
    """The reward table's terms and defaults are configs/reward/<game>.yaml's, and the terms are
    the env's info["reward_terms"]."""
    table = re.search(rf"^\| {game} term \| default \| meaning \|\n\|[-|]+\|\n((?:\|.*\n)+)",
                      ENVS_MD, re.M).group(1)
    doc = {m.group(1): float(Fraction(m.group(2)))
           for m in re.finditer(r"^\| `(\w+)` \| (-?[\d./]+) \|", table, re.M)}
    config = yaml.safe_load((ROOT / "configs" / "reward" / f"{game}.yaml").read_text())
    assert doc == pytest.approx(config)
    env = gym.make(f"cuegym/{game.capitalize()}Shot-v0")
    env.reset(seed=0)
    assert set(env.step(env.action_space.sample())[4]["reward_terms"]) == set(doc)


def _pct(text: str, pattern: str) -> str:
    m = re.search(pattern, text)
    assert m, pattern
    return m.group(1)


@needs_rl
def test_envs_md_position_bank_figures_are_the_shipped_banks():
    """docs/envs.md's statistics of the shipped banks (load_positions(...).summary())."""
    from cuegym.envs.positions import load_positions

    text = " ".join(section(ENVS_MD, "Starting states").split())

    def close(doc: str, value: float) -> bool:  # as printed: to the doc's last digit
        return round(value, len(doc.partition(".")[2])) == float(doc)

    k = load_positions("keglebillard").summary()
    assert k["positions"] == int(_pct(text, r"a bank of (\d+) positions"))
    for key, pattern in [("break", r"([\d.]+) % breaks, [\d.]+ % red in hand behind"),
                         ("in_hand_salvo", r"breaks, ([\d.]+) % red in hand behind the salvo"),
                         ("in_hand_cloth", r"([\d.]+) % red in hand anywhere"),
                         ("white_waiting", r"([\d.]+) % a white waiting"),
                         ("pin_down", r"([\d.]+) % a pin still down")]:
        assert close(_pct(text, pattern), 100 * k[key]), (key, k[key])
    p = load_positions("keglebillard-play").summary()
    assert p["positions"] == int(re.search(r"\(([\d,]+) positions, `settings", text).group(1)
                                 .replace(",", ""))
    play = text[text.index("**`keglebillard-play`**"):]
    assert close(_pct(play, r"\(([\d.]+) % breaks"), 100 * p["break"])
    assert close(_pct(play, r"breaks, ([\d.]+) % red in hand"), 100 * p["in_hand_salvo"])
    g = load_positions("golfbillard").summary()
    assert g["positions"] == k["positions"]
    assert close(_pct(text, r"([\d.]+) % kader play"), 100 * g["kader"])
    assert close(_pct(text, r"([\d.]+) % with a ball on a penalty spot"),
                 100 * g["on_penalty_spot"])
    assert close(_pct(text, r"([\d.]+) balls left per side on average"), g["mean_balls_left"])
    assert "(50/50)" in text and round(g["side1_to_move"], 1) == 0.5


@needs_rl
def test_envs_md_foul_flag_expressions_work():
    """An expression the docs give for reading `info["foul_flags"]` runs on a real info (the
    flags are a bool array in the order of cuegym.envs.kegle.FOUL_FLAGS, not a mapping)."""
    from cuegym.envs.kegle import FOUL_FLAGS

    exprs = [s for s in code_spans(ENVS_MD) if re.search(r"foul_flags\W*\[", s)]
    assert exprs
    env = gym.make("cuegym/KeglebillardShot-v0")
    env.reset(seed=0)
    info = env.step(env.action_space.sample())[4]
    for expr in exprs:
        value = eval(expr, {"FOUL_FLAGS": FOUL_FLAGS, "info": info,
                            "foul_flags": info["foul_flags"]})
        assert isinstance(value, (bool, np.bool_)), expr
    for name in re.findall(r'"(K-\d+[a-z]?:\w+)"', ENVS_MD):
        assert name in FOUL_FLAGS, name


# ---------------------------------------------------------------------------------------------
# physics: docs/physics.md's constants, the README's JSON interface
# ---------------------------------------------------------------------------------------------


def test_physics_md_symbol_table_is_the_configs():
    from cuegym.configs import load_params, load_table

    table = section((ROOT / "docs" / "physics.md").read_text(encoding="utf-8"),
                    "0. Units, frame and symbols")
    rows = re.findall(r"^\| ([\w, ]+) \| [^|]+ \| ([^|]+) \| ([^|]+) \|$", table, re.M)
    checked = set()
    for symbols, *values in rows:
        if symbols.strip() == "symbol":
            continue
        names = [s.strip() for s in symbols.split(",")]
        for game, cell in zip(("keglebillard", "golfbillard"), values, strict=True):
            if cell.strip() == "—":
                continue
            nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", cell)]
            assert len(nums) == len(names), (symbols, cell)
            params, spec = load_params(game), load_table(game)
            for name, num in zip(names, nums, strict=True):
                real = spec.cushion_height if name == "h" else getattr(params, name)
                assert num == pytest.approx(real), (game, name, num, real)
                checked.add(name)
    assert {"R", "m", "u_s", "h", "M", "m_pin", "pin_chain_delay"} <= checked


def test_readme_json_interface_keys_are_the_parsers():
    from cuegym.physics import jsonparse, simulate_json

    text = section(README, "JSON shot interface")
    for key in jsonparse.SHOT_KEYS:
        assert f"`{key}`" in text or f'`"{key}"' in text, key
    assert set(re.findall(r'"(\w+)"', re.search(r"`strike` \(one or a list of\s+`(\{.*?\})`",
                                                text, re.S).group(1))) == jsonparse.STRIKE_KEYS
    assert set(re.findall(r'"(\w+)"', re.search(r"`models` \((.*?)\)", text, re.S).group(1))) \
        <= set(jsonparse.MODEL_KEYS) | {"frictional_inelastic", "frictionless_elastic",
                                        "han_2005", "mirror"}
    assert set(re.findall(r'"(\w+)"', re.search(r'`\{"length".*?\}`', text, re.S).group(0))) \
        == jsonparse.TABLE_KEYS | {"x", "y", "radius"}
    defaults = dict(re.findall(r"`(max_events|t_max)` \((\d+)", text))
    assert defaults == {"max_events": "1000", "t_max": "60"}
    out = re.search(r"Output:\s*(`\{.*?\}`)", text, re.S).group(1)
    documented = set(re.findall(r'"(\w+)"', out))
    shot = {"table": "keglebillard",
            "balls": {"red": {"x": -0.8, "y": 0.1}, "white": {"x": -0.525, "y": 0.0},
                      "spotted": {"x": 0.525, "y": 0.0}},
            "strike": {"ball": "red", "V0": 3.0, "phi": -5.0, "theta": 0.0, "a": 0.0, "b": 0.2}}
    res = simulate_json(shot)
    real = set(res) | set(res["final"]["red"]) | set(res["pins"]["king"]) | set(res["events"][0])
    assert documented == real, sorted(documented ^ real)


# ---------------------------------------------------------------------------------------------
# the web app's limits (docs/play.md), agent option strings
# ---------------------------------------------------------------------------------------------


def test_play_md_limits_are_the_servers():
    pytest.importorskip("fastapi")
    from cuegym.play import server, session

    text = " ".join((ROOT / "docs" / "play.md").read_text(encoding="utf-8").split())
    assert f"keeps the {server.MAX_GAMES} most recent games" in text
    assert f"a body over {server.MAX_BODY // 1_000_000} MB" in text
    assert server.MAX_BODY % 1_000_000 == 0
    assert f"nested more than {session.MAX_JSON_DEPTH} levels" in text
    assert f"at most about {server.MAX_DETAIL:,} characters" in text
    limits = (f"V0 {session.V0_MIN:g}-{session.V0_MAX:g} m/s, θ 0-{session.THETA_MAX:g}°, "
              f"a² + b² ≤ {session.SPIN_MAX:g}²")
    assert limits in text
    assert "127.0.0.1:8765" in text


def documented_agent_specs() -> list[str]:
    specs = set()
    for path in DOCS:
        for m in re.finditer(r"`((?:pretrained|planner|guided|expert|geometric|random):[^`]+)`",
                             path.read_text(encoding="utf-8")):
            if not re.search(r"<|\.\.\.|/", m.group(1)):
                specs.add(m.group(1))
    return sorted(specs)


AGENT_SPECS = documented_agent_specs()


def test_the_docs_show_agent_options():
    assert len(AGENT_SPECS) >= 8


@needs_rl
@pytest.mark.parametrize("spec", AGENT_SPECS)
def test_documented_agent_options_are_accepted(spec):
    pytest.importorskip("torch")
    from cuegym.agents import make_agent

    assert make_agent(spec, "keglebillard") is not None


# ---------------------------------------------------------------------------------------------
# the wheel
# ---------------------------------------------------------------------------------------------

#: what a checkout holds beside the package and never ships in the wheel
NOT_SHIPPED = {"tests", "docs", "runs", "build", "dist", ".ci", ".git", ".venv", ".venv-pooltool",
               ".venv-rllib", ".hypothesis", ".ruff_cache", ".pytest_cache"}


def _package_files() -> list[str]:
    """Files of the checkout that the installed package needs: every module, and the data the
    code loads (configs, the shipped banks, shipped models, the web page; a bank generated on
    first use, such as the helmatch one, is not shipped)."""
    from cuegym.envs.positions import SHIPPED_BANKS

    banks = {f"{name}_positions.npz" for name in SHIPPED_BANKS}
    out = []
    for p in ROOT.rglob("*"):
        rel = p.relative_to(ROOT)
        if not p.is_file() or rel.parts[0] in NOT_SHIPPED or rel.parts[0].endswith(".egg-info") \
                or "__pycache__" in rel.parts:
            continue
        models = rel.parts[:2] == ("agents", "pretrained") and p.suffix in (".zip", ".pt", ".json")
        if p.suffix == ".py" or rel.parts[0] == "configs" and p.suffix == ".yaml" \
                or rel.parts[:2] == ("envs", "data") and p.name in banks or models \
                or rel.parts[:2] == ("play", "static") or str(rel) == "py.typed":
            out.append(str(rel))
    return sorted(out)


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory):
    """The file names of a wheel built from a copy of the checkout (the checkout's own build/
    and egg-info are neither read nor written)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".git", ".venv*", "build", "dist", "*.egg-info", "__pycache__", "*.nbi", "*.nbc",
        ".hypothesis", ".ruff_cache", ".pytest_cache"))
    out = subprocess.run(
        [sys.executable, "-c", "import setuptools.build_meta as b, sys; "
         "print(b.build_wheel(sys.argv[1]))", str(tmp)],
        cwd=src, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    with zipfile.ZipFile(tmp / out.stdout.split()[-1]) as z:
        return set(z.namelist())


def test_wheel_holds_the_package_and_its_data(wheel_names):
    """Every module and every data file the code loads is in the wheel: a new configs/<kind>/
    folder or subpackage that pyproject.toml does not list would be missing after install."""
    shipped = {n.removeprefix("cuegym/") for n in wheel_names if n.startswith("cuegym/")}
    need = _package_files()
    assert len(need) > 150
    missing = sorted(set(need) - shipped)
    assert not missing, f"the wheel lacks {len(missing)} file(s): {missing[:10]}"
    for data in ("py.typed", "play/static/index.html", "envs/data/keglebillard_positions.npz",
                 "agents/pretrained/keglebillard.zip", "configs/train/keglebillard_dqn.yaml"):
        assert data in shipped, data
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel_names)


def test_wheel_holds_nothing_else(wheel_names):
    top = {n.split("/")[0] for n in wheel_names}
    assert {t for t in top if not t.endswith(".dist-info")} == {"cuegym"}, top
    shipped = {n.removeprefix("cuegym/") for n in wheel_names if n.startswith("cuegym/")}
    junk = sorted(n for n in shipped if n.split("/")[0] in NOT_SHIPPED
                  or n.endswith((".pyc", ".nbi", ".nbc", ".png", ".csv", ".md")))
    assert not junk, f"the wheel ships files that are not the package's: {junk[:10]}"


def test_agents_md_sb3_clip_ranges_are_the_configs():
    """docs/agents.md, SB3Agent: the action ranges its strikes are clipped to, per game."""
    text = " ".join((ROOT / "docs" / "agents.md").read_text(encoding="utf-8").split())
    m = re.search(r"clipped to the env's action ranges \(V0 ([\d.]+)-([\d.]+) m/s in keglebillard, "
                  r"([\d.]+)-([\d.]+) m/s in golfbillard; \|a\|, \|b\| <= ([\d.]+)\)", text)
    assert m, "the SB3Agent clipping ranges are not stated per game"
    kegle, golf = _settings("keglebillard")["action"], _settings("golfbillard")["action"]
    assert [float(x) for x in m.groups()] == [*kegle["V0"], *golf["V0"], kegle["spin"]]
    assert golf["spin"] == kegle["spin"]
