"""The one interface every agent implements. The strike batch it returns
(:class:`~cuegym.games.strikes.Strikes`) and the execution noise
(:class:`~cuegym.games.noise.ShotNoise`) live in the game layer and are re-exported here.

An agent acts on a batch of *game states* (keglebillard: a
:class:`~cuegym.games.kegle_state.KegleStates` batch from the game layer, or a list of rules
:class:`~cuegym.rules.keglebillard_game.GameState` values -- iterating a batch gives those
values; golfbillard: a list of :class:`~cuegym.rules.golfbillard.GolfState`) and returns one
strike per state as a :class:`Strikes` batch. Game states need no environment; an agent that
works on env observations (``SB3Agent``) turns states into observations itself, so every agent
plays through the same call and the same tournament code (``cuegym.agents.arena``).

Strike parameters are those of the physics API (docs/physics_api.md): ``V0`` cue speed [m/s],
``phi`` aim [deg, 0 = +x, 90 = +y], ``theta`` cue elevation [deg], ``a`` side and ``b`` top/back
spin (cue-tip offsets / R).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from cuegym.cli_errors import check_int, unknown  # noqa: F401 (check_int re-exported)
from cuegym.configs import text_number_hint
from cuegym.games.noise import ShotNoise, load_noise  # noqa: F401 (re-exported)
from cuegym.games.strikes import SPIN_MAX, THETA_MAX, V0_MAX, Strikes  # noqa: F401 (re-exported)

GAMES = ("keglebillard", "golfbillard")


@contextmanager
def global_rngs_kept(seed: int | None = None) -> Iterator[None]:
    """Run the block with the process's global generators (``random``, ``numpy.random``,
    torch's CPU generator) saved before and restored after, seeded from ``seed`` inside when
    given. SB3 reseeds all three when it loads a model (with the seed it was saved with) and
    samples a stochastic policy from them, and building a network draws its initial weights
    from torch's: loading an agent must not move its caller's streams, and an agent's own
    draws must come from the generator it is given."""
    import torch

    saved = random.getstate(), np.random.get_state(), torch.get_rng_state()
    try:
        if seed is not None:
            random.seed(seed)
            np.random.seed(seed % 2**32)
            torch.manual_seed(seed)
        yield
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])
        torch.set_rng_state(saved[2])


def load_torch_file(path: Any, what: str) -> Any:
    """The tensors and plain data saved in the torch file ``path`` (``weights_only``: no code
    runs); a file torch cannot read (not a torch file, cut short) is a ValueError naming it as
    ``what``."""
    import pickle

    import torch

    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError) as e:
        raise ValueError(f"{path} is not a readable {what} file ({unreadable_reason(e)})"
                         ) from None
    except (KeyError, IndexError, TypeError, AttributeError, OverflowError,
            UnicodeDecodeError) as e:  # bytes that are not a torch file, read as a legacy
        # pickle ("hello" is the opcode h, a memo look-up: KeyError 101)
        raise ValueError(f"{path} is not a readable {what} file (not a torch file: "
                         f"{type(e).__name__} {unreadable_reason(e)})") from None


def unreadable_reason(exc: BaseException) -> str:
    """Why a saved file could not be read, in a few words: ``not a torch file`` for torch's
    unpickling refusal (its own message is about ``weights_only``), else the first line of
    the error (or its type)."""
    import pickle

    if isinstance(exc, pickle.UnpicklingError):
        return "not a torch file"
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else type(exc).__name__


def check_game(game: str) -> str:
    """Return ``game`` if it is a known game name, else raise ValueError naming it."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; known: {list(GAMES)}")
    return game


