"""Hostile use and the Gymnasium / PettingZoo contracts of the golfbillard envs, as an RL user
would break them (the keglebillard round: test_envs_hostile.py, test_envs_conventions.py,
test_kegle_players_audit.py).

Actions of every wrong kind are refused with a ValueError naming the value and leave the game
(states, generators, counters) exactly as it was; make kwargs and reset options are checked;
observations stay in the space through kader play, penalty spots, game and match ends and
truncations; terminated / truncated at each end; the vector envs' autoreset (native same-step,
gymnasium's next-step); named opponents in duo and best-of-3 play. And the defects this audit
fixed, each with a test that failed before:

- a user's position bank was not checked: a ball off the cloth was played, overlapping balls
  raised a ZeroDivisionError at the first step, ragged arrays and penalty spot 9 went unnoticed;
- ``reset`` of the full-game env played one capped round of opponent strokes: a game the
  opponent ended before the learner's first stroke (``opening: alternate``, learner side 1), or
  ``max_opponent_shots`` reached, was returned as the start of an episode whose first step
  raised a RuntimeError;
- an opponent's answer was not checked: None or a tuple gave an AttributeError, a float ball
  index was cut to an int, a NaN strike reached the physics (a PhysicsInputError after the noise
  draws), none named the opponent;
- the step info did not report the opponent's strokes (``opponent_strokes``).
"""

from __future__ import annotations

import copy
import dataclasses
import warnings

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401  (registers the ids)
from cuegym.envs.actions import actions_from_strikes
from cuegym.envs.golf import OBS_INDEX
from cuegym.games.strikes import Strikes
from cuegym.rules.golf_codes import P_OPENING, P_OVER, P_PLAY
from cuegym.rules.golf_views import pack_states
from cuegym.rules.golfbillard import GolfState

SHOT, GAME = "cuegym/GolfbillardShot-v0", "cuegym/Golfbillard-v0"
GOOD = np.zeros(7, np.float32)

# an action that plays the learner's ball at (±0.80, 0) softly into its attack goal
SCORE = np.array([2 * (1.0 - 0.3) / 3.7 - 1, 0, -1, 0, 0, 0.9, 0], np.float32)


def _snapshot(core) -> dict:
    """Everything a step may change on a core: states, generators, counters."""
    snap = {"states": copy.deepcopy(core.states),
            "rngs": [copy.deepcopy(g.bit_generator.state) for g in core.rngs]}
    for name in ("side", "steps", "pov", "index", "done"):
        if hasattr(core, name):
            snap[name] = getattr(core, name).copy()
    return snap


def _same(a: dict, b: dict) -> bool:
    sa, sb = a["states"], b["states"]
    for f in dataclasses.fields(sa):
        if not np.array_equal(getattr(sa, f.name), getattr(sb, f.name), equal_nan=True):
            return False
    return a["rngs"] == b["rngs"] and all(
        np.array_equal(a[k], b[k]) for k in a if k not in ("states", "rngs"))


def _put(env, state: GolfState, side: int) -> None:
    """Put a rules state on the (single) env's table with the learner as ``side``."""
    core = env.unwrapped.core
    core.states = pack_states([state])
    core.side[:] = side


def _end_state(side: int = 0, **fields) -> GolfState:
    """Side ``side`` to move with one ball right before its attack goal (SCORE wins the game);
    the other side two balls."""
    s = 1.0 - 2.0 * side
    own, other = ("w", "r") if side == 0 else ("r", "w")
    return GolfState.with_balls({f"{own}1": (0.80 * s, 0.0), f"{other}1": (-0.5 * s, 0.2),
                                 f"{other}2": (-0.5 * s, -0.2)}, to_move=side, **fields)


# -- actions ---------------------------------------------------------------------------------

BAD_ACTIONS = [
    (np.full(7, np.nan, np.float32), r"action\[0\] is nan"),
    (np.array([0, 0, 0, 0, 0, 0, np.inf]), r"action\[6\] is inf"),
    (np.array([0, 0, 0, 0, 0, -np.inf, 0]), r"action\[5\] is -inf"),
    (np.array([0, 1.5, 0, 0, 0, 0, 0]), r"action\[1\] = 1.5 is outside \[-1, 1\]"),
    (np.array([0, 0, 0, 0, 0, 0, -1.01]), r"action\[6\] = -1.01 is outside"),
    (np.zeros(6), r"shape \(7,\), got \(6,\)"),
    (np.zeros(8), r"shape \(7,\), got \(8,\)"),
    (np.zeros((1, 7)), r"shape \(7,\), got \(1, 7\)"),
    (np.zeros((7, 1)), r"shape \(7,\), got \(7, 1\)"),
    (np.float32(0.1), r"shape \(7,\), got \(\)"),
    (0.5, r"shape \(7,\), got \(\)"),
    ([0.1] * 6, r"shape \(7,\), got \(6,\)"),
    (np.zeros(7, bool), "got dtype bool"),
    ([True] * 7, "got dtype bool"),
    (np.bool_(True), "got dtype bool"),
    (np.zeros(7, object), "got dtype object"),
    ([0.1] * 6 + [None], "got dtype object"),
    ("0.1", "must be numeric"),
    (None, "got dtype object"),
    (np.full(7, 0.1 + 0.2j), "got dtype complex128"),
    ([[0.1] * 7, [0.1] * 6], "must be numeric"),
    (np.ma.masked_array(np.zeros(7), mask=[1, 0, 0, 0, 0, 0, 0]), "masked entries"),
]


