"""The learned leave (cuegym.agents.leave; experiments/train_aim.py with target: leave;
docs/agents.md, "The leave")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cuegym.agents import make_agent, make_arena, pretrained_path
from cuegym.agents.aim import (
    AimCorrectedAgent,
    AimNet,
    aim_inputs,
    base_strikes,
    load_aim,
    save_aim,
    turned,
)
from cuegym.agents.base import Strikes, load_noise
from cuegym.agents.expert import collect_positions
from cuegym.agents.leave import (
    LeaveAwareAgent,
    label_leave_games,
    leave_values,
    q_points,
    reply_search,
)

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(pretrained_path("keglebillard") is None,
                                reason="no shipped keglebillard DQN")


@pytest.fixture(scope="module")
def kegle():
    return make_arena("keglebillard")


@pytest.fixture(scope="module")
def dqn(kegle):
    return make_agent("pretrained:aim=none", "keglebillard", arena=kegle)


@pytest.fixture(scope="module")
def positions(kegle, dqn):
    states, _, _ = collect_positions(kegle, [dqn, make_agent("geometric", "keglebillard",
                                                             arena=kegle)], 2, seed=5)
    return states.take(np.arange(12))


def _leave_net(kegle, positions, dqn, outputs=2):
    """An untrained leave network: the leave, then (outputs=2) the shot's own value."""
    x, _ = aim_inputs(kegle, positions, dqn.act(positions, np.random.default_rng(0)))
    return AimNet(x.shape[1], np.zeros(outputs), hidden=[4])


def test_ranked_values_are_the_q_of_the_entries(dqn, positions):
    """K-1 is one shot a turn; the DQN's Q is the shot's value (gamma 0) in reward units."""
    strikes, q = dqn.ranked(positions, 5, values=True)
    assert len(strikes) == 5 * len(positions) and q.shape == (len(positions), 5)
    plain = dqn.ranked(positions, 5)
    np.testing.assert_array_equal(strikes.cue, plain.cue)
    assert np.all(np.isfinite(q))
    # the first entry is the DQN's own move, of the highest Q
    np.testing.assert_array_equal(strikes.take(np.arange(len(positions)) * 5).cue,
                                  dqn.act(positions, np.random.default_rng(0)).cue)
    assert np.all(q[:, 0] >= q.max(1) - 1e-6)
    empty, qe = dqn.ranked([], 3, values=True)
    assert len(empty) == 0 and qe.shape == (0, 3)


def test_q_points_reads_the_reward_scale():
    assert q_points("keglebillard") == pytest.approx(16.0)  # points weight 1/16


def test_leave_values_shape_and_game_over(kegle, dqn, positions):
    rng = np.random.default_rng(1)
    strikes = dqn.ranked(positions, 2)
    v = leave_values(kegle, reply_search(kegle, 3, 1), positions, strikes, 2, 2,
                     load_noise("tournament"), rng)
    assert v.shape == (len(positions), 2) and np.all(np.isfinite(v))
    assert np.any(v != 0.0)  # live positions are valued


