"""Hand-written golfbillard event logs (tests, replays, human input): :class:`LogBuilder` writes a
one-table log with the ``SimResult`` fields (docs/physics_api.md) from a few events, and
:func:`stack_logs` batches such logs. The referee reads them with straight-line paths between
the logged positions (``cuegym.rules.golfbillard.score_strokes``, ``paths="straight"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from cuegym.physics.constants import (
    EV_BALL_BALL,
    EV_BALL_CUSHION,
    EV_BALL_POCKET,
    EV_BALL_POST,
    EV_TRANSITION,
    POCKETED,
    ROLLING,
    SLIDING,
    STATIONARY,
)

from .golf_arrays import N_BALLS
from .golf_config import ball_index, golf_geometry


class LogBuilder:
    """Build a one-table event log with the SimResult fields from a few hand-written events.

    Each ball moves in straight lines between the positions given at its events; a ball that is
    never mentioned stays where it was.

    Example:
        >>> from cuegym.rules.golfbillard import LogBuilder, new_game_state
        >>> st = new_game_state()
        >>> log = (LogBuilder(st.xy).strike("w1", v=(1.5, 0.0))
        ...        .rest("w1", (0.2, 0.0), 1.0).build())
        >>> int(log.n_events[0]), float(log.t_end[0])
        (1, 1.0)
    """

    def __init__(self, xy: np.ndarray, geo: Any = None):
        self.geo = geo or golf_geometry()
        self.xy0 = np.array(xy, dtype=np.float64)
        self.v0 = np.zeros((N_BALLS, 2))
        self.final = self.xy0.copy()
        self.pocket = np.full(N_BALLS, -1)
        self.drop_t: dict[int, float] = {}  # ball -> when it dropped
        self.events: list[tuple[float, int, int, int, np.ndarray, np.ndarray]] = []

    def _b(self, ball: Any) -> int:
        return ball_index(ball, self.geo)

    def strike(self, ball: Any, v: Sequence[float]) -> LogBuilder:
        """The struck ball leaves with velocity ``v`` [m/s] at t = 0."""
        self.v0[self._b(ball)] = v
        return self

    def _add(self, t: float, typ: int, i: int, j: int, pi: Any, pj: Any = None,
             vi: Sequence[float] = (0.0, 0.0)) -> LogBuilder:
        t = float(t)
        self._check_not_dropped(t, typ, i, j)
        si = np.zeros(7)
        si[:2] = pi
        si[2:4] = vi
        sj = np.zeros(7)
        if pj is not None:
            sj[:2] = pj
        self.events.append((float(t), typ, i, j, si, sj))
        if typ != EV_BALL_POCKET:
            self.final[i] = pi
            if pj is not None:
                self.final[j] = pj
        return self

    def _check_not_dropped(self, t: float, typ: int, i: int, j: int) -> None:
        """Nothing happens to a ball after it dropped (in time, whatever the order of the
        calls): refuse an event of a dropped ball, and a drop before a ball's later events."""
        ids = self.geo.ball_ids
        for b in (i, j) if typ == EV_BALL_BALL else (i,):
            if b in self.drop_t and t > self.drop_t[b]:
                raise ValueError(f"{ids[b]!r} has an event at t = {t} after it dropped "
                                 f"(at t = {self.drop_t[b]})")
        if typ == EV_BALL_POCKET:
            if i in self.drop_t:
                raise ValueError(f"{ids[i]!r} drops twice (at t = {self.drop_t[i]} and {t})")
            later = [e[0] for e in self.events if e[0] > t and i in
                     ((e[2], e[3]) if e[1] == EV_BALL_BALL else (e[2],))]
            if later:
                raise ValueError(f"{ids[i]!r} drops at t = {t} but has an event at t = "
                                 f"{min(later)} after it")
            self.drop_t[i] = t

    def ball_ball(self, t: float, a: Any, b: Any, at_a: Sequence[float],
                  at_b: Sequence[float] | None = None) -> LogBuilder:
        """Balls ``a`` and ``b`` collide at time ``t``, centres ``at_a`` and ``at_b``."""
        ia, ib = self._b(a), self._b(b)
        if at_b is None:
            at_b = self.final[ib]
        if ia > ib:
            ia, ib, at_a, at_b = ib, ia, at_b, at_a
        return self._add(t, EV_BALL_BALL, ia, ib, at_a, at_b)

    def cushion(self, t: float, ball: Any, cushion: int, at: Sequence[float]) -> LogBuilder:
        """``ball`` hits straight cushion ``cushion`` (0 y=-W/2, 1 x=+L/2, 2 y=+W/2, 3 x=-L/2)."""
        return self._add(t, EV_BALL_CUSHION, self._b(ball), int(cushion), at)

    def post(self, t: float, ball: Any, cap: int, at: Sequence[float]) -> LogBuilder:
        """``ball`` hits cap ``cap`` (index into table.circles: 0, 1 the caps of goal 0 at +x,
        2, 3 those of goal 1, 4..11 the cross; docs/rules_golfbillard.md, Indices and names)."""
        return self._add(t, EV_BALL_POST, self._b(ball), int(cap), at)

    def drop(self, t: float, ball: Any, goal: int, at: Sequence[float] | None = None) -> LogBuilder:
        """``ball`` drops into goal ``goal`` at time ``t`` (centre ``at``, default the goal)."""
        b = self._b(ball)
        at = self.geo.goals[goal, :2] if at is None else at
        self._add(t, EV_BALL_POCKET, b, int(goal), at)  # checked first: nothing changes if refused
        self.pocket[b] = goal
        self.final[b] = at
        return self

    def turn(self, t: float, ball: Any, at: Sequence[float], v: Sequence[float],
             motion: int = ROLLING) -> LogBuilder:
        """A motion transition of ``ball`` at ``at`` with velocity ``v`` after it (masse, piqué)."""
        return self._add(t, EV_TRANSITION, self._b(ball), motion, at, None, v)

    def rest(self, ball: Any, at: Sequence[float], t: float) -> LogBuilder:
        """``ball`` comes to rest at ``at`` at time ``t``."""
        return self._add(t, EV_TRANSITION, self._b(ball), STATIONARY, at)

    def build(self) -> SimpleNamespace:
        """A SimResult-like object with one table (T = 1)."""
        ev = sorted(self.events, key=lambda e: e[0])
        K = max(len(ev), 1)
        B = N_BALLS
        rvw0 = np.zeros((1, B, 3, 3))
        rvw0[0, :, 0, :2] = np.nan_to_num(self.xy0)
        rvw0[0, :, 1, :2] = self.v0
        rvw = np.zeros((1, B, 3, 3))
        rvw[0, :, 0, :2] = np.nan_to_num(self.final)
        absent = np.isnan(self.xy0[:, 0])
        motion = np.where((self.pocket >= 0) | absent, POCKETED, STATIONARY)[None]
        motion0 = np.where(absent, POCKETED, np.where(np.any(self.v0 != 0, 1), SLIDING,
                                                       STATIONARY))[None]
        out = SimpleNamespace(
            rvw=rvw, rvw0=rvw0, motion=motion.astype(np.int32), motion0=motion0.astype(np.int32),
            pocket=np.where(absent, -1, self.pocket)[None].astype(np.int32),
            ev_type=np.zeros((1, K), np.int8), ev_time=np.zeros((1, K)),
            ev_i=np.zeros((1, K), np.int32), ev_j=np.zeros((1, K), np.int32),
            ev_state=np.zeros((1, K, 2, 7)), ev_motion=np.zeros((1, K, 2), np.int8),
            n_events=np.array([len(ev)], np.int32),
            t_end=np.array([max([e[0] for e in ev], default=0.0)]),
            overflow=np.zeros(1, np.int8))
        for k, (t, typ, i, j, si, sj) in enumerate(ev):
            out.ev_type[0, k], out.ev_time[0, k] = typ, t
            out.ev_i[0, k], out.ev_j[0, k] = i, j
            out.ev_state[0, k, 0], out.ev_state[0, k, 1] = si, sj
        return out


def stack_logs(logs: Sequence[Any]) -> SimpleNamespace:
    """Stack one-table logs (e.g. from :class:`LogBuilder`) into one batch, padding the events."""
    K = max(np.asarray(lg.ev_type).shape[1] for lg in logs)
    out = {}
    for name in ("rvw", "rvw0", "motion", "motion0", "pocket", "n_events", "t_end", "overflow"):
        out[name] = np.concatenate([np.asarray(getattr(lg, name)) for lg in logs])
    for name in ("ev_type", "ev_time", "ev_i", "ev_j", "ev_state", "ev_motion"):
        parts = []
        for lg in logs:
            a = np.asarray(getattr(lg, name))
            pad = [(0, 0)] * a.ndim
            pad[1] = (0, K - a.shape[1])
            parts.append(np.pad(a, pad))
        out[name] = np.concatenate(parts)
    return SimpleNamespace(**out)
