"""The start-position banks (cuegym.envs.positions, golf_positions): the shipped banks are what
their generators make now, named banks fit the env's table and rules, and a user's bank is
checked field by field (docs/envs.md, "Starting states and episodes")."""

from __future__ import annotations

from dataclasses import fields, replace

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401 (registers the env ids)
from cuegym.envs import make_sb3_vec_env
from cuegym.envs import positions as P
from cuegym.envs.golf_positions import check_golf_positions
from cuegym.games.kegle import Kegle
from cuegym.games.kegle_state import HAND_CLOTH, HAND_SALVO

SHIPPED = P.SHIPPED_BANKS


def _same_prefix(name: str, k: int) -> None:
    stamp = P.read_stamp(P.DATA_DIR / f"{name}_positions.npz")
    shipped = P.load_positions(name)
    assert stamp["args"]["n"] == len(shipped) and stamp["args"]["seed"] == 0
    fresh, _ = P.generate_bank(name, k, seed=0)
    for f in fields(shipped):
        a = np.asarray(getattr(fresh, f.name), np.float64)
        b = np.asarray(getattr(shipped, f.name), np.float64)[:k]
        assert np.allclose(a, b, equal_nan=True, atol=1e-6), (name, f.name)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_bank_starts_as_its_generator_makes_it_now(name):
    """The first 1,024 positions of every shipped bank, regenerated with the stamped
    arguments, are the bank's (96 let version-2 banks that had drifted from row 294 pass): a
    change of the generator, physics or rules that moves the positions fails here (bump
    GENERATOR_VERSION and regenerate with make_position_bank.py --overwrite-shipped)."""
    _same_prefix(name, 1024)


@pytest.mark.slow
@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_bank_is_whole_what_its_generator_makes_now(name):
    _same_prefix(name, len(P.load_positions(name)))


def test_a_small_bank_spreads_over_whole_games_and_follows_its_seed():
    """Games start at staggered ages: 64 positions were one break position whatever the
    seed (all tables at their opening in lock-step); now they are mostly play."""
    a, _ = P.generate_bank("keglebillard", 64, seed=1)
    b, _ = P.generate_bank("keglebillard", 64, seed=2)
    for bank in (a, b):
        assert bank.brk.mean() < 0.2
        assert len(np.unique(np.nan_to_num(bank.red).round(4), axis=0)) > 40
    assert not np.allclose(np.nan_to_num(a.red), np.nan_to_num(b.red))
    g, _ = P.generate_bank("golfbillard", 64, seed=1)
    assert (np.asarray(g.turns) > 4).mean() > 0.5  # not the first strokes of every game


# -- a named bank fits the env --------------------------------------------------------------


def test_a_bank_of_another_table_is_refused_by_name():
    """The helmatch bank on the kleinmatch table had half its reds off the cloth."""
    with pytest.raises(ValueError, match="bank of the table 'keglebillard-helmatch', not of "
                                         "table='keglebillard'"):
        gym.make("cuegym/KeglebillardShot-v0",
                 settings={"positions": "keglebillard-helmatch"})


def test_a_bank_file_made_with_other_arguments_is_refused(tmp_path):
    """A kleinmatch bank in the helmatch bank's file loaded: only the generator was
    checked, not its table."""
    bank, stamp = P.generate_bank("keglebillard", 8)
    path = tmp_path / "keglebillard-helmatch_positions.npz"
    P.save_positions(bank, path, stamp)
    gen, args = P.BANK_GENERATORS["keglebillard-helmatch"]
    with pytest.raises(ValueError, match="made with the default arguments, not "
                                         r"\{'table': 'keglebillard-helmatch'\}"):
        P.load_bank_file(path, gen, args)
    assert len(P.load_bank_file(path, gen, {})) == 8


