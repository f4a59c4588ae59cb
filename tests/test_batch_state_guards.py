"""A user-edited batch of states (``GolfStates``, ``KegleStates``) is checked where it enters the
game layer (``Golf`` / ``Kegle``), before the compiled referee and flow index with it (they are
compiled without bounds checks): each hostile field is a ValueError naming the field, the table
and the value, raised before anything is changed or drawn; every valid batch (the shipped envs'
states, the shipped position banks) passes unchanged and plays as before. The keglebillard Shot
env checks a user's position bank whole when it is made.
"""

from __future__ import annotations

import dataclasses
import re

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401 (registers the env ids)
from cuegym.envs.positions import KeglebillardPositions, check_kegle_positions, load_positions
from cuegym.games import golf as golf_mod
from cuegym.games import kegle as kegle_mod
from cuegym.games.golf import Golf
from cuegym.games.kegle import Kegle
from cuegym.games.kegle_state import KegleStates
from cuegym.games.kegle_state import check_states as check_kegle
from cuegym.games.strikes import Strikes
from cuegym.rules.golf_arrays import GolfStates
from cuegym.rules.golf_arrays import check_states as check_golf
from cuegym.rules.golf_views import pack_states
from cuegym.rules.golfbillard import GolfState

NAN2 = (np.nan, np.nan)


@pytest.fixture(scope="module")
def G():
    return Golf({"match": "single"})


@pytest.fixture(scope="module")
def K():
    return Kegle()


def _snapshot(states) -> dict:
    return {f.name: getattr(states, f.name) for f in dataclasses.fields(states)} | {
        "_copies": {f.name: np.array(getattr(states, f.name), copy=True)
                    for f in dataclasses.fields(states)
                    if isinstance(getattr(states, f.name), np.ndarray)}}


def _unchanged(states, snap) -> bool:
    """The same array objects, holding the same values, dtypes and shapes."""
    for name, a in snap["_copies"].items():
        b = getattr(states, name)
        if b is not snap[name] or b.dtype != a.dtype or \
                not np.array_equal(a, b, equal_nan=a.dtype.kind == "f"):
            return False
    return True


def _rngs(T: int) -> list[np.random.Generator]:
    return [np.random.default_rng(100 + k) for k in range(T)]


def _rng_states(rngs) -> list:
    return [g.bit_generator.state for g in rngs]


# ---------------------------------------------------------------------------------------------
# Golfbillard
# ---------------------------------------------------------------------------------------------


def _golf_batch() -> GolfStates:
    """Three play-phase tables of the shipped bank."""
    return load_positions("golfbillard").batch(np.array([0, 1, 2]))


def _golf_strikes(G, states) -> Strikes:
    legal = G.legal_balls(states)
    cb = np.array([int(np.flatnonzero(row)[0]) for row in legal])
    T = len(states)
    return Strikes(np.tile([1.0, 30.0, 0, 0, 0], (T, 1)), cb, np.full((T, 2), np.nan))


def _on_ball(s, t: int) -> int:
    return int(np.flatnonzero(~np.isnan(s.xy[t, :, 0]))[0])


def _set(name, idx, value):
    def f(s):
        getattr(s, name)[idx] = value
    return f


def _replace(name, make):
    def f(s):
        setattr(s, name, make(getattr(s, name)))
    return f


def _xy(value):
    def f(s):
        s.xy[1, _on_ball(s, 1)] = value
    return f


