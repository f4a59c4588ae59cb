"""The fast screen of the JSON shot reader: well-formed shot lists grouped a column at a time.

:func:`_fast_groups` is the first parser :func:`cuegym.physics.jsonparse.plan` tries: it checks
whole groups of shots at once (types by set of ``type``, numbers by one numpy conversion,
finiteness and ranges on arrays) and gives up -- returning None, never raising -- on anything
it does not recognise as valid, whereupon the exact shot-by-shot parser of
:mod:`cuegym.physics.jsonparse` runs and names the error. It fills the same ``_Columns`` per
group of shots as that parser does.
"""

from __future__ import annotations

from itertools import chain
from operator import contains, itemgetter

import numpy as np

from ..configs import TABLE_NAMES
from .api import check_physics
from .checks import START_STATES, PhysicsInputError
from .constants import MAX_EVENTS, MAX_T, MAX_V0
from .jsonparse import (
    _DEFAULT_MODELS,
    _MISSING,
    BALL_KEYS,
    MAX_BALLS,
    SHOT_KEYS,
    STRIKE_KEYS,
    _Cache,
    _Columns,
    _game_params,
    _Group,
    _named_table,
    _pins_up,
)

_NUMBER_TYPES = {float, int}
_XY = itemgetter("x", "y")
_STRIKE_BALL = itemgetter("ball")
_STRIKE_NUMBERS = itemgetter("V0", "phi", "theta", "a", "b")


def _named_head(name: str, heads: dict) -> tuple:
    """(table, game, default parameters, all-pins-up flags) of a shipped table (memoised in
    ``heads``)."""
    h = heads.get(name)
    if h is None:
        table = _named_table(name)
        game = table.game if table.game != "none" else "keglebillard"
        h = heads[name] = (table, game, _game_params(game), (True,) * len(table.pin_spots))
    return h


def _fast_groups(shots: list) -> dict | None:
    """Group well-formed shots without per-value checks (see the module docstring); None when
    any shot is not plainly valid here (the exact parser then decides)."""
    cache = _Cache()
    groups: dict = {}
    heads: dict = {}
    same_models = {_DEFAULT_MODELS: _DEFAULT_MODELS}
    try:
        for i, shot in enumerate(shots):
            if type(shot) is not dict or not shot.keys() <= SHOT_KEYS:
                return None
            spec = shot.get("table")
            if type(spec) is str and spec in TABLE_NAMES:
                table, game, params, all_up = _named_head(spec, heads)
                tkey = spec
            elif type(spec) is dict:
                table, game, tkey = cache.table("", spec)
                params, all_up = _game_params(game), (True,) * len(table.pin_spots)
            else:
                return None
            pkey = game
            p = shot.get("params", _MISSING)
            if p is not _MISSING:
                params, pkey = cache.physics("", game, p)
            m = shot.get("models", _MISSING)
            # equal choices share one object, so its id keys the group (a dataclass hash per
            # shot would cost more than the rest of this loop)
            models = (_DEFAULT_MODELS if m is _MISSING
                      else same_models.setdefault(cache.model("", m), cache.model("", m)))
            me, tm = shot.get("max_events", 1000), shot.get("t_max", 60.0)
            if (type(me) is not int or not 1 <= me <= MAX_EVENTS or type(tm) is not float
                    or not 0.0 < tm <= MAX_T
                    or type(shot.get("event_states", False)) is not bool):
                return None
            key = (tkey, pkey, id(models), me, tm)
            g = groups.get(key)
            if g is None:
                check_physics(table, params)  # ranges (the exact parser names the path)
                g = groups[key] = _Group(table, params, models, me, tm)
            g.idx.append(i)
            g.raw.append(shot.get("balls"))
            g.strikes.append(shot.get("strike", _MISSING))
            pins = shot.get("pins", _MISSING)
            g.pins.append(all_up if pins is _MISSING or (pins is True and all_up)
                          else _pins_up("", pins, table))
        for g in groups.values():
            g.cols = _fast_columns(g)
            if g.cols is None:
                return None
    except (PhysicsInputError, KeyError, TypeError, ValueError, OverflowError):
        return None
    return groups


