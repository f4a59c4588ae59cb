"""Learned aim correction for keglebillard: a network that turns another agent's aim by the
fraction of a degree a simulation would choose, with one forward pass.

The sampling planner beats the shipped agents mostly by sub-degree corrections of the aim that
differ from position to position (where the white meets the pins, where the red goes after;
docs/keglebillard_gap.md, "What bounds a keglebillard agent that does not simulate"). Those
corrections are learnt here from **value curves**: for each position of games played by a *base*
agent, the base agent's strike is played with its aim turned by each of ``n`` offsets in
``[-max_deg, +max_deg]`` degrees under the same ``draws`` draws of the tournament noise (common
random numbers), and valued as the planner values shots (``arena.values``: the shooter's points
minus the skæve he hands over, -2 for ball in hand, +100 for a K-20 win). A small MLP
(:class:`AimNet`) regresses the whole curve from the position and the strike; at play time
:class:`AimCorrectedAgent` asks the base agent for its strike and plays it turned by the offset of
highest predicted value. No simulation at play time.

Offsets are signed by the side of the cut, so that the curves of mirror-image shots line up:
a positive offset turns the aim toward the centre of the first white the red would meet (a
fuller hit), a negative one away from it (a thinner cut); a shot that meets no white first
(a cushion-first shot) keeps the table's sign. The inputs (:func:`aim_inputs`) are the position
as the player to move sees it (``Kegle.observe``), the strike, the cut, and the whites, pins
and pockets in the shot's own frame (along the aim and across it, mirrored by the cut side, in
units of half the table length), so the network does not have to learn rotations. With
``layout: contact`` (:mod:`cuegym.agents.aim_contact`) the network also reads, for each
offset, where the red meets the white and where both then run against the pins, the pockets
and the other white, and scores the offsets with one shared head.

    python experiments/train_aim.py --config configs/aim/keglebillard.yaml

trains one (``agents/pretrained/keglebillard_aim.pt`` is the shipped one, trained on the
strikes of the shipped DQN choosing by its leave network, :mod:`cuegym.agents.leave`, and fitted
with the labels' mirror images, :func:`mirrored_labels`; ``make_agent("pretrained",
"keglebillard")`` plays that agent through it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from cuegym.agents.base import Agent, Strikes, global_rngs_kept, load_noise, load_torch_file
from cuegym.agents.expert import mean_values, torch_save_atomic
from cuegym.cli_errors import existing_file
from cuegym.games.kegle_obs import OBS_DIM, OBS_INDEX

#: The networks regress values in points / POINTS_PER_UNIT (curves of a few units).
POINTS_PER_UNIT = 10.0

#: The base strike's columns in the inputs, in order (they follow the observation's ``OBS_DIM``):
#: V0 / 6, cos phi, sin phi, theta / 90, the spin a and b, the placement / half table, the cut
#: side (0 for a strike that meets no white first), cut / 90, which white is met first, and
#: whether each white is off the table.
STRIKE_NAMES = ("speed", "cos", "sin", "elevation", "a", "b", "place_x", "place_y", "side",
                "cut", "first_white_1", "first_white_2", "off_1", "off_2")
N_STRIKE = len(STRIKE_NAMES)
STRIKE_COLUMN = {name: i for i, name in enumerate(STRIKE_NAMES)}


def ghost_contact(red: np.ndarray, whites: np.ndarray, phi: np.ndarray, R: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Where the red, rolling straight from ``red`` along ``phi``, would touch each white.

    Args:
        red: (T, 2) the red's start [m]. whites: (T, k, 2) white centres [m] (NaN: off the
            table). phi: (T,) aim [deg]. R: ball radius [m].

    Returns:
        ``along`` (T, k) the white's centre along the aim from the red [m] (negative: behind
        it), ``dist`` (T, k) how far the red rolls to the contact [m] (NaN where its line
        misses the white), ``side`` (T, k) +1 / -1: the side to which the red cuts the white
        (sign of the cross product of the red's direction and the line of centres at contact;
        0 for a dead-full hit or a miss), ``cut`` (T, k) the cut angle [deg] (0 = full, 90 =
        grazing; NaN for a miss).
    """
    u = np.stack([np.cos(np.radians(phi)), np.sin(np.radians(phi))], 1)[:, None]
    d = whites - red[:, None]
    along = (d * u).sum(2)
    disc = along * along - ((d * d).sum(2) - (2.0 * R) ** 2)
    hit = disc >= 0.0  # False for a white off the table (NaN)
    dist = np.where(hit, along - np.sqrt(np.where(hit, disc, 0.0)), np.nan)
    n = d - dist[..., None] * u  # ghost ball to white: the line of centres at contact
    side = np.where(hit, np.sign(u[..., 0] * n[..., 1] - u[..., 1] * n[..., 0]), 0.0)
    cos_cut = (n * u).sum(2) / np.maximum(np.hypot(n[..., 0], n[..., 1]), 1e-12)
    return along, dist, side, np.degrees(np.arccos(np.clip(cos_cut, -1.0, 1.0)))