GOLF_HOSTILE = [
    (_set("on_spot", (1, 0), 9), "states.on_spot[1, 0] = 9: a penalty spot is 0 (none) or 1..5 "
                                 "(G-26)"),
    (_set("on_spot", (1, 4), -1), "states.on_spot[1, 4] = -1: a penalty spot"),
    (_set("to_move", 1, 2), "states.to_move[1] = 2: the side to move is 0 or 1"),
    (_set("to_move", 1, -1), "states.to_move[1] = -1: the side to move is 0 or 1"),
    (_set("phase", 1, 3), "states.phase[1] = 3: a phase is 0"),
    (_set("phase", 1, -1), "states.phase[1] = -1: a phase is 0"),
    (_set("winner", 1, 3), "states.winner[1] = 3: the last game's winner"),
    (_set("match_winner", 1, -2), "states.match_winner[1] = -2: the match winner"),
    (_set("games_won", (1, 1), -1), "states.games_won[1, 1] = -1: a count is >= 0"),
    (_set("game_no", 1, -1), "states.game_no[1] = -1"),
    (_set("partner", (1, 0), 2), "states.partner[1, 0] = 2: a duo partner is 0 or 1 (G-31)"),
    (_set("openers", (1, 1), -1), "states.openers[1, 1] = -1: a duo partner"),
    (_set("first_openers", (1, 0), 7), "states.first_openers[1, 0] = 7: a duo partner"),
    (_set("turns", 1, -1), "states.turns[1] = -1: a count is >= 0"),
    (_set("idle_turns", 1, -3), "states.idle_turns[1] = -3"),
    (_set("turn_strokes", 1, -1), "states.turn_strokes[1] = -1"),
    (_set("stroke_no", 1, -2), "states.stroke_no[1] = -2"),
    (_set("seed", 1, -5), "states.seed[1] = -5: a seed is >= 0"),
    (_xy((5.0, 0.1)), "states.xy[1, "),
    (_xy((0.1, -3.0)), "states.xy[1, "),
    (_xy((np.inf, 0.1)), "states.xy[1, "),
    (_xy((np.nan, 0.1)), "states.xy[1, "),
    (_xy((0.1, np.nan)), "states.xy[1, "),
    (_replace("fouled_spots", lambda a: a[:, :, :4].copy()),
     "states.fouled_spots must have shape (3, 2, 5)"),
    (_replace("xy", lambda a: a[:, :9].copy()), "states.xy must have shape (3, 10, 2)"),
    (_replace("phase", lambda a: np.append(a, 1)), "states.phase must have shape (3,)"),
    (_replace("on_spot", lambda a: a.astype(np.float64)), "states.on_spot must hold integers"),
    (_replace("kader", lambda a: np.where(np.arange(3) == 1, 2, 0)),
     "states.kader[1] = 2: kader holds flags"),
    (_replace("to_move", lambda a: a.tolist()), "states.to_move must be a numpy array"),
    (_replace("duty", lambda a: a.astype(object)), "states.duty must hold flags"),
    (_replace("seed", lambda a: np.array([0, 2**64 - 1, 0], np.uint64)),
     "states.seed[1] = 18446744073709551615: a seed is >= 0"),
    (_replace("game_no", lambda a: np.array([0, 2**63, 0], np.uint64)), "states.game_no[1] = "),
]


@pytest.mark.parametrize("mutate, message", GOLF_HOSTILE,
                         ids=[m for _, m in GOLF_HOSTILE])
def test_golf_play_refuses_each_hostile_field(G, mutate, message):
    s = _golf_batch()
    strikes = _golf_strikes(G, s)
    mutate(s)
    snap = _snapshot(s)
    rngs = _rngs(3)
    before = _rng_states(rngs)
    with pytest.raises(ValueError, match=re.escape(message)):
        G.play(s, strikes, "tournament", rngs)
    assert _unchanged(s, snap)
    assert _rng_states(rngs) == before


def test_golf_reproducer_on_spot_9_is_refused_before_the_referee(G):
    """/tmp/golfenv/repro_onspot.py: spot 9 made the referee mark side 1's spot 4 fouled."""
    st = GolfState.with_balls({"w1": (0.0, 0.3), "r1": (-0.5, 0.2), "r2": (-0.5, -0.2)},
                              to_move=0)
    b = pack_states([st])
    b.on_spot[0, 0] = 9
    snap = _snapshot(b)
    with pytest.raises(ValueError, match=re.escape("states.on_spot[0, 0] = 9")):
        G.play(b, Strikes(np.array([[0.05, 90.0, 0, 0, 0]]), [0], np.full((1, 2), np.nan)))
    assert _unchanged(b, snap)
    assert not b.fouled_spots.any()