@pytest.mark.parametrize("env_id", [SHOT, GAME])
@pytest.mark.parametrize("bad, match", BAD_ACTIONS)
def test_refused_actions_name_the_value_and_change_nothing(env_id, bad, match):
    env = gym.make(env_id, seat=0) if env_id == GAME else gym.make(env_id)
    obs, _ = env.reset(seed=3)
    core = env.unwrapped.core
    before = _snapshot(core)
    with pytest.raises(ValueError, match=match):
        env.step(bad)
    assert _same(before, _snapshot(core))
    # the refusal left nothing behind: the next step is the one a fresh env plays
    twin = gym.make(env_id, seat=0) if env_id == GAME else gym.make(env_id)
    assert np.array_equal(twin.reset(seed=3)[0], obs)
    got, want = env.step(GOOD), twin.step(GOOD)
    assert np.array_equal(got[0], want[0]) and got[1:4] == want[1:4]


@pytest.mark.parametrize("env_id", [SHOT, GAME])
def test_ints_lists_and_other_real_dtypes_play_as_the_same_floats(env_id):
    kw = {"seat": 0} if env_id == GAME else {}
    forms = [np.zeros(7, np.float32), np.zeros(7, np.int64), [0] * 7, (0,) * 7, [0.0] * 7,
             np.zeros(7, np.uint8), np.zeros(7, np.float16), np.zeros(7, np.float64),
             np.zeros(7, np.longdouble), [np.float32(0)] * 7, [np.int8(0)] * 7]
    first = None
    for a in forms:
        env = gym.make(env_id, **kw)
        env.reset(seed=1)
        obs, r, te, tr, info = env.step(a)
        assert obs.dtype == np.float32 and env.observation_space.contains(obs)
        if first is None:
            first = (obs, r, te, tr)
        assert np.array_equal(obs, first[0]) and (r, te, tr) == first[1:], repr(a)
    # integer corners are the bounds, exactly
    env = gym.make(env_id, **kw)
    env.reset(seed=1)
    info = env.step([1, -1, 1, -1, 1, -1, 1])[4]
    assert info["strike"][0] == pytest.approx(4.0) and info["strike"][2] == pytest.approx(60.0)


def test_vector_env_refuses_bad_actions_and_changes_no_table():
    envs = gym.make_vec(GAME, num_envs=3, vectorization_mode="vector_entry_point")
    envs.reset(seed=0)
    core = envs.unwrapped.core
    before = _snapshot(core)
    a = np.zeros((3, 7), np.float32)
    for bad, match in [(np.where(np.eye(3, 7) > 0, np.nan, a), r"action\[0, 0\] is nan"),
                       (a[:2], r"shape \(3, 7\), got \(2, 7\)"),
                       (a[0], r"shape \(3, 7\), got \(7,\)"),
                       (np.full((3, 7), 2.0), r"action\[0, 0\] = 2.0 is outside"),
                       (a.astype(bool), "dtype bool")]:
        with pytest.raises(ValueError, match=match):
            envs.step(bad)
        assert _same(before, _snapshot(core))
    envs.step(a)


def test_clip_true_clips_out_of_range_but_never_nan():
    env = gym.make(GAME, seat=0, clip=True)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="must be finite"):
        env.step(np.full(7, np.nan))
    info = env.step(np.full(7, 5.0))[4]
    assert info["strike"][0] == pytest.approx(4.0)


@pytest.mark.parametrize("duo", [False, True])
def test_pettingzoo_refused_actions_change_nothing_even_mid_opening(duo):
    """Side 0's opening strike waits for side 1's: a refused side 1 action keeps it."""
    from cuegym.envs import golfbillard_v0

    env = golfbillard_v0.env(duo=duo)
    env.reset(seed=2)
    raw = env.unwrapped
    env.step(GOOD)  # side 0's opening strike, pending
    assert raw._pending is not None and raw.game_state.phase == "opening"
    for _ in range(4):
        states, pending = copy.deepcopy(raw.states), raw._pending
        rng = copy.deepcopy(raw.np_random.bit_generator.state)
        agent, cum = raw.agent_selection, dict(raw._cumulative_rewards)
        for bad, match in BAD_ACTIONS[:12]:
            with pytest.raises(ValueError, match=match):
                env.step(bad)
        assert _same({"states": states, "rngs": [rng]},
                     {"states": raw.states, "rngs": [raw.np_random.bit_generator.state]})
        assert raw._pending is pending and raw.agent_selection == agent
        assert raw._cumulative_rewards == cum
        env.step(GOOD)


# -- opponents' answers ----------------------------------------------------------------------


def _first_own(states) -> np.ndarray:
    """The side to move's first ball on the table, per state."""
    xy, to = np.asarray(states.xy), np.asarray(states.to_move)
    out = np.zeros(len(to), np.int64)
    for t in range(len(to)):
        own = [b for b in range(5 * to[t], 5 * to[t] + 5) if not np.isnan(xy[t, b, 0])]
        out[t] = own[0]
    return out


def _opponent(answer):
    class Opp:
        name = "hostile"

        def act(self, states, rng):
            return answer(states)

        def act_opening(self, states, side, rng):
            return answer(states, side)

    return Opp()


def _strikes(cue, states, side=None):
    T = len(states)
    balls = _first_own(states) if side is None else np.full(T, 5 * side)
    return Strikes(np.tile(np.asarray(cue, float), (T, 1)), balls, np.full((T, 2), np.nan))


