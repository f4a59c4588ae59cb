"""Differential test: the compiled keglebillard game layer (cuegym.games.kegle) against the old
per-table Python flow (tests/reference/kegle_flow.py, the oracle).

Random games in lock-step, 2-6 players, several rule variants (house, K-25 ddbu, skæve to the
next player only, ball in hand behind the salvo line, unsporting loss, short distances so games
end): each round every table gets a strike from the rules' random policy, a uniformly random one
(random placements: K-19 fouls, off the cloth, on balls and pin spots) or the geometric aimer,
sometimes with injected K-14a / K-16 events. The old path (placement check, one physics call,
``apply_batch`` / ``placement_foul``) and the new ``Kegle.play`` must give identical outcomes and
next states on every shot (their JSON forms compared). Finished games restart. The default run
plays a few thousand shots; ``-m slow`` plays over 100,000.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from reference import kegle_flow as old

from cuegym.configs import load_params
from cuegym.games.kegle import Kegle
from cuegym.games.strikes import Strikes
from cuegym.physics import GAME_MODELS, simulate
from cuegym.physics.constants import POCKETED
from cuegym.rules.keglebillard import BALL_IDS, PIN_IDS

VARIANTS = (
    {},
    {"distance": 24},
    {"distance": 16, "skaeve_to": "next"},
    {"distance": 20, "ball_in_hand_area": "salvo", "unsporting_loss": True},
    {"variant": "ddbu", "distance": 20},
    {"distance": 30, "cushion_before_pins": True, "frhv_nakkebal": True},
)
MAX_EVENTS = 400


def _injected(rng: np.random.Generator, st, p: float = 0.06, log=None) -> list[dict]:
    """A random injected event (K-14a or K-16) for one shot from ``st`` (probability ``p``),
    or none. A deliberate touch puts a white back where it started, which the referee refuses
    when another ball ended there: drawn only with the shot's ``log`` known and that spot
    free."""
    if rng.random() > p:
        return []
    kind = rng.choice(["touche", "double_hit", "pin_toppled", "moving_balls", "off_table",
                       "deliberate_touch", "guide_marks"])
    ev: dict = {"type": str(kind)}
    on = [b for b in range(3) if b == 0 or st.balls[b] is not None]
    if kind == "pin_toppled":
        up = [p for p in range(5) if st.pins[p]]
        if not up:
            return []
        ev["pins"] = [PIN_IDS[int(rng.choice(up))]]
        ev["by"] = "cue"
    elif kind == "off_table":
        ev["ball"] = BALL_IDS[int(rng.choice(on))]
        ev["returned"] = bool(rng.random() < 0.5)
    elif kind == "deliberate_touch":
        b = int(rng.choice(on[1:])) if len(on) > 1 else None
        if b is None:
            return []
        if log is None:
            return []
        end, gone = log.rvw[0, :, 0, :2], log.motion[0] == POCKETED
        if any(np.hypot(*(end[o] - st.balls[b])) < 0.0616 for o in on if o != b and not gone[o]):
            return []
        ev["balls"] = {BALL_IDS[b]: list(st.balls[b])}
    if kind != "off_table" and rng.random() < 0.3:
        ev["unsporting"] = True
    return [ev]


def _strikes(rng, game, states, geo_agent, frac_geo: float) -> Strikes:
    """One strike per state: random policy, uniform random, or geometric."""
    T = len(states)
    out = Strikes.empty(T)
    kind = rng.random(T)
    geo = np.flatnonzero(kind < frac_geo) if geo_agent is not None else np.zeros(0, int)
    if len(geo):
        s = geo_agent.act([states[t] for t in geo], rng)
        out.put(geo, s)
    hx, hy = game.table.length / 2, game.table.width / 2
    for t in range(T):
        if t in set(geo.tolist()):
            continue
        st = states[t]
        if kind[t] < 0.7:
            red, cue = old.random_policy(game, st, rng)
            out.cue[t] = cue
            if red is not None:
                out.place[t] = red
        else:
            out.cue[t] = (rng.uniform(0.3, 7.0), rng.uniform(-180, 180), rng.uniform(0, 40),
                          rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5))
            if st.ball_in_hand is not None:
                r = rng.random()
                if r < 0.1:
                    out.place[t] = (np.nan, np.nan)
                elif r < 0.4 and st.balls[1] is not None:  # on or next to the white
                    out.place[t] = np.asarray(st.balls[1]) + rng.normal(0, 0.05, 2)
                else:
                    out.place[t] = (rng.uniform(-hx, hx), rng.uniform(-hy, hy))
    return out


def _unplayable(game, st, xy) -> bool:
    """The red is in hand and its placement cannot be played (K-19)."""
    return st.ball_in_hand is not None and (not np.isfinite(xy).all()
                                            or game.placement_error(st, xy) is not None)


def _old_step(game, params, states, strikes, injected):
    """The previous product path: placement check, one physics call, apply_batch."""
    T = len(states)
    res: list = [None] * T
    idx, setups = [], []
    for t, st in enumerate(states):
        xy = None
        if st.ball_in_hand is not None:
            xy = strikes.place[t]
            if not np.isfinite(xy).all():
                res[t] = game.placement_foul(st, None, reason="no placement given")
                continue
            if game.placement_error(st, xy) is not None:
                res[t] = game.placement_foul(st, xy)
                continue
        setups.append(game.shot_setup(st, xy))
        idx.append(t)
    if idx:
        sim = simulate(game.table, params, np.stack([s.xy for s in setups]),
                       cue_ball=np.zeros(len(idx), np.int64), cue=strikes.cue[idx],
                       pins_up=np.stack([s.pins_up for s in setups]),
                       present=np.stack([s.present for s in setups]), max_events=MAX_EVENTS,
                       validate=False, models=GAME_MODELS)  # the games' physics
        out = game.apply_batch([states[t] for t in idx], sim, [injected[t] for t in idx],
                               allow_overflow=True)
        for k, t in enumerate(idx):
            res[t] = out[k]
    return res


def _run(n_shots: int, seed: int, T: int, frac_geo: float, rounds: int) -> int:
    from cuegym.agents.geometric import GeometricAgent

    rng = np.random.default_rng(seed)
    params = load_params("keglebillard")
    geo_agent = GeometricAgent("keglebillard") if frac_geo > 0 else None
    played = 0
    k = 0
    while played < n_shots:
        variant = VARIANTS[k % len(VARIANTS)]
        N = 2 + k % 5
        k += 1
        og = old.KeglebillardGame(variant)
        G = Kegle(variant)
        olds = [og.new_state(N, first_player=int(rng.integers(N))) for _ in range(T)]
        news = G.batch([G.new_state(N, first_player=s.to_play) for s in olds])
        for _ in range(rounds):  # rounds with this variant and player count
            strikes = _strikes(rng, og, olds, geo_agent, frac_geo)
            inj = [[] if _unplayable(og, st, strikes.place[t]) else _injected(rng, st)
                   for t, st in enumerate(olds)]  # K-19: no shot, no events (refused)
            ref = _old_step(og, params, olds, strikes, inj)
            out, news = G.play(news, strikes, max_events=MAX_EVENTS, injected=inj,
                               allow_overflow=True)
            for t in range(T):
                o_old, s_old = ref[t]
                o_new = out.outcome(t).to_dict()
                assert o_new == o_old.to_dict(), (variant, N, t, o_old, o_new)
                assert news.state(t).to_dict() == s_old.to_dict(), (variant, N, t)
                olds[t] = s_old
            played += T
            done = [t for t in range(T) if olds[t].game_over]
            if done:
                fresh = [og.new_state(N, first_player=int(rng.integers(N))) for _ in done]
                for t, s in zip(done, fresh, strict=True):
                    olds[t] = s
                news.put(done, G.batch([G.new_state(N, first_player=s.to_play)
                                        for s in fresh]))
            if played >= n_shots:
                break
    return played


def test_compiled_flow_equals_the_old_flow_short():
    assert _run(3000, seed=1, T=25, frac_geo=0.15, rounds=12) >= 3000


@pytest.mark.slow
def test_compiled_flow_equals_the_old_flow_100k():
    assert _run(100_000, seed=2, T=128, frac_geo=0.1, rounds=40) >= 100_000


def test_reference_is_the_previous_implementation():
    """The oracle is not the product: the product has no per-table flow class any more."""
    import cuegym.rules.keglebillard_game as product

    assert not hasattr(product, "ShotSetup") and old.KeglebillardGame is not Kegle
    assert math.isfinite(old.MATCH_TOL)


# --- hand-built logs: the rare paths (K-20 wins, covered spots, K-25 streaks, lost players) ---

def _random_log(rng, game, st):
    """A random, consistent one-table event log played from ``st`` (and the red's placement
    when in hand), with end positions often on the white and pin spots."""
    from cuegym.rules.keglebillard import build_log

    names = list(BALL_IDS)
    on = [b for b in range(3) if b == 0 or st.balls[b] is not None]
    start = {names[b]: st.balls[b] for b in on if st.balls[b] is not None}
    if st.ball_in_hand is not None:
        r = rng.random()
        start["red"] = ((-0.8, float(rng.uniform(-0.4, 0.4))) if r < 0.8
                        else tuple(rng.uniform(-0.3, 0.3, 2)))
    spots = np.concatenate([game.spots, game.pin_spots])
    events, t = [], 0.0
    up = list(st.pins)
    pocketed = set()
    if rng.random() < 0.6 and len(on) > 1:  # the red meets a white first: often a legal shot
        t = 0.05
        events.append((t, "ball_ball", "red", names[int(rng.choice(on[1:]))]))
    for _ in range(int(rng.integers(0, 7))):
        t += float(rng.uniform(0.01, 0.3))
        kind = rng.choice(["ball_ball", "cushion", "pin", "pocket", "pin_pin"],
                          p=[0.35, 0.3, 0.15, 0.12, 0.08])
        live = [b for b in on if b not in pocketed]
        if not live:
            break
        a = int(rng.choice(live))
        if kind == "ball_ball" and len(live) > 1:
            b = int(rng.choice([x for x in live if x != a]))
            events.append((t, "ball_ball", names[a], names[b]))
        elif kind == "cushion":
            events.append((t, "cushion", names[a], int(rng.integers(0, 4))))
        elif kind == "pin" and any(up):
            p = int(rng.choice([p for p in range(5) if up[p]]))
            up[p] = False
            events.append((t, "pin", names[a], PIN_IDS[p]))
        elif kind == "pin_pin" and any(up) and not all(up[p] or not st.pins[p]
                                                       for p in range(5)):
            src = int(rng.choice([p for p in range(5) if st.pins[p] and not up[p]]))
            dst = int(rng.choice([p for p in range(5) if up[p]]))
            up[dst] = False
            events.append((t, "pin_pin", PIN_IDS[src], PIN_IDS[dst]))
        elif kind == "pocket":
            pocketed.add(a)
            events.append((t, "pocket", names[a], int(rng.integers(0, 6))))
    if rng.random() < 0.04:  # all three down (K-20)
        for b in on:
            if b not in pocketed:
                t += 0.1
                events.append((t, "pocket", names[b], 0))
    absent = [names[b] for b in (1, 2) if b not in on]
    pocketed = {names.index(e[2]) for e in events if e[1] == "pocket"}
    for _ in range(200):  # build_log refuses an illegal rest layout: draw until legal
        end = {}  # a pocketed ball rests in its pocket (build_log's default)
        for b in on:
            if b in pocketed:
                continue
            r = rng.random()
            if r < 0.3:
                end[names[b]] = tuple(spots[int(rng.integers(len(spots)))]
                                      + rng.normal(0, 0.03, 2))
            else:
                end[names[b]] = (float(rng.uniform(-1.0, 1.0)), float(rng.uniform(-0.5, 0.5)))
        try:
            return build_log(events, start=start, end=end, absent=absent, pins_up0=st.pins)
        except ValueError as exc:
            why = str(exc)
            if "build_log end." not in why:
                raise
    raise AssertionError(f"no legal rest layout drawn: {why}")


def _run_logs(n_shots: int, seed: int, T: int, rounds: int) -> int:
    from cuegym.rules.keglebillard import stack_logs

    rng = np.random.default_rng(seed)
    played, k = 0, 0
    while played < n_shots:
        variant = {**VARIANTS[k % len(VARIANTS)], "distance": 12 + 4 * (k % 4)}
        N = 2 + k % 5
        k += 1
        og, G = old.KeglebillardGame(variant), Kegle(variant)
        olds = [og.new_state(N, first_player=int(rng.integers(N))) for _ in range(T)]
        for _ in range(rounds):
            logs = [_random_log(rng, og, st) for st in olds]
            inj = [[] if _unplayable(og, st, lg.rvw0[0, 0, 0, :2]) else _injected(rng, st, 0.2, lg)
                   for st, lg in zip(olds, logs, strict=True)]
            ref = og.apply_batch(olds, stack_logs(logs), inj)
            out, new = G.apply_log(G.batch(olds), stack_logs(logs), inj)
            for t in range(T):
                assert out.outcome(t).to_dict() == ref[t][0].to_dict(), (variant, N, t)
                assert new.state(t).to_dict() == ref[t][1].to_dict(), (variant, N, t)
            played += T
            olds = [og.new_state(N, first_player=0) if s.game_over else s for _, s in ref]
    return played


def test_compiled_flow_equals_the_old_flow_on_hand_built_logs():
    assert _run_logs(4000, seed=3, T=25, rounds=10) >= 4000


@pytest.mark.slow
def test_compiled_flow_equals_the_old_flow_on_hand_built_logs_long():
    assert _run_logs(60_000, seed=4, T=100, rounds=20) >= 60_000
