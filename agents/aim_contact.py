"""The contact geometry of each aim offset, as inputs of an aim-correction network.

An aim correction's value curve is sharp (0.4 degrees cost up to a point) because a fraction of a
degree at the red turns the white it hits by several degrees: where the white then meets the pins
and where the red goes decide the shot (docs/keglebillard_gap.md, "What bounds a keglebillard agent
that does not simulate"). An MLP on the position's coordinates has to learn that amplification from
the data and fits it poorly; this module computes it. For each offset the strike is turned
by, :func:`contact_geometry` follows the red in a straight line to the first white (the ghost
ball), sends the white along the line of centres and the red along the tangent (the stun
shot's 90-degree rule) and, with follow or draw, bent by 2/7 of its speed along the line of
centres, and measures every line, and the white's and the tangent's first cushion rebounds,
against the pins, the pockets and the other white: how far along it each lies, how far
across, and whether a ball on it would touch a standing pin (speed and the rest of the spin
are left to the network). :class:`ContactAimNet` scores
each offset from those features and a summary of the position with one shared head, so the
same geometry means the same value at every offset.

The features are computed in torch from the network's own inputs
(:func:`cuegym.agents.aim.aim_inputs`: the observation holds the balls and the standing pins,
the strike its aim, placement, cut side and first white), so mirror images of the inputs
(:func:`cuegym.agents.aim.mirrored_inputs`) have the mirrored geometry, and a saved network
needs nothing but its inputs at play time. No simulation.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from cuegym.agents.aim import STRIKE_COLUMN, CurveReadout
from cuegym.games.kegle_obs import OBS_DIM, OBS_INDEX

#: Objects each line after the contact is measured against: 5 pins, 6 pockets, the other white.
N_TARGETS = 5 + 6 + 1
#: Features per offset: 9 of the contact (hit, cos and sin of the cut, the red's run to the
#: ghost ball, the white's and the red's directions after it in the aim's frame, the offset);
#: (along, across, touches) of the red's line before the contact against the 5 pins; the same
#: for four lines after it (the white's, the red's tangent, the red's with follow and with draw)
#: against :data:`N_TARGETS`; for the white's and the red's tangent lines, the run to the first
#: cushion, whether it is a long one, and the rebound line against the pins and pockets.
N_CONTACT = 9 + 3 * 5 + 4 * 3 * N_TARGETS + 2 * (2 + 3 * (5 + 6))
#: The red's forward speed kept along the line of centres by its roll (follow, +) or backspin
#: (draw, -), as a fraction of its speed times the cut's cosine: a rolling ball keeps 2/7.
FOLLOW = 2.0 / 7.0
#: The table constants :func:`contact_geometry` reads (:func:`table_geometry`).
TABLE_KEYS = ("half", "radii", "pins", "pockets")


def table_geometry(arena: Any) -> dict[str, np.ndarray]:
    """The keglebillard table's constants the geometry needs, from ``arena``: ``half`` (2,)
    [m] (the observation's position scale), ``radii`` (2,) [m] (ball, pin), ``pins`` (5, 2)
    [m] (spot order: king, +x, +y, -x, -y), ``pockets`` (6, 2) [m]."""
    g = arena.g
    return {"half": np.asarray(g.half, np.float32),
            "radii": np.asarray([arena.R, g.r_pin], np.float32),
            "pins": np.asarray(g.pin_spots, np.float32),
            "pockets": np.asarray(arena.pockets[:, :2], np.float32)}


def _line(p0: torch.Tensor, d: torch.Tensor, pts: torch.Tensor, sgn: torch.Tensor,
          reach: float, up: torch.Tensor | None, scale: float) -> torch.Tensor:
    """(B, n, k, 3): for lines from ``p0`` (B, n, 2) along unit ``d`` (B, n, 2) and points
    ``pts`` (k, 2) or (B, 1, k, 2) [m]: along the line, across it (signed by ``sgn`` (B,)),
    both times ``scale`` [1/m], and a closeness exp(-(across / reach)^2) for points ahead
    (times ``up`` (B, k) where given)."""
    rel = pts - p0[:, :, None]
    along = (rel * d[:, :, None]).sum(-1)
    across = (d[:, :, None, 0] * rel[..., 1] - d[:, :, None, 1] * rel[..., 0]) * sgn[:, None,
                                                                                       None]
    near = torch.exp(-(across / reach) ** 2) * (along > 0)
    if up is not None:
        near = near * up[:, None]
    return torch.stack([along * scale, across * scale, near], -1)


def _decode(x: torch.Tensor, half: torch.Tensor) -> dict[str, torch.Tensor]:
    """The balls [m], standing pins, aim [rad] and cut side of inputs ``x`` (B, D)
    (:func:`~cuegym.agents.aim.aim_inputs`; positions there are divided by ``half``)."""
    def col(name: str) -> torch.Tensor:
        return x[:, OBS_INDEX[name]]

    def strike(name: str) -> torch.Tensor:
        return x[:, OBS_DIM + STRIKE_COLUMN[name]]

    on_table = torch.stack([col("red_x"), col("red_y")], 1) * half
    place = torch.stack([strike("place_x"), strike("place_y")], 1) * half
    w1 = torch.stack([col("white_x"), col("white_y")], 1) * half
    w2 = torch.stack([col("spotted_x"), col("spotted_y")], 1) * half
    f1, f2 = strike("first_white_1")[:, None], strike("first_white_2")[:, None]
    side = strike("side")
    return {"red": torch.where(col("red_in_hand")[:, None] > 0.5, place, on_table),
            "white": f1 * w1 + f2 * w2, "other": f1 * w2 + f2 * w1,
            "other_on": f1[:, 0] * col("spotted_on_table") + f2[:, 0] * col("white_on_table"),
            "met": (f1 + f2)[:, 0] > 0.5,
            "sgn": torch.where(side == 0.0, torch.ones_like(side), side),
            "phi": torch.atan2(strike("sin"), strike("cos")),
            "up": x[:, OBS_INDEX["king_up"]:OBS_INDEX["king_up"] + 5]}


def _unit(v: torch.Tensor, fallback: torch.Tensor) -> torch.Tensor:
    n = v.norm(dim=-1, keepdim=True)
    return torch.where(n > 1e-6, v / n.clamp(min=1e-6), fallback)


def _rebound(p0: torch.Tensor, d: torch.Tensor, limit: torch.Tensor
             ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """A ball centre from ``p0`` (B, n, 2) along unit ``d`` to the cushions (centres within
    ``limit`` (2,) [m] of the table's centre): the run [m], whether the cushion is a long one
    (it bounds y), the point of contact and the mirrored direction."""
    def run(k: int) -> torch.Tensor:
        wall = torch.where(d[..., k] > 0, limit[k], -limit[k])
        return ((wall - p0[..., k]) / torch.where(d[..., k].abs() > 1e-9, d[..., k],
                                                   torch.full_like(d[..., k], 1e-9))).abs()

    tx, ty = run(0), run(1)
    long = ty < tx
    t = torch.minimum(tx, ty).clamp(max=10.0)
    flip = torch.stack([torch.where(long, 1.0, -1.0), torch.where(long, -1.0, 1.0)], -1)
    return t, long, p0 + t[..., None] * d, d * flip


def contact_geometry(x: torch.Tensor, offsets: torch.Tensor, table: dict[str, torch.Tensor]
                     ) -> torch.Tensor:
    """(B, n, :data:`N_CONTACT`) the geometry of each strike of ``x`` turned by each offset
    (module doc).

    Args:
        x: (B, D) :func:`~cuegym.agents.aim.aim_inputs`. offsets: (n,) [deg], signed by the
            cut side (the strike's ``side`` column; +1 where it is 0). table:
            :func:`table_geometry` as tensors.
    """
    half, (R, r_pin) = table["half"], table["radii"]
    scale = 1.0 / float(half[0])  # positions in units of half the table length
    b = _decode(x, half)
    red, white, sgn = b["red"], b["white"], b["sgn"]
    turn = b["phi"][:, None] + sgn[:, None] * torch.deg2rad(offsets)[None]  # (B, n)
    u = torch.stack([torch.cos(turn), torch.sin(turn)], -1)  # (B, n, 2)
    d = (white - red)[:, None]
    along = (d * u).sum(-1)
    disc = along ** 2 - ((d * d).sum(-1) - (2.0 * R) ** 2)
    hit = (disc >= 0) & (along > 0) & b["met"][:, None]  # (B, n)
    run = torch.where(hit, along - torch.sqrt(torch.clamp(disc, min=0.0)),
                      torch.zeros_like(along))
    ghost = red[:, None] + run[..., None] * u
    n_hat = torch.where(hit[..., None], _unit(white[:, None] - ghost, u), u)
    cos_cut = (n_hat * u).sum(-1).clamp(-1.0, 1.0)
    sin_cut = torch.sqrt(torch.clamp(1.0 - cos_cut ** 2, min=0.0))
    t_hat = _unit(u - cos_cut[..., None] * n_hat, u)
    white0 = torch.where(hit[..., None], white[:, None].expand_as(ghost), ghost)

    def frame(v: torch.Tensor) -> torch.Tensor:  # a direction in the aim's frame, mirrored
        return torch.stack([(v * u).sum(-1),
                            (u[..., 0] * v[..., 1] - u[..., 1] * v[..., 0]) * sgn[:, None]], -1)

    hitf = hit.to(x.dtype)[..., None]
    B, n = hit.shape
    pins, pockets, up = table["pins"], table["pockets"], b["up"]
    reach_pin, reach_ball = float(R + r_pin), float(2.0 * R)

    def targets(p0: torch.Tensor, v: torch.Tensor, other: bool = True) -> torch.Tensor:
        f = [_line(p0, v, pins, sgn, reach_pin, up, scale),
             _line(p0, v, pockets, sgn, reach_ball, None, scale)]
        if other:
            f.append(_line(p0, v, b["other"][:, None, None], sgn, reach_ball,
                           b["other_on"][:, None], scale))
        return torch.cat(f, 2).reshape(B, n, -1) * hitf

    spin = [_unit(sin_cut[..., None] * t_hat + k * cos_cut[..., None] * n_hat, t_hat)
            for k in (FOLLOW, -FOLLOW)]
    contact = torch.cat([torch.stack([cos_cut, sin_cut, run * scale], -1), frame(n_hat),
                         frame(t_hat)], -1) * hitf
    offset = offsets[None, :, None].expand(B, n, 1).to(x.dtype)
    parts = [hitf, contact, offset,
             _line(red[:, None].expand_as(ghost), u, pins, sgn, reach_pin, up,
                   scale).reshape(B, n, -1),
             targets(white0, n_hat), targets(ghost, t_hat),
             targets(ghost, spin[0]), targets(ghost, spin[1])]
    for p0, v in ((white0, n_hat), (ghost, t_hat)):  # one rebound off the first cushion
        t, long, at, mirrored = _rebound(p0, v, half - R)
        parts += [torch.stack([t * scale, long.to(x.dtype)], -1) * hitf,
                  targets(at, mirrored, other=False)]
    return torch.nan_to_num(torch.cat(parts, -1))


class ContactAimNet(CurveReadout, nn.Module):
    """Value curves over aim offsets from :func:`~cuegym.agents.aim.aim_inputs` and each
    offset's :func:`contact_geometry`: an MLP ``trunk`` summarises the position and strike,
    and one ``head`` scores every offset from that summary and the offset's geometry (points /
    :data:`~cuegym.agents.aim.POINTS_PER_UNIT`). The same interface as
    :class:`~cuegym.agents.aim.AimNet` (``curves``, ``points``, ``best_offsets``).

    Args:
        n_in: input width. offsets: (n,) [deg]. hidden: the trunk's widths. head: the
            head's widths. table: :func:`table_geometry`. mu, sd: (n_in,) and geo_mu,
            geo_sd: (:data:`N_CONTACT`,) normalisations of the inputs and the geometry.
    """

    layout = "contact"

    def __init__(self, n_in: int, offsets: Sequence[float], hidden: Sequence[int] = (256, 256),
                 head: Sequence[int] = (256, 128), table: dict[str, Any] | None = None,
                 mu: Any = None, sd: Any = None, geo_mu: Any = None, geo_sd: Any = None) -> None:
        super().__init__()
        self.hidden, self.head_widths = [int(h) for h in hidden], [int(h) for h in head]
        if not self.hidden or not self.head_widths:
            raise ValueError(f"the contact network needs trunk and head layers, got hidden="
                             f"{hidden}, head={head}")
        self.register_buffer("offsets", torch.as_tensor(np.asarray(offsets, np.float32)))
        blank = {"half": np.ones(2), "radii": np.ones(2), "pins": np.zeros((5, 2)),
                 "pockets": np.zeros((6, 2))}
        for key, v in (table or blank).items():
            self.register_buffer(f"table_{key}", torch.as_tensor(np.asarray(v, np.float32)))
        for key, v, size in (("mu", mu, n_in), ("sd", sd, n_in), ("geo_mu", geo_mu, N_CONTACT),
                             ("geo_sd", geo_sd, N_CONTACT)):
            fill = torch.zeros(size) if key.endswith("mu") else torch.ones(size)
            self.register_buffer(key, fill if v is None else torch.as_tensor(v).float())
        self.trunk = _mlp(n_in, self.hidden, last=True)
        # The head's first layer reads [summary, geometry]. It is kept in two parts so that the
        # summary's part is computed once per position, not once per offset (the same function
        # at half the cost), initialised as the one layer would be.
        k, h0 = self.hidden[-1], self.head_widths[0]
        first = nn.Linear(k + N_CONTACT, h0)
        self.head_summary = nn.utils.skip_init(nn.Linear, k, h0)
        self.head_geometry = nn.utils.skip_init(nn.Linear, N_CONTACT, h0, bias=False)
        with torch.no_grad():
            self.head_summary.weight.copy_(first.weight[:, :k])
            self.head_summary.bias.copy_(first.bias)
            self.head_geometry.weight.copy_(first.weight[:, k:])
        self.head = _mlp(h0, [*self.head_widths[1:], 1], last=False)

    def table(self) -> dict[str, torch.Tensor]:
        return {k: getattr(self, f"table_{k}") for k in TABLE_KEYS}

    def geometry(self, x: torch.Tensor) -> torch.Tensor:
        """(B, n, N_CONTACT) the offsets' geometry of inputs ``x`` (B, D), unnormalised."""
        return contact_geometry(x, self.offsets, self.table())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        geo = (self.geometry(x) - self.geo_mu) / self.geo_sd
        summary = self.trunk((x - self.mu) / self.sd)
        first = self.head_summary(summary)[:, None] + self.head_geometry(geo)  # (B, n, h0)
        return self.head(torch.relu(first))[..., 0]


def _mlp(n_in: int, widths: Sequence[int], last: bool) -> nn.Sequential:
    """Linear layers of ``widths``, ReLU after each (after the last too when ``last``)."""
    layers: list[nn.Module] = []
    for i, w in enumerate(widths):
        layers.append(nn.Linear(n_in, w))
        if last or i < len(widths) - 1:
            layers.append(nn.ReLU())
        n_in = w
    return nn.Sequential(*layers)


def contact_net(x: np.ndarray, offsets: Sequence[float], arena: Any, hidden: Sequence[int],
                head: Sequence[int], sample: int = 20000) -> ContactAimNet:
    """A fresh :class:`ContactAimNet` normalised to the training inputs ``x`` (T, D): the
    inputs' mean and spread, and the geometry's over up to ``sample`` of them (evenly spaced)."""
    xt = torch.as_tensor(np.asarray(x, np.float32))
    net = ContactAimNet(x.shape[1], offsets, hidden, head, table_geometry(arena),
                        mu=xt.mean(0), sd=xt.std(0).clamp(min=0.1))
    with torch.no_grad():
        geo = net.geometry(xt[:: max(1, len(xt) // sample)]).reshape(-1, N_CONTACT)
    net.geo_mu.copy_(geo.mean(0))
    net.geo_sd.copy_(geo.std(0).clamp(min=0.05))  # a constant feature stays put
    return net


__all__ = ["N_CONTACT", "TABLE_KEYS", "ContactAimNet", "contact_geometry", "contact_net",
           "table_geometry"]