HOSTILE_ANSWERS = [
    ("None", lambda st, side=None: None, r"act(_opening)?\(\) must return strikes.*NoneType"),
    ("tuple", lambda st, side=None: (np.zeros((len(st), 5)), np.zeros(len(st), int)),
     r"must return strikes .*got tuple"),
    ("float ball", lambda st, side=None: type("A", (), {
        "cue": np.tile([1.0, 0, 0, 0, 0], (len(st), 1)),
        "cue_ball": _first_own(st) + (5 * side if side else 0) + 0.7})(),
     "returned unusable strikes: cue_ball must hold integer ball indices"),
    ("nan V0", lambda st, side=None: _strikes([np.nan, 0, 0, 0, 0], st, side),
     r"the opponent's strike on table 0 has V0 = nan: strikes must be finite"),
    ("inf phi", lambda st, side=None: _strikes([1.0, np.inf, 0, 0, 0], st, side),
     r"the opponent's strike on table 0 has phi = inf"),
    ("wrong shape", lambda st, side=None: Strikes(np.zeros((len(st) + 1, 5)),
                                                  np.zeros(len(st) + 1, int),
                                                  np.full((len(st) + 1, 2), np.nan)),
     r"the opponent returned strikes of shape \(2, 5\)"),
]


@pytest.mark.parametrize("noise", ["none", "tournament"])
@pytest.mark.parametrize("name, answer, match", HOSTILE_ANSWERS,
                         ids=[h[0] for h in HOSTILE_ANSWERS])
def test_a_hostile_opening_answer_is_refused_naming_the_opponent_and_changes_nothing(
        name, answer, match, noise):
    """The opening's opponent strike is asked for before anything is played: a bad one is
    refused with the game, its generator and the step count as they were (was: an
    AttributeError, or a PhysicsInputError after the noise draws)."""
    env = gym.make(GAME, seat=0, noise=noise, opponent=_opponent(answer))
    env.reset(seed=0)
    core = env.unwrapped.core
    assert core.states.phase[0] == P_OPENING
    before = _snapshot(core)
    with pytest.raises(ValueError, match=match):
        env.step(GOOD)
    assert _same(before, _snapshot(core))


@pytest.mark.parametrize("name, answer, match", HOSTILE_ANSWERS[:5],
                         ids=[h[0] for h in HOSTILE_ANSWERS[:5]])
def test_a_hostile_play_answer_is_refused_naming_the_opponent(name, answer, match):
    """In play the learner's stroke is on the table before the opponent answers: the error
    names the opponent and the table must be reset (documented)."""
    from cuegym.envs.golf import default_opening

    class PlayOnly:
        name = "hostile in play"

        def act(self, states, rng):
            return answer(states)

    env = gym.make(GAME, seat=0, opponent=PlayOnly())
    env.reset(seed=0)
    rng = np.random.default_rng(123)  # not the env's stream: a mirrored opening repeats
    with pytest.raises(ValueError, match=match):
        for _ in range(60):  # until the opponent is to play
            core = env.unwrapped.core
            if core.states.phase[0] == P_OPENING:  # an opening that crosses the line
                a = np.zeros(7)
                a[:5] = actions_from_strikes(default_opening(core.states, 0, rng).cue,
                                             core.settings.action)[0]
            else:
                a = rng.uniform(-1, 1, 7)
            env.step(a)
    assert env.unwrapped.core.states.phase[0] == P_PLAY
    with pytest.raises(RuntimeError, match="opponents are to play"):
        env.step(GOOD)
    env.reset(seed=0)


def test_opponent_strikes_outside_the_physics_limits_without_noise_name_the_opponent():
    for cue, match in [([100.0, 0, 0, 0, 0], r"V0 = 100.0 is outside \[0, 20.0\]"),
                       ([-1.0, 0, 0, 0, 0], r"V0 = -1.0 is outside"),
                       ([1.0, 0, 0, 0.9, 0.9], r"a\^2 \+ b\^2 = 1.62 exceeds 1")]:
        env = gym.make(GAME, seat=0, opponent=_opponent(
            lambda st, side=None, c=cue: _strikes(c, st, side)))
        env.reset(seed=0)
        before = _snapshot(env.unwrapped.core)
        with pytest.raises(ValueError, match=r"the opponent's strike on table 0: " + match):
            env.step(GOOD)
        assert _same(before, _snapshot(env.unwrapped.core))
    # with noise they are clamped, as every executed strike is (documented)
    env = gym.make(GAME, seat=0, noise="tournament", opponent=_opponent(
        lambda st, side=None: _strikes([1.0, 0, 0, 0.9, 0.9], st, side)))
    env.reset(seed=0)
    env.step(GOOD)


def test_opponent_striking_a_ball_not_its_own_on_the_table_is_named():
    for ball, match in [(0, "struck ball 0, not an own ball on the table of side 1"),
                        (12, "struck ball 12"), (-1, "struck ball -1")]:
        def act(st, side=None, b=ball):
            s = _strikes([1.0, 0, 0, 0, 0], st, side)
            s.cue_ball[:] = b
            return s

        env = gym.make(GAME, seat=0, opponent=_opponent(act))
        env.reset(seed=0)
        before = _snapshot(env.unwrapped.core)
        with pytest.raises(ValueError, match=match):
            env.step(GOOD)  # the opening: refused before anything is played
        assert _same(before, _snapshot(env.unwrapped.core))


# -- position banks --------------------------------------------------------------------------


def _bank(n=4, **changes):
    from cuegym.envs.positions import load_positions

    full = load_positions("golfbillard")
    b = {f.name: np.array(getattr(full, f.name)[:n]) for f in dataclasses.fields(full)}
    for k, f in changes.items():
        b[k] = f(b[k])
    return type(full)(**b)


def _set(index, value):
    def f(a):
        a = a.copy()
        a[index] = value
        return a
    return f