def test_golf_every_method_handing_states_to_a_kernel_refuses(G):
    """play, apply_log (the referee), opening_balls and legal_balls (the G-3 kernel); the
    methods that only read the batch with numpy (observe, players, result, ...) check its type
    (they run every env step)."""
    s = _golf_batch()
    strikes = _golf_strikes(G, s)
    out, _ = G.play(s, strikes, allow_overflow=True)
    cb = np.stack([strikes.cue_ball, np.full(3, -1)], 1)
    cue = np.stack([strikes.cue, np.full((3, 5), np.nan)], 1)
    s.xy = s.xy[:, :9].copy()  # the G-3 kernel would read ball 9 past the array
    snap = _snapshot(s)
    calls = {
        "play": lambda: G.play(s, strikes),
        "apply_log": lambda: G.apply_log(s, out.sim, cb, cue, allow_overflow=True),
        "legal_balls": lambda: G.legal_balls(s),
        "opening_balls": lambda: G.opening_balls(s),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError, match=re.escape("states.xy must have shape (3, 10, 2)")):
            call()
        assert _unchanged(s, snap), name


def test_golf_opening_ball_checked_before_the_noise_draws(G):
    """The struck balls are checked before the execution noise draws (a refused stroke leaves
    the generators as they were)."""
    s = G.new(2)
    b = G.opening_balls(s)
    s0 = Strikes(np.tile([1.1, 20.0, 0, 0, 0], (2, 1)), b[:, 0], np.full((2, 2), np.nan))
    s1 = Strikes(np.tile([1.1, 200.0, 0, 0, 0], (2, 1)), [b[0, 1], 0],
                 np.full((2, 2), np.nan))
    rngs = _rngs(2)
    before = _rng_states(rngs)
    with pytest.raises(ValueError, match="table 1: the opening needs a ball of side 0"):
        G.play(s, s0, "tournament", rngs, strikes1=s1)
    assert _rng_states(rngs) == before
    assert check_golf(s, G.half) is s


# ---------------------------------------------------------------------------------------------
# Keglebillard
# ---------------------------------------------------------------------------------------------


def _kegle_batch(K) -> KegleStates:
    """Three 3-player games at their break (the red in hand behind the salvo line)."""
    return K.new(3, 3, first_player=np.array([0, 1, 2]))


def _kegle_strikes(T: int) -> Strikes:
    return Strikes.of(np.tile([3.0, 2.0, 0.0, 0.0, 0.0], (T, 1)),
                      place=np.tile([-0.8, 0.1], (T, 1)))


def _many(*fs):
    def f(s):
        for g in fs:
            g(s)
    return f