def test_label_leave_games_tiny():
    d = label_leave_games("pretrained:aim=none", "geometric", 1, (3, 0), entries=2, draws=1,
                          reply=(2, 1))
    n = len(d["x"])
    assert n % 2 == 0 and n > 0
    assert d["values"].shape == (n, 1) and d["q"].shape == (n,) and d["own"].shape == (n,)
    assert np.all(np.isfinite(d["own"])) and np.all(np.isfinite(d["values"]))
    np.testing.assert_array_equal(d["entry"], np.tile([0, 1], n // 2))
    assert np.all(d["q"][0::2] >= d["q"][1::2] - 1e-6)  # best first


def test_leave_agent_weight_zero_is_the_dqn(kegle, dqn, positions):
    net = _leave_net(kegle, positions, dqn)
    agent = LeaveAwareAgent(dqn, net, entries=4, weight=0.0, arena=kegle)
    rng = np.random.default_rng(0)
    np.testing.assert_array_equal(agent.act(positions, rng).cue, dqn.act(positions, rng).cue)


def test_leave_agent_plays_the_best_net_value(kegle, dqn, positions, monkeypatch):
    net = _leave_net(kegle, positions, dqn)
    agent = LeaveAwareAgent(dqn, net, entries=3, weight=1000.0, arena=kegle)
    T = len(positions)
    leave = np.tile([5.0, 9.0, -3.0], T)  # entry 2 leaves the opponent least
    own = np.tile([0.0, 0.0, 0.0], T)
    monkeypatch.setattr(agent, "predict", lambda states, strikes: np.stack([leave, own], 1))
    got = agent.act(positions, np.random.default_rng(0))
    ranked = dqn.ranked(positions, 3)
    np.testing.assert_array_equal(got.cue, ranked.take(np.arange(T) * 3 + 2).cue)
    assert len(agent.act([], np.random.default_rng(0))) == 0
    # own=1: the network's own value replaces Q; entry 1 scores 100 more than it leaves
    agent.weight, agent.own = 1.0, 1.0
    own[1::3] = 100.0
    got = agent.act(positions, np.random.default_rng(0))
    np.testing.assert_array_equal(got.cue, ranked.take(np.arange(T) * 3 + 1).cue)
    # own=0.5: half of Q (in points) and half of the own value
    agent.weight, agent.own = 0.0, 0.5
    _, q = dqn.ranked(positions, 3, values=True)
    want = (0.5 * agent.scale * q + 0.5 * own.reshape(T, 3)).argmax(1)
    got = agent.act(positions, np.random.default_rng(0))
    np.testing.assert_array_equal(got.cue, ranked.take(np.arange(T) * 3 + want).cue)


def _fixed_leaves(kegle, dqn, positions, monkeypatch, weight):
    """A leave agent over the DQN's best 3 whose network predicts the leaves 5, 9, -3 (and own
    value 0) for them, in every position; returns (agent, the leaves (T * 3,))."""
    agent = LeaveAwareAgent(dqn, _leave_net(kegle, positions, dqn), entries=3, weight=weight,
                            arena=kegle)
    leave = np.tile([5.0, 9.0, -3.0], len(positions))
    monkeypatch.setattr(agent, "predict",
                        lambda states, strikes: np.stack([leave, np.zeros_like(leave)], 1))
    return agent, leave


def test_leave_agent_ranks_its_entries(kegle, dqn, positions, monkeypatch):
    agent, leave = _fixed_leaves(kegle, dqn, positions, monkeypatch, 1.0)
    T = len(positions)
    _, q = dqn.ranked(positions, 3, values=True)
    score = agent.scale * q - leave.reshape(T, 3)
    order = np.argsort(-score, axis=1, kind="stable")
    dqn3 = dqn.ranked(positions, 3)
    got, val, lv = agent.ranked(positions, 2, values=True)
    assert len(got) == 2 * T and val.shape == lv.shape == (T, 2)
    rows = (np.arange(T)[:, None] * 3 + order[:, :2]).reshape(-1)
    np.testing.assert_array_equal(got.cue, dqn3.take(rows).cue)
    np.testing.assert_allclose(val, np.take_along_axis(score, order[:, :2], 1))
    np.testing.assert_allclose(lv, np.take_along_axis(leave.reshape(T, 3), order[:, :2], 1))
    assert (val[:, 0] >= val[:, 1]).all()
    # entry 0 is what act plays; the aim correction's base_strikes takes the ranking
    np.testing.assert_array_equal(agent.act(positions, np.random.default_rng(0)).cue,
                                  got.take(np.arange(T) * 2).cue)
    np.testing.assert_array_equal(base_strikes(agent, positions, 2,
                                               np.random.default_rng(0)).cue, got.cue)
    for bad in (0, 4):
        with pytest.raises(ValueError, match=f"{bad} best entries"):
            agent.ranked(positions, bad)
    empty, v0, l0 = agent.ranked([], 2, values=True)
    assert len(empty) == 0 and v0.shape == l0.shape == (0, 2)


def test_aim_correction_among_the_leaves_entries(kegle, dqn, positions, monkeypatch):
    """entries=2 over a leave agent: its best two by its own choice, then the aim network's
    best value minus the leave's weight times each one's predicted leave."""
    import torch

    leave_agent, _ = _fixed_leaves(kegle, dqn, positions, monkeypatch, 0.75)
    T = len(positions)
    top, _, leaves = leave_agent.ranked(positions, 2, values=True)
    x, sign = aim_inputs(kegle, positions.take(np.repeat(np.arange(T), 2)), top)
    offs = np.linspace(-1.0, 1.0, 5)
    aim = AimNet(x.shape[1], offs, hidden=(8,))
    with torch.no_grad():
        pred = aim(torch.as_tensor(x)).numpy().reshape(T, 2, -1)
    got = AimCorrectedAgent(leave_agent, aim, arena=kegle, entries=2).act(
        positions, np.random.default_rng(0))
    entry = (pred.max(2) - 0.75 * leaves).argmax(1)
    rows = np.arange(T) * 2 + entry
    want = turned(top.take(rows), sign[rows], offs[pred[np.arange(T), entry].argmax(1)],
                  each=True)
    np.testing.assert_array_equal(got.cue, want.cue)
    # a huge leave weight: the entry the leave ranks first (it leaves least) wins always
    leave_agent.weight = 1e6
    got = AimCorrectedAgent(leave_agent, aim, arena=kegle, entries=2).act(
        positions, np.random.default_rng(0))
    first, _, _ = leave_agent.ranked(positions, 2, values=True)
    np.testing.assert_array_equal(np.delete(got.cue, 1, axis=1),
                                  np.delete(first.take(np.arange(T) * 2).cue, 1, axis=1))


def test_leave_agent_bad_arguments(kegle, dqn, positions, tmp_path):
    net = _leave_net(kegle, positions, dqn)
    for kw, msg in (({"entries": 0}, "entries=0"), ({"entries": "two"}, "entries='two'"),
                    ({"weight": float("nan")}, "weight=nan"), ({"weight": -1}, "weight=-1"),
                    ({"own": 1.5}, "own=1.5 must be a number in"), ({"own": "half"}, "own='half'"),
                    ({"entries": 37}, "37 best entries")):
        with pytest.raises(ValueError, match=msg):
            LeaveAwareAgent(dqn, net, arena=kegle, **kw)
    with pytest.raises(ValueError, match="predicts the leave alone"):
        LeaveAwareAgent(dqn, _leave_net(kegle, positions, dqn, 1), own=0.5, arena=kegle)
    assert LeaveAwareAgent(dqn, _leave_net(kegle, positions, dqn, 1), arena=kegle).own == 0.0
    aim = AimNet(net.mu.shape[0], np.linspace(-1, 1, 5), hidden=[4])
    save_aim(aim, tmp_path / "aim.pt")
    with pytest.raises(ValueError, match="not a leave network"):
        LeaveAwareAgent(dqn, tmp_path / "aim.pt", arena=kegle)
    with pytest.raises(ValueError, match="ranks its entries"):
        LeaveAwareAgent(make_agent("geometric", "keglebillard"), net, arena=kegle)


def test_make_agent_leave_options(kegle, dqn, positions, tmp_path):
    save_aim(_leave_net(kegle, positions, dqn), tmp_path / "leave.pt",
             {"config": {"entries": 5, "leave": {"weight": 0.25, "own": 0.5}}})
    agent = make_agent(f"pretrained:leave={tmp_path / 'leave.pt'}", "keglebillard")
    assert isinstance(agent, AimCorrectedAgent) and isinstance(agent.base, LeaveAwareAgent)
    assert (agent.base.entries, agent.base.weight, agent.base.own) == (5, 0.25, 0.5)  # recipe
    agent = make_agent(f"pretrained:leave={tmp_path / 'leave.pt'},entries=3,weight=2,own=0,"
                       "aim=none", "keglebillard")
    assert isinstance(agent, LeaveAwareAgent)
    assert (agent.entries, agent.weight, agent.own) == (3, 2.0, 0.0)
    zip_path = pretrained_path("keglebillard")
    agent = make_agent(f"{zip_path}:leave={tmp_path / 'leave.pt'}", "keglebillard")
    assert isinstance(agent, LeaveAwareAgent)
    with pytest.raises(ValueError, match="weight=2: only a leave network"):
        make_agent("pretrained:leave=none,weight=2", "keglebillard")
    with pytest.raises(ValueError, match="own=1: only a leave network"):
        make_agent("pretrained:leave=none,own=1", "keglebillard")
    with pytest.raises(FileNotFoundError, match="no leave network"):
        make_agent(f"pretrained:leave={tmp_path / 'missing.pt'}", "keglebillard")



def test_make_agent_names_the_option_and_refuses_the_wrong_kind_of_network(kegle, dqn,
                                                                          positions, tmp_path):
    """leave=<missing> names the leave network (was: "no aim network"); a leave network given
    as aim= is refused as the reverse mix-up is (was: loaded as an aim correction)."""
    from cuegym.agents import pretrained_aim_path, pretrained_leave_path

    with pytest.raises(FileNotFoundError, match="no leave network bogus"):
        make_agent("pretrained:leave=bogus", "keglebillard")
    with pytest.raises(FileNotFoundError, match="no aim network bogus"):
        make_agent("pretrained:aim=bogus", "keglebillard")
    leave, aim = pretrained_leave_path("keglebillard"), pretrained_aim_path("keglebillard")
    with pytest.raises(ValueError, match=r"aim=.*keglebillard_leave.pt: a leave network "
                                         r"\(2 outputs.*not an aim network"):
        make_agent(f"pretrained:aim={leave}", "keglebillard")
    with pytest.raises(ValueError, match=r"leave=.*keglebillard_aim.pt: an aim network "
                                         r"\(21 offsets\), not a leave network"):
        make_agent(f"pretrained:leave={aim}", "keglebillard")
    # a network object too, and a leave network saved without its recipe (its outputs tell)
    net = _leave_net(kegle, positions, dqn, 1)
    with pytest.raises(ValueError, match="aim=<AimNet>: a leave network"):
        AimCorrectedAgent(dqn, net, arena=kegle)
    save_aim(net, tmp_path / "bare.pt")
    with pytest.raises(ValueError, match="a leave network"):
        AimCorrectedAgent(dqn, tmp_path / "bare.pt", arena=kegle)
    with pytest.raises(ValueError, match="a leave network"):
        save_aim(net, tmp_path / "recipe.pt", {"config": {"target": "leave"}})
        AimCorrectedAgent(dqn, tmp_path / "recipe.pt", arena=kegle)
    with pytest.raises(ValueError, match="is not a leave network"):
        import torch

        torch.save({"weights": 1}, tmp_path / "other.pt")
        LeaveAwareAgent(dqn, tmp_path / "other.pt", arena=kegle)

def test_train_aim_leave_tiny_run(tmp_path):
    from cuegym.experiments.train_aim import load_config, main

    cfg = load_config(ROOT / "configs" / "aim" / "keglebillard_leave.yaml")
    assert cfg["target"] == "leave" and cfg["entries"] > 1
    lv = {"target": "leave"}  # (target aim refuses the leave's settings, whatever they are)
    for over, msg in (({"target": "pins"}, "target must be"),
                      ({**lv, "leave": {"depth": 2}}, "unknown leave key"),
                      ({**lv, "leave": {"reply_noise": 0}}, "reply_noise must be"),
                      ({**lv, "leave": {"own": 2}}, "own one in"),
                      ({**lv, "leave": {"aim": "nowhere.pt"}}, "aim='nowhere.pt' is none of"),
                      ({"fit": {"threads": 0}}, "threads null or an integer >= 1"),
                      ({"fit": {"threads": 1.5}}, "threads null or an integer >= 1")):
        with pytest.raises(ValueError, match=msg):
            load_config(None, over)
    def argv(leave: str = "", draws: int = 1) -> list[str]:
        return ["--config", str(ROOT / "configs" / "aim" / "keglebillard_leave.yaml"),
                "--name", "tiny", "--runs-dir", str(tmp_path), "--no-progress", "--set",
                "games=1", "workers=1", "entries=2", f"draws={draws}",
                f"leave={{reply_candidates: 2, reply_noise: 1{leave}}}",
                "fit={epochs: 1, batch: 8, hidden: [8]}", "eval={geometric: 2, planner: 0}"]

    assert main(argv()) == 0
    run = tmp_path / "tiny"
    net, meta = load_aim(run / "model.pt")
    assert len(net.offsets) == 2 and meta["config"]["target"] == "leave"
    assert {"leave", "base"} <= set(json.loads((run / "eval.json").read_text()))
    # the play settings may change on --resume, the labelling may not
    assert main([*argv(", weight: 1.0, own: 0.25"), "--resume"]) == 0
    assert load_aim(run / "model.pt")[1]["config"]["leave"]["own"] == 0.25
    labels = dict(np.load(run / "labels_0.npz"))  # labels of a run before own values were kept
    labels.pop("own")
    np.savez(run / "labels_0.npz", **labels)
    assert main([*argv(), "--resume"]) == 2
    assert main([*argv(draws=2), "--resume"]) == 2


def test_shipped_leave_is_the_shipped_recipe():
    """agents/pretrained/keglebillard_leave.pt is model.pt of its recipe,
    configs/aim/keglebillard_leave.yaml."""
    from cuegym.agents import pretrained_leave_path

    if pretrained_leave_path("keglebillard") is None:
        pytest.skip("no shipped leave network")
    from cuegym.experiments.train_aim import load_config

    _, meta = load_aim(pretrained_leave_path("keglebillard"))
    want = load_config(ROOT / "configs" / "aim" / "keglebillard_leave.yaml")
    got = load_config(None, meta["config"])
    for cfg in (got, want):  # the fit's thread count does not change the weights (checked)
        cfg.pop("progress_bar")
        cfg["fit"].pop("threads")
    assert got == want
    assert meta["command"].startswith("python experiments/train_aim.py --config "
                                      "configs/aim/keglebillard_leave.yaml")
    agent = make_agent("pretrained", "keglebillard")
    assert isinstance(agent, AimCorrectedAgent) and isinstance(agent.base, LeaveAwareAgent)
    assert (agent.base.entries, agent.base.weight, agent.base.own) == \
        (want["entries"], want["leave"]["weight"], want["leave"]["own"])
    assert len(agent.base.net.offsets) == 2  # the leave and the own value
    assert type(make_agent("pretrained:aim=none", "keglebillard")).__name__ == "SB3Agent"


def test_shipped_leave_leaves_the_opponent_less(kegle, dqn):
    """On 300 positions of games no training used, the entry the shipped leave network picks
    leaves the opponent's next shot (the labels' reply search, 4 common draws) less than the
    DQN's own entry: measured 0.6-0.7 points a shot less on 843 held-out positions."""
    from cuegym.agents import pretrained_leave_path

    if pretrained_leave_path("keglebillard") is None:
        pytest.skip("no shipped leave network")
    states, _, _ = collect_positions(kegle, [dqn, make_agent("geometric", "keglebillard",
                                                             arena=kegle)], 16, seed=4100)
    states = states.take(np.arange(300))
    agent = LeaveAwareAgent(dqn, pretrained_leave_path("keglebillard"), arena=kegle)
    rng = np.random.default_rng(7)
    own, picked = dqn.act(states, rng), agent.act(states, rng)
    both = Strikes.concat([own, picked]).take(np.arange(600).reshape(2, 300).T.reshape(-1))
    v = leave_values(kegle, reply_search(kegle), states, both, 2, 4, load_noise("tournament"),
                     rng)
    assert v[:, 1].mean() < v[:, 0].mean() - 0.25, (v[:, 0].mean(), v[:, 1].mean())


def test_leave_probe_script(capsys):
    from cuegym.experiments.leave_probe import main

    assert main(["--games", "1", "--draws", "2", "--best", "3", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["positions"] > 0 and len(res["rows"]) == 4
    assert all(np.isfinite([r["own"], r["opponent"], r["difference"]]).all()
               for r in res["rows"])
    assert main(["--draws", "3"]) == 2  # half the draws pick, half value: an even count
