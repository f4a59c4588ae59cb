"""Bad input, the JSON interface, the CLI and path queries (issue 2, items 6-8)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from cuegym.configs import ConfigError, PhysicsParams, load_params, load_table
from cuegym.physics import Models, PhysicsInputError, simulate, simulate_json
from cuegym.physics.constants import MOTION_NAMES
from cuegym.physics.path import ball_segments, positions_at, states_at

KEGLE_BALLS = {"red": {"x": -0.8, "y": 0.1}, "white": {"x": -0.525, "y": 0.0},
               "spotted": {"x": 0.525, "y": 0.0}}


def shot(**kw):
    s = {"table": "keglebillard", "balls": json.loads(json.dumps(KEGLE_BALLS)),
         "strike": {"ball": "red", "V0": 2.5, "phi": -20.0, "theta": 0.0, "a": 0.0, "b": 0.2}}
    s.update(kw)
    return s


def test_tables_match_spec_numbers():
    k = load_table("keglebillard")
    assert (k.length, k.width, k.cushion_height) == (2.10, 1.05, 0.037)
    assert len(k.pockets) == 6 and len(k.pin_spots) == 5
    assert k.pin_spots[1] == (0.082, 0.0)
    h = load_table("keglebillard-helmatch")
    assert (h.length, h.width) == (2.84, 1.42)
    g = load_table("golfbillard")
    assert (g.length, g.width, g.cushion_height) == (1.80, 0.90, 0.038)
    assert len(g.posts) == 12 and all(c.radius == 0.0175 for c in g.posts)
    assert [p.radius for p in g.pockets] == [0.0325, 0.0325]
    assert load_params("golfbillard").m == 0.210
    assert load_params("keglebillard").m == 0.207


def test_config_errors_name_the_value():
    with pytest.raises(ConfigError, match="nope"):
        load_table("nope")
    with pytest.raises(ConfigError, match="u_x"):
        PhysicsParams.from_dict({"u_x": 0.1})
    with pytest.raises(ConfigError, match="u_s"):
        PhysicsParams(u_s=-1.0)
    with pytest.raises(ConfigError, match="e_b"):
        PhysicsParams(e_b=1.5)
    with pytest.raises(ConfigError, match="bogus"):
        Models(cushion="bogus")


@pytest.mark.parametrize("mutate,match", [
    (lambda s: s["balls"]["white"].update(x=-0.79, y=0.1), "overlap"),
    (lambda s: s["balls"]["red"].update(x=1.2), "off the cloth"),
    (lambda s: s["balls"]["red"].update(x=float("nan")), "finite"),
    (lambda s: s["strike"].update(V0=-1.0), "V0"),
    (lambda s: s.update(table="pool"), "unknown table"),
    (lambda s: s.update(models={"cushion": "stronge"}), "stronge"),
    (lambda s: s.update(params={"mu": 0.1}), "mu"),
    (lambda s: s.update(colour="red"), "colour"),
    (lambda s: s["balls"]["red"].update(v=[1.0]), "list of 2"),
    (lambda s: s["strike"].update(ball="cue"), "cue"),
    (lambda s: s["balls"].update(yellow={"x": 0, "y": 0.3}), "yellow"),
    (lambda s: s["balls"]["red"].update(x=0.0, y=0.03), "pin"),
    (lambda s: s["strike"].update(a=0.9, b=0.9), "a\\^2"),
    (lambda s: s.update(max_events=0), "max_events"),
])
def test_bad_json_input_is_named(mutate, match):
    s = shot()
    mutate(s)
    with pytest.raises(PhysicsInputError, match=match):
        simulate_json(s)


def test_ball_inside_cap_is_rejected():
    s = {"table": "golfbillard", "balls": {"w1": {"x": 0.09, "y": 0.02}},
         "strike": {"ball": "w1", "V0": 1.0, "phi": 0.0}}
    with pytest.raises(PhysicsInputError, match="post"):
        simulate_json(s)


def test_wrong_shapes_raise(kegle):
    table, p = kegle
    with pytest.raises(PhysicsInputError, match="shape"):
        simulate(table, p, np.zeros((2, 3)))
    with pytest.raises(PhysicsInputError, match="shape"):
        simulate(table, p, [[[-0.8, 0.1], [-0.5, 0], [0.5, 0]]], cue_ball=[0], cue=[[1.0, 0.0]])
    with pytest.raises(PhysicsInputError, match="pins_up"):
        simulate(table, p, [[[-0.8, 0.1], [-0.5, 0], [0.5, 0]]], pins_up=np.ones((1, 4), bool))


def test_json_output_format():
    out = simulate_json(shot())
    assert set(out) >= {"final", "pins", "events", "n_events", "t_end", "overflow"}
    assert set(out["final"]) == {"red", "white", "spotted"}
    assert set(out["pins"]) == {"king", "pin1", "pin2", "pin3", "pin4"}
    for f in out["final"].values():
        assert f["state"] in ("stationary", "pocketed")
    assert out["overflow"] is False
    assert out["n_events"] == len(out["events"])
    types = {e["type"] for e in out["events"]}
    assert types <= {"ball_ball", "ball_cushion", "ball_pocket", "ball_post", "ball_pin",
                     "pin_pin", "transition"}
    assert any(e["type"] == "ball_ball" for e in out["events"])


def test_json_event_states_are_the_array_apis_states():
    """``event_states``: every ball's state right after the strike and each event's ball
    agents' states after it, as the array API logs them; without it the output is unchanged."""
    kinds = set()
    for strike in (shot()["strike"], {"ball": "red", "V0": 3.0, "phi": -5.0, "b": 0.2}):
        s = shot(strike=strike)
        plain, full = simulate_json(s), simulate_json({**s, "event_states": True})
        assert "start" not in plain and all("after" not in e for e in plain["events"])
        stripped = [{k: v for k, v in e.items() if k != "after"} for e in full["events"]]
        assert plain == {**{k: v for k, v in full.items() if k != "start"}, "events": stripped}
        res = simulate(load_table("keglebillard"), load_params("keglebillard"),
                       [[[-0.8, 0.1], [-0.525, 0.0], [0.525, 0.0]]], cue_ball=[0],
                       cue=[[strike.get(k, 0.0) for k in ("V0", "phi", "theta", "a", "b")]])
        for b, name in enumerate(("red", "white", "spotted")):
            st = full["start"][name]
            assert [st["x"], st["y"], *st["v"], *st["w"]] == [
                *res.rvw0[0, b, 0, :2], *res.rvw0[0, b, 1, :2], *res.rvw0[0, b, 2]]
            assert st["state"] == MOTION_NAMES[res.motion0[0, b]]
        assert full["start"]["red"]["state"] == "sliding" and full["start"]["red"]["v"][0] > 0
        for k, e in enumerate(full["events"]):
            kinds.add(e["type"])
            after = e.get("after", [])
            assert len(after) == {"ball_ball": 2, "pin_pin": 0}.get(e["type"], 1)
            for slot, a in enumerate(after):
                assert [a["x"], a["y"], *a["v"], *a["w"]] == res.ev_state[0, k, slot].tolist()
                assert a["state"] == MOTION_NAMES[res.ev_motion[0, k, slot]]
    assert {"ball_ball", "ball_pin", "ball_cushion", "transition"} <= kinds
    with pytest.raises(PhysicsInputError, match=r"shot\[0\]\.event_states must be true or false"):
        simulate_json({**shot(), "event_states": "yes"})