KEGLE_HOSTILE = [
    (_set("to_play", 1, 3), "states.to_play[1] = 3: the player to shoot is 0..N-1 (-1 when the "
                            "game is over) (N = 3)"),
    (_set("to_play", 1, -1), "states.to_play[1] = -1 with states.game_over[1] = False: the "
                             "player to shoot is one still in the game"),
    (_set("to_play", 1, -7), "states.to_play[1] = -7"),
    (_many(_set("finished", (1, 0), 1), _set("n_finished", 1, 1)),
     "states.to_play[1] = 1, but that player is no longer in the game"),
    (_many(_set("lost", (1, 0), 1), _set("n_lost", 1, 1)),
     "states.to_play[1] = 1, but that player is no longer in the game"),
    (_set("order", (1, 2), 0), "states.order[1] = [0, 1, 0]: the turn order is a permutation"),
    (_set("order", (1, 2), 5), "states.order[1, 2] = 5: the turn order holds the player ids"),
    (_many(_set("finished", (1, slice(0, 2)), 2), _set("n_finished", 1, 2)),
     "states.finished[1] = [2, 2, -1], states.lost[1] = [-1, -1, -1]: a player finishes or is "
     "lost once"),
    (_many(_set("finished", (1, 0), 2), _set("lost", (1, 0), 2), _set("n_finished", 1, 1),
           _set("n_lost", 1, 1)), "a player finishes or is lost once"),
    (_many(_set("finished", (1, 1), 2), _set("n_finished", 1, 1)),
     "states.finished[1] = [-1, 2, -1] with states.n_finished[1] = 1: the first n_finished "
     "entries are player ids, the rest -1"),
    (_set("n_finished", 1, 1), "states.finished[1] = [-1, -1, -1] with states.n_finished[1] = 1"),
    (_set("n_finished", 1, 4), "states.n_finished[1] = 4: a count of players is 0..N (N = 3)"),
    (_set("n_lost", 1, -1), "states.n_lost[1] = -1"),
    (_set("lost", (1, 0), 7), "states.lost[1, 0] = 7"),
    (_set("finished", (1, 2), -2), "states.finished[1, 2] = -2"),
    (_set("hand", 1, 3), "states.hand[1] = 3: a hand code is 0"),
    (_set("hand", 1, -1), "states.hand[1] = -1: a hand code is 0"),
    (_set("wait_spot", (1, 0), 2), "states.wait_spot[1, 0] = 2: a white's waiting spot"),
    (_set("shot", 1, -1), "states.shot[1] = -1: a count is >= 0"),
    (_set("run_no_cushion", 1, -1), "states.run_no_cushion[1] = -1"),
    (_set("rodt_streak", 1, -1), "states.rodt_streak[1] = -1"),
    (_set("xy", (1, 1), (5.0, 0.0)), "states.xy[1, 1] = [5.0, 0.0] (white)"),
    (_set("xy", (1, 2), (0.0, -2.0)), "states.xy[1, 2] = [0.0, -2.0] (spotted)"),
    (_set("xy", (1, 1), (np.inf, 0.0)), "states.xy[1, 1] = [inf, 0.0]"),
    (_set("xy", (1, 2, 1), np.nan), "states.xy[1, 2] = "),
    (_replace("pins", lambda a: a[:, :4].copy()), "states.pins must have shape (3, 5)"),
    (_replace("scores", lambda a: a[:, :2].copy()), "states.scores must have shape (3, 3)"),
    (_replace("wait_spot", lambda a: a[:, :1].copy()), "states.wait_spot must have shape (3, 2)"),
    (_replace("hand", lambda a: a.astype(np.float64)), "states.hand must hold integers"),
    (_replace("hand", lambda a: np.array([1, 257, 1])), "states.hand[1] = 257: a hand code"),
    (_replace("game_over", lambda a: np.array([0, 2, 0])), "states.game_over[1] = 2: game_over "
                                                           "holds flags"),
    (_replace("scores", lambda a: np.array([[0, 0, 0], [0, 2**64 - 1, 0], [0, 0, 0]],
                                           np.uint64)), "states.scores[1, 1] = "),
    (_replace("order", lambda a: a[:, :1].copy()), "states.order must be a numpy array of shape "
                                                   "(T, N), the turn order of N = 2..1000"),
    (_replace("order", lambda a: a[0].copy()), "states.order must be a numpy array of shape"),
    (_replace("to_play", lambda a: a.tolist()), "states.to_play must be a numpy array"),
    (_replace("table", lambda a: "keglebillard-helmatch"),
     "states.table = 'keglebillard-helmatch' is not this game's table 'keglebillard'"),
]


@pytest.mark.parametrize("mutate, message", KEGLE_HOSTILE,
                         ids=[m[:60] for _, m in KEGLE_HOSTILE])
def test_kegle_play_refuses_each_hostile_field(K, mutate, message):
    s = _kegle_batch(K)
    mutate(s)
    snap = _snapshot(s)
    rngs = _rngs(3)
    before = _rng_states(rngs)
    with pytest.raises(ValueError, match=re.escape(message)):
        K.play(s, _kegle_strikes(3), "tournament", rngs)
    assert _unchanged(s, snap)
    assert _rng_states(rngs) == before


