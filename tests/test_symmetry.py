"""Both games have no favoured side: a shot and its mirror image give the mirrored outcome (and
keglebillard no favoured player id).

Physics, referee and game flow together, on random strikes:

- keglebillard, the table mirrored in its long axis (y -> -y): the aim and the side spin change
  sign, the pins swap with their images, the whites' spots and the salvo line stay; scores,
  turns and the end of the game must be the same and every ball and pin the image;
- golfbillard, the table turned half a turn (x, y -> -x, -y) with the colours swapped (w_i <->
  r_i): side 0's stroke becomes side 1's, each side's goals, triangles, kaders and penalty spots
  (measured from the side's own attack goal, G-27..G-29) become the other's. A reflection would
  not do: the penalty spots are placed facing the attack goal, so they turn with the table.

A rule or a zone written for one side only (a spot, a cap, a kader of side 1 misplaced, a pin
index swapped) breaks the symmetry on some of these thousands of shots.
"""

from __future__ import annotations

import numpy as np
import pytest

from cuegym.configs import load_table
from cuegym.envs.positions import load_positions
from cuegym.games.golf import Golf
from cuegym.games.kegle import Kegle
from cuegym.games.strikes import Strikes
from cuegym.rules.golf_arrays import BALLS_PER_SIDE, N_BALLS

FLIP_Y = np.array([1.0, -1.0])
#: golfbillard ball i <-> its colour twin (w1 <-> r1, ...; side 0's balls first)
TWIN = np.roll(np.arange(N_BALLS), BALLS_PER_SIDE)


def _random_cue(rng: np.random.Generator, n: int, v_max: float) -> np.ndarray:
    """(n, 5) strikes: speed [m/s], aim [deg], elevation [deg], side and top spin [R]."""
    cue = np.zeros((n, 5))
    cue[:, 0] = rng.uniform(0.2, v_max, n)
    cue[:, 1] = rng.uniform(-180.0, 180.0, n)
    cue[:, 2] = rng.choice([0.0, 0.0, 0.0, 20.0, 45.0], n)
    cue[:, 3] = rng.uniform(-0.5, 0.5, n)
    cue[:, 4] = rng.uniform(-0.5, 0.5, n)
    return cue


# --- keglebillard: the long axis ------------------------------------------------------------------


def _pin_images() -> np.ndarray:
    spots = np.asarray(load_table("keglebillard").pin_spots)
    return np.array([int(np.argmin(np.linalg.norm(spots - s * FLIP_Y, axis=1))) for s in spots])


@pytest.mark.parametrize("players, seed", [(2, 0), (3, 1)])
def test_keglebillard_is_symmetric_in_its_long_axis(players, seed):
    pin_image = _pin_images()
    assert sorted(pin_image.tolist()) == list(range(5)) and (pin_image != np.arange(5)).sum() == 2
    game, rng, T = Kegle(), np.random.default_rng(seed), 150
    st = game.new(T, players, first_player=0)
    checked = 0
    for _ in range(40):
        play = np.flatnonzero(~st.game_over)
        if not len(play):
            break
        now, n = st.take(play), len(play)
        cue = _random_cue(rng, n, 5.0)
        place = np.column_stack([rng.uniform(-1.0, -0.55, n), rng.uniform(-0.45, 0.45, n)])
        image = now.copy()
        image.xy = now.xy * FLIP_Y
        image.pins = now.pins[:, pin_image]
        cue_image = cue * [1, -1, 1, -1, 1]  # the aim and the side spin change sign
        _, nxt = game.play(now, Strikes(cue, np.zeros(n, np.int64), place), allow_overflow=True)
        _, nxt_image = game.play(image, Strikes(cue_image, np.zeros(n, np.int64), place * FLIP_Y),
                                 allow_overflow=True)
        np.testing.assert_allclose(nxt.xy, nxt_image.xy * FLIP_Y, atol=1e-6)  # NaNs alike
        assert np.array_equal(nxt.pins, nxt_image.pins[:, pin_image])
        for field in ("scores", "to_play", "hand", "game_over", "finished", "wait_spot"):
            assert np.array_equal(getattr(nxt, field), getattr(nxt_image, field)), field
        checked += n
        st = st.copy()
        st.put(play, nxt)
    assert checked > 2000 and st.game_over.mean() > 0.5  # whole games, not just breaks


def _relabelled(st, perm: np.ndarray):
    """The games with player id i renamed perm[i] (turn order, scores, finishers alike)."""
    out = st.copy()
    out.order = perm[st.order]
    out.scores = st.scores[:, np.argsort(perm)]
    for field in ("to_play", "finished", "lost"):
        v = getattr(st, field)
        setattr(out, field, np.where(v >= 0, perm[np.maximum(v, 0)], v))
    return out


