"""Guided planner: the sampling planner with the trained policy's proposals and a two-shot
lookahead.

For every state it is to play (T states, batched):

1. **Candidates** (``n_candidates`` per state): the trained policy's strike (the shipped
   ``agents/pretrained/<game>.zip`` by default; keglebillard: the DQN without the aim correction
   that ``make_agent("pretrained", ...)`` adds, as the guided figures were measured, since the
   refinement below makes such corrections by simulation) and ``n_policy - 1`` perturbations
   of it, then the plain planner's candidates (geometric aimer, several spins, perturbed;
   :meth:`PlannerAgent.candidates <cuegym.agents.planner.PlannerAgent.candidates>`).
2. **First ply**: every candidate of every state under the same ``n_noise`` draws of the
   execution noise (common random numbers), in one batched physics call; the rules score each
   outcome (``arena.score``, the planner's values) and keep the next state.
3. **Refinement** (``n_refine`` > 0): ``n_refine`` more candidates per state, perturbations of
   its ``refine_top`` best (``refine_scale`` times the planner's jitter), under ``n_noise`` fresh
   draws; they join the state's candidates. A sampling planner's edge over the aimer is this kind
   of local correction (docs/agents.md: the aimer's shots alone, each under 48 draws, win 34 % of
   games against the planner), and a second, narrower round spends it where the first found
   value.
4. **Recheck** (``n_recheck`` > 0): the ``n_top`` best candidates of each state are played again
   under ``n_recheck`` fresh draws (common to a state's candidates); their first-ply value becomes
   the mean over all draws, and the second ply starts from the fresh draws' next states. The top
   candidates were picked because their first draws went well (the best of many noisy means is
   biased upward, and so are the positions those draws leave); the fresh draws are not.
5. **Second ply** for the ``n_top`` best candidates of each state: the next states of their first
   ``n_next`` noise draws (T x n_top x n_next positions) are valued for the side to move there —
   by a cheap reply search (the plain planner's candidates, ``reply_candidates`` per position,
   under ``reply_noise`` draws; the best mean value: all positions in a few physics calls) or by a
   learned ``value(states)``; with ``reply_recheck`` the best reply's value is averaged with
   that many fresh draws of it (as in 3). The next player's value counts against the shooter
   (keglebillard: the opponent's points minus the skæve he hands back, so a foul of his counts
   for us; golfbillard: the opponent's stroke) and for the shooter where he keeps the turn
   (golfbillard, an own ball scored without a foul, G-1). A finished game adds nothing: its
   result is in the first ply's value (``WIN_VALUE``; golfbillard's G-5 terms value a draw
   there too: the first ply scores with the states before and after each stroke).
6. The candidate with the best ``first-ply value + discount * mean second-ply value`` is played.

The cost per move is about ``(n_candidates + n_refine) * n_noise + n_top * n_recheck + n_top *
n_next * reply_candidates * reply_noise`` simulated shots plus ``n_top * n_next`` geometric
candidate sets; docs/agents.md has the measured seconds per move against the plain planner.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from cuegym.agents.arena import played_values
from cuegym.agents.base import Agent, Strikes, check_arena, check_game, check_int
from cuegym.agents.planner import (
    MAX_JITTER,
    MAX_WEIGHT,
    PlannerAgent,
    check_budget,
    check_spins,
    check_terms,
    noisy_batch,
    segment_top,
)
from cuegym.configs import finite_number

#: A learned value of positions: states (a batch of n) -> (n,) the value for the side to move,
#: in the units of ``arena.values`` (points or balls; ``WIN_VALUE`` for a won game).
ValueFn = Callable[[Any], np.ndarray]


def load_policy(policy: Any, game: str, arena: Any = None) -> Agent | None:
    """The proposal policy: an :class:`Agent`, ``"pretrained"`` (the shipped model ``.zip`` of
    ``game`` alone, without an aim correction; None with a note on stderr while none is
    shipped), None / ``"none"`` (no proposals), or any
    other spec :func:`~cuegym.agents.make_agent` takes (``"expert"``, a model ``.zip`` or
    ``.pt`` path, ...). A policy made here plays in ``arena`` (default: the game's default
    arena), so that it proposes strikes for the table and rules the planner searches on."""
    if policy is None or isinstance(policy, Agent):
        if policy is not None and policy.game != game:
            raise ValueError(f"policy {policy.name!r} plays {policy.game}, not {game}")
        return policy
    if not isinstance(policy, str):
        raise ValueError(f"policy must be an Agent, an agent spec ('expert', a .zip or .pt "
                         f"path, 'pretrained') or 'none', got {policy!r}")
    if policy == "none":
        return None
    if policy == "pretrained":
        from cuegym.agents import pretrained_path
        from cuegym.agents.sb3_agent import SB3Agent

        path = pretrained_path(game)
        if path is None:
            print(f"note: no trained {game} agent is shipped; the guided planner runs without "
                  "policy proposals", file=sys.stderr)
            return None
        return SB3Agent(path, game=game, name="pretrained", arena=arena)
    from cuegym.agents import make_agent

    if policy.partition(":")[0] == "guided":
        raise ValueError("the guided planner's policy cannot be a guided planner")
    return make_agent(policy, game, arena=arena)


class GuidedPlannerAgent(Agent):
    """Planner with policy proposals and a two-shot lookahead (the module doc has the method).

    Args:
        game: ``keglebillard`` or ``golfbillard``.
        n_candidates: first-ply strikes per state (policy ones included).
        n_noise: noise draws per first-ply candidate (common random numbers).
        n_policy: strikes from the policy per state: its own and ``n_policy - 1`` perturbations
            (0 or no policy: none).
        n_top: candidates per state that get the second ply (0: a one-shot planner).
        n_next: next states per top candidate (its first ``n_next`` noise draws; <= n_noise,
            or <= n_recheck with a recheck).
        reply_candidates, reply_noise: the reply search at each next state.
        discount: weight of the second ply's value.
        n_refine, refine_top, refine_scale: the refinement (:meth:`refine`; ``n_refine`` 0:
            none): candidates per state, the first-ply best they perturb, the scale of their
            perturbations relative to ``jitter``.
        n_recheck: fresh noise draws for the ``n_top`` candidates (:meth:`recheck`; 0: none):
            their first-ply value is averaged over all draws and the next states come from the
            fresh ones.
        reply_recheck: fresh noise draws for the reply search's best reply
            (:meth:`reply_values`; 0: none).
        policy: the proposal policy (:func:`load_policy`; default the shipped model).
        value: a learned position value (:data:`ValueFn`) used instead of the reply search.
        noise: the execution noise planned for (``"tournament"``, ``"none"``, a scale, a
            :class:`ShotNoise`). n_base, jitter, spins: the planner's candidate settings
            (:class:`PlannerAgent`); ``reply_spins`` those of the reply search (default: the
            first spin only, cheaper).
        terms, reply_terms: value shaping of ``arena.values`` for each ply.
        arena: the arena to simulate in (default: the game's default arena).
        max_states: states searched in one batch (more are split into batches of this size, in
            order; memory grows with it).
    """

    def __init__(self, game: str = "keglebillard", n_candidates: int = 64, n_noise: int = 6,
                 n_policy: int = 4, n_top: int = 6, n_next: int = 3, reply_candidates: int = 16,
                 reply_noise: int = 3, discount: float = 1.0, n_recheck: int = 0,
                 reply_recheck: int = 0, n_refine: int = 0, refine_top: int = 4,
                 refine_scale: float = 0.5, policy: Any = "pretrained",
                 value: ValueFn | None = None, noise: Any = "tournament", n_base: int = 12,
                 jitter: Mapping | None = None, spins: Sequence[float] | None = None,
                 reply_spins: Sequence[float] | None = None, terms: Mapping | None = None,
                 reply_terms: Mapping | None = None, arena: Any = None,
                 max_states: int = 64, name: str = "guided") -> None:
        from cuegym.agents.arena import make_arena

        self.game = check_game(game)
        self.name = name
        self.arena = check_arena(arena, game) or make_arena(game)
        for key, v, lo in (("n_candidates", n_candidates, 1), ("n_noise", n_noise, 1),
                           ("n_policy", n_policy, 0), ("n_top", n_top, 0), ("n_next", n_next, 1),
                           ("reply_candidates", reply_candidates, 1),
                           ("reply_noise", reply_noise, 1), ("n_recheck", n_recheck, 0),
                           ("reply_recheck", reply_recheck, 0), ("max_states", max_states, 1),
                           ("n_refine", n_refine, 0), ("refine_top", refine_top, 1)):
            check_int(key, v, lo)  # a float (2.5) would silently be truncated
        # both plies' terms before the policy is loaded (the planners below check them again)
        check_terms("terms", terms, self.arena.TERMS)
        check_terms("reply_terms", reply_terms, self.arena.TERMS)
        self.policy = load_policy(policy, game, self.arena)
        self.n_policy = int(n_policy) if self.policy is not None else 0
        self.n_candidates, self.n_noise = int(n_candidates), int(n_noise)
        self.n_top, self.n_next = int(n_top), int(n_next)
        if self.n_policy >= self.n_candidates:
            raise ValueError(f"n_policy ({self.n_policy}) must be below n_candidates "
                             f"({self.n_candidates}): the planner's candidates need room")
        self.n_recheck, self.reply_recheck = int(n_recheck), int(reply_recheck)
        self.max_states = int(max_states)
        self.n_refine, self.refine_top = int(n_refine), int(refine_top)
        refine_scale = finite_number("refine_scale", refine_scale, positive=True)
        draws = self.n_recheck or self.n_noise  # the draws the next states come from
        if self.n_next > draws:
            raise ValueError(f"n_next ({self.n_next}) cannot exceed n_noise ({self.n_noise}) or, "
                             f"with n_recheck, n_recheck ({self.n_recheck})")
        self.discount = finite_number("discount", discount, nonneg=True)
        if self.discount > MAX_WEIGHT:
            raise ValueError(f"discount must be at most {MAX_WEIGHT:g}, got {discount!r}")
        replies = self.n_top * self.n_next * int(reply_candidates) * int(reply_noise)
        check_budget(f"(n_candidates + n_refine) x n_noise + n_top x n_recheck + n_top x n_next "
                     f"x reply_candidates x reply_noise = ({self.n_candidates} + {self.n_refine})"
                     f" x {self.n_noise} + {self.n_top} x {self.n_recheck} + {self.n_top} x "
                     f"{self.n_next} x {reply_candidates} x {reply_noise}",
                     (self.n_candidates + self.n_refine) * self.n_noise
                     + self.n_top * self.n_recheck + replies)
        if value is not None and not callable(value):
            raise ValueError(f"value must be a callable states -> (n,) array, got {value!r}")
        self.value = value
        # the planners own candidate generation, perturbation and noise for each ply
        self.first = PlannerAgent(game, n_candidates=self.n_candidates - self.n_policy,
                                  n_noise=self.n_noise, noise=noise, n_base=n_base,
                                  jitter=jitter, terms=terms, spins=spins, arena=self.arena,
                                  name=f"{name}-ply1")
        refine_jitter = {k: float(refine_scale) * v for k, v in self.first.jitter.items()}
        for k, v in refine_jitter.items():  # else the error named jitter, not refine_scale
            if v > MAX_JITTER[k]:
                raise ValueError(f"refine_scale={refine_scale!r} makes the refinement's "
                                 f"jitter[{k!r}] {v:g}, more than {MAX_JITTER[k]:g} (the whole "
                                 f"range of {k})")
        self.refiner = PlannerAgent(game, n_candidates=1, noise=noise, jitter=refine_jitter,
                                    arena=self.arena, name=f"{name}-refine")
        # the reply search's own settings, named as given (PlannerAgent calls them spins, terms)
        reply_spins = self.first.spins[:1] if reply_spins is None else \
            check_spins("reply_spins", reply_spins)
        self.reply = PlannerAgent(game, n_candidates=int(reply_candidates),
                                  n_noise=int(reply_noise), noise=noise,
                                  n_base=min(n_base, int(reply_candidates)), jitter=jitter,
                                  terms=reply_terms, spins=reply_spins, arena=self.arena,
                                  name=f"{name}-reply")
        self.noise = self.first.noise

    # -- candidates -------------------------------------------------------------------------

    def candidates(self, states: Any, rng: np.random.Generator) -> tuple[Strikes, np.ndarray]:
        """First-ply candidates of T states: (flat strikes, (T,) sizes); state t's block is the
        policy's strike, its perturbations, then the planner's candidates."""
        prop = self.policy.act(states, rng) if self.n_policy else None
        blocks = []
        aims = self.first.aim(states)
        for t, s in enumerate(states):
            c = self.first.candidates(s, rng, aims[t])
            if prop is not None:
                own = prop.take([t])
                extra = [self.first.perturb(s, own, self.n_policy - 1, rng)] \
                    if self.n_policy > 1 else []
                c = Strikes.concat([own, *extra, c]).clipped()
            blocks.append(c)
        return Strikes.concat(blocks), np.array([len(b) for b in blocks], np.int64)

    # -- acting -----------------------------------------------------------------------------

    def act(self, states: Sequence[Any], rng: np.random.Generator) -> Strikes:
        """One strike per state; at most ``max_states`` states are searched at once (a guided
        move simulates thousands of shots per state and keeps their next states: 500 golfbillard
        states in one batch took 17 GB)."""
        if not len(states):
            return Strikes.empty(0)
        batch = self.arena.g.batch(states)
        if len(batch) <= self.max_states:
            return self._act_batch(batch, rng)
        return Strikes.concat([
            self._act_batch(batch.take(np.arange(a, min(a + self.max_states, len(batch)))), rng)
            for a in range(0, len(batch), self.max_states)])

    def _act_batch(self, batch: Any, rng: np.random.Generator) -> Strikes:
        """:meth:`act` for one batch of states (the module doc has the steps)."""
        arena, K = self.arena, self.n_noise
        flat, sizes = self.candidates(batch, rng)
        v1, new = self.played(batch, flat, sizes, K, rng)  # (sum sizes,)
        if self.n_refine:
            flat, sizes, v1, new = self.refine(batch, flat, sizes, v1, new, rng)
        if self.n_top == 0:
            return flat.take(segment_top(v1, sizes, 1)[:, 0])
        top = segment_top(v1, sizes, self.n_top)  # (T, M) flat candidate indices
        T, M, N2 = len(sizes), top.shape[1], self.n_next
        q1 = v1[top]
        if self.n_recheck:
            q1, new, K = self.recheck(batch, flat.take(top.reshape(-1)), q1, rng)
            rows = (np.arange(T * M)[:, None] * K + np.arange(N2)).reshape(-1)
        else:
            rows = (top[..., None] * K + np.arange(N2)).reshape(-1)  # (T*M*N2,) rows of `new`
        nxt = arena.take(new, rows)
        shooter = np.repeat(arena.movers(batch), M * N2)
        cont = self.next_values(nxt, shooter, rng, np.repeat(np.arange(T), M * N2))
        q = q1 + self.discount * cont.reshape(T, M, N2).mean(-1)  # (T, M)
        return flat.take(top[np.arange(T), np.argmax(q, axis=1)])

    def refine(self, batch: Any, flat: Strikes, sizes: np.ndarray, v1: np.ndarray, new: Any,
               rng: np.random.Generator) -> tuple[Strikes, np.ndarray, np.ndarray, Any]:
        """The refinement step: ``n_refine`` perturbations per state of its ``refine_top`` best
        first-ply candidates (``flat``, blocks of ``sizes``, mean values ``v1``), valued under
        ``n_noise`` fresh draws, appended to each state's block.

        Returns:
            (strikes, sizes, mean values, next states) of the enlarged blocks, in the layout of
            the first ply (next state of candidate i under draw k at row ``i * n_noise + k``);
            the next states are None where nothing reads them (a recheck supplies its own, or
            ``n_top`` is 0). The refined candidates meet other draws than the first ply's (the
            recheck compares the best of both on common draws again).
        """
        arena, K, R = self.arena, self.n_noise, self.n_refine
        top = segment_top(v1, sizes, self.refine_top)  # (T, m)
        ref = Strikes.concat([self.refiner.perturb(s, flat.take(top[t]), R, rng)
                              for t, s in enumerate(batch)]).clipped()
        T = len(sizes)
        v2, new2 = self.played(batch, ref, np.full(T, R, np.int64), K, rng)
        # after the merge state t's block is its first-ply candidates, then its refined ones
        owner = np.concatenate([np.repeat(np.arange(T), sizes), np.repeat(np.arange(T), R)])
        order = np.argsort(owner, kind="stable")
        strikes = Strikes.concat([flat, ref]).take(order)
        values = np.concatenate([v1, v2])[order]
        nxt = None  # the second ply starts from the recheck's positions, if any
        if self.n_top and not self.n_recheck:
            both = arena.g.batch(new)
            both = type(both).concat([both, arena.g.batch(new2)])
            nxt = arena.take(both, (order[:, None] * K + np.arange(K)).reshape(-1))
        return strikes, sizes + R, values, nxt

    def played(self, batch: Any, strikes: Strikes, sizes: np.ndarray, K: int,
               rng: np.random.Generator) -> tuple[np.ndarray, Any]:
        """Every strike (blocks of ``sizes`` per state of ``batch``) under ``K`` fresh noise draws
        common to a state's block (:func:`~cuegym.agents.arena.played_values`): (mean
        first-ply value of each strike (n,), next states: strike i under draw k at row
        ``i * K + k``)."""
        rep, noisy = noisy_batch(self.arena, batch, strikes, sizes, self.noise, K, rng)
        v, new = played_values(self.arena, rep, noisy, self.first_values, next_states=True)
        return v.reshape(-1, K).mean(1), new

    def first_values(self, states: Any, out: Any, new: Any) -> np.ndarray:
        """(n,) first-ply value of each played outcome ``out`` from ``states`` into ``new`` (the
        planner's terms; golfbillard's G-5 terms need the states before and after)."""
        g5 = {"states": states, "new": new} if self.game == "golfbillard" else {}
        return self.arena.score(out, terms=self.first.terms, **g5)

    def recheck(self, batch: Any, cands: Strikes, q1: np.ndarray, rng: np.random.Generator
                ) -> tuple[np.ndarray, Any, int]:
        """The (T, M) top candidates ``cands`` (flat, root-major) under ``n_recheck`` fresh
        noise draws (common to a root's candidates): their first-ply values ``q1`` averaged
        with the fresh ones over all ``n_noise + n_recheck`` draws, and the next states of the
        fresh draws. The top candidates were chosen *because* their first draws went well
        (the max of noisy means is biased upward); fresh draws re-rank them on equal luck and
        give next positions that are not selected for luck.

        Returns:
            (q1 (T, M), next states (T * M * n_recheck rows, candidate i draw k at
            ``i * n_recheck + k``), n_recheck).
        """
        R, (T, M) = self.n_recheck, q1.shape
        fresh, new = self.played(batch, cands, np.full(T, M, np.int64), R, rng)
        fresh = fresh.reshape(T, M)
        return (self.n_noise * q1 + R * fresh) / (self.n_noise + R), new, R

    def next_values(self, states: Any, shooter: np.ndarray, rng: np.random.Generator,
                    groups: np.ndarray | None = None) -> np.ndarray:
        """(n,) value of each next state for ``shooter`` (n,) (who played into it): the value for
        the side to move there (reply search or ``self.value``), counted for the shooter when
        he is to move again and against him otherwise; 0 where the game is over. ``groups``
        (n,): the root state of each (the reply search gives a root's positions the same noise
        draws)."""
        arena = self.arena
        live = ~arena.overs(states)
        if self.game == "golfbillard":
            live &= ~arena.openings(states)
        out = np.zeros(len(shooter))
        idx = np.flatnonzero(live)
        if not len(idx):
            return out
        sub = arena.take(states, idx)
        if self.value is not None:
            v = np.asarray(self.value(sub), np.float64).reshape(-1)
            if v.shape != (len(idx),):
                raise ValueError(f"value returned shape {v.shape} for {len(idx)} states")
        else:
            v = self.reply_values(sub, rng, None if groups is None else groups[idx])
        sign = np.where(arena.movers(sub) == shooter[idx], 1.0, -1.0)
        out[idx] = sign * v
        return out

    def reply_values(self, states: Any, rng: np.random.Generator,
                     groups: np.ndarray | None = None) -> np.ndarray:
        """(n,) the best mean value the side to move finds at each state with the cheap reply
        search (``self.reply``'s candidates and noise, one physics call for all states; states
        of one ``groups`` entry share their noise draws). With ``reply_recheck`` the best reply
        is played again under that many fresh draws and its value is the mean over all its
        draws (the best of noisy means is biased upward; the fresh draws are not)."""
        rp, K, R = self.reply, self.reply.n_noise, self.reply_recheck
        flat, sizes = rp.candidate_batch(states, rng)
        if groups is not None:  # group ids 0..G-1 of the states present
            groups = np.unique(groups, return_inverse=True)[1]
        rep, noisy = noisy_batch(self.arena, states, flat, sizes, rp.noise, K, rng, groups)
        v = self.arena.values(rep, noisy, terms=rp.terms).reshape(-1, K).mean(1)
        best = segment_top(v, sizes, 1)[:, 0]
        if not R:
            return v[best]
        ones = np.ones(len(best), np.int64)
        rep, noisy = noisy_batch(self.arena, states, flat.take(best), ones, rp.noise, R, rng,
                                 groups)
        fresh = self.arena.values(rep, noisy, terms=rp.terms).reshape(-1, R).mean(1)
        return (K * v[best] + R * fresh) / (K + R)


__all__ = ["GuidedPlannerAgent", "ValueFn", "load_policy"]