def check_states(game: str, states: Any, method: str = "act()") -> None:
    """Refuse what is not a batch of ``game``'s game states before an agent reads it: env
    observations (arrays), one state instead of a batch, or the other game's states; the
    error says what ``method`` takes. Cheap: a state batch passes on its type, a list on its
    items' types."""
    from cuegym.games.kegle_state import KegleStates
    from cuegym.rules.golf_arrays import GolfStates
    from cuegym.rules.golfbillard import GolfState
    from cuegym.rules.keglebillard_game import GameState

    own, other = ((KegleStates, GameState), (GolfStates, GolfState)) \
        if game == "keglebillard" else ((GolfStates, GolfState), (KegleStates, GameState))
    takes = (f"a batch of {game} game states ({own[0].__name__}, or a list of "
             f"{own[1].__name__})")
    if isinstance(states, own[0]):
        return
    if isinstance(states, np.ndarray | np.generic | str | bytes | int | float | own[1]) or \
            isinstance(states, other) or not hasattr(states, "__len__"):
        shown = f"an array of shape {np.shape(states)}" \
            if isinstance(states, np.ndarray | np.generic) else type(states).__name__
        hint = " (env observations are made from states: an env's states are " \
               "env.unwrapped.core.states)" if isinstance(states, np.ndarray) else ""
        raise ValueError(f"{method} takes {takes}, got {shown}{hint}")
    if not isinstance(states, list | tuple):  # a dict, a set, a generator's list view...
        raise ValueError(f"{method} takes {takes}, got {type(states).__name__}")
    fields = _field_names(own[1])
    for t, s in enumerate(states):
        # a state of the game's class, or a copy of that class with its fields (the frozen
        # reference flows of the tests); anything else would fail deep inside an aimer
        if not isinstance(s, own[1]) and (isinstance(s, other) or not fields <= _field_names(s)):
            raise ValueError(f"{method} takes {takes}, got states[{t}] of type "
                             f"{type(s).__name__}")


def _field_names(obj: Any) -> frozenset[str]:
    """The dataclass fields of ``obj`` (an instance or a class); none for anything else."""
    import dataclasses

    return frozenset(f.name for f in dataclasses.fields(obj)) \
        if dataclasses.is_dataclass(obj) else frozenset()


class Agent(ABC):
    """An agent for one game: a batched policy over game states.

    Subclasses set ``game`` and implement :meth:`act`. ``rng`` is the caller's generator: every
    random choice an agent makes comes from it, so a seeded tournament is reproducible.
    """

    #: ``"keglebillard"`` or ``"golfbillard"``.
    game: str = ""
    #: short name used in tables and charts.
    name: str = "agent"

    @abstractmethod
    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        """One strike per state; each state is a position where this agent is to play.

        Args:
            states: T game states of this agent's game, none of them over.
            rng: the caller's random generator.

        Returns:
            :class:`Strikes` of length T (keglebillard: ``place`` is set exactly where the state
            has the red in hand; golfbillard: ``cue_ball`` is one of the shooter's own balls).
        """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Every subclass's ``act`` (and ``act_opening``) first checks, once and before any
        work, its ``states`` (:func:`checked_states`: what they are, their table, and a state
        batch's arrays as the game layer checks them), ``side``, ``rng`` (:func:`check_rng`)
        and that no state is a finished game (:func:`check_live`): a wrong input is a
        ValueError saying what the method takes (for a malformed batch: the caller's field and
        row), not an AttributeError or IndexError deep inside an aimer or a numba kernel, nor
        a strike for a game that is over."""
        super().__init_subclass__(**kwargs)
        import functools

        act = cls.__dict__.get("act")
        if act is not None and not getattr(act, "_checks_states", False):
            @functools.wraps(act)
            def checked_act(self, states, rng, *args, **kw):
                states = checked_states(self, states)
                check_rng(rng, self, states)
                check_live(self.game, states)
                if self.game == "golfbillard":
                    check_not_opening(states)
                return act(self, states, rng, *args, **kw)

            checked_act._checks_states = True
            cls.act = checked_act
        opening = cls.__dict__.get("act_opening")
        if opening is not None and not getattr(opening, "_checks_states", False):
            @functools.wraps(opening)
            def checked_opening(self, states, side, rng, *args, **kw):
                states = _opening_checks(self, states, side, rng)
                return opening(self, states, side, rng, *args, **kw)

            checked_opening._checks_states = True
            cls.act_opening = checked_opening

    def act_opening(self, states: Sequence[Any], side: int, rng: np.random.Generator) -> Strikes:
        """Golfbillard G-3 opening: this agent's strike of its middle ball for ``side``.

        The default is the rules' soft stroke off the left long cushion
        (:func:`cuegym.rules.golfbillard_game.opening_strike`) at a cue speed near 1.1 m/s.
        """
        states = _opening_checks(self, states, side, rng)
        from cuegym.rules.golfbillard_game import opening_balls, opening_strike

        out = Strikes.empty(len(states))
        for t, st in enumerate(states):
            ball = opening_balls(st)[side]
            out.cue[t] = opening_strike(st, side, ball, V0=1.1 + 0.05 * rng.standard_normal())
            out.cue_ball[t] = ball
        return out

    def reset(self) -> None:  # noqa: B027 - optional hook
        """Forget anything remembered between games (most agents remember nothing)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r}, name={self.name!r})"


