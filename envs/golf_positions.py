"""Golfbillard start-position bank (see :mod:`cuegym.envs.positions`): play-phase positions
recorded before strokes in simulated single games with the rules' purposeful random policy
(``cuegym.rules.golfbillard_game.random_policy``: a random own ball aimed roughly at the attack
goal), including the turn bookkeeping the referee needs (G-14 duty, kader play, penalty spots).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cuegym.envs.checks import bank_arrays


@dataclass(frozen=True)
class GolfbillardPositions:
    """N golfbillard play-phase positions (leading axis = position).

    Attributes:
        xy: (N, 10, 2) ball centres [m] (w1..w5 side 0, r1..r5 side 1); NaN = scored.
        to_move: (N,) side at the table. kader: (N,) kader play on (G-20).
        duty: (N, 10) balls under the G-14 duty of the turn; duty_met: (N,).
        turn_strokes: (N,) strokes already played in the turn; turn_scored: (N,).
        on_spot: (N, 10) penalty spot a ball lies on (0 none); fouled_spots: (N, 2, 5) (G-26).
        turns, idle_turns: (N,) G-5 bookkeeping.
    """

    xy: np.ndarray
    to_move: np.ndarray
    kader: np.ndarray
    duty: np.ndarray
    duty_met: np.ndarray
    turn_strokes: np.ndarray
    turn_scored: np.ndarray
    on_spot: np.ndarray
    fouled_spots: np.ndarray
    turns: np.ndarray
    idle_turns: np.ndarray

    def __len__(self) -> int:
        return int(self.to_move.shape[0])

    def state(self, k: int):
        """Position ``k`` as a play-phase :class:`~cuegym.rules.golfbillard.GolfState`."""
        from cuegym.rules.golfbillard import GolfState

        return GolfState(xy=np.array(self.xy[k], np.float64), to_move=int(self.to_move[k]),
                         phase="play", kader=bool(self.kader[k]), duty=self.duty[k].copy(),
                         duty_met=bool(self.duty_met[k]),
                         turn_strokes=int(self.turn_strokes[k]),
                         turn_scored=bool(self.turn_scored[k]),
                         on_spot=self.on_spot[k].astype(np.int64),
                         fouled_spots=self.fouled_spots[k].copy(), turns=int(self.turns[k]),
                         idle_turns=int(self.idle_turns[k]))

    def batch(self, idx: np.ndarray):
        """Positions ``idx`` as a :class:`~cuegym.rules.golf_arrays.GolfStates` batch (play
        phase, fresh match bookkeeping)."""
        from cuegym.rules.golf_arrays import empty_states
        from cuegym.rules.golf_codes import P_PLAY

        idx = np.asarray(idx, np.int64)
        b = empty_states(len(idx))
        b.xy[:] = self.xy[idx]
        b.to_move[:] = self.to_move[idx]
        b.phase[:] = P_PLAY
        b.kader[:] = self.kader[idx]
        b.duty[:] = self.duty[idx]
        b.duty_met[:] = self.duty_met[idx]
        b.turn_strokes[:] = self.turn_strokes[idx]
        b.turn_scored[:] = self.turn_scored[idx]
        b.on_spot[:] = self.on_spot[idx]
        b.fouled_spots[:] = self.fouled_spots[idx]
        b.turns[:] = self.turns[idx]
        b.idle_turns[:] = self.idle_turns[idx]
        b.winner[:] = -1
        b.match_winner[:] = -1
        return b

    def summary(self) -> dict[str, float]:
        left = (~np.isnan(self.xy[:, :, 0])).reshape(-1, 2, 5).sum(-1)
        return {"positions": len(self), "kader": float(self.kader.mean()),
                "side1_to_move": float(self.to_move.mean()),
                "mean_balls_left": float(left.mean()),
                "continuing_turn": float((self.turn_strokes > 0).mean()),
                "on_penalty_spot": float((self.on_spot > 0).any(1).mean())}


#: The bank's fields: (name, shape after N, kind) with kind ``"f"`` (float), ``"i"`` (integer)
#: or ``"b"`` (0/1 flags, bool or integer).
_FIELDS = (("xy", (10, 2), "f"), ("to_move", (), "i"), ("kader", (), "b"), ("duty", (10,), "b"),
           ("duty_met", (), "b"), ("turn_strokes", (), "i"), ("turn_scored", (), "b"),
           ("on_spot", (10,), "i"), ("fouled_spots", (2, 5), "b"), ("turns", (), "i"),
           ("idle_turns", (), "i"))
_DTYPES = {"f": np.float64, "i": np.int64, "b": bool}


def check_golf_positions(positions: GolfbillardPositions, rules=None) -> GolfbillardPositions:
    """A user-given bank, checked before an env plays from it; returns a copy with the arrays
    in canonical dtypes.

    Every field must be an array with the leading axis N (the same for all) and the documented
    shape after it, of real numbers (flags: bool or 0/1, counts: integers); ``to_move`` 0/1,
    ``on_spot`` 0..5, counts >= 0; and every position must be one the rules can play
    (:func:`cuegym.rules.golf_state.check_state` under ``rules``: balls finite, on the cloth,
    clear of each other and the caps; both sides with a ball; kader play once a side is down
    to one; the duty names the side to move's balls; ...). Raises ValueError naming the field
    or the position (``positions[k]``) and the value. About 75 us a position.
    """
    from cuegym.rules.golf_state import check_state

    out = bank_arrays(positions, GolfbillardPositions, ((name, shape, kind, _DTYPES[kind])
                                  for name, shape, kind in _FIELDS),
                      "to_move", "one side per position")
    n = len(out["to_move"])
    for name, lo, hi in (("to_move", 0, 1), ("on_spot", 0, 5), ("turn_strokes", 0, None),
                         ("turns", 0, None), ("idle_turns", 0, None)):
        a = out[name]
        bad = (a < lo) | (a > hi) if hi is not None else a < lo
        if bad.any():
            k = int(np.argwhere(bad)[0][0])
            want = f"in {lo}..{hi}" if hi is not None else f">= {lo}"
            raise ValueError(f"positions[{k}].{name} must be {want}, got "
                             f"{a[k].tolist()!r}")
    bank = GolfbillardPositions(**out)
    for k in range(n):
        check_state(bank.state(k), rules, path=f"positions[{k}]")
    return bank


def playable(bank: GolfbillardPositions, rules) -> np.ndarray:
    """(M,) int64 indices of the bank's positions that ``rules`` (a GolfRules) can reach: a
    shorter G-5 window than the bank was made under (``no_progress_window``) ends the game of a
    position with as many scoreless turns, so those positions are left out (a user's bank is
    refused instead, :func:`check_golf_positions`). Raises ValueError when none is left."""
    limit = rules.idle_limit
    ok = np.ones(len(bank), bool) if not limit else np.asarray(bank.idle_turns) < limit
    if not ok.any():
        raise ValueError(f"no position of the bank has fewer scoreless turns than the G-5 "
                         f"limit {limit} (no_progress_window {rules.no_progress_window})")
    return np.flatnonzero(ok)


def _layout_ok(xy: np.ndarray, R: float, caps: np.ndarray, r_cap: float) -> bool:
    on = xy[~np.isnan(xy[:, 0])]
    d = np.linalg.norm(on[:, None] - on[None], axis=-1)
    if (d[np.triu_indices(len(on), 1)] < 2 * R).any():
        return False
    return not (np.linalg.norm(on[:, None] - caps[None], axis=-1) < R + r_cap).any()


def generate_golfbillard_positions(n: int = 8192, *, seed: int = 0, tables: int = 128,
                                   keep: float = 0.25, max_events: int = 400,
                                   progress: bool = False) -> GolfbillardPositions:
    """Simulate single golfbillard games and record ``n`` play-phase positions (``tables``
    games in lock-step, started at staggered ages as in
    :func:`~cuegym.envs.positions.generate_keglebillard_positions`; each position before a
    stroke kept with probability ``keep``; float32-rounded and checked); ``progress``: a
    progress bar on stderr."""
    from cuegym.games.golf import Golf
    from cuegym.games.strikes import Strikes
    from cuegym.rules.golfbillard_game import random_policy

    from .positions import GOLF_GAME_STROKES, stagger

    rng = np.random.default_rng(seed)
    game = Golf({"match": "single"})
    geo = game.geo
    nan2 = np.full((tables, 2), np.nan)

    def play_round(states):
        cb = np.zeros((tables, 2), np.int64)
        cue = np.zeros((tables, 2, 5))
        for t, st in enumerate(states):
            cb[t], cue[t] = random_policy(st, rng, geo)
        # random play: a stroke cut off by max_events is scored where it ended
        return game.play(states, Strikes(cue[:, 0], cb[:, 0], nan2),
                         strikes1=Strikes(cue[:, 1], np.maximum(cb[:, 1], 0), nan2),
                         max_events=max_events, allow_overflow=True)[1]

    def restart(states, tables=None):
        over = states.over.copy()
        if tables is not None:
            over[tables] = True
        over = np.flatnonzero(over)
        if len(over):
            states.put(over, game.new(len(over), seed=rng.integers(2**31, size=len(over))))

    states = stagger(game.new(tables, seed=rng.integers(2**31, size=tables)), play_round,
                     restart, GOLF_GAME_STROKES, rng)
    keys = ("xy", "to_move", "kader", "duty", "duty_met", "turn_strokes", "turn_scored",
            "on_spot", "fouled_spots", "turns", "idle_turns")
    rec: dict[str, list] = {k: [] for k in keys}
    from tqdm.auto import tqdm

    bar = tqdm(total=n, desc="golfbillard positions", unit="pos", disable=not progress)
    while len(rec["xy"]) < n:
        bar.update(len(rec["xy"]) - bar.n)
        for st in states:
            if st.phase != "play" or rng.random() >= keep or len(rec["xy"]) >= n:
                continue
            xy32 = st.xy.astype(np.float32).astype(np.float64)
            if not _layout_ok(xy32, geo.R, geo.caps, geo.r_cap):
                continue
            rec["xy"].append(xy32)
            for k in keys[1:]:
                rec[k].append(np.array(getattr(st, k)))
        states = play_round(states)
        restart(states)
    bar.close()
    arr = {k: np.array(v) for k, v in rec.items()}
    return GolfbillardPositions(
        xy=arr["xy"], to_move=arr["to_move"].astype(np.int8), kader=arr["kader"].astype(bool),
        duty=arr["duty"].astype(bool), duty_met=arr["duty_met"].astype(bool),
        turn_strokes=arr["turn_strokes"].astype(np.int16),
        turn_scored=arr["turn_scored"].astype(bool), on_spot=arr["on_spot"].astype(np.int8),
        fouled_spots=arr["fouled_spots"].astype(bool), turns=arr["turns"].astype(np.int16),
        idle_turns=arr["idle_turns"].astype(np.int16))
