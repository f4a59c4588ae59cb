"""cuegym.agents: agents that play keglebillard and golfbillard, and the game flow they share.

One interface (:class:`Agent`): ``act(states, rng) -> Strikes``, batched over rules game states
(``cuegym.rules``); observations are built inside the agents that need them.

=====================  ==========================================================================
name                   agent
=====================  ==========================================================================
``random``             :class:`RandomAgent`: the rules' random policies
``geometric``          :class:`GeometricAgent`: ghost-ball aiming, safe placements, no simulation
``planner``            :class:`PlannerAgent`: geometric candidates, perturbed, simulated with shot
                       noise in one batched call, scored by the rules; presets in
                       ``configs/agents/planner.yaml``
``guided``             :class:`GuidedPlannerAgent`: the planner with the trained policy's
                       proposals and a two-shot lookahead (the opponent's best reply); presets
                       in ``configs/agents/guided.yaml``
``pretrained``         the shipped trained agent of the game (``agents/pretrained/<game>.zip``;
                       keglebillard: the DQN choosing among its best entries by what each
                       leaves the opponent, ``keglebillard_leave.pt`` (:mod:`cuegym.agents.leave`),
                       through the aim correction ``keglebillard_aim.pt``
                       (:mod:`cuegym.agents.aim`); ``pretrained:leave=none`` without the leave,
                       ``pretrained:aim=none`` the DQN alone)
``<path>.zip``         :class:`SB3Agent`: a saved Stable-Baselines3 model
``expert``             the shipped expert-iteration network of the game
                       (``agents/pretrained/<game>_expert.pt``, :mod:`cuegym.agents.expert`)
``<path>.pt``          :class:`~cuegym.agents.expert.ExpertAgent`: a saved expert network
=====================  ==========================================================================

Options after a colon: ``planner:n_candidates=32,n_noise=2``. Tournaments and whole games:
:mod:`cuegym.agents.head_to_head` (:func:`play_games`); the CLI is ``experiments/evaluate.py``.

Example:
    >>> from cuegym.agents import make_agent, make_arena, play_games
    >>> arena = make_arena("keglebillard")
    >>> res = play_games(arena, [make_agent("geometric", "keglebillard"),
    ...                          make_agent("random", "keglebillard")], 2, seed=0)
    >>> res.stats(0)["games"]
    2
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any

import yaml

from cuegym.agents.arena import GolfbillardArena, KeglebillardArena, ShotRecord, make_arena
from cuegym.agents.base import GAMES, Agent, ShotNoise, Strikes, load_noise
from cuegym.agents.geometric import GeometricAgent
from cuegym.agents.guided import GuidedPlannerAgent
from cuegym.agents.head_to_head import GameResults, play_games
from cuegym.agents.planner import PlannerAgent
from cuegym.agents.random_agent import RandomAgent
from cuegym.cli_errors import packaged_path, unknown
from cuegym.configs import load_yaml

PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"
AGENT_CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs" / "agents"
NAMES = ("random", "geometric", "planner", "guided", "pretrained", "expert")


def __getattr__(name: str) -> Any:  # SB3Agent needs torch: imported on first use
    if name == "SB3Agent":
        from cuegym.agents.sb3_agent import SB3Agent

        return SB3Agent
    raise AttributeError(f"module 'cuegym.agents' has no attribute {name!r}")


def pretrained_path(game: str) -> Path | None:
    """The shipped trained model of ``game`` (``agents/pretrained/<game>.zip``), or None."""
    p = PRETRAINED_DIR / f"{game}.zip"
    return p if p.exists() else None


def _options(text: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if not text:  # "planner:" is the preset
        return out
    for item in text.split(","):
        if not item:  # planner:n_noise=3,, or planner:,n_noise=3 (dropped without a word)
            raise ValueError(f"agent options {text!r} hold an empty option (key=value, "
                             "separated by single commas)")
        if "=" not in item:
            raise ValueError(f"agent option {item!r} must be key=value")
        k, v = item.split("=", 1)
        if not k.strip():
            raise ValueError(f"agent option {item!r} has no name (key=value)")
        if k.strip() in out:
            raise ValueError(f"agent option {k.strip()!r} is given twice in {text!r}")
        if not v.strip() and k.strip() != "name":  # name= has its own message below
            # an empty value is YAML's null: noise= planned without noise, aim= dropped the
            # aim correction, policy= the proposals, entries= took the default, silently
            raise ValueError(f"agent option {item!r} has no value (key=value; write null "
                             "for None)")
        try:
            out[k.strip()] = load_yaml(v)
        except yaml.YAMLError:  # e.g. a list, whose comma ends the option: spins=[0,0.2]
            raise ValueError(f"agent option {item!r}: {v!r} is not a YAML value (options are "
                             "separated by commas, so a value cannot hold one)") from None
    _check_name(out)
    return out


def _check_name(kw: dict[str, Any]) -> None:
    """Refuse a ``name`` option that is not a label: empty, or not text (``name=3``)."""
    if "name" in kw and not (isinstance(kw["name"], str) and kw["name"].strip()):
        raise ValueError(f"agent option name= needs a label that YAML reads as text "
                         f"(name=<label>), got {kw['name']!r}")


def parse_options(spec: str) -> dict[str, Any]:
    """The options of an agent spec (``planner:n_candidates=32,name=p32`` gives
    ``{"n_candidates": 32, "name": "p32"}``), values read as YAML; a malformed option or an
    empty ``name=`` is a ValueError naming it. :func:`make_agent` reads its spec this way, so a
    caller can check a list of specs before making any agent."""
    return {} if isinstance(spec, os.PathLike) else _options(spec.partition(":")[2])


#: make_agent options of a trained model (its wrapping: :func:`_pop_trained_options`)
_TRAINED_OPTIONS = ("aim", "leave", "entries", "weight", "own")
#: the agent classes of the names whose options are the class's arguments
_CLASSES = {"random": RandomAgent, "geometric": GeometricAgent, "planner": PlannerAgent,
            "guided": GuidedPlannerAgent}


def _check_options(agent: str, cls: type, kw: dict[str, Any], extra: tuple[str, ...] = (),
                   fixed: tuple[str, ...] = ()) -> None:
    """Refuse an option of ``agent`` that its class ``cls`` does not take (a ValueError naming
    it and the known ones, not a TypeError from the constructor). ``extra``: options taken
    before the class (a trained model's wrapping); ``fixed``: arguments make_agent sets itself."""
    import inspect

    params = inspect.signature(cls).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    known = [n for n, p in params.items() if p.kind is not inspect.Parameter.VAR_POSITIONAL
             and n not in ("self", "game", "arena", "path", "net", *fixed)] + list(extra)
    for key in kw:
        if key not in known:
            raise ValueError(unknown(f"{agent} option", key, known))


def planner_preset(game: str, agent: str = "planner") -> dict[str, Any]:
    """The settings of ``configs/agents/<agent>.yaml`` (``planner`` or ``guided``) for
    ``game`` (empty if none)."""
    path = AGENT_CONFIG_DIR / f"{agent}.yaml"
    if not path.exists():
        return {}
    data = load_yaml(path.read_text()) or {}
    return dict(data.get(game) or {})


def pretrained_aim_path(game: str) -> Path | None:
    """The shipped aim correction of ``game``'s trained agent
    (``agents/pretrained/<game>_aim.pt``, :mod:`cuegym.agents.aim`), or None."""
    p = PRETRAINED_DIR / f"{game}_aim.pt"
    return p if p.exists() else None


def _network_choice(kind: str, agent: Any, value: Any) -> Any:
    """Check the agent a network wraps and the ``aim`` / ``leave`` option ``value``: None,
    ``"shipped"``, ``"none"`` or a path (a bool such as YAML's ``aim=false``, a number or a
    case variant such as ``None`` was looked up as a file of that name)."""
    if not isinstance(agent, Agent):
        raise ValueError(f"with_{kind} wraps an Agent (make_agent(...)), got {agent!r}")
    return _network_value(kind, value)


def _network_value(kind: str, value: Any) -> Any:
    """The ``aim`` / ``leave`` option ``value`` checked (:func:`_network_choice`)."""
    if value is None or isinstance(value, os.PathLike):
        return value
    if not isinstance(value, str):
        raise ValueError(f"{kind}={value!r}: takes 'shipped', 'none' or a network .pt path"
                         + (f" ({kind}=none plays without one)" if value is False else ""))
    if value != value.lower() and value.lower() in ("none", "shipped"):
        raise ValueError(f"{kind}={value!r}: takes 'shipped', 'none' or a network .pt path "
                         f"(did you mean {value.lower()!r}?)")
    return value


def with_aim(agent: Agent, aim: Any, arena: Any, entries: Any = None) -> Agent:
    """``agent`` playing through an aim correction: ``aim`` is ``"shipped"`` (the game's
    shipped one, if any), a ``.pt`` path, or None / ``"none"`` (the agent as it is);
    ``entries``: the strikes the correction chooses among (default: its recipe's)."""
    aim = _network_choice("aim", agent, aim)
    if aim is None or aim == "none" or (aim == "shipped" and
                                         pretrained_aim_path(agent.game) is None):
        if entries is not None:
            raise ValueError(f"entries={entries!r}: only an aim correction chooses among "
                             "entries, and this agent plays without one")
        return agent
    if agent.game != "keglebillard":
        raise ValueError(f"aim={aim!r}: the aim correction is for keglebillard, not "
                         f"{agent.game}")
    from cuegym.agents.aim import AimCorrectedAgent

    path = pretrained_aim_path(agent.game) if aim == "shipped" else packaged_path(str(aim))
    return AimCorrectedAgent(agent, path, arena=arena, name=agent.name, entries=entries)


def pretrained_leave_path(game: str) -> Path | None:
    """The shipped leave network of ``game``'s trained agent
    (``agents/pretrained/<game>_leave.pt``, :mod:`cuegym.agents.leave`), or None."""
    p = PRETRAINED_DIR / f"{game}_leave.pt"
    return p if p.exists() else None


#: make_agent options only a leave network takes (LeaveAwareAgent's play settings)
_LEAVE_OPTIONS = ("weight", "own")


def with_leave(agent: Agent, leave: Any, arena: Any, kw: dict[str, Any] | None = None
               ) -> Agent:
    """``agent`` (a DQN) choosing its entry by what it leaves the opponent: ``leave`` is
    ``"shipped"`` (the game's shipped leave network, if any), a ``.pt`` path, or None /
    ``"none"`` (the agent as it is). Pops ``entries``, ``weight`` and ``own`` from ``kw`` when
    a leave network is used; ``weight`` or ``own`` without one is an error, and so is any
    other key of ``kw`` (None: no settings)."""
    leave = _network_choice("leave", agent, leave)
    kw = {} if kw is None else kw
    if not isinstance(kw, dict):
        raise ValueError(f"with_leave: kw must be a dict of the leave's settings "
                         f"({', '.join(('entries', *_LEAVE_OPTIONS))}), got {kw!r}")
    for key in kw:
        if key not in ("entries", *_LEAVE_OPTIONS):
            raise ValueError(unknown("leave setting", key, ("entries", *_LEAVE_OPTIONS)))
    if leave is None or leave == "none" or (leave == "shipped" and
                                             pretrained_leave_path(agent.game) is None):
        for key in _LEAVE_OPTIONS:
            if key in kw:
                raise ValueError(f"{key}={kw[key]!r}: only a leave network takes it, and this "
                                 "agent plays without one")
        return agent
    given = [k for k in _LEAVE_OPTIONS if k in kw]
    if kw.get("entries") == 1 and given:  # one entry: the leave has nothing to choose among
        raise ValueError(f"{', '.join(given)}: entries=1 leaves the leave network no choice "
                         "among the model's strikes, so they would change nothing")
    from cuegym.agents.leave import LeaveAwareAgent

    path = pretrained_leave_path(agent.game) if leave == "shipped" else packaged_path(str(leave))
    return LeaveAwareAgent(agent, path, entries=kw.pop("entries", None),
                           weight=kw.pop("weight", None), own=kw.pop("own", None), arena=arena,
                           name=agent.name)


#: The guided planner's stages: (the count that turns a stage off at 0, the options only that
#: stage reads).
_GUIDED_STAGES = (
    ("n_top", ("n_next", "n_recheck", "reply_candidates", "reply_noise", "reply_recheck",
               "discount", "reply_spins", "reply_terms")),
    ("n_refine", ("refine_top", "refine_scale")),
)


def _check_unread_options(agent: str, given: dict[str, Any], effective: dict[str, Any],
                          stages: tuple[tuple[str, tuple[str, ...]], ...]) -> None:
    """Refuse an option the caller gave (``given``) for a stage that the effective options turn
    off (its count 0): it would change nothing, without a word."""
    for count, reads in stages:
        unread = [k for k in reads if k in given]
        if effective.get(count) == 0 and unread:
            raise ValueError(f"{agent}: {count}=0 turns its stage off, so {', '.join(unread)} "
                             "would change nothing: leave them out")


def _pop_trained_options(kw: dict[str, Any], default: Any) -> tuple[Any, Any, dict[str, Any]]:
    """A trained model's wrapping options, popped from ``kw``: (aim, leave, {entries, weight,
    own}).
    ``default`` is what ``aim`` and ``leave`` take when not given (``"shipped"`` for
    ``pretrained``, None for a path); ``aim=none`` means the model alone, so it also turns the
    default leave off."""
    aim = _network_value("aim", kw.pop("aim", default))  # before any model is loaded
    leave = _network_value("leave", kw.pop("leave", None if aim in (None, "none") else default))
    return aim, leave, {k: kw.pop(k) for k in ("entries", *_LEAVE_OPTIONS) if k in kw}


def _check_shipped(kw: dict[str, Any], game: str) -> None:
    """Refuse ``aim=shipped`` / ``leave=shipped`` written out for a game that ships no such
    network (golfbillard): the default falls back to none, an explicit request was ignored."""
    for key, where in (("aim", pretrained_aim_path), ("leave", pretrained_leave_path)):
        if kw.get(key) == "shipped" and where(game) is None:
            raise ValueError(f"{key}=shipped: no {key} network is shipped for {game} "
                             f"(agents/pretrained/{game}_{key}.pt): its model plays without one")


def _trained(agent: Agent, arena: Any, aim: Any, leave: Any, opts: dict[str, Any]) -> Agent:
    """A trained model ``agent`` choosing by its leave network, then through its aim
    correction (:func:`with_leave`, :func:`with_aim`)."""
    base = agent
    agent = with_aim(with_leave(agent, leave, arena, opts), aim, arena, opts.get("entries"))
    if agent is not base and not getattr(base, "deterministic", True):
        # the leave and the aim choose among the model's ranked menu entries (its Q-values):
        # its sampling (a DQN's exploration) never reaches them, so the option would do nothing
        raise ValueError("deterministic=false samples the model's own policy, but the leave and "
                         "aim networks choose among its ranked strikes: give it with aim=none,"
                         "leave=none (the model alone)")
    return agent


def make_agent(spec: str, game: str, *, arena: Any = None, **kwargs: Any) -> Agent:
    """An agent by name (table in the module doc), options after a colon, or a model path.

    ``pretrained`` resolves to ``agents/pretrained/<game>.zip``, choosing its entry by the
    shipped leave network ``agents/pretrained/<game>_leave.pt`` and played through the shipped
    aim correction ``agents/pretrained/<game>_aim.pt`` where there are ones (keglebillard;
    ``pretrained:aim=none`` plays the model alone, ``leave=none`` without the leave,
    ``aim=<path>.pt`` / ``leave=<path>.pt`` other networks, and a ``.zip`` path takes both
    too; ``entries=<k>`` sets how many of the model's best strikes the leave, else the
    correction, chooses among, ``weight=<w>`` what a point the opponent is left counts,
    ``own=<s>`` the leave network's share of a shot's own points);
    while no trained model is
    shipped for the game it resolves to the planner and says so on stderr (its ``name`` is
    then ``pretrained=planner``): never a fake.
    """
    import os
    import sys

    from cuegym.agents.base import check_game

    check_game(game)
    if not isinstance(spec, str | os.PathLike):
        raise ValueError(f"agent spec must be a name or a model path (a string), got {spec!r}")
    if arena is not None and getattr(arena, "game", None) not in GAMES:
        raise ValueError(f"arena must be an arena of make_arena({game!r}), got {arena!r}")
    if arena is not None and arena.game != game:
        raise ValueError(f"arena is a {arena.game} arena, not {game}")
    # a path object is a model file, whatever its folders are called (a run named "run:1")
    name, _, opts = (os.fspath(spec), "", "") if isinstance(spec, os.PathLike) \
        else spec.partition(":")
    kw = _options(opts)
    for key in kwargs:  # the keyword replaced the spec's value without a word
        if key in kw:
            raise ValueError(f"agent option {key!r} is given twice: {kw[key]!r} in the spec "
                             f"{os.fspath(spec)!r} and {kwargs[key]!r} as a keyword")
    kw.update(kwargs)
    _check_name(kw)
    if Path(name).suffix == ".pt" or name == "expert":
        from cuegym.agents.expert import ExpertAgent

        path = PRETRAINED_DIR / f"{game}_expert.pt" if name == "expert" else packaged_path(name)
        if name == "expert" and not path.exists():
            raise ValueError(f"no expert network is shipped for {game} ({path})")
        _check_options(name if name == "expert" else "<path>.pt", ExpertAgent, kw)
        agent = ExpertAgent(path, arena=arena, **({"name": "expert"} if name == "expert" else
                                                 {"name": Path(name).stem}) | kw)
        if agent.game != game:
            raise ValueError(f"{path} is an expert network for {agent.game}, not {game}")
        return agent
    if name.endswith(".zip") or Path(name).suffix == ".zip":
        from cuegym.agents.sb3_agent import SB3Agent

        _check_shipped(kw, game)
        aim, leave, opts = _pop_trained_options(kw, None)
        _check_options("<path>.zip", SB3Agent, kw, _TRAINED_OPTIONS)
        return _trained(SB3Agent(packaged_path(name), game=game, arena=arena, **kw), arena, aim,
                        leave, opts)
    if name in _CLASSES:
        _check_options(name, _CLASSES[name], kw)
    if name == "random":
        return RandomAgent(game, arena=arena, **kw)
    if name == "geometric":
        return GeometricAgent(game, arena=arena, **kw)
    if name == "planner":
        return PlannerAgent(game, arena=arena, **{**planner_preset(game), **kw})
    if name == "guided":
        if kw.get("policy") in (None, "none") and "policy" in kw and kw.get("n_policy"):
            raise ValueError(f"guided: n_policy={kw['n_policy']!r} proposes that many of the "
                             "policy's strikes, but policy=none gives none")
        preset = planner_preset(game, "guided")
        defaults = {k: v.default for k, v in
                    inspect.signature(GuidedPlannerAgent.__init__).parameters.items()}
        _check_unread_options("guided", kw, {**defaults, **preset, **kw}, _GUIDED_STAGES)
        return GuidedPlannerAgent(game, arena=arena, **{**preset, **kw})
    if name == "pretrained":
        path = pretrained_path(game)
        _check_shipped(kw, game)
        aim, leave, opts = _pop_trained_options(kw, "shipped")
        if path is not None:
            from cuegym.agents.sb3_agent import SB3Agent

            _check_options(name, SB3Agent, kw, _TRAINED_OPTIONS, fixed=("name",))
            return _trained(SB3Agent(path, game=game, name="pretrained", arena=arena, **kw),
                            arena, aim, leave, opts)
        if aim not in (None, "none", "shipped") or leave not in (None, "none", "shipped") \
                or opts:
            raise ValueError(f"aim={aim!r}, leave={leave!r}, {opts}: no trained {game} agent "
                             "is shipped to correct")
        _check_options(name, PlannerAgent, kw, fixed=("name",))
        print(f"note: no trained {game} agent is shipped (agents/pretrained/{game}.zip); "
              "'pretrained' resolves to the best available agent, the planner", file=sys.stderr)
        return PlannerAgent(game, arena=arena, name="pretrained=planner",
                            **{**planner_preset(game), **kw})
    if Path(name).suffix or "/" in name or os.sep in name:  # "did you mean 'pretrained'" for
        # agents/pretrained/x.json would mislead: a path names a model by its suffix
        raise ValueError(f"unknown agent {name!r}: a model path ends in .zip (a "
                         "Stable-Baselines3 model) or .pt (an expert network)")
    raise ValueError(unknown("agent", name, NAMES) + " (or a model .zip or expert network .pt "
                     "path)")


__all__ = ["GAMES", "NAMES", "Agent", "GameResults", "GeometricAgent", "GolfbillardArena",
           "GuidedPlannerAgent", "KeglebillardArena", "PlannerAgent", "RandomAgent", "SB3Agent",
           "ShotNoise", "ShotRecord", "Strikes", "load_noise", "make_agent", "make_arena",
           "parse_options", "planner_preset", "play_games", "pretrained_aim_path",
           "pretrained_leave_path", "pretrained_path", "with_aim", "with_leave"]