def test_kegle_every_method_handing_states_to_a_kernel_refuses(K):
    """play, apply_log (the flow) and the K-19 placement check (legal_placement,
    placement_codes); observe and result only read the batch with numpy."""
    s = _kegle_batch(K)
    out, _ = K.play(s, _kegle_strikes(3))
    s.order[2] = (2, 2, 1)
    snap = _snapshot(s)
    calls = {
        "play": lambda: K.play(s, _kegle_strikes(3)),
        "legal_placement": lambda: K.legal_placement(s, np.zeros((3, 2))),
        "placement_codes": lambda: K.placement_codes(s, np.zeros((3, 2))),
        "apply_log": lambda: K.apply_log(s, out.sim),
    }
    for name, call in calls.items():
        with pytest.raises(ValueError, match=re.escape("states.order[2] = [2, 2, 1]")):
            call()
        assert _unchanged(s, snap), name


# ---------------------------------------------------------------------------------------------
# Valid batches pass unchanged and play as before
# ---------------------------------------------------------------------------------------------


def _identity(states, *args, **kwargs):
    return states


class _Recorder:
    """Wraps a module's ``check_states``: counts the batches it sees and those it returned as
    they were (no conversion)."""

    def __init__(self, fn):
        self.fn, self.calls, self.same = fn, 0, 0

    def __call__(self, states, *args, **kwargs):
        out = self.fn(states, *args, **kwargs)
        self.calls += 1
        self.same += out is states
        return out


ENV_CASES = [
    ("cuegym/KeglebillardShot-v0", {}, 120),
    ("cuegym/KeglebillardShot-v0", {"settings": {"positions": "keglebillard-play"},
                                    "noise": "tournament"}, 60),
    ("cuegym/GolfbillardShot-v0", {"noise": "tournament"}, 120),
    ("cuegym/Keglebillard-v0", {"num_players": 3, "noise": "tournament"}, 150),
    ("cuegym/Golfbillard-v0", {"noise": "tournament"}, 150),
]


def _run_vector_env(env_id, kwargs, steps, seed=0):
    env = gym.make_vec(env_id, num_envs=4, vectorization_mode="vector_entry_point", **kwargs)
    env.action_space.seed(seed)
    obs, _ = env.reset(seed=seed)
    trace = [obs]
    for _ in range(steps):
        obs, reward, term, trunc, info = env.step(env.action_space.sample())
        trace += [obs, reward, term, trunc]
    env.close()
    return trace


@pytest.mark.parametrize("env_id, kwargs, steps", ENV_CASES,
                         ids=[f"{c[0].split('/')[1]}-{k}" for k, c in enumerate(ENV_CASES)])
def test_shipped_vector_envs_states_pass_unchanged_and_play_bit_identically(
        monkeypatch, env_id, kwargs, steps):
    """Every batch the envs hand the game layer over a few hundred random steps (autoresets,
    opponents, game ends) passes, as the batch itself (no conversion), and the envs play
    exactly as without the check."""
    golf_rec = _Recorder(golf_mod.check_states)
    kegle_rec = _Recorder(kegle_mod.check_states)
    monkeypatch.setattr(golf_mod, "check_states", golf_rec)
    monkeypatch.setattr(kegle_mod, "check_states", kegle_rec)
    checked = _run_vector_env(env_id, kwargs, steps)
    rec = golf_rec if "Golf" in env_id else kegle_rec
    assert rec.calls >= steps and rec.same == rec.calls
    monkeypatch.setattr(golf_mod, "check_states", _identity)
    monkeypatch.setattr(kegle_mod, "check_states", _identity)
    unchecked = _run_vector_env(env_id, kwargs, steps)
    assert len(checked) == len(unchecked)
    for a, b in zip(checked, unchecked, strict=True):
        assert np.array_equal(a, b, equal_nan=True)


