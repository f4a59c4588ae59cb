"""Sampling planner: geometric candidates, perturbed, simulated with shot noise in one batch.

For every state it is to play, the planner takes the geometric aimer's best candidates
(``cuegym.agents.geometric.kegle_candidates`` / ``golf_candidates``, several spins), adds
random perturbations of them (aim, speed, spin, placement) up to
``n_candidates`` strikes, and simulates each under ``n_noise`` samples of the execution noise it
expects (:class:`~cuegym.agents.base.ShotNoise`, by default the tournament noise the arena applies).
All strikes of all states go into **one** batched physics call and one batched rules scorer
(``arena.values``: the shooter's points minus what the shot hands over, fouls included); the
candidate with the best mean value is played. Like the tournament programs PickPocket and
CueCard, it searches over the simulator; unlike them it looks one shot ahead only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from cuegym.agents.base import (
    SPIN_MAX,
    Agent,
    Strikes,
    check_arena,
    check_game,
    check_int,
    check_numbers,
    check_value_terms,
    load_noise,
)
from cuegym.agents.geometric_golf import golf_candidates_batch
from cuegym.agents.geometric_kegle import kegle_candidates_batch
from cuegym.agents.geometry import Candidates
from cuegym.games.noise import MAX_DEVIATION, ShotNoise

#: The most shots one move of a search agent may simulate (the shipped planner simulates 576 in
#: keglebillard, 128 in golfbillard): more would take hours a move and terabytes of memory.
MAX_SHOTS_PER_MOVE = 1 << 20
#: The largest magnitude of a value weight (``terms``, a guided planner's ``discount``): beyond it
#: the weighted values would leave the range where their sums are exact.
MAX_WEIGHT = 1e6
#: The largest perturbation of each strike component (``jitter``): the ranges of MAX_DEVIATION.
MAX_JITTER = {k: hi for k, (hi, _) in MAX_DEVIATION.items()}


def check_budget(what: str, shots: int) -> None:
    """Refuse settings that simulate more than :data:`MAX_SHOTS_PER_MOVE` shots a move."""
    if shots > MAX_SHOTS_PER_MOVE:
        raise ValueError(f"{what} = {shots:,} simulated shots a move, more than "
                         f"{MAX_SHOTS_PER_MOVE:,} (the shipped keglebillard planner simulates 576)")


def check_terms(name: str, terms: Any, known: Sequence[str]) -> dict[str, float]:
    """A search's value terms (``arena.values``' shaping, keys among ``known``) checked when the
    agent is made: :func:`~cuegym.agents.base.check_value_terms` with weights within
    :data:`MAX_WEIGHT`."""
    return check_value_terms(name, terms, known, lo=-MAX_WEIGHT, hi=MAX_WEIGHT)


def check_spins(name: str, spins: Any) -> tuple[float, ...]:
    """``spins`` (a non-empty list of back/top spins b within the agents' cue-tip limit
    ``SPIN_MAX``, which :meth:`Strikes.clipped` keeps to) as a tuple; a ValueError naming the
    setting ``name`` (``spins``, a guided planner's ``reply_spins``) otherwise."""
    if isinstance(spins, str | bytes) or not isinstance(spins, Sequence | np.ndarray) or \
            not len(spins):
        raise ValueError(f"{name} must be a list of back/top spins b, got {spins!r}")
    return tuple(check_numbers(name, dict(enumerate(spins)), range(len(spins)),
                               lo=-SPIN_MAX, hi=SPIN_MAX).values())


class PlannerAgent(Agent):
    """Simulate-and-pick planner.

    Args:
        game: ``keglebillard`` or ``golfbillard``.
        n_candidates: strikes evaluated per state (the geometric ones first, then perturbations).
        n_noise: noise samples per candidate (the value is their mean).
        noise: the execution noise it plans for (``"tournament"``, ``"none"``, a scale or a
            :class:`ShotNoise`; its ``place`` part moves a red in hand's placement, as in
            play: :func:`noisy_batch`).
        n_base: geometric candidates kept before perturbing (cheapest first).
        jitter: standard deviations of the perturbations: ``phi`` [deg], ``V0`` (relative),
            ``b``, ``a``, ``place`` [m].
        terms: value shaping passed to ``arena.values`` (see the arenas).
        spins: the ``b`` values the geometric candidates are generated with.
        arena: the arena to simulate in (default: the game's default arena).
    """

    def __init__(self, game: str = "keglebillard", n_candidates: int = 48, n_noise: int = 4,
                 noise: Any = "tournament", n_base: int = 12, jitter: Mapping | None = None,
                 terms: Mapping | None = None, spins: Sequence[float] | None = None,
                 arena: Any = None, name: str = "planner") -> None:
        from cuegym.agents.arena import make_arena

        self.game = check_game(game)
        self.name = name
        self.arena = check_arena(arena, game) or make_arena(game)
        self.n_candidates = check_int("n_candidates", n_candidates)
        self.n_noise = check_int("n_noise", n_noise)
        self.noise = load_noise(noise)
        self.n_base = check_int("n_base", n_base)
        check_budget(f"n_candidates x n_noise = {self.n_candidates} x {self.n_noise}",
                     self.n_candidates * self.n_noise)
        self.jitter = {"phi": 1.0, "V0": 0.15, "b": 0.15, "a": 0.1}
        if game == "keglebillard":  # (no golfbillard ball is placed: its "place" is refused)
            self.jitter["place"] = 0.03
        for k, v in check_numbers("jitter", jitter, self.jitter, lo=0.0).items():
            if v > MAX_JITTER[k]:
                raise ValueError(f"jitter[{k!r}] must be at most {MAX_JITTER[k]:g} (the whole "
                                 f"range of {k}), got {v!r}")
            self.jitter[k] = v
        self.terms = check_terms("terms", terms, self.arena.TERMS)
        if spins is None:
            spins = (-0.4, -0.1, 0.2) if game == "keglebillard" else (0.0, -0.2)
        self.spins = check_spins("spins", spins)

    # -- candidates -------------------------------------------------------------------------

    def aim(self, states: Any) -> list[Candidates]:
        """The geometric aimer's candidates (spins ``self.spins``) of T states, from one
        batched compiled call."""
        if self.game == "keglebillard":
            c = kegle_candidates_batch(self.arena, states, spins=self.spins)
            return [c.table(t) for t in range(len(c.count))]
        c = golf_candidates_batch(self.arena, states, spins=self.spins)
        return [c.table(t, self.arena.geo.ball_ids) for t in range(len(c.count))]

    def candidates(self, state: Any, rng: np.random.Generator,
                   aim: Candidates | None = None) -> Strikes:
        """``n_candidates`` strikes for one state: geometric ones (``aim``, the state's entry of
        :meth:`aim`, computed here when None), then perturbations."""
        c = self.aim([state])[0] if aim is None else aim
        order = np.argsort(c.cost, kind="stable")
        base = c.strikes.take(order[: min(self.n_base, self.n_candidates)])
        n_extra = self.n_candidates - len(base)
        if n_extra <= 0:
            return base
        return Strikes.concat([base, self.perturb(state, base, n_extra, rng)]).clipped()

    def candidate_batch(self, states: Any, rng: np.random.Generator
                        ) -> tuple[Strikes, np.ndarray]:
        """:meth:`candidates` of T states at once: (flat strikes, state-major; (T,) counts).

        The same strikes from the same draws of ``rng`` as :meth:`candidates` state by state
        (searches stay reproducible): the aimer, the sorting, the perturbations' arithmetic, the
        placement checks and the clipping run over the whole batch; the loop over the states
        only draws their random numbers, in the order the per-state calls draw them.
        """
        batch = self.arena.g.batch(states)
        if self.game == "keglebillard":
            c = kegle_candidates_batch(self.arena, batch, spins=self.spins)
            ball, place, hand = np.zeros(c.cost.shape, np.int64), c.place, batch.hand
        else:
            c = golf_candidates_batch(self.arena, batch, spins=self.spins)
            ball, place = c.ball, np.full(c.cost.shape + (2,), np.nan)
            hand = np.zeros(len(c.count), np.int64)
        T = len(c.count)
        n_base = np.minimum(c.count, min(self.n_base, self.n_candidates))
        n_extra = np.maximum(self.n_candidates - n_base, 0)
        rows = np.repeat(np.arange(T), n_base)
        cols = np.argsort(c.cost, axis=1, kind="stable")[rows, _ranks(n_base)]
        base = Strikes(c.cue[rows, cols], ball[rows, cols].astype(np.int64), place[rows, cols])
        draws = [self._draws(int(n_base[t]), int(n_extra[t]), bool(hand[t]), rng)
                 for t in np.flatnonzero(n_extra)]
        owner = np.repeat(np.arange(T), n_extra)
        first = np.cumsum(n_base) - n_base  # each state's first base row
        ext = self._perturbed(batch, owner, base, first[owner], *_stack(draws))
        # state t's block: its base rows, then its perturbations (clipped, as the block is
        # when it has any)
        sizes = n_base + n_extra
        own = np.concatenate([np.repeat(np.arange(T), n_base), owner])
        order = np.argsort(own, kind="stable")
        flat = Strikes.concat([base, ext]).take(order)
        clip = np.repeat(n_extra > 0, sizes)
        flat.cue[clip] = flat.take(np.flatnonzero(clip)).clipped().cue
        return flat, sizes

    def _draws(self, n_from: int, n: int, in_hand: bool, rng: np.random.Generator
               ) -> tuple[np.ndarray, ...]:
        """The random numbers of ``n`` perturbations of one state, drawn in the planner's order:
        (n,) the strike perturbed (of ``n_from``), (n, 4) steps of phi [deg], log V0, b and a,
        and (n, 2) of the placement [m] (NaN when the red is not in hand)."""
        j = self.jitter
        pick = rng.integers(0, n_from, n)
        steps = np.stack([rng.normal(0.0, j[k], n) for k in ("phi", "V0", "b", "a")], 1)
        move = rng.normal(0.0, j["place"], (n, 2)) if in_hand else np.full((n, 2), np.nan)
        return pick, steps, move

    def _perturbed(self, states: Any, owner: np.ndarray, base: Strikes, first: np.ndarray,
                   pick: np.ndarray, steps: np.ndarray, move: np.ndarray) -> Strikes:
        """Strikes ``base[first + pick]`` moved by :meth:`_draws`' numbers, row i for state
        ``owner[i]`` of ``states``; a placement moves only where it stays legal (K-19, and
        behind the salvo line for a red in hand there). Not clipped."""
        ext = base.take(first + pick)
        ext.cue[:, 1] += steps[:, 0]
        ext.cue[:, 0] *= np.exp(steps[:, 1])
        ext.cue[:, 4] += steps[:, 2]
        ext.cue[:, 3] += steps[:, 3]
        rows = np.flatnonzero(np.isfinite(move[:, 0]))
        if len(rows):
            from cuegym.games.kegle_state import HAND_SALVO

            moved = ext.place[rows] + move[rows]
            sub = self.arena.g.batch(states).take(owner[rows])
            ok = self.arena.placement_ok(sub, moved)
            ok &= (sub.hand != HAND_SALVO) | (moved[:, 0] <= self.arena.salvo_x)
            ext.place[rows[ok]] = moved[ok]
        return ext

    def perturb(self, state: Any, base: Strikes, n: int, rng: np.random.Generator) -> Strikes:
        """``n`` random perturbations of strikes drawn from ``base`` (all for ``state``): aim,
        speed, spin and (keglebillard, red in hand) a placement moved where it stays legal;
        standard deviations ``self.jitter``. Not clipped (the caller clips the whole set)."""
        in_hand = self.game == "keglebillard" and state.ball_in_hand is not None
        return self._perturbed([state], np.zeros(n, np.int64), base,
                               np.zeros(n, np.int64), *self._draws(len(base), n, in_hand, rng))

    # -- acting -----------------------------------------------------------------------------

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        if not len(states):
            return Strikes.empty(0)
        flat, sizes = self.candidate_batch(states, rng)
        rep, noisy = noisy_batch(self.arena, states, flat, sizes, self.noise, self.n_noise, rng)
        vals = self.arena.values(rep, noisy, terms=self.terms).reshape(-1, self.n_noise).mean(1)
        return flat.take(segment_argmax(vals, sizes))


def _ranks(sizes: np.ndarray) -> np.ndarray:
    """0, 1, .., sizes[t] - 1 for each block t, concatenated."""
    return np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)