def test_json_list_equals_singles_and_custom_table():
    custom = {"table": {"length": 2.1, "width": 1.05, "cushion_height": 0.0394,
                        "pockets": [], "posts": [{"x": 0.3, "y": 0.0, "radius": 0.0175}]},
              "balls": {"a": {"x": -0.5, "y": 0.0}, "b": {"x": 0.0, "y": 0.2, "v": [0.1, -1.0]}},
              "strike": {"ball": "a", "V0": 3.0, "phi": 0.5}}
    shots = [shot(), custom, shot(strike={"ball": "red", "V0": 1.0, "phi": 10.0})]
    batch = simulate_json(shots)
    assert isinstance(batch, list) and len(batch) == 3
    for s, b in zip(shots, batch, strict=True):
        assert simulate_json(s) == b
    assert any(e["type"] == "ball_post" for e in batch[1]["events"])


def test_cli_help_gives_the_format(capsys):
    from cuegym.physics.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--help"])
    out = capsys.readouterr().out
    assert exc.value.code == 0
    for key in ('"strike"', '"event_states"', '"end_reason"', '"after"'):
        assert key in out, key


def test_cli_indent(capsys, monkeypatch):
    import io

    from cuegym.physics.__main__ import main

    monkeypatch.setattr(sys, "stdin", io.StringIO(json.dumps(shot())))
    assert main(["simulate", "--indent", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("{\n  ") and json.loads(out) == simulate_json(shot())
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--indent", "-1"])
    assert exc.value.code == 2
    assert "--indent must be >= 0, got -1" in capsys.readouterr().err


def test_cli_roundtrip_and_error_exit():
    cmd = [sys.executable, "-m", "cuegym.physics", "simulate"]
    ok = subprocess.run(cmd, input=json.dumps(shot()), capture_output=True, text=True, check=True)
    assert json.loads(ok.stdout) == simulate_json(shot())
    bad = subprocess.run(cmd, input=json.dumps(shot(table="snooker")), capture_output=True,
                         text=True)
    assert bad.returncode == 2 and "snooker" in bad.stderr


def test_path_queries_consistent_with_log(kegle):
    table, p = kegle
    res = simulate(table, p, [[[-0.8, 0.1], [-0.525, 0.0], [0.525, 0.0]]], cue_ball=[0],
                   cue=[[3.0, -15.0, 0.0, 0.1, 0.3]])
    # at the end the path equals the final state
    end = positions_at(res, [res.t_end[0]])[0, 0]
    assert np.allclose(end, res.rvw[0, :, 0, :2], atol=1e-12)
    # at every event time the state is the logged after-state (but a pocketed ball's place:
    # the pocket event logs where it dropped, the ball then lies at the pocket's centre)
    n = res.n_events[0]
    st = states_at(res, res.ev_time[0, :n])[0]
    for k in range(n):
        if res.ev_type[0, k] in (6,):
            continue
        if res.ev_type[0, k] == 3:
            i = res.ev_i[0, k]
            assert np.allclose(st[k, i, :2], res.rvw[0, i, 0, :2], atol=1e-12)
            assert np.allclose(st[k, i, 2:], res.ev_state[0, k, 0, 2:], atol=1e-12)
            continue
        i = res.ev_i[0, k]
        assert np.allclose(st[k, i], res.ev_state[0, k, 0], atol=1e-12) or \
            res.ev_time[0, k] == res.ev_time[0, min(k + 1, n - 1)]
    # segments reproduce positions_at
    segs = ball_segments(res, 0, 1)
    for t0, t1, p0, q, acc in segs:
        tm = 0.5 * (t0 + t1)
        exp = p0 + q * (tm - t0) + acc * (tm - t0) ** 2
        assert np.allclose(positions_at(res, [tm])[0, 0, 1], exp, atol=1e-12)


def test_ball_resting_on_a_pocket_lip_is_a_valid_start(kegle):
    """A ball may come to rest past the nose line in a pocket mouth (the cushion is cut there);
    the next shot must accept that position, but not the same distance past a real cushion."""
    table, p = kegle
    lip = [-0.0208, table.width / 2 - p.R + 0.0024]  # side pocket mouth, outside the capture
    res = simulate(table, p, [[lip, [-0.525, 0.0], [0.525, 0.0]]], cue_ball=[0],
                   cue=[[1.0, -90.0, 0.0, 0.0, 0.0]])
    assert res.overflow[0] == 0
    with pytest.raises(PhysicsInputError, match="off the cloth"):
        simulate(table, p, [[[-0.5, lip[1]], [-0.525, 0.0], [0.525, 0.0]]])


def test_workspace_reuse_across_shapes_is_exact(kegle, golf):
    """One Workspace serving calls of different shapes (as the JSON path does) gives the same
    results as fresh buffers."""
    from cuegym.physics import Workspace
    from cuegym.physics.scenarios import golfbillard_shots, keglebillard_shots

    ws = Workspace()
    rng = np.random.default_rng(2)
    for (table, p), gen, T, K in ((golf, golfbillard_shots, 9, 500), (kegle, keglebillard_shots,
                                                                       13, 300),
                                  (golf, golfbillard_shots, 4, 800)):
        s = gen(rng, table, p, T)
        kw = dict(cue_ball=s["cue_ball"], cue=s["cue"], pins_up=s.get("pins_up"), max_events=K)
        a = simulate(table, p, s["xy"], **kw)
        b = simulate(table, p, s["xy"], workspace=ws, **kw)
        assert ws.nbytes >= Workspace.bytes_needed(T, s["xy"].shape[1], len(table.pin_spots), K)
        assert np.array_equal(a.n_events, b.n_events) and np.array_equal(a.rvw, b.rvw)
        for t in range(T):
            n = a.n_events[t]
            assert np.array_equal(a.ev_state[t, :n], b.ev_state[t, :n])
            assert np.array_equal(a.ev_type[t, :n], b.ev_type[t, :n])


def test_json_list_errors_name_the_shot():
    shots = [shot(), shot(), shot()]
    shots[2]["balls"]["white"].update(x=-0.79, y=0.1)
    with pytest.raises(PhysicsInputError, match=r"shot\[2\].*overlap"):
        simulate_json(shots)
    shots = [shot(), shot(strike=[{"ball": "red", "V0": 1.0, "phi": 0.0},
                                  {"ball": "red", "V0": 1.0, "phi": 9.0}])]
    with pytest.raises(PhysicsInputError, match=r"shot\[1\].*struck twice"):
        simulate_json(shots)
    with pytest.raises(PhysicsInputError, match=r"shot\[1\]\.balls\.red\.v\[1\]"):
        simulate_json([shot(), shot(balls={"red": {"x": 0.5, "y": 0.2, "v": [0.0, "1"]}})])


def test_one_thread_runs_a_batch_on_the_pool_kernel_with_the_same_results(monkeypatch):
    """One thread asked for: 4+ tables go through the prange kernel on one thread (numba
    compiles the per-table loop 1.35-1.5x faster there), fewer through the serial one; the
    results are bit-identical either way."""
    from cuegym.experiments.bench_physics import _shots
    from cuegym.physics import GAME_MODELS, api
    from cuegym.physics.parallel import POOL_MIN_TABLES_ONE_THREAD, run_serially

    assert run_serially(POOL_MIN_TABLES_ONE_THREAD - 1, 1)
    assert not run_serially(POOL_MIN_TABLES_ONE_THREAD, 1)
    table, params, s = _shots("golfbillard", 16, 0)
    pooled = []
    kernel = api.simulate_batch
    monkeypatch.setattr(api, "simulate_batch", lambda *a: pooled.append(a[0].shape[0]) or
                        kernel(*a))
    runs = [simulate(table, params, s["xy"][:n], cue_ball=s["cue_ball"][:n], cue=s["cue"][:n],
                     threads=th, models=GAME_MODELS) for n, th in ((16, 1), (16, 2))]
    runs += [simulate(table, params, s["xy"][t:t + 1], cue_ball=s["cue_ball"][t:t + 1],
                      cue=s["cue"][t:t + 1], threads=1, models=GAME_MODELS) for t in range(3)]
    assert pooled == [16, 16]  # one thread and two ran the pool's kernel; single tables not
    for f in ("rvw", "ev_time", "ev_state", "n_events"):
        assert np.array_equal(getattr(runs[0], f), getattr(runs[1], f))
        for t in range(3):
            assert np.array_equal(getattr(runs[0], f)[t], getattr(runs[2 + t], f)[0])