def test_pettingzoo_envs_states_pass(monkeypatch):
    from cuegym.envs import golfbillard_v0, keglebillard_v0

    for mod, rec_mod, kwargs in ((keglebillard_v0, kegle_mod, {"num_players": 3}),
                                 (golfbillard_v0, golf_mod, {})):
        rec = _Recorder(rec_mod.check_states)
        monkeypatch.setattr(rec_mod, "check_states", rec)
        env = mod.env(**kwargs)
        env.reset(seed=1)
        for k, agent in enumerate(env.agent_iter(max_iter=120)):
            _, _, term, trunc, _ = env.last()
            space = env.action_space(agent)
            space.seed(k)
            env.step(None if term or trunc else space.sample())
        env.close()
        assert rec.calls > 0 and rec.same == rec.calls


def test_shipped_position_banks_pass(K, G):
    golf = load_positions("golfbillard")
    states = golf.batch(np.arange(len(golf)))
    assert states.problem(G.half) is None and check_golf(states, G.half) is states
    for name in ("keglebillard", "keglebillard-play"):
        bank = load_positions(name)
        checked = check_kegle_positions(bank, K)
        assert checked is not bank
        for f in dataclasses.fields(bank):
            a, b = getattr(bank, f.name), getattr(checked, f.name)
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
        s = _bank_states(K, bank)
        assert s.problem(K.half, K.table_name) is None and check_kegle(s, K.half) is s


def _bank_states(K, bank) -> KegleStates:
    """The bank's positions as the Shot env plays them (two players, 0 : 0, player 0 to
    shoot)."""
    s = K.new(len(bank), 2)
    s.xy[:, 0] = bank.red
    s.xy[:, 1:] = bank.whites
    s.pins[:] = bank.pins
    s.hand[:] = bank.hand
    s.shot[:] = np.where(bank.brk, 0, 1)
    return s


def test_helmatch_bank_passes_on_its_own_table_only(K):
    from cuegym.envs.positions import generate_keglebillard_positions

    H = Kegle(None, "keglebillard-helmatch")
    bank = generate_keglebillard_positions(48, tables=16, table="keglebillard-helmatch")
    check_kegle_positions(bank, H)
    s = _bank_states(H, bank)
    assert s.problem(H.half, H.table_name) is None
    # the large table's positions are not all on the kleinmatch cloth (1.05 x 0.525 m halves)
    xy = np.concatenate([bank.red[:, None], bank.whites], 1)
    assert (np.abs(xy) > K.half).any()
    with pytest.raises(ValueError, match="not on their spots"):  # its breaks (K-3)
        check_kegle_positions(bank, K)
    later = ~bank.brk
    with pytest.raises(ValueError, match="is off the cloth"):
        check_kegle_positions(KeglebillardPositions(
            bank.red[later], bank.whites[later], bank.pins[later], bank.hand[later],
            bank.brk[later]), K)
    assert "inside the cushion noses" in s.problem(K.half)


def test_valid_game_batches_play_bit_identically(monkeypatch, G, K):
    def both(call):
        golf_rec = _Recorder(golf_mod.check_states)
        kegle_rec = _Recorder(kegle_mod.check_states)
        monkeypatch.setattr(golf_mod, "check_states", golf_rec)
        monkeypatch.setattr(kegle_mod, "check_states", kegle_rec)
        a = call()
        assert golf_rec.calls + kegle_rec.calls == 1  # checked once, passed as it was
        assert golf_rec.same + kegle_rec.same == 1
        monkeypatch.setattr(golf_mod, "check_states", _identity)
        monkeypatch.setattr(kegle_mod, "check_states", _identity)
        b = call()
        monkeypatch.undo()
        return a, b

    gs = _golf_batch()
    gst = _golf_strikes(G, gs)
    (o1, n1), (o2, n2) = both(lambda: G.play(gs, gst, "tournament", _rngs(3),
                                             allow_overflow=True))
    for a, b in zip(o1.arrays, o2.arrays, strict=True):
        assert np.array_equal(a, b, equal_nan=True)
    for f in dataclasses.fields(n1):
        assert np.array_equal(getattr(n1, f.name), getattr(n2, f.name), equal_nan=True)
    ks = _kegle_batch(K)
    (o1, n1), (o2, n2) = both(lambda: K.play(ks, _kegle_strikes(3), "tournament", _rngs(3)))
    for f in dataclasses.fields(o1):
        a, b = getattr(o1, f.name), getattr(o2, f.name)
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b, equal_nan=True), f.name
    for f in dataclasses.fields(n1):
        a, b = getattr(n1, f.name), getattr(n2, f.name)
        assert a == b if isinstance(a, str) else np.array_equal(a, b, equal_nan=True)