BAD_BANKS = [
    ({"xy": _set((0, 0, 0), 5.0)}, r"positions\[0\]\.balls\.w1' at \(5\.0000.* off the cloth"),
    ({"xy": lambda a: np.concatenate([a[:, :1], a[:, :1], a[:, 2:]], 1)},
     r"positions\[0\]\.balls\.w1' and 'positions\[0\]\.balls\.w2' overlap"),
    ({"xy": _set((1, 3, 1), np.nan)}, r"positions\[1\]\.balls\.w4 must be finite"),
    ({"xy": _set((0, 0, 0), np.inf)}, r"positions\[0\]\.balls\.w1 must be finite"),
    ({"xy": _set((2, slice(0, 5)), np.nan)}, r"positions\[2\]\.balls: side 0 has no ball left"),
    ({"to_move": _set(1, 2)}, r"positions\[1\]\.to_move must be in 0\.\.1, got 2"),
    ({"to_move": _set(0, -1)}, r"positions\[0\]\.to_move must be in 0\.\.1, got -1"),
    ({"on_spot": _set((3, 4), 9)}, r"positions\[3\]\.on_spot must be in 0\.\.5"),
    ({"turns": _set(0, -4)}, r"positions\[0\]\.turns must be >= 0, got -4"),
    ({"xy": lambda a: a[:, :9]}, r"positions\.xy must have shape \(N, 10, 2\) with N = "
                                 r"len\(positions\.to_move\) = 4, got \(4, 9, 2\)"),
    ({"to_move": lambda a: a[:2]}, r"positions\.xy must have shape \(N, 10, 2\) with N = "
                                   r"len\(positions\.to_move\) = 2, got \(4, 10, 2\)"),
    ({"to_move": lambda a: a[:, None]}, r"positions\.to_move must have shape \(N,\)"),
    ({"kader": lambda a: np.full(a.shape, 2)}, r"positions\[0\]\.kader = 2: kader holds flags"),
    ({"duty": lambda a: a.astype(float) * 0.5}, r"positions\.duty must hold integers"),
    ({"xy": lambda a: a.astype(str)}, r"positions\.xy must hold real numbers, got dtype <U"),
]


@pytest.mark.parametrize("changes, match", BAD_BANKS)
def test_a_users_bank_is_checked_whole_when_the_env_is_made(changes, match):
    """Was: a ball off the cloth was played, overlapping balls raised ZeroDivisionError at the
    first step, a ragged bank or penalty spot 9 went unnoticed."""
    bank = _bank(**changes)
    with pytest.raises(ValueError, match=match):
        gym.make(SHOT, positions=bank)
    with pytest.raises(ValueError, match=match):
        gym.make_vec(SHOT, num_envs=2, vectorization_mode="vector_entry_point", positions=bank)


def test_a_valid_users_bank_plays_as_given_and_is_copied():
    bank = _bank(n=6, xy=lambda a: a.tolist())  # lists are arrays of real numbers too
    env = gym.make(SHOT, positions=bank)
    core = env.unwrapped.core
    assert core.bank.xy.dtype == np.float64 and core.bank.to_move.dtype == np.int64
    np.testing.assert_array_equal(core.bank.xy, np.array(bank.xy))
    for s in range(8):
        obs, info = env.reset(seed=s)
        assert 0 <= info["position_index"] < 6 and env.observation_space.contains(obs)
        env.step(GOOD)
    # the env keeps its own copy: the user's arrays changed later do not reach it
    raw = _bank(n=6)
    env = gym.make(SHOT, positions=raw)
    raw.xy[:] = 99.0
    assert np.all(np.abs(np.nan_to_num(env.unwrapped.core.bank.xy)) < 1.0)


def test_the_shipped_bank_passes_the_check_under_the_envs_rule_sets():
    from cuegym.envs.golf import golf_rules
    from cuegym.envs.golf_positions import check_golf_positions
    from cuegym.envs.positions import load_positions

    bank = load_positions("golfbillard")
    for rules in (None, {"duo": True}, {"match": "best_of_3"}, {"opening": "alternate"}):
        checked = check_golf_positions(bank, golf_rules(rules))
        for f in dataclasses.fields(bank):
            np.testing.assert_array_equal(getattr(checked, f.name), getattr(bank, f.name))


# -- reset: the opponent's first turn --------------------------------------------------------


def _scorer(states, rng):
    """Strikes the side to move's first ball on the table straight at its attack goal."""
    T = len(states)
    cue = np.tile([1.0, 0.0, 0.0, 0.0, 0.0], (T, 1))
    cue[:, 1] = np.where(np.asarray(states.to_move) == 0, 0.0, 180.0)
    return Strikes(cue, _first_own(states), np.full((T, 2), np.nan))


def _patched_new(core, first_state, times=1):
    """``core.game.new`` that starts the first ``times`` games from ``first_state``."""
    orig, calls = core.game.new, []

    def new(T, *, seed=0, **kw):
        calls.append(T)
        if len(calls) > times:
            return orig(T, seed=seed, **kw)
        b = pack_states([first_state] * T)
        b.seed[:] = seed
        return b

    core.game.new = new
    return calls


def test_reset_replaces_a_game_the_opponent_ends_before_the_learners_first_stroke():
    """``opening: alternate``, the learner side 1: the opponent's first turn is played in
    reset; a game it ends there is replaced (was: reset returned the finished game and the
    first step raised "step() on a finished game")."""
    env = gym.make(GAME, opponent=_scorer, seat=1, rules={"opening": "alternate"})
    core = env.unwrapped.core
    calls = _patched_new(core, _end_state(0))
    obs, info = env.reset(seed=0)
    assert len(calls) == 2 and info["side"] == 1
    assert core.states.phase[0] == P_PLAY and core.states.to_move[0] == 1
    assert obs[OBS_INDEX["to_move"]] == 1.0 and obs[OBS_INDEX["own_balls_left"]] == 1.0
    env.step(GOOD)