@pytest.mark.parametrize("perm, seed", [([2, 0, 1], 0), ([3, 1, 0, 2], 1)])
def test_keglebillard_player_ids_are_only_names(perm, seed):
    """Renaming the players changes nothing but the names: skæve to every other player (K-17),
    finishing and ranking (K-21, K-21a) follow the turn order, not the ids."""
    game, rng, T = Kegle(), np.random.default_rng(seed), 120
    perm = np.array(perm)
    st = game.new(T, len(perm), first_player=0)
    for _ in range(60):
        play = np.flatnonzero(~st.game_over)
        if not len(play):
            break
        now, n = st.take(play), len(play)
        place = np.column_stack([rng.uniform(-1.0, -0.55, n), rng.uniform(-0.45, 0.45, n)])
        strikes = Strikes(_random_cue(rng, n, 5.0), np.zeros(n, np.int64), place)
        _, nxt = game.play(now, strikes, allow_overflow=True)
        _, nxt_renamed = game.play(_relabelled(now, perm), strikes, allow_overflow=True)
        want = _relabelled(nxt, perm)
        for field in ("xy", "pins", "hand", "order", "scores", "to_play", "finished", "n_finished",
                      "game_over", "lost"):
            assert np.array_equal(getattr(want, field), getattr(nxt_renamed, field),
                                  equal_nan=field == "xy"), field
        st = st.copy()
        st.put(play, nxt)
    assert st.game_over.mean() > 0.5


# --- golfbillard: half a turn, colours swapped ----------------------------------------------------


def _turned(st):
    """The states with the table turned half a turn and the sides' colours swapped."""
    out = st.copy()
    out.xy = -st.xy[:, TWIN]
    out.to_move = 1 - st.to_move
    out.duty = st.duty[:, TWIN].copy()
    out.on_spot = st.on_spot[:, TWIN].copy()
    for field in ("fouled_spots", "games_won", "partner", "openers", "first_openers"):
        setattr(out, field, getattr(st, field)[:, ::-1].copy())
    for field in ("winner", "match_winner"):
        v = getattr(st, field).copy()
        side = (v == 0) | (v == 1)
        v[side] = 1 - v[side]
        setattr(out, field, v)
    return out


def _assert_turned(out, nxt, out_t, nxt_t, before) -> int:
    """The outcomes and next states of a stroke and of its turned image agree; returns how many
    next states were compared ball by ball (those still in the same game: a new game puts the
    balls on their start spots, whose numbering is mirror-, not turn-symmetric)."""
    a, b = out.arrays, out_t.arrays
    assert np.array_equal(out.first_rule, out_t.first_rule)
    assert np.array_equal(a.scored, b.scored[:, ::-1])
    for field in ("turn_kept", "left_kader", "game_over", "kader"):
        assert np.array_equal(getattr(a, field), getattr(b, field)), field
    same = (nxt.game_no == before.game_no) & (nxt.phase == 1)
    np.testing.assert_allclose(nxt.xy[same], -nxt_t.xy[same][:, TWIN], atol=1e-6)
    for field in ("on_spot", "duty"):
        assert np.array_equal(getattr(nxt, field)[same], getattr(nxt_t, field)[same][:, TWIN])
    assert np.array_equal(nxt.to_move[same], 1 - nxt_t.to_move[same])
    assert np.array_equal(nxt.kader, nxt_t.kader)
    return int(same.sum())


def _stroke_and_image(game, st, rng):
    legal = game.legal_balls(st)
    balls = np.array([rng.choice(np.flatnonzero(row)) for row in legal])
    cue = _random_cue(rng, len(st), 3.5)
    turned = cue.copy()
    turned[:, 1] = (cue[:, 1] + 360.0) % 360.0 - 180.0  # aim turned by 180 degrees
    no_place = np.full((len(st), 2), np.nan)
    out, nxt = game.play(st, Strikes(cue, balls, no_place), allow_overflow=True)
    out_t, nxt_t = game.play(_turned(st), Strikes(turned, TWIN[balls], no_place),
                             allow_overflow=True)
    return out, nxt, out_t, nxt_t


def test_golfbillard_strokes_from_the_bank_turn_with_the_table():
    game, rng = Golf(), np.random.default_rng(0)
    bank = load_positions("golfbillard")
    st = bank.batch(rng.integers(0, len(bank), 3000))
    out, nxt, out_t, nxt_t = _stroke_and_image(game, st, rng)
    assert _assert_turned(out, nxt, out_t, nxt_t, st) > 2500
    rules = set(out.first_rule.tolist())
    assert {"", "G-8", "G-10", "G-11", "G-12", "G-13", "G-14"} <= rules, rules
    assert out.arrays.kader.sum() > 20  # kader play (G-20..G-26) among them


@pytest.mark.parametrize("rules", [{}, {"duo": True}, {"opening": "alternate",
                                                   "spot_policy": "random"}])
def test_golfbillard_games_turn_with_the_table(rules):
    game, rng, T = Golf(rules), np.random.default_rng(1), 200
    st = game.new(T, seed=np.arange(T))
    if (st.phase == 0).any():  # the opening (G-3): both sides strike their middle ball
        opening = game.opening_balls(st)
        cue0, cue1 = _random_cue(rng, T, 3.0), _random_cue(rng, T, 3.0)
        cue0[:, 1] = rng.uniform(-60, 60, T)  # roughly up the table, each toward its far end
        cue1[:, 1] = 180.0 + rng.uniform(-60, 60, T)
        no_place = np.full((T, 2), np.nan)
        _, st = game.play(st, Strikes(cue0, opening[:, 0], no_place),
                          strikes1=Strikes(cue1, opening[:, 1], no_place), allow_overflow=True)
    compared = 0
    for _ in range(30):
        play = np.flatnonzero(st.phase == 1)
        now = st.take(play)
        out, nxt, out_t, nxt_t = _stroke_and_image(game, now, rng)
        compared += _assert_turned(out, nxt, out_t, nxt_t, now)
        st = st.copy()
        st.put(play, nxt)
    assert compared > 4000