def test_castable_dtypes_and_strided_arrays_are_converted_not_refused(G, K):
    """Integers of another width, 0/1 flags and strided arrays pass: the kernels get converted
    copies (the caller's arrays untouched) and play exactly the canonical batch."""
    gs = _golf_batch()
    wide = _golf_batch()
    for name in ("to_move", "on_spot", "partner", "seed"):
        setattr(wide, name, getattr(wide, name).astype(np.int32))
    wide.kader = wide.kader.astype(np.uint8)
    wide.xy = np.asfortranarray(wide.xy)
    snap = _snapshot(wide)
    conv = check_golf(wide, G.half)
    assert conv is not wide and _unchanged(wide, snap)
    assert conv.to_move.dtype == np.int64 and conv.kader.dtype == np.bool_
    strikes = _golf_strikes(G, gs)
    (o1, n1), (o2, n2) = (G.play(gs, strikes, allow_overflow=True),
                          G.play(wide, strikes, allow_overflow=True))
    for a, b in zip(o1.arrays, o2.arrays, strict=True):
        assert np.array_equal(a, b, equal_nan=True)
    ks = _kegle_batch(K)
    kw = _kegle_batch(K)
    kw.hand = kw.hand.astype(np.int64)
    kw.scores = kw.scores.astype(np.int32)
    kw.xy = np.repeat(kw.xy, 2, axis=2)[:, :, ::2]  # strided, the same values
    assert not kw.xy.flags.c_contiguous
    kw.pins = kw.pins.astype(np.int16)
    snap = _snapshot(kw)
    (o1, n1), (o2, n2) = (K.play(ks, _kegle_strikes(3)), K.play(kw, _kegle_strikes(3)))
    assert _unchanged(kw, snap)
    assert n2.hand.dtype == np.int8 and n2.scores.dtype == np.int64 and n2.pins.dtype == bool
    for f in dataclasses.fields(n1):
        a, b = getattr(n1, f.name), getattr(n2, f.name)
        assert a == b if isinstance(a, str) else np.array_equal(a, b, equal_nan=True)
    assert np.array_equal(o1.scores, o2.scores) and np.array_equal(o1.next_xy, o2.next_xy,
                                                                   equal_nan=True)


def test_problem_names_the_first_fault_or_none(G, K):
    s = _golf_batch()
    assert s.problem(G.half) is None
    s.phase[2] = 7
    assert s.problem(G.half).startswith("states.phase[2] = 7")
    k = _kegle_batch(K)
    assert k.problem(K.half) is None
    k.wait_spot[0, 1] = -3
    assert k.problem(K.half).startswith("states.wait_spot[0, 1] = -3")


# ---------------------------------------------------------------------------------------------
# The keglebillard Shot env's user bank
# ---------------------------------------------------------------------------------------------


def _bank(**changes) -> KeglebillardPositions:
    b = load_positions("keglebillard")
    arrays = {f.name: getattr(b, f.name)[:64].copy() for f in dataclasses.fields(b)}
    for name, change in changes.items():
        arrays[name] = change(arrays[name])
    return KeglebillardPositions(**arrays)


def _at(idx, value):
    def f(a):
        a[idx] = value
        return a
    return f


def _first(cond) -> int:
    return int(np.flatnonzero(cond(load_positions("keglebillard").hand[:64]))[0])


