"""The learned aim correction (cuegym.agents.aim, experiments/train_aim.py; docs/agents.md,
"Aim correction")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cuegym.agents import make_agent, make_arena, play_games, pretrained_aim_path
from cuegym.agents.aim import (
    N_STRIKE,
    AimCorrectedAgent,
    AimNet,
    aim_curves,
    aim_inputs,
    base_strikes,
    first_contact,
    fit_aim,
    label_games,
    load_aim,
    mirrorable,
    mirrored_inputs,
    mirrored_labels,
    save_aim,
    turned,
)
from cuegym.agents.base import load_noise
from cuegym.agents.expert import mean_values

ROOT = Path(__file__).resolve().parents[1]
R = 0.0305


@pytest.fixture(scope="module")
def kegle():
    return make_arena("keglebillard")


def _xy(*whites):
    xy = np.full((len(whites), 3, 2), np.nan)
    for t, w in enumerate(whites):
        xy[t, 0] = (0.0, 0.0)
        xy[t, 1:1 + len(w)] = w
    return xy


def test_first_contact_side_cut_and_white():
    red = np.zeros((4, 2))
    xy = _xy([(0.5, 0.0), (1.0, 0.0)], [(0.5, 0.0)], [(0.5, 0.0)], [(0.0, 0.5)])
    phi = np.array([0.0, 3.0, -3.0, 0.0])
    side, cut, white = first_contact(red, xy, phi, R)
    # full hit on the nearer white; aiming left of a white cuts it to the right and back
    assert white.tolist() == [1, 1, 1, 0]
    assert side[0] == 0.0 and cut[0] == pytest.approx(0.0, abs=1e-6)
    assert side[1] == -side[2] != 0.0
    # sin(cut) = lateral miss / 2R: 0.5 * sin(3 deg) over 2R
    assert cut[1] == pytest.approx(np.degrees(np.arcsin(0.5 * np.sin(np.radians(3)) / (2 * R))),
                                   rel=1e-3)
    assert side[3] == 0.0 and cut[3] == 0.0


def _positions(kegle, n_games=3, seed=1):
    from cuegym.agents.expert import collect_positions

    geo = make_agent("geometric", "keglebillard", arena=kegle)
    states, _, _ = collect_positions(kegle, [geo, geo], n_games, seed=seed)
    return states, geo.act(states, np.random.default_rng(0))


def test_inputs_are_mirror_symmetric(kegle):
    """A position mirrored in the table's long axis, with the aim mirrored, has the same
    shot-frame inputs: the offsets are signed by the cut side, so the curves line up."""
    states, strikes = _positions(kegle)
    x, sign = aim_inputs(kegle, states, strikes)
    assert x.shape[0] == len(states) and np.isfinite(x).all() and set(np.unique(sign)) <= {-1, 1}
    mirror = states.copy()
    mirror.xy[..., 1] *= -1.0
    ms = strikes.copy()
    ms.cue[:, 1] *= -1.0
    ms.place[:, 1] *= -1.0
    xm, sm = aim_inputs(kegle, mirror, ms)
    obs = kegle.g.observe(states).shape[1]
    hit = x[:, obs + 8] != 0  # the red meets a white first: its cut side decides the sign
    assert hit.any()
    assert np.array_equal(sm[hit], -sign[hit])
    f = obs + N_STRIKE  # the whites, the 5 pins and the 6 pockets in the shot frame
    assert np.allclose(xm[hit, f:f + 4], x[hit, f:f + 4], atol=1e-5)
    for lo, k in ((f + 4, 5), (f + 14, 6)):  # the mirror swaps pins and pockets: compare sets
        def points(a, lo=lo, k=k):
            p = a[hit, lo:lo + 2 * k].reshape(-1, k, 2).round(4)
            return np.sort(p[..., 0] * 1e3 + p[..., 1], axis=1)
        assert np.allclose(points(xm), points(x), atol=1e-2)


def _mirror(states, strikes, axis):
    """A position and strike mirrored in the long axis (y, the aim's sin, side spin and
    placement y negated; the +y and -y pins, spots 2 and 4, swap) or the short one (x, the
    aim's cos, side spin and placement x; the +x and -x pins, spots 1 and 3)."""
    c = {"long": 1, "short": 0}[axis]
    m = states.copy()
    m.xy[..., c] *= -1.0
    m.pins = m.pins[:, [0, 1, 4, 3, 2] if axis == "long" else [0, 3, 2, 1, 4]]
    ms = strikes.copy()
    ms.cue[:, 1] = -ms.cue[:, 1] if axis == "long" else 180.0 - ms.cue[:, 1]
    ms.cue[:, 3] *= -1.0
    ms.place[:, c] *= -1.0
    return m, ms


@pytest.mark.parametrize("axis", ["long", "short"])
def test_mirrored_inputs_are_those_of_the_mirror_image(kegle, axis):
    """mirrored_inputs(x) is exactly aim_inputs of the mirrored positions and strikes, and the
    physics and rules give the mirror image the same values: the labels it adds are true. The
    short axis has no image of a break (the salvo line is at one end)."""
    states, strikes = _positions(kegle, 4, seed=3)
    strikes.cue[:, 3] = np.random.default_rng(1).uniform(-0.3, 0.3, len(strikes))  # side spin
    x, _ = aim_inputs(kegle, states, strikes)
    ok = mirrorable(x, axis)
    assert ok.all() if axis == "long" else (ok.any() and not ok.all())
    if axis == "short":
        with pytest.raises(ValueError, match="salvo line"):
            mirrored_inputs(kegle, x, axis)
    idx = np.flatnonzero(ok)
    states, strikes, x = states.take(idx), strikes.take(idx), x[idx]
    m, ms = _mirror(states, strikes, axis)
    xm, _ = aim_inputs(kegle, m, ms)
    assert np.array_equal(mirrored_inputs(kegle, x, axis), xm)
    assert not np.array_equal(xm, x)
    assert np.array_equal(kegle.values(states, strikes), kegle.values(m, ms))
    assert mirrored_inputs(kegle, x[:0], axis).shape == (0, x.shape[1])  # no rows, no images


def test_mirrored_labels_reverse_only_table_signed_curves(kegle):
    states, strikes = _positions(kegle, 2)
    # random aims: some meet no white first (their curves keep the table's sign)
    strikes.cue[::2, 1] = np.random.default_rng(2).uniform(0.0, 360.0, len(strikes.cue[::2]))
    x, _ = aim_inputs(kegle, states, strikes)
    no_cut = x[:, kegle.g.observe(states).shape[1] + 8] == 0.0
    assert no_cut.any() and not no_cut.all()
    curves = np.tile(np.arange(5, dtype=np.float32), (len(x), 1))
    x2, c2 = mirrored_labels(kegle, x, curves, curves=True)
    assert x2.shape == (2 * len(x), x.shape[1]) and np.array_equal(x2[:len(x)], x)
    assert np.array_equal(c2[len(x):][no_cut], curves[no_cut, ::-1])
    assert np.array_equal(c2[len(x):][~no_cut], curves[~no_cut])
    _, own = mirrored_labels(kegle, x, curves, curves=False)  # the leave: values of the strike
    assert np.array_equal(own[len(x):], curves)
    with pytest.raises(ValueError, match="inputs"):
        mirrored_labels(kegle, x, curves[1:], curves=True)
    # both axes: each image and the half turn, where the short axis has one
    ok = mirrorable(x, "short")
    x4, c4 = mirrored_labels(kegle, x, curves, curves=True, axes=("long", "short"))
    assert len(x4) == len(c4) == 2 * len(x) + 2 * ok.sum()
    half_turn = c4[2 * len(x) + ok.sum():]  # mirrored twice: the curves as labelled
    assert np.array_equal(half_turn, curves[ok])


def test_turned_and_curves_use_common_draws(kegle):
    states, strikes = _positions(kegle, 2)
    states, strikes = states.take(np.arange(6)), strikes.take(np.arange(6))
    sign = np.array([1.0, -1.0, 1.0, 1.0, -1.0, 1.0])
    one = turned(strikes, sign, np.full(6, 0.5), each=True)
    assert np.allclose(one.cue[:, 1] - strikes.cue[:, 1], 0.5 * sign)
    with pytest.raises(ValueError, match="one offset per strike"):
        turned(strikes, sign, np.zeros(3), each=True)
    # as many offsets as strikes is still a grid without `each` (a chunk of n positions)
    assert len(turned(strikes, sign, np.linspace(-1, 1, 6))) == 36
    offs = np.array([-1.0, 0.0, 1.0])
    many = turned(strikes, sign, offs)
    assert len(many) == 18
    assert np.allclose(many.cue[0::3, 1] - strikes.cue[:, 1], -sign)
    assert np.allclose(many.cue[1::3, 1], strikes.cue[:, 1])
    assert np.allclose(many.cue[2::3, 1] - strikes.cue[:, 1], sign)
    noise = load_noise("tournament")
    x, v = aim_curves(kegle, states, strikes, offs, 4, np.random.default_rng(5), noise, chunk=6)
    assert v.shape == (6, 3) and x.shape[0] == 6
    _, signs = aim_inputs(kegle, states, strikes)
    ref = mean_values(kegle, states, turned(strikes, signs, offs), 3, 4, noise,
                      np.random.default_rng(5))
    assert np.allclose(v, ref)  # the offsets of a position meet the same draws
    _, v1 = aim_curves(kegle, states, strikes, offs, 4, np.random.default_rng(5), noise, chunk=1)
    assert np.array_equal(v1, v)  # the chunk is speed only


def test_fit_finds_the_peak_and_saves(tmp_path):
    """A synthetic curve whose peak moves with one input: the fitted network's best offset
    follows it, and survives a save and load."""
    rng = np.random.default_rng(0)
    offs = np.linspace(-1.0, 1.0, 9)
    x = rng.uniform(-1, 1, (4096, 5)).astype(np.float32)
    peak = 0.8 * x[:, 2]
    values = 5.0 - 8.0 * (offs[None] - peak[:, None]) ** 2 + rng.normal(0, 0.5, (4096, 9))
    net = fit_aim(x, values, offs, hidden=(64, 64), epochs=15, batch=128)
    test = rng.uniform(-1, 1, (256, 5)).astype(np.float32)
    got = net.best_offsets(test)
    assert np.abs(got - 0.8 * test[:, 2]).mean() < 0.2  # the grid step is 0.25
    path = save_aim(net, tmp_path / "aim.pt", {"note": "test"})
    back, meta = load_aim(path)
    assert meta == {"note": "test"} and isinstance(back, AimNet)
    assert np.array_equal(back.best_offsets(test), got)
    with pytest.raises(ValueError, match="do not match"):
        fit_aim(x, values[:, :5], offs)
    with pytest.raises(FileNotFoundError, match="no aim network"):
        load_aim(tmp_path / "none.pt")
    import torch

    torch.save({"weights": 1}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="is not an aim network"):
        load_aim(tmp_path / "other.pt")


def test_corrected_agent_turns_the_base_aim(kegle, tmp_path):
    states, _ = _positions(kegle, 2)
    geo = make_agent("geometric", "keglebillard", arena=kegle)
    x, _ = aim_inputs(kegle, states, geo.act(states, np.random.default_rng(0)))
    offs = np.linspace(-1.0, 1.0, 5)
    # the curve rises to +1 degree everywhere
    net = fit_aim(np.repeat(x, 4, 0), np.tile(offs, (4 * len(x), 1)) * 3.0, offs,
                  hidden=(16,), epochs=80, batch=32, lr=3e-3)
    agent = AimCorrectedAgent(geo, net, arena=kegle)
    assert agent.name == "geometric+aim"
    base = geo.act(states, np.random.default_rng(0))
    got = agent.act(states, np.random.default_rng(0))
    _, sign = aim_inputs(kegle, states, base)
    assert np.allclose(got.cue[:, 1] - base.cue[:, 1], sign * 1.0)
    assert np.array_equal(got.place, base.place, equal_nan=True)
    assert len(agent.act(states.take(np.arange(0)), np.random.default_rng(0))) == 0
    golf = make_agent("geometric", "golfbillard")
    with pytest.raises(ValueError, match="for keglebillard"):
        AimCorrectedAgent(golf, net)


def _shipped_dqn(kegle):
    from cuegym.agents import pretrained_path

    if pretrained_path("keglebillard") is None:
        pytest.skip("no shipped keglebillard agent")
    return make_agent("pretrained:aim=none", "keglebillard", arena=kegle)


def test_ranked_entries_start_with_the_played_one(kegle):
    dqn = _shipped_dqn(kegle)
    states, _ = _positions(kegle, 2)
    rng = np.random.default_rng(0)
    top = dqn.ranked(states, 3)
    assert len(top) == 3 * len(states)
    played = dqn.act(states, rng)
    first = top.take(np.arange(0, len(top), 3))
    assert np.array_equal(first.cue, played.cue)
    assert np.array_equal(first.place, played.place, equal_nan=True)
    assert np.array_equal(base_strikes(dqn, states, 1, rng).cue, played.cue)
    # three different menu entries per position
    cue = top.cue.reshape(len(states), 3, -1)
    assert all(len({tuple(r) for r in c}) == 3 for c in cue)
    with pytest.raises(ValueError, match="37 best entries asked for; the menu has 36"):
        dqn.ranked(states, 37)
    geo = make_agent("geometric", "keglebillard", arena=kegle)
    with pytest.raises(ValueError, match="does not rank its strikes"):
        base_strikes(geo, states, 2, rng)
    with pytest.raises(ValueError, match="does not rank its strikes"):
        AimCorrectedAgent(geo, AimNet(aim_inputs(kegle, states, played)[0].shape[1],
                                      np.zeros(3)), arena=kegle, entries=2)
    golf = make_agent("pretrained", "golfbillard")  # a residual SAC model: no menu
    with pytest.raises(ValueError, match="need a discrete-menu DQN model"):
        golf.ranked([], 2)


def test_corrected_agent_picks_among_entries(kegle):
    """entries=3: the strike of highest predicted value over its offsets, turned by its best
    offset; entries=1 plays the base agent's strike, as before."""
    dqn = _shipped_dqn(kegle)
    states, _ = _positions(kegle, 2)
    rng = np.random.default_rng(0)
    top = dqn.ranked(states, 3)
    T = len(states)
    x, sign = aim_inputs(kegle, states.take(np.repeat(np.arange(T), 3)), top)
    offs = np.linspace(-1.0, 1.0, 5)
    net = AimNet(x.shape[1], offs, hidden=(8,))
    agent = AimCorrectedAgent(dqn, net, arena=kegle, entries=3)
    got = agent.act(states, rng)
    import torch

    with torch.no_grad():
        pred = net(torch.as_tensor(x)).numpy().reshape(T, 3, -1)
    entry = pred.max(2).argmax(1)
    rows = np.arange(T) * 3 + entry
    want = turned(top.take(rows), sign[rows], offs[pred[np.arange(T), entry].argmax(1)],
                  each=True)
    assert np.array_equal(got.cue, want.cue)
    assert np.array_equal(got.place, want.place, equal_nan=True)
    assert (entry > 0).any()  # a random network does not always keep the base agent's pick
    one = AimCorrectedAgent(dqn, net, arena=kegle)
    assert one.entries == 1
    base = dqn.act(states, rng)
    xb, sb = aim_inputs(kegle, states, base)
    assert np.array_equal(one.act(states, rng).cue,
                          turned(base, sb, net.best_offsets(xb), each=True).cue)
    with pytest.raises(ValueError, match="37 best entries asked for; the menu has 36"):
        AimCorrectedAgent(dqn, net, arena=kegle, entries=37)
    with pytest.raises(ValueError, match="entries=0 must be an integer >= 1"):
        AimCorrectedAgent(dqn, net, arena=kegle, entries=0)


def test_label_games_with_entries():
    dqn_path = Path(ROOT / "agents" / "pretrained" / "keglebillard.zip")
    if not dqn_path.exists():
        pytest.skip("no shipped keglebillard agent")
    offs = np.linspace(-1.0, 1.0, 3)
    part = label_games("pretrained:aim=none", "geometric", 1, (0, 0), offs, 2, entries=2)
    n = len(part["x"])
    assert n % 2 == 0 and part["values"].shape == (n, 3)
    assert np.array_equal(part["entry"], np.tile([0, 1], n // 2))
    # a position's two entries share the observation but not the strike
    x = part["x"].reshape(n // 2, 2, -1)
    assert not np.array_equal(x[:, 0], x[:, 1])


def test_make_agent_aim_option(tmp_path):
    from cuegym.agents import pretrained_path

    if pretrained_path("keglebillard") is None or pretrained_aim_path("keglebillard") is None:
        pytest.skip("no shipped keglebillard agent")
    shipped = make_agent("pretrained:leave=none", "keglebillard")
    assert isinstance(shipped, AimCorrectedAgent) and shipped.name == "pretrained"
    assert type(shipped.base).__name__ == "SB3Agent"
    plain = make_agent("pretrained:aim=none", "keglebillard")
    assert type(plain).__name__ == "SB3Agent"
    zip_path, aim_path = pretrained_path("keglebillard"), pretrained_aim_path("keglebillard")
    other = make_agent(f"{zip_path}:aim={aim_path}", "keglebillard")
    assert isinstance(other, AimCorrectedAgent)
    with pytest.raises(FileNotFoundError, match="no aim network"):
        make_agent(f"pretrained:aim={tmp_path / 'none.pt'}", "keglebillard")
    assert make_agent("pretrained:leave=none,entries=2", "keglebillard").entries == 2
    with pytest.raises(ValueError, match="entries='two' must be an integer"):
        make_agent("pretrained:entries=two", "keglebillard")
    with pytest.raises(ValueError, match="plays without one"):
        make_agent("pretrained:aim=none,entries=2", "keglebillard")
    with pytest.raises(ValueError, match="for keglebillard"):
        make_agent(f"pretrained:aim={aim_path}", "golfbillard")


def test_shipped_correction_adds_points(kegle):
    """The shipped aim correction against the DQN alone, same games (1,000 against geometric,
    seed 4000, seats alternating): measured 811 against 766 games won, 5.01 against 4.72 points
    per shot (9.2 % against 9.5 % fouls)."""
    if pretrained_aim_path("keglebillard") is None:
        pytest.skip("no shipped aim correction")
    geo = make_agent("geometric", "keglebillard", arena=kegle)
    out = {}
    for spec in ("pretrained:leave=none", "pretrained:aim=none"):
        res = play_games(kegle, [make_agent(spec, "keglebillard", arena=kegle), geo], 1000,
                         seed=4000)
        out[spec] = res.stats(0)
    assert out["pretrained:leave=none"]["points_per_shot"] > \
        out["pretrained:aim=none"]["points_per_shot"] + 0.1
    assert out["pretrained:leave=none"]["wins"] > out["pretrained:aim=none"]["wins"]


def test_train_aim_config_and_tiny_run(tmp_path, capsys):
    from cuegym.experiments.train_aim import load_config, main

    cfg = load_config(ROOT / "configs" / "aim" / "keglebillard.yaml")
    assert cfg["base"] == "pretrained:aim=none,leave=shipped"  # the strikes the agent plays
    for over, msg in (({"bogus": 1}, "unknown aim config key"),
                      ({"offsets": {"n": 20}}, "must be odd"),
                      ({"fit": {"steps": 3}}, "unknown fit key"),
                      ({"fit": {"mirror": ["diagonal"]}}, "mirror must be a list"),
                      ({"games": 1, "workers": 2}, "at least workers"),
                      ({"draws": 0}, "draws must be >= 1"),
                      ({"entries": 0}, "entries must be >= 1"),
                      ({"fit": {"layout": "cnn"}}, "layout must be one of"),
                      ({"target": "leave", "fit": {"layout": "contact"}}, "takes layout 'mlp'")):
        with pytest.raises(ValueError, match=msg):
            load_config(None, over)
    assert load_config(None, {"draws": None})["draws"] == 16
    argv = ["--name", "tiny", "--runs-dir", str(tmp_path), "--no-progress", "--set",
            "games=3", "workers=1", "base=geometric", "draws=2", "offsets={n: 5}",
            "fit={epochs: 1, batch: 16, hidden: [8]}", "eval={geometric: 2, planner: 0}"]
    assert main(argv) == 0
    run = tmp_path / "tiny"
    net, meta = load_aim(run / "model.pt")
    assert len(net.offsets) == 5 and meta["config"]["games"] == 3
    assert {"corrected", "base"} <= set(__import__("json").loads((run / "eval.json").read_text()))
    assert main(argv) == 2  # the run exists: neither --resume nor --overwrite
    assert main([*argv, "--resume"]) == 0  # reuses the labels
    capsys.readouterr()
    assert main([*[a.replace("draws=2", "draws=3") for a in argv], "--resume"]) == 2
    assert "config.yaml labels differently from the config given" in capsys.readouterr().err
    mirror = [a.replace("fit={", "fit={mirror: [long, short], ") for a in argv]
    assert main([*mirror, "--resume"]) == 0  # a fit on the labels and their mirror images
    assert load_aim(run / "model.pt")[1]["config"]["fit"]["mirror"] == ["long", "short"]
    contact = [a.replace("fit={", "fit={layout: contact, head: [8], ") for a in argv]
    assert main([*contact, "--resume"]) == 0  # the contact network on the same labels
    from cuegym.agents.aim_contact import ContactAimNet

    assert isinstance(load_aim(run / "model.pt")[0], ContactAimNet)


def test_shipped_correction_is_the_shipped_recipe():
    """agents/pretrained/keglebillard_aim.pt is model.pt of configs/aim/keglebillard.yaml."""
    if pretrained_aim_path("keglebillard") is None:
        pytest.skip("no shipped aim correction")
    from cuegym.experiments.train_aim import load_config

    _, meta = load_aim(pretrained_aim_path("keglebillard"))
    want = load_config(ROOT / "configs" / "aim" / "keglebillard.yaml")
    got = load_config(None, meta["config"])  # keys added since take their defaults
    for cfg in (got, want):  # the fit's thread count does not change the weights (checked),
        cfg.pop("progress_bar")  # nor the labels' chunk the labels (test_turned_and_curves...)
        cfg.pop("chunk")
        cfg["fit"].pop("threads")
    assert got == want
    assert meta["command"].startswith("python experiments/train_aim.py --config "
                                      "configs/aim/keglebillard.yaml")