def _stack(draws: list[tuple[np.ndarray, ...]]) -> tuple[np.ndarray, ...]:
    """The states' :meth:`PlannerAgent._draws`, concatenated (empty arrays for none)."""
    if not draws:
        return np.zeros(0, np.int64), np.zeros((0, 4)), np.zeros((0, 2))
    return tuple(np.concatenate(parts) for parts in zip(*draws, strict=True))


def noisy_batch(arena: Any, states: Any, flat: Strikes, sizes: np.ndarray, noise: Any, K: int,
                rng: np.random.Generator, groups: np.ndarray | None = None
                ) -> tuple[Any, Strikes]:
    """Every candidate of every state under ``K`` noise draws, ready for one physics call.

    Common random numbers: every candidate of a state meets the same K draws, so candidates are
    compared on equal luck. The draws are those of the noise as play applies it
    (:meth:`ShotNoise.apply`): the strike's components and, where ``noise.place`` is set, the
    placement of a red in hand (its x and y; drawn after the strikes' normals, common to a
    state's candidates too). A placement the noise moves where the red cannot lie is simulated
    as play plays it: the K-19 foul, which ``arena.values`` scores.

    Args:
        states: T game states (a batch or a list). flat: (sum sizes) candidate strikes, those of
            state t in a block of ``sizes[t]``. noise: the :class:`ShotNoise` planned for.
        groups: optional (T,) group of each state (0..G-1): states of a group share their K
            draws too (the lookahead's positions after one root's candidates are compared on
            equal luck); default: every state its own draws.

    Returns:
        (states repeated, noisy strikes), both of length ``sum(sizes) * K``, row ``i * K + k``
        = candidate i under draw k.
    """
    sizes = np.asarray(sizes, np.int64)
    batch = arena.g.batch(states)
    rep = arena.take(batch, np.repeat(np.arange(len(sizes)), sizes * K))
    if groups is None:
        groups = np.arange(len(sizes))
    else:
        groups = np.asarray(groups, np.int64)
        if groups.shape != sizes.shape or (len(groups) and groups.min() < 0):
            raise ValueError(f"groups must be {len(sizes)} indices >= 0, got {groups!r}")
    n_groups = int(groups.max(initial=-1)) + 1
    z = rng.standard_normal((n_groups, K, 5))[groups]
    zz = np.repeat(z, sizes, axis=0)  # (sum sizes, K, 5)
    place = np.repeat(flat.place, K, axis=0)
    if noise.place:  # after the strikes' draws, as ShotNoise.apply draws
        offset = placement_offsets(noise, n_groups * K, rng).reshape(n_groups, K, 2)[groups]
        offset = np.repeat(offset, sizes, axis=0).reshape(-1, 2)  # (sum sizes * K, 2)
        # an in-hand red's placement only (NaN: no ball in hand); a placement the noise makes
        # illegal is played as play plays it: the K-19 foul (arena.values scores it so)
        moved = np.isfinite(place).all(1)
        place[moved] += offset[moved]
    noisy = Strikes(noise.sample(flat.cue, K, rng, z=zz).reshape(-1, 5),
                    np.repeat(flat.cue_ball, K), place)
    return rep, noisy