def _fast_columns(g: _Group) -> _Columns | None:
    """:class:`_Columns` of a group of well-formed shots, or None (see :func:`_fast_groups`)."""
    balls = g.raw
    if set(map(type, balls)) != {dict} or not all(balls):
        return None
    c = _Columns()
    c.counts = list(map(len, balls))
    if max(c.counts) > MAX_BALLS:
        return None
    c.ids = list(chain.from_iterable(balls))
    if set(map(type, c.ids)) != {str}:
        return None
    known = g.table.ball_ids
    if known and not set(c.ids) <= set(known):
        return None
    objs = list(chain.from_iterable(map(dict.values, balls)))
    if set(map(type, objs)) != {dict}:
        return None
    nums = list(chain.from_iterable(map(_XY, objs)))  # KeyError: a ball without x or y
    n_xy = len(nums)
    c.vw_at, c.mo_at, c.mo = [], [], []
    if max(map(len, objs)) > 2:  # some ball has v, w or a state (or a bad key)
        for k, b in enumerate(objs):
            if len(b) > 2:
                if not b.keys() <= BALL_KEYS:
                    return None
                state = b.get("state", _MISSING)
                if state is not _MISSING:
                    code = START_STATES.get(state) if type(state) is str else None
                    if code is None:
                        return None
                    c.mo_at.append(k)
                    c.mo.append(code)
                    if len(b) == 3:  # x, y and the state: no v, w
                        continue
                v, w = b.get("v", _MISSING), b.get("w", _MISSING)
                v = [0.0, 0.0] if v is _MISSING else v
                w = [0.0, 0.0, 0.0] if w is _MISSING else w
                if type(v) is not list or len(v) != 2 or type(w) is not list or len(w) != 3:
                    return None
                c.vw_at.append(k)
                nums += v
                nums += w
    if not set(map(type, nums)) <= _NUMBER_TYPES:
        return None
    arr = np.fromiter(nums, np.float64, len(nums))  # OverflowError: an integer beyond floats
    if not np.isfinite(arr).all():
        return None
    c.xy, c.vw = arr[:n_xy].reshape(-1, 2), arr[n_xy:].reshape(-1, 5)
    if not _fast_strikes(g, balls, c):
        return None
    c.pins = g.pins
    return c


def _fast_strikes(g: _Group, balls: list, c: _Columns) -> bool:
    """Fill the strike columns of ``c`` from the group's raw strikes; False: not plainly valid."""
    raw = g.strikes
    if set(map(type, raw)) == {dict}:  # one strike object per shot: the common case
        flat, c.n_strikes = raw, [1] * len(raw)
        c.st_t, c.st_k = list(range(len(raw))), [0] * len(raw)
    else:
        flat, c.n_strikes, c.st_t, c.st_k = [], [], [], []
        for t, s in enumerate(raw):
            s = [] if s is _MISSING else [s] if type(s) is dict else s
            if type(s) is not list:
                return False
            if len(s) > 1 and len({x["ball"] for x in s}) != len(s):
                return False  # a ball struck twice: the exact parser names it
            flat += s
            c.n_strikes.append(len(s))
            c.st_t += [t] * len(s)
            c.st_k += range(len(s))
    if not flat:
        c.st_ball, c.st_val = [], np.zeros((0, 5))
        return True
    if set(map(type, flat)) != {dict}:
        return False
    if set(map(len, flat)) == {len(STRIKE_KEYS)}:  # KeyError: another key instead of one
        c.st_ball = list(map(_STRIKE_BALL, flat))
        nums = list(chain.from_iterable(map(_STRIKE_NUMBERS, flat)))
    else:
        if not all(s.keys() <= STRIKE_KEYS and "ball" in s for s in flat):
            return False
        c.st_ball = list(map(_STRIKE_BALL, flat))
        nums = [v for s in flat for v in (s["V0"], s["phi"], s.get("theta", 0.0),
                                          s.get("a", 0.0), s.get("b", 0.0))]
    if (set(map(type, c.st_ball)) != {str}
            or not all(map(contains, map(balls.__getitem__, c.st_t), c.st_ball))
            or not set(map(type, nums)) <= _NUMBER_TYPES):
        return False
    v = c.st_val = np.fromiter(nums, np.float64, len(nums)).reshape(-1, 5)
    with np.errstate(over="ignore"):  # huge offsets square to inf, refused below
        ab = v[:, 3] ** 2 + v[:, 4] ** 2
    return bool(np.isfinite(v).all() and (v[:, 0] >= 0.0).all() and (v[:, 0] <= MAX_V0).all()
                and (v[:, 2] >= 0.0).all() and (v[:, 2] <= 90.0).all()
                and (ab <= 1.0 + 1e-12).all())