def _opening_checks(agent: Any, states: Any, side: Any, rng: Any) -> Any:
    """What every ``act_opening`` checks before any work: the game, the states and ``side``
    (:func:`_check_opening`), a state batch's arrays (:func:`check_batch`), ``rng``, no
    finished match, and states in their opening. Returns the states to play (those of
    :func:`check_batch`)."""
    _check_opening(agent.game, states, side)
    states = check_batch(agent, states)
    check_rng(rng, agent, states)
    check_live(agent.game, states, "act_opening()")
    check_opening(states)
    return states


def _check_opening(game: str, states: Any, side: Any) -> None:
    if game != "golfbillard":  # was: an AttributeError deep in the golfbillard rules
        raise ValueError(f"act_opening is golfbillard's G-3 opening; {game} has no opening "
                         "stroke (act() plays every shot, the break included)")
    check_states(game, states)
    if isinstance(side, bool | np.bool_) or not isinstance(side, int | np.integer) or \
            side not in (0, 1):
        raise ValueError(f"side must be 0 or 1, got {side!r}")


def checked_states(agent: Any, states: Any, method: str = "act()") -> Any:
    """``states`` as ``agent``'s ``act`` (or another ``method`` that reads positions, such as
    :meth:`ExpertAgent.value <cuegym.agents.expert.ExpertAgent.value>`) takes them, checked
    before any work: what they are (:func:`check_states`), their table (:func:`check_table`)
    and a state batch's arrays (:func:`check_batch`). Returns the states to read (those of
    :func:`check_batch`)."""
    check_states(agent.game, states, method)
    check_table(agent, states)
    return check_batch(agent, states)


def check_table(agent: Any, states: Any) -> None:
    """Refuse states (already checked by :func:`check_states`) of another table than the one
    ``agent`` aims, searches and observes on (``agent.arena.table``): a list of rules states
    whose ``table`` differs, or a keglebillard state batch whose ``table`` does (helmatch
    positions were played as kleinmatch ones without a word). An agent without an arena is
    not checked."""
    table = getattr(getattr(getattr(agent, "arena", None), "table", None), "name", None)
    if not isinstance(table, str):
        return
    who = getattr(agent, "name", agent)
    fix = "(make it with arena=make_arena(..., table={!r}))"
    own = getattr(states, "table", None)  # a KegleStates batch names its table
    if isinstance(own, str) and not isinstance(states, list | tuple):
        if own != table:
            raise ValueError(f"states.table = {own!r}: the batch holds positions on that "
                             f"table, and {who!r} plays on {table!r} {fix.format(own)}")
        return
    if not isinstance(states, list | tuple) or not states:
        return
    for t, s in enumerate(states):
        own = getattr(s, "table", None)
        if isinstance(own, str) and own != table:
            raise ValueError(f"states[{t}] is a position on the table {own!r}, and "
                             f"{who!r} plays on {table!r} {fix.format(own)}")