def test_reset_plays_the_opponents_whole_first_turn_whatever_max_opponent_shots():
    """Was: one round capped by ``max_opponent_shots`` (a step's bound), so a reset could leave
    the opponent to play and the first step raised "while the opponents are to play"."""
    start = GolfState.with_balls({"w1": (0.80, 0.0), "w2": (0.2, 0.3), "w3": (0.2, -0.3),
                                  "r1": (-0.5, 0.2), "r2": (-0.5, -0.2)}, to_move=0)
    env = gym.make(GAME, opponent=_scorer, seat=1, rules={"opening": "alternate"},
                   settings={"max_opponent_shots": 1})
    core = env.unwrapped.core
    _patched_new(core, start)
    env.reset(seed=0)
    assert core._learner_turn()[0]
    assert np.isnan(core.states.xy[0, 0, 0])  # the opponent scored w1 and kept the turn
    *_, info = env.step(GOOD)
    assert info["opponent_strokes"] <= 1  # a step's opponent strokes stay capped


def test_reset_gives_up_on_an_opponent_that_ends_every_game():
    env = gym.make(GAME, opponent=_scorer, seat=1, rules={"opening": "alternate"})
    core = env.unwrapped.core
    _patched_new(core, _end_state(0), times=10**6)
    with pytest.raises(RuntimeError, match=r"the opponents ended 100 new games in a row before "
                                           r"the learner's first shot \(tables \[0\]\)"):
        env.reset(seed=0)


def test_a_normal_reset_draws_as_before():
    """The replacement loop changes nothing when no game ends at reset: seat and seed draws."""
    env = gym.make(GAME, rules={"opening": "alternate", "spot_policy": "random"})
    sides = [env.reset(seed=s)[1]["side"] for s in range(12)]
    ref = []
    for s in range(12):
        g = np.random.default_rng(s)
        ref.append(int(g.random() < 0.5))
    assert sides == ref


# -- reset options, make kwargs, seeds -------------------------------------------------------


@pytest.mark.parametrize("env_id", [SHOT, GAME])
@pytest.mark.parametrize("options, match", [
    ({"positions": 3}, r"no reset options, got \['positions'\]"),
    ({"kader": True}, r"no reset options, got \['kader'\]"),
    ({"seat": 1}, r"no reset options, got \['seat'\]"),
    ({"reset_mask": [True]}, r"no reset options, got \['reset_mask'\]"),
    ([("seat", 1)], "reset options must be a mapping or None"),
    ("kader", "reset options must be a mapping or None"),
])
def test_reset_options_are_refused_and_the_env_stays_usable(env_id, options, match):
    env = gym.make(env_id)
    with pytest.raises(ValueError, match=match):
        env.reset(seed=0, options=options)
    a, _ = env.reset(seed=0, options={})
    b, _ = gym.make(env_id).reset(seed=0, options=None)
    assert np.array_equal(a, b)
    env.step(GOOD)


@pytest.mark.parametrize("env_id, kwargs, match", [
    (GAME, {"rules": {"duo": "yes"}}, "rules.duo must be true or false, got 'yes'"),
    (GAME, {"rules": {"match": "best_of_5"}}, r"rules.match must be one of"),
    (GAME, {"rules": {"kader": True}}, r"unknown golfbillard rule option key\(s\) \['kader'\]"),
    (GAME, {"rules": "best_of_3"}, "rules must be None, a mapping of rule options or a "
                                   "GolfRules, got 'best_of_3'"),
    (GAME, {"rules": {"pick_policy": "agent"}}, "pick_policy 'agent' needs the caller"),
    (GAME, {"seat": np.bool_(True)}, "seat must be 'random', 0 or 1"),
    (GAME, {"seat": 1.0}, "seat must be 'random', 0 or 1"),
    (GAME, {"opponent": "planer"}, "unknown opponent 'planer'"),
    (GAME, {"opponent": 3}, "an opponent must be 'random'"),
    (GAME, {"settings": {"max_steps": -1}}, "max_steps must be a positive integer"),
    (GAME, {"settings": {"max_opponent_shots": 1.5}}, "max_opponent_shots must be a positive"),
    (SHOT, {"positions": "golfbillard"}, "positions must be None or a GolfbillardPositions"),
    (SHOT, {"settings": {"positions": "keglebillard"}}, "is not a golfbillard bank"),
    (SHOT, {"clip": "no"}, "clip must be True or False"),
])
def test_make_kwargs_are_checked(env_id, kwargs, match):
    with pytest.raises(ValueError, match=match):
        gym.make(env_id, **kwargs)


def test_kwargs_one_env_does_not_take_are_a_type_error_naming_them():
    with pytest.raises(TypeError, match="unexpected keyword argument 'positions'"):
        gym.make(GAME, positions=None)
    with pytest.raises(TypeError, match="unexpected keyword argument 'opponent'"):
        gym.make(SHOT, opponent="random")


@pytest.mark.parametrize("rules", [None, {"duo": True, "match": "best_of_3"},
                                   {"opening": "alternate", "spot_policy": "random",
                                    "pick_policy": "random"}])