def test_a_stale_bank_in_the_user_cache_is_generated_anew(tmp_path, monkeypatch):
    """Its advice (make_position_bank) wrote elsewhere, so the env stayed broken; a bank that
    does not ship is generated anew wherever it was kept, a shipped one is refused."""
    bank, stamp = P.generate_bank("keglebillard", 8)
    path = tmp_path / "keglebillard-helmatch_positions.npz"
    P.save_positions(bank, path, stamp)  # the generator's, but the default table's arguments
    monkeypatch.setattr(P, "_bank_path", lambda name: path)
    made = []
    original = P.generate_bank

    def small(name, n=0, seed=0, progress=False):
        made.append(name)
        return original(name, 16, seed)

    monkeypatch.setattr(P, "generate_bank", small)
    P.load_positions.cache_clear()
    try:
        fresh = P.load_positions("keglebillard-helmatch")
    finally:
        P.load_positions.cache_clear()
    assert made == ["keglebillard-helmatch"] and len(fresh) == 16
    assert P.read_stamp(path)["args"]["table"] == "keglebillard-helmatch"
    stale, stamp = P.generate_bank("keglebillard-play", 8)
    P.save_positions(stale, path, {**stamp, "args": {"seed": 0, "n": 8, "noise": "none"}})
    P.load_positions.cache_clear()
    try:
        with pytest.raises(ValueError, match="made with .*noise"):
            P.load_positions("keglebillard-play")
    finally:
        P.load_positions.cache_clear()


def test_make_position_bank_writes_no_other_file_into_the_bank_folder(tmp_path, monkeypatch,
                                                                      capsys):
    """--game golfbillard --out envs/data/keglebillard_positions.npz replaced the shipped
    keglebillard bank with a golfbillard one."""
    from cuegym.experiments.make_position_bank import main

    monkeypatch.setattr(P, "DATA_DIR", tmp_path)
    for argv in (["--game", "golfbillard", "--out", str(tmp_path / "keglebillard_positions.npz")],
                 ["--out", str(tmp_path / "keglebillard-helmatch_positions.npz")],
                 ["--out", str(tmp_path / "mine.npz")]):
        assert main([*argv, "--n", "8", "--quiet"]) == 2
        assert "is in the envs' bank folder" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_the_salvo_option_has_the_red_in_hand_behind_the_line():
    """K-19 under ``ball_in_hand_area: salvo``: a bank position with the red in hand anywhere
    was played as such (a red placed in front of the line, no K-15)."""
    plain = gym.make("cuegym/KeglebillardShot-v0").unwrapped.core.bank
    assert (plain.hand == HAND_CLOTH).any()
    env = gym.make("cuegym/KeglebillardShot-v0", rules={"ball_in_hand_area": "salvo"})
    core = env.unwrapped.core
    assert not (core.bank.hand == HAND_CLOTH).any()
    k = int(np.argmax(plain.hand == HAND_CLOTH))
    assert core.bank.hand[k] == HAND_SALVO
    seed = next(s for s in range(100_000) if int(np.random.default_rng(s).random()
                                                 * len(plain)) == k)
    a = np.zeros(7, np.float32)
    a[0], a[5] = 0.2, 0.8  # the red placed at x = +0.8 of the area's length
    placed = []
    for e in (gym.make("cuegym/KeglebillardShot-v0"), env):
        e.reset(seed=seed)
        assert e.unwrapped.core.index[0] == k
        placed.append(e.step(a)[4]["placement"][0])
    salvo_x = core.game.salvo_x
    assert placed[0] > salvo_x >= placed[1]


def test_a_shorter_g5_window_draws_only_positions_it_can_reach():
    """Under no_progress_window 1 a bank position with 2 or more scoreless turns ends its game
    as a draw at any stroke; the env served it."""
    env = gym.make("cuegym/GolfbillardShot-v0", rules={"no_progress_window": 1})
    core = env.unwrapped.core
    assert (np.asarray(core.bank.idle_turns) >= 2).any()
    assert (np.asarray(core.bank.idle_turns)[core.drawn] < 2).all()
    for seed in range(40):
        env.reset(seed=seed)
        assert core.bank.idle_turns[core.index[0]] < 2
    full = gym.make("cuegym/GolfbillardShot-v0").unwrapped.core
    assert len(full.drawn) == len(full.bank)  # the default rules draw from the whole bank


