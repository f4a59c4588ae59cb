"""The one strike type and the one execution-noise model (cuegym.games.strikes / .noise)."""

from __future__ import annotations

import numpy as np
import pytest

from cuegym.configs import ConfigError, load_params
from cuegym.games.noise import ShotNoise, load_noise, noise_presets
from cuegym.games.strikes import Strikes, clamp_cue


def test_strikes_fields_and_validation_name_the_bad_value():
    s = Strikes.of([[3.0, 10.0, 5.0, 0.1, -0.2], [1.0, -90.0, 0.0, 0.0, 0.0]])
    assert len(s) == 2 and s.cue_ball.tolist() == [0, 0] and np.isnan(s.place).all()
    assert s.V0.tolist() == [3.0, 1.0] and s.b.tolist() == [-0.2, 0.0]
    assert s.validate(n_balls=3) is s
    for row, match in (([21.0, 0, 0, 0, 0], "V0 = 21.0"), ([1.0, 0, 91.0, 0, 0], "theta"),
                       ([1.0, 0, 0, 0.8, 0.8], "a\\^2 \\+ b\\^2"),
                       ([1.0, np.nan, 0, 0, 0], "phi = nan")):
        with pytest.raises(ValueError, match=match):
            Strikes.of([row]).validate()
    with pytest.raises(ValueError, match="cue_ball = 3"):
        Strikes.of([[1.0, 0, 0, 0, 0]], cue_ball=3).validate(n_balls=3)
    with pytest.raises(ValueError, match="cue_ball must have 2"):
        Strikes(np.zeros((2, 5)), np.zeros(3, np.int64), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="integer ball indices"):
        Strikes(np.zeros((1, 5)), np.array([0.5]), np.zeros((1, 2)))


def test_clamp_keeps_strikes_inside_the_physics_limits():
    cue = np.array([[25.0, 400.0, -3.0, 0.9, 0.9], [2.0, 5.0, 10.0, 0.3, 0.0]])
    out = clamp_cue(cue.copy())
    assert out[0, 0] == 20.0 and out[0, 2] == 0.0 and out[0, 1] == 400.0
    assert np.hypot(out[0, 3], out[0, 4]) <= 1.0 and out[0, 3] == pytest.approx(out[0, 4])
    assert np.array_equal(out[1], cue[1])
    Strikes.of(out).validate()


def test_tournament_preset_in_strike_units():
    R = load_params("keglebillard").R
    t = load_noise("tournament")
    assert t.sigma.tolist() == [0.075, 0.125, 0.1, 0.0005 / R, 0.0005 / R]
    assert load_noise(None).is_zero and load_noise("none") is noise_presets()["none"]
    assert load_noise(2).phi == pytest.approx(0.25) and load_noise("0.5").V0 == 0.0375
    assert load_noise({"phi": 0.2}).phi == 0.2
    for bad in ("pro", {"phi": -1}, {"spin": 1.0}, [1, 2], -1):
        with pytest.raises(ConfigError):
            load_noise(bad)


def test_draws_per_table_generators_equal_single_env_streams():
    """Row t drawn from rngs[t] is what a one-table batch draws from that generator."""
    n = load_noise("tournament")
    cue = np.tile([3.0, 10.0, 20.0, 0.0, 0.0], (5, 1))
    batch = n.execute(cue, [np.random.default_rng(k) for k in range(5)])
    for k in range(5):
        one = n.execute(cue[k:k + 1], [np.random.default_rng(k)])
        assert np.array_equal(batch[k], one[0])
    # one generator feeds the rows in order, as rng.standard_normal((T, 1, 5))
    z = np.random.default_rng(3).standard_normal((5, 1, 5))[:, 0]
    assert np.array_equal(n.execute(cue, np.random.default_rng(3)), clamp_cue(cue + z * n.sigma))


def test_zero_noise_draws_nothing_and_placement_noise_moves_only_placements():
    rng = np.random.default_rng(0)
    s = Strikes(np.tile([2.0, 10.0, 0.0, 0.0, 0.0], (4, 1)), np.zeros(4, np.int64),
                np.full((4, 2), 0.1))
    assert np.array_equal(load_noise("none").apply(s, rng).cue, s.cue)
    assert rng.bit_generator.state == np.random.default_rng(0).bit_generator.state
    out = ShotNoise(place=0.01).apply(s, rng)
    assert np.array_equal(out.cue, s.cue) and not np.array_equal(out.place, s.place)
    assert np.abs(out.place - 0.1).max() < 0.06


def test_placement_deviation_is_capped_at_the_longest_shipped_table():
    """The cap on ``noise.place`` comes from configs/tables (one source of truth), not a literal."""
    from cuegym.configs import TABLE_NAMES, load_table
    from cuegym.games.noise import MAX_DEVIATION

    longest = max(load_table(n).length for n in TABLE_NAMES)
    assert MAX_DEVIATION["place"] == (longest, "m")
    assert ShotNoise(place=longest).place == longest
    with pytest.raises(ConfigError, match=r"noise.place must be at most 2.84 m .*got 2.9"):
        ShotNoise(place=2.9)