def test_same_seed_same_episode_and_reseeding_restarts(rules):
    def run(env, seed, n=12):
        obs, info = env.reset(seed=seed)
        out = [obs]
        rng = np.random.default_rng(9)
        for _ in range(n):
            obs, r, te, tr, info = env.step(rng.uniform(-1, 1, 7).astype(np.float32))
            out.append(np.append(obs, r))
            if te or tr:
                break
        return out

    kw = dict(rules=rules, noise="tournament")
    env = gym.make(GAME, **kw)
    a, b = run(env, 4), run(gym.make(GAME, **kw), 4)
    c = run(env, 4)  # the same env reseeded plays the same again
    assert len(a) == len(b) == len(c)
    assert all(np.array_equal(x, y) and np.array_equal(x, z)
               for x, y, z in zip(a, b, c, strict=True))
    d = run(env, 5)
    assert any(not np.array_equal(x, y) for x, y in zip(a, d, strict=False))


# -- observations, ends ----------------------------------------------------------------------


@pytest.mark.parametrize("side", [0, 1])
def test_the_winning_stroke_terminates_with_the_result(side):
    env = gym.make(GAME, seat=side)
    env.reset(seed=0)
    _put(env, _end_state(side), side)
    obs, r, te, tr, info = env.step(SCORE)
    assert te and not tr
    assert info["game_over"] and info["winner"] == 1 and info["reward_terms"]["result"] == 1.0
    assert info["balls_left"].tolist() == [0, 2] and info["opponent_strokes"] == 0
    assert obs[OBS_INDEX["to_move"]] == 0.0 and obs[OBS_INDEX["own_games_won"]] == 1.0
    assert env.observation_space.contains(obs) and obs.dtype == np.float32
    with pytest.raises(RuntimeError, match="no episode is running"):
        env.step(GOOD)


@pytest.mark.parametrize("side", [0, 1])
def test_best_of_three_a_game_won_goes_on_and_the_match_won_terminates(side):
    env = gym.make(GAME, seat=side, rules={"match": "best_of_3"})
    env.reset(seed=0)
    _put(env, _end_state(side), side)
    obs, r, te, tr, info = env.step(SCORE)
    assert not te and not tr and not info["game_over"] and info["winner"] == 0
    assert obs[OBS_INDEX["own_games_won"]] == 0.5 and obs[OBS_INDEX["opening"]] == 1.0
    assert obs[OBS_INDEX["to_move"]] == 1.0 and env.observation_space.contains(obs)
    won = np.array([0, 0])
    won[side] = 1
    _put(env, _end_state(side, game_no=1, games_won=won, winner=side), side)
    obs, r, te, tr, info = env.step(SCORE)
    assert te and not tr and info["winner"] == 1 and info["reward_terms"]["result"] == 1.0
    assert obs[OBS_INDEX["own_games_won"]] == 1.0 and obs[OBS_INDEX["to_move"]] == 0.0
    with pytest.raises(RuntimeError, match="no episode is running"):
        env.step(GOOD)


def test_max_steps_truncates_without_game_over_and_the_step_after_is_refused():
    env = gym.make(GAME, seat=0, settings={"max_steps": 3})
    assert env.spec.max_episode_steps == 3
    env.reset(seed=0)
    ends = [env.step(GOOD)[2:5] for _ in range(3)]
    assert [(te, tr) for te, tr, _ in ends] == [(False, False)] * 2 + [(False, True)]
    info = ends[-1][2]
    assert not info["game_over"] and info["reward_terms"]["result"] == 0.0
    with pytest.raises(RuntimeError, match="no episode is running"):
        env.step(GOOD)


def test_the_shot_env_never_truncates_and_refuses_a_second_step():
    env = gym.make(SHOT)
    for s in range(5):
        obs, info = env.reset(seed=s)
        assert obs[OBS_INDEX["to_move"]] == 1.0
        obs, r, te, tr, info = env.step(GOOD)
        assert te and not tr and obs[OBS_INDEX["to_move"]] == 0.0
        with pytest.raises(RuntimeError, match="no episode is running"):
            env.step(GOOD)


def _obs_ok(space, obs) -> None:
    assert obs.dtype == np.float32 and obs.shape == (43,)
    assert space.contains(obs), np.flatnonzero((obs < space.low) | (obs > space.high))


def test_shot_env_observations_over_kader_and_penalty_spot_positions():
    """Bank positions in kader play and with balls on penalty spots, and the positions the
    strokes leave: every observation in the space."""
    from cuegym.envs.positions import load_positions

    bank = load_positions("golfbillard")
    envs = gym.make_vec(SHOT, num_envs=32, vectorization_mode="vector_entry_point",
                        noise="tournament")
    core = envs.unwrapped.core
    obs, _ = envs.reset(seed=0)
    seen_kader = seen_spot = 0
    rng = np.random.default_rng(0)
    for _ in range(8):
        for o in obs:
            _obs_ok(envs.single_observation_space, o)
        seen_kader += int(bank.kader[core.index].sum())
        seen_spot += int((bank.on_spot[core.index] > 0).any(1).sum())
        obs, r, te, tr, info = envs.step(rng.uniform(-1, 1, (32, 7)))
        for o in info["final_obs"]:
            _obs_ok(envs.single_observation_space, o)
        assert te.all() and not tr.any() and np.isfinite(r).all()
    assert seen_kader > 0 and seen_spot > 0