def check_batch(agent: Any, states: Any) -> Any:
    """A state batch (``KegleStates`` / ``GolfStates``, already checked by
    :func:`check_states`) checked as the game layer checks one where it enters a kernel
    (``arena.g._checked``: shapes, dtypes, index ranges, balls finite and on the arena's
    table; :func:`cuegym.games.kegle_state.check_states` /
    :func:`cuegym.rules.golf_arrays.check_states` without the table's bounds for an agent
    without an arena). Done on the caller's batch, so that the ValueError names the caller's
    field and row (``states.hand[1] = 7``), not an IndexError or a row of a search's own
    repeated batch. A few numpy operations; a list of states is returned as it is (the game
    layer packs and checks it where it is read).

    Returns:
        ``states``, or (a field of another dtype) the batch with that field converted, as
        the game layer plays it; never the caller's arrays changed.
    """
    from cuegym.games.kegle_state import KegleStates
    from cuegym.games.kegle_state import check_states as kegle_check
    from cuegym.rules.golf_arrays import GolfStates
    from cuegym.rules.golf_arrays import check_states as golf_check

    if not isinstance(states, KegleStates | GolfStates):
        return states
    checked = getattr(getattr(getattr(agent, "arena", None), "g", None), "_checked", None)
    if callable(checked):
        return checked(states)
    return kegle_check(states) if isinstance(states, KegleStates) else golf_check(states)


def check_arena(arena: Any, game: str) -> Any:
    """``arena`` if it is None or an arena of ``game`` (``make_arena(game)``, or a wrapper
    with its ``game``); else a ValueError naming it: an arena of the other game, or anything
    else, was taken without a word and failed at the first ``act`` with an AttributeError."""
    if arena is not None and getattr(arena, "game", None) != game:
        raise ValueError(f"arena must be a {game} arena (make_arena({game!r})), got "
                         f"{arena!r}")
    return arena


def check_rng(rng: Any, agent: Any = None, states: Any = None) -> None:
    """``rng``: the caller's ``numpy.random.Generator``; every agent takes one (None too is
    refused, for every agent alike: a seed such as 0, a ``RandomState`` or None is a ValueError
    naming ``rng``, not silently ignored or failing deep inside). A list of T generators (row
    t drawn from ``rng[t]``) is taken only by an agent with ``per_table_rngs = True``, and
    must have one generator per state."""
    if isinstance(rng, np.random.Generator):
        return
    per_table = bool(getattr(agent, "per_table_rngs", False)) if agent is not None else True
    if isinstance(rng, list | tuple) and rng and \
            all(isinstance(r, np.random.Generator) for r in rng):
        if not per_table:
            raise ValueError(f"rng must be one numpy.random.Generator: {agent!r} draws every "
                             f"state from one generator, got a list of {len(rng)}")
        if states is not None and len(rng) != len(states):
            raise ValueError(f"rng: {len(rng)} generators for {len(states)} states (one per "
                             "state)")
        return
    raise ValueError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed) makes "
                     f"one), got {rng!r}")


def check_live(game: str, states: Any, method: str = "act()") -> None:
    """Refuse a batch (already checked by :func:`check_states`) that holds a finished game: an
    agent acts only where a player is to move. The error names the index of the first such
    state in ``states``. Vectorised on a state batch; one attribute read per state on a
    list."""
    if isinstance(states, np.ndarray | np.generic | str | bytes) or \
            not hasattr(states, "__len__") or not len(states):
        return
    if game == "keglebillard":
        over = getattr(states, "game_over", None)
        if not isinstance(over, np.ndarray):
            over = np.fromiter((bool(getattr(s, "game_over", False)) for s in states), bool,
                               len(states))
        what = "the game is over"
    else:
        over = getattr(states, "over", None)
        if not isinstance(over, np.ndarray):
            over = np.fromiter((getattr(s, "phase", None) == "over" for s in states), bool,
                               len(states))
        what = "the match is over"
    _refuse("states", np.asarray(over, bool).reshape(-1), what,
            f"{method} takes positions where a player is to move")


