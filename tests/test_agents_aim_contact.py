"""The contact geometry of aim offsets and the network that reads it (cuegym.agents.aim_contact;
docs/keglebillard_gap.md, "The contact geometry as inputs")."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cuegym.agents import make_agent, make_arena
from cuegym.agents.aim import (
    AimCorrectedAgent,
    aim_inputs,
    fit_aim,
    load_aim,
    mirrorable,
    mirrored_inputs,
    save_aim,
)
from cuegym.agents.aim_contact import (
    N_CONTACT,
    N_TARGETS,
    ContactAimNet,
    contact_geometry,
    table_geometry,
)

PINS = 5  # king, +x, +y, -x, -y
POCKETS = 6


@pytest.fixture(scope="module")
def kegle():
    return make_arena("keglebillard")


@pytest.fixture(scope="module")
def positions(kegle):
    from cuegym.agents.expert import collect_positions

    geo = make_agent("geometric", "keglebillard", arena=kegle)
    states, _, _ = collect_positions(kegle, [geo, geo], 3, seed=1)
    return states, geo.act(states, np.random.default_rng(0))


def _geometry(kegle, x, offsets):
    table = {k: torch.as_tensor(v) for k, v in table_geometry(kegle).items()}
    return contact_geometry(torch.as_tensor(x), torch.as_tensor(np.asarray(offsets, np.float32)),
                            table).numpy()


def _blocks(g):
    """The per-offset features split as the module lays them out (each line's (along, across,
    touches) triples against the pins, the pockets and, after the contact, the other white)."""
    B, n = g.shape[:2]
    out = {"contact": g[..., :9]}
    at = 9
    for name, k in (("red_before", PINS), ("white", N_TARGETS), ("red", N_TARGETS),
                    ("red_follow", N_TARGETS), ("red_draw", N_TARGETS),
                    ("white_rebound", 2 + 3 * (PINS + POCKETS)),
                    ("red_rebound", 2 + 3 * (PINS + POCKETS))):
        width = k if name.endswith("rebound") else 3 * k
        block = g[..., at:at + width]
        at += width
        if name.endswith("rebound"):
            out[name + "_run"] = block[..., :2]
            block = block[..., 2:]
        block = block.reshape(B, n, -1, 3)
        out[name + "_pins"] = block[:, :, :PINS]
        if name != "red_before":
            out[name + "_pockets"] = block[:, :, PINS:PINS + POCKETS]
        if block.shape[2] > PINS + POCKETS:
            out[name + "_other"] = block[:, :, PINS + POCKETS:]
    assert at == g.shape[2] == N_CONTACT
    return out


def _one_position(kegle, positions, red, white, spotted, phi):
    states, strikes = positions
    s, k = states.take(np.array([1])), strikes.take(np.array([1]))
    s.xy[0] = [red, white, spotted]
    s.pins[0] = True
    s.hand[0] = 0
    k.cue[0, 1] = phi
    k.place[0] = np.nan
    return aim_inputs(kegle, s, k)[0]


def test_a_full_hit_sends_the_white_on_along_the_aim(kegle, positions):
    """Red at (-0.8, 0.2), white at (-0.4, 0.2), aimed along +x: at offset 0 a full hit after
    0.4 m - 2R, the white's line runs through y = 0.2, passing the king 0.2 m to its right;
    turning the aim by 0.5 degrees cuts the white 3.3 degrees the other way."""
    x = _one_position(kegle, positions, (-0.8, 0.2), (-0.4, 0.2), (0.6, -0.3), 0.0)
    R = kegle.R
    g = _blocks(_geometry(kegle, x, [-0.5, 0.0, 0.5]))
    hit, cos_cut, sin_cut, run = g["contact"][0, 1, :4]
    assert hit == 1.0 and cos_cut == pytest.approx(1.0, abs=1e-6)
    assert sin_cut == pytest.approx(0.0, abs=2e-3)
    assert run == pytest.approx((0.4 - 2 * R) / 1.05, abs=1e-5)
    along, across, near = g["white_pins"][0, 1, 0]  # the king at (0, 0)
    assert along == pytest.approx(0.4 / 1.05, abs=1e-5)
    assert across == pytest.approx(-0.2 / 1.05, abs=1e-5)  # right of the line
    assert near == pytest.approx(0.0, abs=1e-6)
    # a turn of the aim to the left (+0.5 deg) cuts the white to the right, steeply
    white_dir = g["contact"][0, :, 4:6]  # (cos, sin) of the white's line in the aim's frame
    turn = np.degrees(np.arctan2(white_dir[:, 1], white_dir[:, 0]))
    cut = np.degrees(np.arcsin(0.4 * np.sin(np.radians(0.5)) / (2 * R)))  # 3.3 degrees
    assert turn[2] == pytest.approx(-cut, abs=0.02) and turn[0] == pytest.approx(cut, abs=0.02)
    assert turn[1] == pytest.approx(0.0, abs=0.1)
    assert np.degrees(np.arctan2(*g["contact"][0, 2, [7, 6]])) > 80.0  # the red: tangent
    # full hit: the rolling red follows the white, the screwed one comes back
    assert g["red_follow_pins"][0, 1, 0, 0] > 0 > g["red_draw_pins"][0, 1, 0, 0]
    # the white runs to the far short cushion and comes back, now passing the king on its left
    run, long = g["white_rebound_run"][0, 1]
    assert run == pytest.approx((1.05 - R + 0.4) / 1.05, abs=1e-5) and long == 0.0
    along, across, _ = g["white_rebound_pins"][0, 1, 0]
    assert along == pytest.approx((1.05 - R) / 1.05, abs=1e-5)
    assert across == pytest.approx(0.2 / 1.05, abs=1e-5)


def test_a_miss_has_no_contact_features(kegle, positions):
    """Aimed away from both whites: no hit, only the red's own line is measured."""
    x = _one_position(kegle, positions, (-0.8, 0.2), (-0.4, 0.2), (0.6, -0.3), 180.0)
    g = _blocks(_geometry(kegle, x, [-1.0, 0.0, 1.0]))
    assert (g["contact"][0, :, 0] == 0).all()
    for name, v in g.items():
        if name not in ("contact", "red_before_pins"):
            assert (v == 0).all(), name
    assert (g["contact"][0, :, 1:8] == 0).all()
    assert (g["red_before_pins"][0, :, 0, 0] < 0).all()  # the king is behind the red