@pytest.mark.parametrize("kw", [
    {"opponent": "geometric", "rules": {"duo": True, "match": "best_of_3"}},
    {"opponent": "geometric", "rules": {"opening": "alternate"}, "noise": "tournament"},
    {"rules": {"spot_policy": "random", "pick_policy": "random"}},
])
def test_full_games_keep_every_observation_in_the_space_to_their_end(kw):
    env = gym.make(GAME, **kw)
    rng = np.random.default_rng(0)
    for ep in range(2):
        obs, info = env.reset(seed=ep)
        _obs_ok(env.observation_space, obs)
        assert info["side"] in (0, 1)
        for _ in range(600):
            obs, r, te, tr, info = env.step(rng.uniform(-1, 1, 7))
            _obs_ok(env.observation_space, obs)
            assert np.isfinite(r) and isinstance(te, bool) and isinstance(tr, bool)
            assert set(info) == set(env.unwrapped.core.INFO_KEYS)
            if te or tr:
                assert not (te and tr)
                assert tr or (info["game_over"] and info["winner"] != 0)
                if info["game_over"]:
                    assert obs[OBS_INDEX["to_move"]] == 0.0
                break
        else:
            raise AssertionError("no end in 600 steps")


# -- named opponents -------------------------------------------------------------------------


@pytest.mark.parametrize("opponent", ["random", "geometric"])
@pytest.mark.parametrize("rules", [{"duo": True}, {"match": "best_of_3"},
                                   {"duo": True, "match": "best_of_3", "opening": "alternate"}])
def test_named_opponents_play_their_strokes_and_info_reports_them(opponent, rules):
    _check_opponent_moves(opponent, rules, steps=25)


@pytest.mark.slow
@pytest.mark.parametrize("rules", [{"duo": True}, {"duo": True, "match": "best_of_3"}])
def test_the_planner_opponent_in_duo_and_best_of_three(rules):
    _check_opponent_moves("planner", rules, steps=15)


def _check_opponent_moves(opponent, rules, steps):
    """Each step: the opponent's strokes are on the table (the state moved on by as many
    strokes as info says, on the opponent's arena of the env's rules), and its scored balls
    are in the reward terms."""
    env = gym.make(GAME, opponent=opponent, rules=rules, seat=0)
    core = env.unwrapped.core
    if opponent != "random":
        assert core.opponent.arena.rules == core.rules  # made for the env's rules
    played = core.game.play
    strokes = []

    def counting(states, strikes, *a, **k):
        active = k.get("active")
        strokes.append(np.ones(1, bool) if active is None else np.asarray(active).copy())
        return played(states, strikes, *a, **k)

    core.game.play = counting
    env.reset(seed=1)
    env.action_space.seed(1)
    strokes.clear()
    total = 0
    for _ in range(steps):
        left_before = core.states.balls_left[0].copy()
        game_before = int(core.states.game_no[0])
        obs, r, te, tr, info = env.step(env.action_space.sample())
        n_opp = int(info["opponent_strokes"])
        assert len(strokes) == 1 + n_opp  # the learner's stroke, then the opponent's
        assert n_opp == 0 or core.states.phase[0] == P_OVER or core.states.to_move[0] == 0
        if n_opp == 0 and not (te or tr):
            assert info["turn_kept"] or info["opening"] or core.states.to_move[0] == 0
        total += n_opp
        strokes.clear()
        scored = info["reward_terms"]["opponent_scored"]
        assert scored >= 0 and (n_opp > 0 or scored == 0)
        assert ((core.states.balls_left[0] <= left_before).all() or info["foul"] or n_opp
                or core.states.game_no[0] != game_before)  # best of 3: the next game's rack
        if te or tr:
            env.reset(seed=2)
            strokes.clear()
    assert total > 0


# -- vector envs: autoreset ------------------------------------------------------------------


def test_native_same_step_autoreset_counts_and_final_infos():
    n = 4
    envs = gym.make_vec(GAME, num_envs=n, vectorization_mode="vector_entry_point",
                        settings={"max_steps": 5}, rules={"match": "best_of_3"})
    core = envs.unwrapped.core
    resets = np.zeros(n, np.int64)
    orig = core.reset

    def counting(idx):
        resets[idx] += 1
        return orig(idx)

    core.reset = counting
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = np.zeros(n, np.int64)
    for _ in range(12):
        obs, r, te, tr, info = envs.step(rng.uniform(-1, 1, (n, 7)))
        done = te | tr
        ended += done
        for o in obs:
            _obs_ok(envs.single_observation_space, o)
        if done.any():
            assert info["_final_obs"].tolist() == done.tolist()
            for t in np.flatnonzero(done):
                _obs_ok(envs.single_observation_space, info["final_obs"][t])
            assert (core.steps[done] == 0).all()
            assert info["_side"][done].all()  # the new episodes' reset info
            assert info["final_info"]["_opponent_strokes"].tolist() == done.tolist()
    assert resets.tolist() == (1 + ended).tolist() and ended.sum() >= n


def test_gymnasium_next_step_autoreset_matches_the_native_same_step_reset():
    """gymnasium's default vectorisation (NEXT_STEP): the step after an episode's end resets
    that table, with reward 0 and no end, to the observation the native env's same-step
    autoreset gives, and ignores its action."""
    kw = dict(settings={"max_steps": 2}, noise="tournament")
    native = gym.make_vec(GAME, 2, vectorization_mode="vector_entry_point", **kw)
    sync = gym.make_vec(GAME, 2, vectorization_mode="sync", **kw)
    assert sync.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    o1, _ = native.reset(seed=3)
    o2, _ = sync.reset(seed=3)
    assert np.array_equal(o1, o2)
    rng = np.random.default_rng(1)
    a = [rng.uniform(-1, 1, (2, 7)) for _ in range(2)]
    for k in range(2):
        n_out, s_out = native.step(a[k]), sync.step(a[k])
        np.testing.assert_array_equal(n_out[1], s_out[1])
        np.testing.assert_array_equal(n_out[3], s_out[3])
    assert n_out[3].all() and s_out[3].all()  # truncated at max_steps on both tables
    assert "final_obs" not in s_out[4]
    np.testing.assert_array_equal(n_out[4]["final_obs"][0], s_out[0][0])
    r_obs, r, te, tr, _ = sync.step(np.full((2, 7), 0.7))  # ignored: the reset step
    assert r.tolist() == [0.0, 0.0] and not te.any() and not tr.any()
    np.testing.assert_array_equal(r_obs, n_out[0])


