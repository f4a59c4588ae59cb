"""Differential test: the compiled scorer (cuegym.rules.keglebillard_kernel, behind
score_shots) against the previous numpy scorer (tests/reference/kegle_score.py, the oracle).

Every ShotScores field must be identical on random hand-built logs (rare paths: K-20, chains,
clean 16 tries, injected K-14a/K-16 events) and on physics logs of random strikes, under every
rule variant (house, K-25, cushion_before_pins, frhv_nakkebal, ball in hand behind the line).
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest
from reference import kegle_flow as old
from reference.kegle_score import score_shots as score_numpy
from test_games_kegle_diff import _injected, _random_log

from cuegym.configs import load_params
from cuegym.physics import simulate
from cuegym.rules.keglebillard import ShotScores, load_rules, score_shots, stack_logs

VARIANTS = ({}, {"variant": "ddbu"}, {"cushion_before_pins": True},
            {"frhv_nakkebal": True, "ball_in_hand_area": "salvo"},
            {"cushion_before_pins": True, "frhv_nakkebal": True})


def _same(a: ShotScores, b: ShotScores) -> None:
    for f in fields(ShotScores):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype and np.array_equal(x, y), f.name
        else:
            assert x == y, f.name


def _logs(rng, n: int):
    game = old.KeglebillardGame()
    states = [game.new_state(2)]
    out = []
    while len(out) < n:
        st = states[int(rng.integers(len(states)))]
        lg = _random_log(rng, game, st)
        out.append((lg, _injected(rng, st, 0.3, lg), st.ball_in_hand == "salvo"))
        if not st.game_over and len(states) < 200:
            try:
                _, nxt = game.apply(st, lg)
            except ValueError:
                continue
            if not nxt.game_over:
                states.append(nxt)
    return out


def _pin_runs(rng, n: int) -> list:
    """Logs where one white fells pins (directly and by chains), with or without other events
    inside its run: the clean 16 (K-7), king alone (K-6), K-12/K-13 and the K-10 option."""
    from cuegym.rules.keglebillard import PIN_IDS, build_log

    names = ("red", "white", "spotted")
    out = []
    for _ in range(n):
        w = names[int(rng.integers(1, 3))]
        ev = [(0.1, "ball_ball", "red", w)] if rng.random() < 0.8 else []
        if rng.random() < 0.5:
            ev.append((0.2, "cushion", w if rng.random() < 0.7 else "red", 1))
        order = rng.permutation(5)
        t = 0.4
        fallen = []
        for p in order[: int(rng.integers(1, 6))]:
            t += 0.05
            if fallen and rng.random() < 0.5:
                ev.append((t, "pin_pin", PIN_IDS[int(rng.choice(fallen))], PIN_IDS[p]))
            else:
                ball = w if rng.random() < 0.85 else names[int(rng.integers(0, 3))]
                ev.append((t, "pin", ball, PIN_IDS[p]))
            fallen.append(int(p))
            if rng.random() < 0.15:
                t += 0.01
                kind = rng.choice(["cushion", "ball_ball", "pin_touch"])
                if kind == "cushion":
                    ev.append((t, "cushion", w, 2))
                elif kind == "ball_ball":
                    ev.append((t, "ball_ball", w, "red"))
                elif len(fallen) < 5:
                    q = [x for x in range(5) if x not in fallen][0]
                    ev.append((t, "pin_touch", names[int(rng.integers(0, 3))], PIN_IDS[q]))
        out.append((build_log(ev), [], bool(rng.random() < 0.3)))
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_kernel_equals_numpy_on_pin_runs(variant):
    rng = np.random.default_rng(100 + len(str(variant)))
    rules = load_rules(variant)
    items = _pin_runs(rng, 600)
    log = stack_logs([lg for lg, _, _ in items])
    salvo = [s for _, _, s in items]
    got = score_shots(log, rules, salvo_line=salvo)
    _same(got, score_numpy(log, rules, salvo_line=salvo))
    if not rules.ddbu:  # the paths are exercised
        assert got.clean16.sum() > 10 and got.king_alone.sum() > 5 and got.fouls[:, 3].any()


@pytest.mark.parametrize("variant", VARIANTS)
def test_kernel_equals_numpy_on_hand_built_logs(variant):
    rng = np.random.default_rng(len(str(variant)))
    rules = load_rules(variant)
    items = _logs(rng, 400)
    log = stack_logs([lg for lg, _, _ in items])
    inj = [i for _, i, _ in items]
    salvo = [s for _, _, s in items]
    _same(score_shots(log, rules, salvo_line=salvo, injected=inj),
          score_numpy(log, rules, salvo_line=salvo, injected=inj))


@pytest.mark.parametrize("variant", VARIANTS[:3])
def test_kernel_equals_numpy_on_physics_logs(variant, kegle):
    table, params = kegle
    rng = np.random.default_rng(7)
    T = 600
    xy = np.zeros((T, 3, 2))
    xy[:, 0] = np.stack([rng.uniform(-0.99, -0.3, T), rng.uniform(-0.45, 0.45, T)], 1)
    xy[:, 1] = [-0.1, 0.0] + rng.normal(0, 0.05, (T, 2))
    xy[:, 2] = [0.525, 0.0] + rng.normal(0, 0.05, (T, 2))
    phi = np.degrees(np.arctan2(xy[:, 1, 1] - xy[:, 0, 1], xy[:, 1, 0] - xy[:, 0, 0]))
    cue = np.stack([rng.uniform(1, 7, T), phi + rng.normal(0, 8, T), rng.uniform(0, 20, T),
                    rng.uniform(-0.4, 0.4, T), rng.uniform(-0.4, 0.4, T)], 1)
    res = simulate(table, params, xy, cue_ball=np.zeros(T, int), cue=cue, max_events=400,
                   validate=False)
    rules = load_rules(variant)
    salvo = rng.random(T) < 0.3
    _same(score_shots(res, rules, salvo_line=salvo, allow_overflow=True),
          score_numpy(res, rules, salvo_line=salvo, allow_overflow=True))
    assert load_params("keglebillard").R > 0


@pytest.mark.slow
def test_kernel_equals_numpy_on_many_logs():
    rng = np.random.default_rng(11)
    for k in range(20):
        rules = load_rules(VARIANTS[k % len(VARIANTS)])
        items = _logs(rng, 1000)
        log = stack_logs([lg for lg, _, _ in items])
        inj = [i for _, i, _ in items]
        salvo = [s for _, _, s in items]
        _same(score_shots(log, rules, salvo_line=salvo, injected=inj),
              score_numpy(log, rules, salvo_line=salvo, injected=inj))