HAND_AT = _first(lambda hand: hand == 0)  # a position with the red on the table
IN_HAND_AT = _first(lambda hand: hand > 0)  # one with the red in hand

BANK_HOSTILE = [
    (dict(hand=_at(3, 3)), "positions[3].hand = 3: hand holds a hand code"),
    (dict(hand=_at(3, -1)), "positions[3].hand = -1"),
    (dict(hand=lambda a: a.astype(np.float32)), "positions.hand must hold integers"),
    (dict(pins=lambda a: a[:, :4]), "positions.pins must have shape (N, 5) with N = "
                                    "len(positions.hand) = 64"),
    (dict(red=lambda a: a[:63]), "positions.red must have shape (N, 2)"),
    (dict(brk=lambda a: np.full(len(a), 2)), "positions[0].brk = 2: brk holds flags"),
    (dict(whites=_at((5, 0, 1), np.nan)), "positions[5].whites[0] = "),
    (dict(whites=_at((5, 1), (np.inf, 0.0))), "positions[5].whites[1] = [inf, 0.0]"),
    (dict(red=_at(IN_HAND_AT, (0.0, 0.0))), f"positions[{IN_HAND_AT}].red = [0.0, 0.0] with hand"),
    (dict(red=_at(HAND_AT, NAN2)), f"positions[{HAND_AT}].red = [nan, nan] with hand 0"),
    (dict(brk=_at(HAND_AT, True)), f"positions[{HAND_AT}] is a break (brk) with hand 0"),
    (dict(whites=_at((7, 0), (5.0, 0.0))), "positions[7]: 'white' at (5.0000, 0.0000) is off "
                                           "the cloth"),
    (dict(whites=lambda a: _at((9, 1), a[9, 0] + (0.01, 0.0))(a)),
     "positions[9]: 'white' and 'spotted' overlap"),
]


@pytest.mark.parametrize("changes, message", BANK_HOSTILE, ids=[m[:50] for _, m in BANK_HOSTILE])
def test_kegle_shot_env_checks_a_user_bank_whole(changes, message):
    for make in (lambda b: gym.make("cuegym/KeglebillardShot-v0", positions=b),
                 lambda b: gym.make_vec("cuegym/KeglebillardShot-v0", num_envs=2,
                                        vectorization_mode="vector_entry_point", positions=b)):
        with pytest.raises(ValueError, match=re.escape(message)):
            make(_bank(**changes))


def test_kegle_shot_env_keeps_a_checked_copy_of_a_valid_bank():
    bank = _bank(hand=lambda a: a.astype(np.int64), pins=lambda a: a.astype(np.uint8))
    env = gym.make("cuegym/KeglebillardShot-v0", positions=bank)
    kept = env.unwrapped.core.bank
    assert kept is not bank and kept.hand.dtype == np.int8 and kept.pins.dtype == bool
    for f in dataclasses.fields(bank):
        assert np.array_equal(getattr(kept, f.name), getattr(bank, f.name), equal_nan=True)
    env.reset(seed=0)
    bank.red[:] = 9.0  # the env plays its copy
    env.step(env.action_space.sample())
    env.close()


def test_kegle_bank_positions_are_checked_on_the_env_table():
    bank = _bank(whites=_at((0, 0), (1.2, 0.0)))  # off the kleinmatch cloth, on the helmatch's
    with pytest.raises(ValueError, match=re.escape("positions[0]: 'white' at (1.2000, 0.0000) "
                                                   "is off the cloth")):
        gym.make("cuegym/KeglebillardShot-v0", positions=bank)
    later = ~bank.brk  # a kleinmatch break is not one on the helmatch table (K-3 spots)
    assert later[0]
    bank = KeglebillardPositions(*(getattr(bank, f.name)[later]
                                   for f in dataclasses.fields(bank)))
    env = gym.make("cuegym/KeglebillardShot-v0", positions=bank, table="keglebillard-helmatch")
    env.reset(seed=0)
    env.close()