def placement_offsets(noise: ShotNoise, n: int, rng: np.random.Generator) -> np.ndarray:
    """(n, 2) placement deviations [m] of ``noise``, ``n`` samples from ``rng``: what
    :meth:`ShotNoise.apply` adds to a placement, from its own code (the one noise model; its
    strike part is left out, so only the ``(n, 2)`` placement normals are drawn)."""
    only = replace(noise, V0=0.0, phi=0.0, theta=0.0, a=0.0, b=0.0)
    return only.apply(Strikes(np.zeros((n, 5)), np.zeros(n, np.int64), np.zeros((n, 2))),
                      rng).place


def segment_argmax(vals: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """(T,) flat index of the largest value in each block of ``vals`` (block t has ``sizes[t]``
    entries, all >= 1; ties: the first)."""
    return segment_top(vals, sizes, 1)[:, 0]


def segment_top(vals: np.ndarray, sizes: np.ndarray, m: int) -> np.ndarray:
    """(T, m) flat indices of the ``m`` largest values of each block of ``vals`` (best first;
    ties: the earlier; a block shorter than m repeats its last entry)."""
    sizes = np.asarray(sizes, np.int64)
    if (sizes < 1).any():
        raise ValueError(f"every block needs a candidate, got sizes {sizes.tolist()}")
    T, n = len(sizes), int(sizes.max()) if len(sizes) else 0
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    col = np.arange(n)
    pad = np.full((T, n), -np.inf)
    ok = col[None, :] < sizes[:, None]
    idx = np.where(ok, start[:, None] + col[None, :], 0)
    pad[ok] = np.asarray(vals, np.float64)[idx[ok]]
    order = np.argsort(-pad, axis=1, kind="stable")[:, :m]
    order = np.minimum(order, sizes[:, None] - 1)  # only where a block is shorter than m
    return start[:, None] + order