def first_contact(red: np.ndarray, xy: np.ndarray, phi: np.ndarray, R: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first white the red meets when it rolls straight along ``phi``
    (:func:`ghost_contact` of both whites, the nearer one ahead of the red).

    Args:
        red: (T, 2) the red's start [m] (its placement when it is in hand).
        xy: (T, 3, 2) ball centres [m] (rows 1, 2: the whites; NaN off the table).
        phi: (T,) aim [deg]. R: ball radius [m].

    Returns:
        ``side`` (T,) +1 / -1: the side to which the red cuts that white (0 when no white
        lies on the line or for a dead-full hit), ``cut`` (T,) the cut angle [deg] (0 = full,
        90 = grazing; 0 when none), ``white`` (T,) int64 1 or 2 (0 when none).
    """
    along, dist, side, cut = ghost_contact(red, xy[:, 1:], phi, R)
    key = np.where(~np.isnan(dist) & (along > 0.0), dist, np.inf)
    rows, j = np.arange(len(red)), np.argmin(key, axis=1)  # ties: white 1
    found = np.isfinite(key[rows, j])
    return (np.where(found, side[rows, j], 0.0), np.where(found, cut[rows, j], 0.0),
            np.where(found, j + 1, 0).astype(np.int64))


def aim_inputs(arena: Any, states: Any, strikes: Strikes) -> tuple[np.ndarray, np.ndarray]:
    """The network's inputs for T positions and the strikes to correct (module doc).

    Args:
        arena: the keglebillard arena (``arena.g`` holds the table's pins and pockets).
        states: T positions (a ``KegleStates`` batch or a list of game states).
        strikes: T strikes, one per position (the base agent's).

    Returns:
        ``x`` (T, D) float32 and ``sign`` (T,) +1 / -1: the direction of a positive offset
        (the cut side; +1 where there is none).
    """
    batch = arena.g.batch(states)
    # the envs' view (the five seats after the player's), so games of 7+ players have inputs
    return inputs_of(arena, arena.g.observe(batch, next_seats_only=True), batch.xy, batch.pins,
                     strikes)


def inputs_of(arena: Any, obs: np.ndarray, xy: np.ndarray, pins: np.ndarray, strikes: Strikes
              ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`aim_inputs` from the positions' parts: ``obs`` (T, OBS_DIM) their observations
    (``Kegle.observe``), ``xy`` (T, 3, 2) ball centres [m] (NaN off the table or in hand),
    ``pins`` (T, 5) the standing pins, and the T ``strikes``."""
    g = arena.g
    T = len(obs)
    if len(strikes) != T or xy.shape != (T, 3, 2) or pins.shape != (T, 5):
        raise ValueError(f"{len(strikes)} strikes, balls {xy.shape} and pins {pins.shape} for "
                         f"{T} positions")
    placed = ~np.isnan(strikes.place).any(1)
    red = np.where(placed[:, None], strikes.place, xy[:, 0])
    phi = strikes.cue[:, 1]
    side, cut, white = first_contact(red, xy, phi, float(arena.R))
    sign = np.where(side == 0.0, 1.0, side)
    u = np.stack([np.cos(np.radians(phi)), np.sin(np.radians(phi))], 1)
    scale = 1.0 / (arena.table.length / 2)

    def frame(p: np.ndarray) -> np.ndarray:  # (T, k, 2) [m] -> (T, 2k) along / across the aim
        d = p - red[:, None]
        along = (d * u[:, None]).sum(2)
        across = (u[:, None, 0] * d[..., 1] - u[:, None, 1] * d[..., 0]) * sign[:, None]
        return np.nan_to_num(np.stack([along, across], 2) * scale).reshape(T, -1)

    place = np.nan_to_num(strikes.place / np.asarray(g.half))
    off = np.isnan(xy[:, 1:, 0])
    columns = {"speed": strikes.cue[:, 0] / 6.0, "cos": u[:, 0], "sin": u[:, 1],
               "elevation": strikes.cue[:, 2] / 90.0, "a": strikes.cue[:, 3],
               "b": strikes.cue[:, 4], "place_x": place[:, 0], "place_y": place[:, 1],
               "side": side, "cut": cut / 90.0, "first_white_1": white == 1,
               "first_white_2": white == 2, "off_1": off[:, 0], "off_2": off[:, 1]}
    shot = np.column_stack([columns[name] for name in STRIKE_NAMES])
    pockets = arena.pockets[:, :2]
    x = np.hstack([obs, shot, frame(xy[:, 1:]),
                   frame(np.broadcast_to(g.pin_spots, (T, *g.pin_spots.shape))),
                   frame(np.broadcast_to(pockets, (T, *pockets.shape))), pins])
    return x.astype(np.float32), sign


#: Positions per physics call of the labels (:func:`aim_curves`; the curves do not depend on
#: it, the draws come in the same order): 12 x 21 offsets x 16 draws = 4,032 strikes, one slice
#: of the arena's ``max_tables``. About a fifth faster than 48 in one process (5 % with two
#: workers side by side), whose 16,128 strikes were noised and copied whole before the physics
#: sliced them.
LABEL_CHUNK = 12
#: The table's mirror axes: the coordinate each negates (long: y -> -y; short: x -> -x).
MIRRORS = {"long": "y", "short": "x"}
#: The column of the cut side in :func:`aim_inputs` (0: the strike meets no white first).
SIDE = OBS_DIM + STRIKE_COLUMN["side"]


def _mirror_order(points: np.ndarray, axis: str) -> np.ndarray:
    """(k,) for each of ``points`` (k, 2) [m] the index of its image in the ``axis`` mirror."""
    image = points.copy()
    image[:, "xy".index(MIRRORS[axis])] *= -1.0
    d = np.hypot(*(image[:, None] - points[None]).transpose(2, 0, 1))
    order = d.argmin(1)
    if not np.allclose(d[np.arange(len(points)), order], 0.0, atol=1e-9):
        raise ValueError(f"the table is not symmetric in its {axis} axis")
    return order


def mirrorable(x: np.ndarray, axis: str) -> np.ndarray:
    """(T,) bool: which positions of inputs ``x`` (T, D) have a true mirror image in ``axis``.
    The long axis: all (the table, the rules and the noise are symmetric in it). The short axis:
    all but the break and a red in hand behind the salvo line (K-3, K-15: the line is at one
    end)."""
    if axis not in MIRRORS:
        raise ValueError(f"axis must be one of {list(MIRRORS)}, got {axis!r}")
    if axis == "long":
        return np.ones(len(x), bool)
    return (x[:, OBS_INDEX["break"]] == 0.0) & (x[:, OBS_INDEX["in_hand_behind_salvo_line"]] == 0.0)


def mirrored_inputs(arena: Any, x: np.ndarray, axis: str = "long") -> np.ndarray:
    """:func:`aim_inputs` of the mirror images of positions and strikes in the table's
    ``axis`` (``"long"``: y -> -y; ``"short"``: x -> -x; the aim, side spin and placement
    mirrored), computed from their inputs ``x`` (T, D) alone: training data without
    simulation where the game is symmetric (:func:`mirrorable`; a ValueError names the rows
    that are not). A strike that meets a white first keeps its shot-frame inputs (its offsets
    are signed by the cut side); one that does not has its across-the-aim coordinates negated.
    The pins (king, +x, +y, -x, -y arms) and pockets are reordered to their images.

    Returns:
        (T, D) float32.
    """
    x = np.asarray(x, np.float32)
    bad = np.flatnonzero(~mirrorable(x, axis))
    if len(bad):
        raise ValueError(f"positions {bad[:5].tolist()} (a break or a red in hand behind the "
                         f"salvo line) have no mirror image in the {axis} axis")
    c = MIRRORS[axis]
    pins = _mirror_order(np.asarray(arena.g.pin_spots), axis)
    pockets = _mirror_order(arena.pockets[:, :2], axis)
    out = x.copy()
    out[:, [OBS_INDEX[f"{b}_{c}"] for b in ("red", "white", "spotted")]] *= -1.0
    up = OBS_INDEX["king_up"]  # the standing pins, in spot order
    out[:, up:up + len(pins)] = x[:, up + pins]
    # the aim's direction across the axis, the side spin, the placement, the cut side
    flip = ["sin" if c == "y" else "cos", "a", f"place_{c}", "side"]
    out[:, [OBS_DIM + STRIKE_COLUMN[k] for k in flip]] *= -1.0
    no_cut = x[:, SIDE] == 0.0
    f = OBS_DIM + N_STRIKE

    def frame(lo: int, order: np.ndarray) -> None:  # (along, across) pairs, reordered
        pairs = x[:, lo:lo + 2 * len(order)].reshape(len(x), len(order), 2)[:, order]
        pairs[no_cut, :, 1] *= -1.0
        out[:, lo:lo + 2 * len(order)] = pairs.reshape(len(x), 2 * len(order))

    frame(f, np.arange(2))
    frame(f + 4, pins)
    frame(f + 4 + 2 * len(pins), pockets)
    out[:, -len(pins):] = x[:, x.shape[1] - len(pins) + pins]
    return out


def mirrored_labels(arena: Any, x: np.ndarray, values: np.ndarray, curves: bool,
                    axes: Sequence[str] = ("long",)) -> tuple[np.ndarray, np.ndarray]:
    """``x`` (T, D) and ``values`` (T, n) with the mirror images of their positions appended
    (:func:`mirrored_inputs`): in each of ``axes``, and with both axes, in both in turn (a half
    turn), each where the game has one (:func:`mirrorable`). ``curves``: the values are curves
    over offsets symmetric about 0 (:func:`aim_curves`), reversed by each mirror for a strike
    that meets no white first (its offsets keep the table's sign); otherwise they are values
    of the strike itself (the leave), the same for the image."""
    x, values = np.asarray(x, np.float32), np.asarray(values, np.float32)
    if values.shape[0] != len(x):
        raise ValueError(f"{len(x)} inputs and {values.shape[0]} values")
    xs, vs = [x], [values]
    for axis in dict.fromkeys(axes):
        for xi, vi in list(zip(xs, vs, strict=True)):  # the originals and images so far
            ok = mirrorable(xi, axis)
            image = vi[ok].copy()
            if curves:
                no_cut = xi[ok, SIDE] == 0.0
                image[no_cut] = image[no_cut, ::-1]
            xs.append(mirrored_inputs(arena, xi[ok], axis))
            vs.append(image)
    return np.concatenate(xs), np.concatenate(vs)


def turned(strikes: Strikes, sign: np.ndarray, offsets: np.ndarray, *, each: bool = False
           ) -> Strikes:
    """``strikes`` (T) with their aim turned by ``sign * offsets`` [deg]: every strike by each
    of the (n,) offsets, T * n strikes, state-major (strike t at rows t*n .. t*n+n-1); with
    ``each``, strike t by ``offsets[t]`` ((T,) offsets, T strikes)."""
    offsets = np.asarray(offsets, np.float64)
    T = len(strikes)
    if each:
        if offsets.shape != (T,):
            raise ValueError(f"each: one offset per strike, got {offsets.shape} for {T} strikes")
        out = strikes.copy()
        out.cue[:, 1] += sign * offsets
        return out
    out = strikes.repeat(len(offsets))
    out.cue[:, 1] += (np.asarray(sign)[:, None] * offsets[None]).reshape(-1)
    return out


def aim_curves(arena: Any, states: Any, strikes: Strikes, offsets: np.ndarray, draws: int,
               rng: np.random.Generator, noise: Any = "tournament", chunk: int = LABEL_CHUNK
               ) -> tuple[np.ndarray, np.ndarray]:
    """Labels: the mean value of each strike turned by each offset (module doc).

    Args:
        states: T positions (a ``KegleStates`` batch). strikes: T strikes (the base agent's).
        offsets: (n,) aim offsets [deg], signed by the cut side (:func:`aim_inputs`).
        draws: noise draws per offset, common to a position's offsets.
        noise: the execution noise (a name of ``configs/envs/noise.yaml`` or a ``ShotNoise``).
        chunk: positions per physics call (:data:`LABEL_CHUNK`; speed only).

    Returns:
        ``x`` (T, D) float32 the inputs, ``values`` (T, n) float32 mean values (points).
    """
    states = arena.g.batch(states)
    x, sign = aim_inputs(arena, states, strikes)
    noise = load_noise(noise) if isinstance(noise, str) else noise
    n, T = len(offsets), len(x)
    values = np.zeros((T, n), np.float32)
    for a in range(0, T, chunk):
        idx = np.arange(a, min(a + chunk, T))
        values[idx] = mean_values(arena, states.take(idx), turned(strikes.take(idx), sign[idx],
                                                                   offsets), n, draws, noise, rng)
    return x, values


def label_games(base: str, opponent: str, n_games: int, seed: Sequence[int],
                offsets: np.ndarray, draws: int, noise: Any = "tournament",
                chunk: int = LABEL_CHUNK,
                threads: int = 1, entries: int = 1) -> dict[str, np.ndarray]:
    """Training data from whole games (one piece of ``experiments/train_aim.py``, also run in a
    pool process): ``n_games`` games of ``base`` against ``opponent`` (agent specs of
    :func:`~cuegym.agents.make_agent`; seats alternating, tournament noise), the base agent's
    strike in every position met (either side's turn) and its :func:`aim_curves`; with
    ``entries`` > 1, the base agent's ``entries`` best strikes of each position
    (:func:`base_strikes`), each with its curve.

    Args:
        seed: integers seeding the games and the labels (reproducible given them).
        offsets, draws, noise, chunk: as :func:`aim_curves`. threads: torch threads.

    Returns:
        ``x`` (T * entries, D) float32 inputs and ``values`` (T * entries, n) float32 curves,
        position-major; ``entry`` (T * entries,) int64, the strike's rank (0 = the one the
        base agent plays).
    """
    arena, agent, states, rng = game_positions(base, opponent, n_games, seed, threads)
    T = len(states)
    strikes = Strikes.concat([base_strikes(agent, states.take(np.arange(a, min(a + 256, T))),
                                           entries, rng) for a in range(0, T, 256)])
    x, values = aim_curves(arena, states.take(np.repeat(np.arange(T), entries)), strikes,
                           offsets, draws, rng, noise, chunk)
    return {"x": x, "values": values, "entry": np.tile(np.arange(entries), T)}


def game_positions(base: str, opponent: str, n_games: int, seed: Sequence[int],
                   threads: int = 1) -> tuple[Any, Agent, Any, np.random.Generator]:
    """The positions a labelling piece works on: ``n_games`` keglebillard games of ``base``
    against ``opponent`` (agent specs; seats alternating, tournament noise), every position met
    (either side to move), seeded by the integers ``seed``; with torch on ``threads`` threads.

    Returns:
        (arena, the base agent, the positions (a ``KegleStates`` batch), the labels' generator).
    """
    from cuegym.agents import make_agent
    from cuegym.agents.arena import make_arena
    from cuegym.agents.expert import collect_positions

    torch.set_num_threads(int(threads))
    arena = make_arena("keglebillard")
    agent = make_agent(base, "keglebillard", arena=arena)
    games_seed = int(np.random.SeedSequence(list(seed)).generate_state(1)[0])
    states, _, _ = collect_positions(arena, [agent, make_agent(opponent, "keglebillard",
                                                               arena=arena)],
                                     n_games, seed=games_seed)
    return arena, agent, states, np.random.default_rng([*seed, 1])


def keglebillard_arena(arena: Any) -> Any:
    """``arena`` (default: a new keglebillard arena), refused unless it is a keglebillard one:
    the aim and leave networks read keglebillard positions (a golfbillard arena, or anything
    else, failed at the first move deep inside the inputs)."""
    from cuegym.agents.arena import make_arena

    if arena is None:
        return make_arena("keglebillard")
    if getattr(arena, "game", None) != "keglebillard":
        got = f"a {arena.game} arena" if isinstance(getattr(arena, "game", None), str) \
            else repr(arena)
        raise ValueError(f"arena must be a keglebillard arena (make_arena('keglebillard')), "
                         f"got {got}")
    return arena


def entry_count(entries: Any) -> int:
    """``entries`` (how many of a DQN's best entries an agent chooses among) as an int, or a
    ValueError naming it: an integer >= 1 (not a bool, not a string)."""
    if isinstance(entries, bool) or not isinstance(entries, (int, np.integer)) or entries < 1:
        raise ValueError(f"entries={entries!r} must be an integer >= 1")
    return int(entries)


def base_strikes(base: Agent, states: Any, entries: int, rng: np.random.Generator) -> Strikes:
    """The strikes a correction chooses among: ``base.act`` (``entries`` = 1), or the base
    agent's ``entries`` best (``base.ranked(states, entries)``, state-major, best first; the
    shipped DQN's menu entries of highest Q-value)."""
    if int(entries) == 1:
        return base.act(states, rng)
    if not hasattr(base, "ranked"):
        raise ValueError(f"entries={entries}: {base.name!r} does not rank its strikes "
                         "(a discrete-menu DQN model does)")
    return base.ranked(states, int(entries))


def strikes_and_leaves(base: Agent, states: Any, entries: int, rng: np.random.Generator
                       ) -> tuple[Strikes, np.ndarray | None]:
    """The strikes a correction chooses among (:func:`base_strikes`) and, where the base agent
    chooses by the leave (a ``LeaveAwareAgent``, ``entries`` > 1), its ranking's predicted
    leaves [points], (len(states), entries); else None."""
    if int(entries) > 1 and hasattr(base, "leaves"):
        strikes, _, leave = base.ranked(states, int(entries), values=True)
        return strikes, leave
    return base_strikes(base, states, entries, rng), None


def best_of(curves: np.ndarray, leave: np.ndarray | None, weight: float
            ) -> tuple[np.ndarray, np.ndarray]:
    """The choice among each position's strikes by their value curves: ``curves`` (T, k, n)
    over the offsets, ``leave`` (T, k) or None. Returns the (T,) strike of highest best value
    minus ``weight`` x its leave (ties: the first) and the (T,) index of that strike's best
    offset."""
    peak = curves.max(2)
    if leave is not None:
        peak = peak - weight * leave
    entry = peak.argmax(1)
    return entry, curves[np.arange(len(curves)), entry].argmax(1)


def choose_and_turn(base: Agent, arena: Any, states: Any, entries: int,
                    rng: np.random.Generator, offsets: np.ndarray, weight: float,
                    curves_of: Any) -> Strikes:
    """One move of a correction by value curves: ``base``'s ``entries`` strikes of each state
    (:func:`strikes_and_leaves`), the one :func:`best_of` chooses by ``curves_of(states
    repeated, strikes, inputs)`` -> (T * entries, n) curves over ``offsets`` (n,) [deg] (and
    ``weight`` x the predicted leaves), turned by its best offset (signed by the cut side).
    Shared by :class:`AimCorrectedAgent` (a network's curves) and the aim bound's search
    (simulated ones)."""
    k = int(entries)
    strikes, leave = strikes_and_leaves(base, states, k, rng)
    if not len(strikes):
        return strikes
    batch = arena.g.batch(states)
    T = len(batch)
    rep = batch.take(np.repeat(np.arange(T), k))
    x, sign = aim_inputs(arena, rep, strikes)
    entry, best = best_of(curves_of(rep, strikes, x).reshape(T, k, -1), leave,
                          weight)  # ties: the base's order
    rows = np.arange(T) * k + entry
    offs = np.asarray(offsets)[best].astype(np.float64)
    return turned(strikes.take(rows), sign[rows], offs, each=True)


class CurveReadout:
    """What a value-curve network (``self(x)``: (T, n) curves over its ``offsets`` buffer)
    answers with numpy inputs; shared by :class:`AimNet` and
    :class:`~cuegym.agents.aim_contact.ContactAimNet`."""

    def curves(self, x: np.ndarray) -> np.ndarray:
        """(T, n) the predicted curves (points / :data:`POINTS_PER_UNIT`) for inputs ``x``
        (T, D)."""
        with torch.no_grad():
            return self(torch.as_tensor(np.asarray(x, np.float32))).numpy()

    def points(self, x: np.ndarray) -> np.ndarray:
        """(T, n) the predicted curves in points for inputs ``x`` (T, D)."""
        return self.curves(x).astype(np.float64) * POINTS_PER_UNIT

    def best_offsets(self, x: np.ndarray) -> np.ndarray:
        """(T,) the offset [deg] of highest predicted value for inputs ``x`` (T, D)."""
        return self.offsets.numpy()[self.curves(x).argmax(1)].astype(np.float64)


class AimNet(CurveReadout, nn.Module):
    """MLP from :func:`aim_inputs` to the value curve over ``offsets`` (in points /
    :data:`POINTS_PER_UNIT`).

    Args:
        n_in: input width. offsets: (n,) aim offsets [deg]. hidden: layer widths.
        mu, sd: (n_in,) input normalisation (the training set's mean and spread).
    """

    def __init__(self, n_in: int, offsets: Sequence[float], hidden: Sequence[int] = (256, 256),
                 mu: np.ndarray | None = None, sd: np.ndarray | None = None) -> None:
        super().__init__()
        self.hidden = [int(h) for h in hidden]
        self.register_buffer("offsets", torch.as_tensor(np.asarray(offsets, np.float32)))
        self.register_buffer("mu", torch.zeros(n_in) if mu is None else torch.as_tensor(mu))
        self.register_buffer("sd", torch.ones(n_in) if sd is None else torch.as_tensor(sd))
        layers: list[nn.Module] = []
        width = n_in
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, len(self.offsets)))
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlp((x - self.mu) / self.sd)


#: The network layouts :func:`fit_aim` builds: an MLP on the inputs (:class:`AimNet`), or a
#: trunk and a head shared by the offsets that also reads each offset's contact geometry
#: (:class:`~cuegym.agents.aim_contact.ContactAimNet`).
LAYOUTS = ("mlp", "contact")


def fit_aim(x: np.ndarray, values: np.ndarray, offsets: Sequence[float], *,
            hidden: Sequence[int] = (256, 256), epochs: int = 30, batch: int = 256,
            lr: float = 1e-3, seed: int = 0, log: Any = None, layout: str = "mlp",
            head: Sequence[int] = (256, 128), arena: Any = None) -> AimNet:
    """A fresh network of ``layout`` (:data:`LAYOUTS`) fitted to the curves (squared error on
    values / :data:`POINTS_PER_UNIT`; Adam with a one-cycle learning rate, ``epochs`` passes of
    minibatches of ``batch``).

    ``hidden``: the MLP's (or the contact network's trunk's) widths; ``head``: the contact
    network's head widths, ``arena`` its table (default: a new keglebillard arena); both
    unused by the MLP. ``log``: optional callback ``(epoch, mean loss)`` after each epoch.
    """
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {list(LAYOUTS)}, got {layout!r}")
    x = np.asarray(x, np.float32)
    values = np.asarray(values, np.float32)
    if x.ndim != 2 or values.shape != (len(x), len(offsets)):
        raise ValueError(f"inputs {x.shape} and curves {values.shape} do not match "
                         f"{len(offsets)} offsets")
    if len(x) < batch:
        raise ValueError(f"{len(x)} training rows (the labelled positions, with their mirror "
                         f"images where the recipe adds them) are fewer than one batch of "
                         f"{batch}: label more games or use a smaller batch")
    torch.manual_seed(seed)
    xt, yt = torch.as_tensor(x), torch.as_tensor(values) / POINTS_PER_UNIT
    if layout == "contact":
        from cuegym.agents.aim_contact import contact_net

        if arena is None:
            from cuegym.agents.arena import make_arena

            arena = make_arena("keglebillard")
        net = contact_net(x, offsets, arena, hidden, head)
    else:
        net = AimNet(x.shape[1], offsets, hidden, mu=xt.mean(0),
                     sd=xt.std(0).clamp(min=0.1))  # a feature constant in training stays put
    per_epoch = len(x) // batch
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * per_epoch)
    for epoch in range(epochs):
        total = 0.0
        for idx in torch.randperm(len(x))[:per_epoch * batch].split(batch):
            loss = ((net(xt[idx]) - yt[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach())
        if log is not None:
            log(epoch, total / per_epoch)
    return net.eval()


def save_aim(net: AimNet, path: str | Path, meta: dict[str, Any] | None = None) -> Path:
    """Write the network (weights, layout and ``meta``: the recipe, the base agent) to
    ``path`` atomically."""
    blob = {"n_in": int(net.mu.shape[0]), "hidden": net.hidden, "state": net.state_dict(),
            "meta": json.dumps(meta or {})}
    if getattr(net, "layout", "mlp") == "contact":
        blob.update(layout="contact", head=net.head_widths)
    return torch_save_atomic(blob, path)


def load_aim(path: str | Path, kind: str = "aim") -> tuple[AimNet, dict[str, Any]]:
    """The network saved by :func:`save_aim` and its metadata. ``kind`` (``"aim"`` or
    ``"leave"``): the network the caller wants, named in the errors (a leave network is saved
    by the same function)."""
    path = existing_file(path, f"{kind} network")
    blob = load_torch_file(path, f"{kind} network")
    if not isinstance(blob, dict) or not {"n_in", "hidden", "state"} <= set(blob):
        raise ValueError(f"{path} is not {'an' if kind == 'aim' else 'a'} {kind} network "
                         "(saved by cuegym.agents.aim)")
    n = len(blob["state"]["offsets"])
    with global_rngs_kept():  # the initial weights, replaced at once, draw from torch's
        if blob.get("layout", "mlp") == "contact":
            from cuegym.agents.aim_contact import ContactAimNet

            net = ContactAimNet(blob["n_in"], np.zeros(n), blob["hidden"], blob["head"])
        else:
            net = AimNet(blob["n_in"], np.zeros(n), blob["hidden"])
    net.load_state_dict(blob["state"])
    return net.eval(), json.loads(blob.get("meta") or "{}")


def is_leave_network(net: Any, meta: dict[str, Any]) -> bool:
    """Whether a network saved by :func:`save_aim` is a leave network
    (:mod:`cuegym.agents.leave`: 1 or 2 outputs, the leave and optionally the own value; its
    recipe's ``target`` is ``leave``) rather than an aim correction (curves over an odd number
    >= 3 of aim offsets, ``target: aim``)."""
    recipe = meta.get("config") or {}
    return len(net.offsets) < 3 or recipe.get("target", "aim") == "leave"


class AimCorrectedAgent(Agent):
    """Plays ``base``'s strike with the aim turned by the :class:`AimNet`'s best offset; with
    ``entries`` > 1, the best of the base agent's ``entries`` best strikes (:func:`base_strikes`)
    by the network's predicted value of its best offset, turned by that offset. Where the base
    agent chooses by the leave (``LeaveAwareAgent``), its ``entries`` best by its own choice,
    and the network's best value minus the leave's ``weight`` times each strike's predicted
    leave decides among them.

    Args:
        base: a keglebillard agent (the strikes to correct).
        aim: an :class:`AimNet` (or a
            :class:`~cuegym.agents.aim_contact.ContactAimNet`) or the path of a saved one.
        arena: the keglebillard arena (default: a new one).
        name: label in tables (default: ``"<base>+aim"``).
        entries: strikes to choose among; default: the saved network's training recipe
            (``meta["config"]["entries"]``), else 1.
    """

    game = "keglebillard"

    def __init__(self, base: Agent, aim: AimNet | str | Path, arena: Any = None,
                 name: str | None = None, entries: int | None = None) -> None:
        if base.game != "keglebillard":
            raise ValueError(f"the aim correction is for keglebillard; {base.name!r} plays "
                             f"{base.game}")
        self.base = base
        self.net, self.meta = (aim, {}) if isinstance(aim, nn.Module) else load_aim(aim)
        if is_leave_network(self.net, self.meta):
            shown = aim if isinstance(aim, str | Path) else f"<{type(aim).__name__}>"
            raise ValueError(f"aim={shown}: a leave "
                             f"network ({len(self.net.offsets)} outputs: the leave, then the own "
                             "value), not an aim network (value curves over 3 or more aim "
                             "offsets); a leave network is passed as leave=")
        if entries is None:
            entries = (self.meta.get("config") or {}).get("entries", 1)
        self.entries = entry_count(entries)
        if self.entries > 1:  # checks the base agent and the count now, not in a game
            base_strikes(base, [], self.entries, np.random.default_rng(0))
        self.arena = keglebillard_arena(arena)
        self.name = name or f"{base.name}+aim"

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        return choose_and_turn(self.base, self.arena, states, self.entries, rng,
                               self.net.offsets.numpy(), getattr(self.base, "weight", 0.0),
                               lambda rep, strikes, x: self.net.curves(x))

    def reset(self) -> None:
        self.base.reset()


__all__ = ["LABEL_CHUNK", "LAYOUTS", "MIRRORS", "N_STRIKE", "POINTS_PER_UNIT", "SIDE",
           "STRIKE_COLUMN", "STRIKE_NAMES", "AimCorrectedAgent", "AimNet", "CurveReadout",
           "aim_curves", "aim_inputs", "base_strikes", "best_of", "choose_and_turn",
           "entry_count", "fit_aim", "first_contact", "game_positions", "ghost_contact",
           "inputs_of", "is_leave_network", "keglebillard_arena", "label_games", "load_aim",
           "mirrorable", "mirrored_inputs", "mirrored_labels", "save_aim", "strikes_and_leaves",
           "turned"]