def test_pettingzoo_observations_and_ends_in_duo_best_of_three():
    from cuegym.envs import golfbillard_v0

    env = golfbillard_v0.env(duo=True, rules={"match": "best_of_3"}, max_shots=400)
    env.reset(seed=5)
    ends = {}
    for agent in env.agent_iter(max_iter=5000):
        obs, r, te, tr, info = env.last()
        for a in env.possible_agents:
            _obs_ok(env.observation_space(a), env.observe(a))
        if te or tr:
            ends[agent] = (te, tr)
            env.step(None)
            continue
        env.step(env.action_space(agent).sample())
    raw = env.unwrapped
    assert set(ends) == set(env.possible_agents) and len(set(ends.values())) == 1
    te, tr = next(iter(ends.values()))
    over = raw.game_state.phase == "over"
    assert te == (over and not raw.game.ended_by_no_progress(raw.states)[0])
    assert tr == (not te)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="the game is over"):
            raw.step(GOOD)


def test_cards_document_every_info_key():
    import re

    from cuegym.envs.golf import GolfGameCore, GolfShotCore
    from cuegym.envs.golfbillard import GolfbillardEnv, GolfbillardShotEnv

    for cls, core in ((GolfbillardShotEnv, GolfShotCore), (GolfbillardEnv, GolfGameCore)):
        doc = re.sub(r"\s+", " ", cls.__doc__.split("``info``", 1)[1])
        for key in core.INFO_KEYS:
            assert f"``{key}``" in doc, (cls.__name__, key)
    assert "Reset ``info``: ``side``" in re.sub(r"\s+", " ", GolfbillardEnv.__doc__)
    assert "Reset ``info``: ``position_index``" in re.sub(r"\s+", " ",
                                                         GolfbillardShotEnv.__doc__)


def test_pettingzoo_duo_takes_a_numpy_bool_and_refuses_other_values():
    """Was: ``duo=np.bool_(True)`` refused ("duo must be true or false, got np.True_"), while
    ``clip`` and the Gym envs' flags take numpy bools."""
    from cuegym.envs import golfbillard_v0

    env = golfbillard_v0.raw_env(duo=np.bool_(True))
    assert env.duo is True and len(env.possible_agents) == 4
    assert golfbillard_v0.raw_env(duo=np.bool_(False), clip=np.bool_(True)).duo is False
    for bad in (1, "yes", None, np.int64(1), 1.0):
        with pytest.raises(ValueError, match="duo must be true or false"):
            golfbillard_v0.raw_env(duo=bad)


def _one_position_bank(state: GolfState):
    from cuegym.envs.golf_positions import GolfbillardPositions

    return GolfbillardPositions(
        xy=state.xy[None].copy(), to_move=np.array([state.to_move]),
        kader=np.array([state.kader]), duty=state.duty[None].copy(),
        duty_met=np.array([state.duty_met]), turn_strokes=np.array([state.turn_strokes]),
        turn_scored=np.array([state.turn_scored]), on_spot=state.on_spot[None].copy(),
        fouled_spots=state.fouled_spots[None].copy(), turns=np.array([state.turns]),
        idle_turns=np.array([state.idle_turns]))


@pytest.mark.parametrize("side", [0, 1])
def test_the_selection_never_strikes_an_opponent_or_a_scored_ball(side):
    """The aimed point picks the own ball on the table nearest it: aiming at an opponent's
    ball, at a scored ball's old place or far off the table still strikes an own ball."""
    own, other = ("w", "r") if side == 0 else ("r", "w")
    state = GolfState.with_balls({f"{own}2": (0.3, 0.3), f"{own}4": (-0.3, -0.3),
                                  f"{other}1": (0.0, 0.0), f"{other}3": (0.6, -0.2)},
                                 to_move=side)
    env = gym.make(SHOT, positions=_one_position_bank(state))
    s = 1.0 - 2.0 * side
    mine = {5 * side + 1, 5 * side + 3}
    for aim in [(0.0, 0.0), (0.6, -0.2), (s * -0.9, s * 0.9), (1.0, 1.0), (-1.0, -1.0),
                (s * 0.3 / 0.9, s * 0.3 / 0.45)]:
        env.reset(seed=0)
        a = np.array([-0.5, 0, -1, 0, 0, *aim], np.float32)
        info = env.step(a)[4]
        assert info["cue_ball"] in mine and info["foul_rule"] != "G-18", (aim, info)


def test_the_opening_ignores_the_selection_part_of_the_action():
    outs = []
    for sel in [(0.0, 0.0), (1.0, 1.0), (-1.0, 0.3)]:
        env = gym.make(GAME, seat=1)
        env.reset(seed=4)
        obs, r, te, tr, info = env.step(np.array([-0.4, 0.1, -1, 0, 0, *sel], np.float32))
        assert info["opening"] and info["cue_ball"] == 5  # side 1's middle ball, r1 (G-3)
        outs.append((obs, r))
    assert all(np.array_equal(o, outs[0][0]) and r == outs[0][1] for o, r in outs)