@pytest.mark.parametrize("axis, pins", [("long", [0, 1, 4, 3, 2]), ("short", [0, 3, 2, 1, 4])])
def test_mirror_images_have_the_mirrored_geometry(kegle, positions, axis, pins):
    """The geometry of mirrored inputs is the original's with the pins and pockets reordered
    to their images (cut shots: the across-the-line signs follow the cut side, so they stay)."""
    from cuegym.agents.aim import SIDE, _mirror_order

    states, strikes = positions
    x, _ = aim_inputs(kegle, states, strikes)
    x = x[mirrorable(x, axis) & (x[:, SIDE] != 0)]
    assert len(x) > 5
    offsets = np.linspace(-1, 1, 7)
    g, gm = (_blocks(_geometry(kegle, v, offsets))
             for v in (x, mirrored_inputs(kegle, x, axis)))
    pockets = _mirror_order(np.asarray([[p.x, p.y] for p in kegle.table.pockets]), axis)
    for name in g:
        order = pins if name.endswith("_pins") else pockets if name.endswith("_pockets") \
            else None
        got = gm[name] if order is None else gm[name][:, :, order]
        assert np.allclose(got, g[name], atol=1e-3), name  # float32 inputs: the short
        # axis turns the aim by 180 degrees, which moves the last bits of cos and sin


def test_contact_network_fits_saves_and_corrects(kegle, positions, tmp_path):
    """A value that is the white's closeness to the king at each offset: the contact network
    learns it (its head reads that feature) better than its mean, survives a save and load, and
    plays as the base agent's correction."""
    states, strikes = positions
    x, _ = aim_inputs(kegle, states, strikes)
    offsets = np.linspace(-1, 1, 9)
    target = _blocks(_geometry(kegle, x, offsets))["white_pins"][:, :, 0, 2] * 10.0
    assert target.max() > 1.0  # some strikes send the white at the king
    xs, ys = np.repeat(x, 16, 0), np.repeat(target, 16, 0)
    net = fit_aim(xs, ys, offsets, hidden=(32,), head=(32,), epochs=30, batch=64, lr=3e-3,
                  layout="contact", arena=kegle)
    assert isinstance(net, ContactAimNet)
    err = ((net.points(x) - target) ** 2).mean()
    assert err < 0.25 * ((target - target.mean()) ** 2).mean()
    back, meta = load_aim(save_aim(net, tmp_path / "c.pt", {"note": 1}))
    assert isinstance(back, ContactAimNet) and meta == {"note": 1}
    assert np.array_equal(back.curves(x), net.curves(x))
    agent = AimCorrectedAgent(make_agent("geometric", "keglebillard", arena=kegle), back,
                              arena=kegle)
    got = agent.act(states, np.random.default_rng(0))
    turned = got.cue[:, 1] - strikes.cue[:, 1]
    assert np.all(np.min(np.abs(np.abs(turned)[:, None] - np.abs(offsets)[None]), 1) < 1e-6)
    with pytest.raises(ValueError, match="layout must be one of"):
        fit_aim(xs, ys, offsets, layout="cnn")
    with pytest.raises(ValueError, match="trunk and head"):
        ContactAimNet(x.shape[1], offsets, hidden=(), head=(8,))
    assert N_CONTACT == _geometry(kegle, x[:1], offsets).shape[2]


def test_the_head_reads_summary_and_geometry_as_one_layer(kegle, positions):
    """The head's first layer, kept in two parts (the summary's once per position), is the one
    layer over [summary, geometry]: initialised as that layer and computing it."""
    from torch import nn

    from cuegym.agents.aim_contact import _mlp

    states, strikes = positions
    x = torch.as_tensor(aim_inputs(kegle, states, strikes)[0])
    offsets = np.linspace(-1, 1, 5)
    torch.manual_seed(3)
    net = ContactAimNet(x.shape[1], offsets, (16,), (8, 4), table_geometry(kegle))
    torch.manual_seed(3)
    _mlp(x.shape[1], [16], last=True)
    one = nn.Linear(16 + N_CONTACT, 8)
    joined = torch.cat([net.head_summary.weight, net.head_geometry.weight], 1)
    assert torch.equal(joined, one.weight) and torch.equal(net.head_summary.bias, one.bias)
    with torch.no_grad():
        geo = (net.geometry(x) - net.geo_mu) / net.geo_sd
        summary = net.trunk((x - net.mu) / net.sd)
        layer = torch.relu(one(torch.cat([summary[:, None].expand(-1, 5, -1), geo], -1)))
        assert torch.allclose(net(x), net.head(layer)[..., 0], atol=1e-5)