def _in_opening(states: Any) -> np.ndarray:
    """(n,) bool: which golfbillard states (checked by :func:`check_states`) are in their G-3
    opening (a state batch's phase codes, or a list's phase names)."""
    from cuegym.rules.golf_codes import P_OPENING

    phase = getattr(states, "phase", None)
    if isinstance(phase, np.ndarray):
        return (phase == P_OPENING).reshape(-1)
    return np.fromiter((s.phase == "opening" for s in states), bool, len(states))


def check_not_opening(states: Any) -> None:
    """Refuse golfbillard states in their G-3 opening: ``act`` plays a turn's stroke, and the
    opening's strikes come from ``act_opening``."""
    if len(states):
        _refuse("states", _in_opening(states), "the game is in its G-3 opening",
                "act_opening(states, side, rng) gives the opening strikes, act() a turn's")


def check_opening(states: Any) -> None:
    """Refuse golfbillard states (finished ones already refused) that are not in their G-3
    opening: ``act_opening`` struck a middle ball for a turn's stroke without a word."""
    if len(states):
        _refuse("states", ~_in_opening(states), "the game is past its G-3 opening",
                "act_opening(states, side, rng) takes opening positions, act() a turn's")


def _refuse(name: str, bad: np.ndarray, what: str, takes: str) -> None:
    """A ValueError naming the first row of ``bad`` (n,) bool and how many there are."""
    if bad.any():
        t = int(np.argmax(bad))
        n = int(bad.sum())
        more = f" ({n} of the {len(bad)} states are)" if n > 1 else ""
        raise ValueError(f"{name}[{t}]: {what}{more}; {takes}")


def check_numbers(name: str, values: Any, known: Any, lo: float = -np.inf, hi: float = np.inf
             ) -> dict[Any, float]:
    """A mapping of finite numbers in [lo, hi] with keys among ``known``; an unknown key would
    otherwise be silently ignored. (Also what expert iteration checks its teacher's ``terms``
    with, before its games.)"""
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise ValueError(f"{name} must be a mapping, got {values!r}")
    out = {}
    for k, v in values.items():
        if k not in known:
            raise ValueError(unknown(f"{name} key", k, list(known)))
        shown = f"{name}[{k!r}]" if not isinstance(k, int) else f"{name}[{k}]"
        if isinstance(v, bool | np.bool_) or not isinstance(v, int | float | np.number) or \
                not (np.isfinite(v) and lo <= v <= hi):
            bounds = f" in [{lo}, {hi}]" if np.isfinite(lo) and np.isfinite(hi) else \
                f" >= {lo}" if np.isfinite(lo) else ""
            raise ValueError(f"{shown} must be a finite number{bounds}, got {v!r}"
                             f"{text_number_hint(v)}")
        out[k] = float(v)
    return out


def check_value_terms(name: str, terms: Any, known: Sequence[str], lo: float = -np.inf,
                      hi: float = np.inf) -> dict[str, float]:
    """Value terms (keys among ``known``) as :func:`check_numbers` checks them, and
    golfbillard's ``idle_q`` a chance in [0, 1) (it was refused only where ``draw`` or ``lead``
    read it, and otherwise ignored without a word). The planners check theirs when made, the
    arenas' ``score`` at each call."""
    out = check_numbers(name, terms, known, lo, hi)
    q = out.get("idle_q")
    if q is not None and not 0.0 <= q < 1.0:
        raise ValueError(f"{name}['idle_q'] must be in [0, 1) (the chance that a turn scores, "
                         f"G-5), got {terms['idle_q']!r}")
    if q is not None and not any(out.get(k, 0.0) for k in ("draw", "lead")):
        raise ValueError(f"{name}['idle_q'] = {q!r} is read by the 'draw' and 'lead' terms "
                         "(the G-5 draw's chance), and neither is given: it would change nothing")
    return out