# -- a user's bank ------------------------------------------------------------------------


def _kegle_bank(n=4):
    bank = P.load_positions("keglebillard")
    idx = np.flatnonzero(~bank.brk & (bank.hand == 0) & bank.pins.all(1))[:n]
    return P.KeglebillardPositions(bank.red[idx], bank.whites[idx], bank.pins[idx],
                                   bank.hand[idx], bank.brk[idx])


def test_a_hand_code_out_of_its_dtype_is_refused_not_wrapped():
    bank = _kegle_bank()
    bad = replace(bank, red=np.full_like(bank.red, np.nan),
                  hand=np.array([256, 256, 256, 256], np.int64))
    with pytest.raises(ValueError, match=r"positions\[0\]\.hand = 256 is out of range"):
        gym.make("cuegym/KeglebillardShot-v0", positions=bad)


def test_bank_fields_as_lists_or_scalars_are_named():
    bank = _kegle_bank(1)
    as_lists = P.KeglebillardPositions(bank.red.tolist(), bank.whites.tolist(),
                                       bank.pins.tolist(), bank.hand.tolist(),
                                       bank.brk.tolist())
    env = gym.make("cuegym/KeglebillardShot-v0", positions=as_lists)  # lists are arrays too
    env.reset(seed=0)
    scalar = replace(bank, hand=0)
    with pytest.raises(ValueError, match=r"positions\.hand must have shape \(N,\)"):
        gym.make("cuegym/KeglebillardShot-v0", positions=scalar)


def test_a_break_or_a_pin_down_the_rules_cannot_reach_is_refused():
    game = Kegle()
    bank = P.load_positions("keglebillard")
    b = int(np.argmax(bank.brk))
    one = lambda **kw: P.KeglebillardPositions(**{  # noqa: E731
        f.name: np.array(getattr(bank, f.name)[b:b + 1]) for f in fields(bank)} | kw)
    P.check_kegle_positions(one(), game)
    whites = np.array(bank.whites[b:b + 1])
    whites[0, 0, 1] += 0.1
    with pytest.raises(ValueError, match=r"positions\[0\] is a break .*not on their spots"):
        P.check_kegle_positions(one(whites=whites), game)
    pins = np.array([[True, False, True, True, True]])
    with pytest.raises(ValueError, match="pins .* not all standing"):
        P.check_kegle_positions(one(pins=pins), game)
    later = _kegle_bank(1)
    with pytest.raises(ValueError, match=r"positions\[0\]\.pins\[1\] is down with its spot "
                                         "free"):
        P.check_kegle_positions(replace(later, pins=pins), game)
    covered = replace(later, pins=pins, whites=np.array([[[0.082, 0.03],
                                                          [0.6, 0.3]]]))
    P.check_kegle_positions(covered, game)  # a white on the pin's spot keeps it down (K-P7)


def test_a_golf_ball_half_nan_is_refused():
    bank = P.load_positions("golfbillard")
    k = int(np.argmax(~np.asarray(bank.on_spot).any(1) & (np.asarray(bank.turn_strokes) == 0)))
    arrays = {f.name: np.array(getattr(bank, f.name)[k:k + 1]) for f in fields(bank)}
    b = int(np.flatnonzero(~np.isnan(arrays["xy"][0, :5, 0]))[-1])
    arrays["xy"][0, b, 0] = np.nan
    arrays["duty"][0, b] = False
    with pytest.raises(ValueError, match=r"must be finite, or NaN, NaN \(scored\), got "
                                         r"\[nan, "):
        check_golf_positions(type(bank)(**arrays))


def test_sb3_refused_reset_options_are_spent():
    """A refused set_options made every later reset() fail again."""
    v = make_sb3_vec_env("cuegym/KeglebillardShot-v0", n_envs=2, seed=0)
    v.reset()
    v.set_options({"reset_mask": np.array([1, 0])})
    with pytest.raises(ValueError, match="reset_mask"):
        v.reset()
    v.reset()
