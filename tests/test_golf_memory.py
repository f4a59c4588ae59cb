"""Golfbillard's batched step without copies it does not need: the referee reads the physics
log where it lies (its dtypes), referees only the tables that struck in place (``rows``), and
plain strokes carry no injected-event slots; ``bench_envs --memory`` measures the peak a table
of a vector step (the design's target: < 64 KiB a table in a batch of 4096)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cuegym.games.golf import Golf
from cuegym.games.strikes import Strikes
from cuegym.rules.golf_arrays import MAX_INJECTED, golf_log, plain_inputs
from cuegym.rules.golf_batch import referee
from cuegym.rules.golf_codes import P_OVER, P_PLAY
from cuegym.rules.golf_views import make_inputs

G = Golf({"match": "single"})


def _strikes(cue, balls):
    cue = np.asarray(cue, np.float64).reshape(-1, 5)
    return Strikes(cue, np.asarray(balls, np.int64), np.full((len(cue), 2), np.nan))


def _in_play(T: int):
    """T tables after their openings (random ones, repeated where the opening is)."""
    rng = np.random.default_rng(3)
    st = G.new(T, seed=np.arange(T))
    for _ in range(20):
        act = st.phase != P_PLAY
        if not act.any():
            return st
        b = G.opening_balls(st)
        s0 = _strikes(np.column_stack([rng.uniform(0.9, 1.3, T), rng.uniform(10, 30, T),
                                       np.zeros((T, 3))]), b[:, 0])
        s1 = _strikes(np.column_stack([rng.uniform(0.9, 1.3, T), rng.uniform(190, 210, T),
                                       np.zeros((T, 3))]), b[:, 1])
        _, st = G.play(st, s0, strikes1=s1, active=act, allow_overflow=True)
    raise AssertionError("openings did not end")


def _stroke(st):
    """One gentle stroke of the side to move on every table: (sim, inputs)."""
    from cuegym.physics import GAME_MODELS, simulate

    T = len(st)
    cb = np.stack([5 * st.to_move, np.full(T, -1)], 1).astype(np.int64)
    cue = np.zeros((T, 2, 5))
    cue[:, 0] = [0.8, 90.0, 0, 0, 0]
    present = ~np.isnan(st.xy[..., 0])
    sim = simulate(G.table, G.params, np.where(present[..., None], st.xy, 0.0), cue_ball=cb,
                   cue=cue, present=present, max_events=300, models=GAME_MODELS)
    return sim, plain_inputs(cb, cue)


def test_the_referee_reads_a_physics_log_where_it_lies():
    st = _in_play(3)
    sim, _ = _stroke(st)
    lg = golf_log(sim)
    for name in ("ev_type", "ev_i", "ev_j", "ev_motion", "ev_state", "ev_time"):
        assert getattr(lg, name) is getattr(sim, name), name  # no copy, whatever the logs' length


def test_a_log_in_other_dtypes_is_converted_and_refused_where_a_value_does_not_fit():
    st = _in_play(2)
    sim, inputs = _stroke(st)
    wide = {f: np.asarray(getattr(sim, f)) for f in ("rvw", "rvw0", "motion", "motion0",
                                                     "pocket", "ev_time", "ev_state", "n_events",
                                                     "t_end", "overflow")}
    for f in ("ev_type", "ev_i", "ev_j", "ev_motion"):
        wide[f] = np.asarray(getattr(sim, f)).astype(np.int64)

    class Log:
        prm = sim.prm

    log = Log()
    vars(log).update(wide)
    o_wide, s_wide = referee(st, log, inputs, G.rules, G.geo)
    o, s = referee(st, sim, inputs, G.rules, G.geo)
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(o_wide, o, strict=True))
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(s_wide.arrays(), s.arrays(),
                                                                    strict=True))
    log.ev_i = log.ev_i.copy()
    log.ev_i[1, 0] = 2**40  # would wrap to another ball as int32
    with pytest.raises(ValueError, match="log ev_i: values outside int32"):
        golf_log(log)


def test_rows_referee_only_those_tables_and_keep_the_others():
    st = _in_play(4)
    sim, inputs = _stroke(st)
    full_o, full_s = referee(st, sim, inputs, G.rules, G.geo)
    over = st.copy()
    over.phase[0] = P_OVER  # a table that did not strike may be over
    rows = np.array([1, 3])
    o, s = referee(over, sim, inputs, G.rules, G.geo, rows=rows)
    for a, b in zip(o, full_o, strict=True):
        assert np.array_equal(a[rows], b[rows], equal_nan=True)
        assert not np.any(a[[0, 2]])  # the empty fill
    for f, a, b, c in zip(s.arrays()._fields, s.arrays(), full_s.arrays(), over.arrays(),
                          strict=True):
        assert np.array_equal(a[rows], b[rows], equal_nan=True), f
        assert np.array_equal(a[[0, 2]], c[[0, 2]], equal_nan=True), f
    with pytest.raises(ValueError, match="table 0: the match is over"):
        referee(over, sim, inputs, G.rules, G.geo, rows=np.array([0, 1]))


def test_plain_strokes_carry_no_injected_slots_and_the_referee_checks_the_count():
    cb, cue = np.zeros((2, 2), np.int64), np.zeros((2, 2, 5))
    assert plain_inputs(cb, cue).inj_type.shape == (2, 0)
    made = make_inputs(cb, cue, np.zeros(2), G.geo, injected=[[], []])
    assert made.inj_type.shape == (2, MAX_INJECTED) and made.inj_rxy.shape[1] == MAX_INJECTED
    st = _in_play(2)
    sim, inputs = _stroke(st)
    inputs.inj_n[1] = 1  # an event counted with no slot to hold it: the kernel would read past
    with pytest.raises(ValueError, match="table 1: inj_n = 1 injected events, but the inputs "
                                         "hold 0 slots"):
        referee(st, sim, inputs, G.rules, G.geo)


def test_bench_envs_memory_record_is_under_the_design_target(capsys):
    from cuegym.experiments import bench_envs

    assert bench_envs.main(["--env-ids", "cuegym/Golfbillard-v0", "cuegym/GolfbillardShot-v0",
                            "--num-envs", "2", "--seconds", "0.01", "--threads", "1",
                            "--memory", "512", "--json"]) == 0
    rec = [r for r in json.loads(capsys.readouterr().out) if r["mode"] == "memory"]
    assert [r["env_id"] for r in rec] == ["cuegym/Golfbillard-v0", "cuegym/GolfbillardShot-v0"]
    for r in rec:
        assert r["num_envs"] == 512 and r["steps"] == bench_envs.MEMORY_STEPS
        # the env holds its physics log (300 events a table) between steps: about 40 KiB
        assert 30 * 1024 < r["held_bytes_per_table"] <= r["peak_bytes_per_table"]
        # was 79 KiB (Golfbillard-v0) and 62 KiB (GolfbillardShot-v0)
        assert r["peak_bytes_per_table"] < 56 * 1024, r


def test_bench_envs_memory_refuses_no_tables():
    from cuegym.experiments import bench_envs

    with pytest.raises(SystemExit) as e:
        bench_envs.main(["--memory", "0"])
    assert e.value.code == 2


@pytest.mark.parametrize("rows", [np.array([True, False, True]), np.array([1, 1, 2]),
                                  np.array([2, 1]), np.array([-1]), np.array([3]),
                                  np.array([0.5, 1.7]), np.array([[0, 1]])])
def test_rows_that_are_not_increasing_table_indices_are_refused(rows):
    """A bool mask read as the rows 1, 0, 1, a repeat refereed a table twice in parallel, and a
    table left out got the empty fill as its next state (the review of the change)."""
    st = _in_play(3)
    sim, inputs = _stroke(st)
    with pytest.raises(ValueError, match="rows must be"):
        referee(st, sim, inputs, G.rules, G.geo, rows=rows)
