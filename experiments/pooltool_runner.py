"""Simulate cuegym JSON shots with pooltool 0.6.0 and print pooltool's results as JSON.

This script runs INSIDE the pooltool virtual environment (``.venv-pooltool/``), never in
cuegym's own: pooltool pins an older numba. ``experiments/validate_pooltool.py`` creates that
environment and calls this script as a subprocess. pooltool writes ``~/.config/pooltool`` on
import, so run it with ``HOME`` pointed at a temporary folder.

Input (stdin): a JSON list of cuegym shot objects (format: README / issue 2, section 7). Only
what pooltool can express is accepted: a custom rectangular table without pockets
(``{"length", "width", "cushion_height", "pockets": [], "posts": [{"x","y","radius"}]}``),
balls with ``x, y`` and optional ``v``, ``w``, at most one ``strike``, no pins, models
``frictional_inelastic`` / ``han_2005`` / ``squirt: false``.

A shot may instead carry the table's segments explicitly, in a runner-only key ``geometry``
(cuegym frame; what ``TableSpec.arrays`` gives cuegym's kernels, so both sides use exactly the
same geometry; its ``table`` is then only a label, e.g. ``"keglebillard"``)::

    {"length", "width", "cushion_height",
     "lines": [[x1, y1, x2, y2, nx, ny], ..],   # straight cushion noses, (nx, ny) into the table
     "circles": [{"x", "y", "radius", "e", "f", "h", "kind": "jaw" | "post"}, ..],
     "pockets": [{"x", "y", "radius", "name"}, ..]}

Every line becomes a ``LinearCushionSegment`` whose ``direction`` flag is the side (nx, ny)
points to, every circle a ``CircularCushionSegment`` at height ``h`` (pooltool resolves it with
the ball's e_c and f_c, so ``e``/``f`` must equal them), every pocket a ``Pocket`` (capture
circle of the centre; depth irrelevant). Events are then named as cuegym names them: straight
cushion ``k`` -> ``ball_cushion`` ``[ball, "cushion<k>"]``, jaw (circle ``k``) ->
``ball_cushion`` ``[ball, "jaw<k>"]``, post (circle ``k``) -> ``ball_post``
``[ball, "post<k>"]``, pocket ``k`` -> ``ball_pocket`` ``[ball, name]``, and each final ball
carries ``"pocket"``: the pocket index or null.

Output (stdout): a JSON list, one object per shot, everything in cuegym's frame::

    {"final": {"<id>": {"x", "y"}},
     "init": {"<id>": {"v": [vx, vy], "w": [wx, wy, wz]}},   # struck ball right after the strike
     "events": [{"time", "type", "agents": [..]}],            # ball_ball, ball_cushion, ball_post
     "n_events": <all pooltool events, transitions and the strike included>,
     "t_end", "overflow"}

A ``ball_ball`` event also carries ``"gap"``: the centres' distance less the radii just before
it [m] (about 0; more marks pooltool's spurious collision between balls rolling along one
line). ``max_events`` means what cuegym's does, the events resolved (``pooltool_cap``), and
``overflow`` that a ball was still moving when the cap stopped the shot.

Event agents: ``ball_ball`` -> the two ball ids, sorted; ``ball_cushion`` -> [ball id, cushion]
with cushion one of ``"-x", "+x", "-y", "+y"`` (the rail at that side of the table centre);
``ball_post`` -> [ball id, "post<k>"] (k: index in the shot's ``posts``), as cuegym names them.

With ``--time ROUNDS`` the output is instead one object ``{"shots", "cpu_s": [..], "wall_s": [..],
"events_per_shot", "final": [[[x, y], ..], ..]}``: the process CPU time and wall time [s] of each
of ROUNDS timed passes over the shots, each shot built into its ``System`` (``make_system``) and
run by ``pt.simulate``, after one untimed pass (numba's first calls: compile or cache load,
imports); ``final`` the balls' end positions per shot, in the order of its ``balls``.

With ``--strike-only`` the input is instead a JSON list of ``{"V0","phi","theta","a","b"}``
(cuegym frame, degrees) and the output a list of ``{"v": [vx, vy], "w": [wx, wy, wz]}``:
pooltool's ``InstantaneousPoint`` strike (squirt off) on a ball of the given ``--R``/``--m``,
cue mass ``--M``.

Frames (docs/physics.md section 0): pooltool has x across the table in [0, w] and y along it in
[0, l]; cuegym has the origin at the centre and x along the length. They are related by a
rotation (never a mirror): x_ours = y_pt - l/2, y_ours = w/2 - x_pt, phi_ours = phi_pt - 90;
vectors map as (X, Y, Z)_ours = (Y, -X, Z)_pt, angular velocities included.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

try:
    import pooltool as pt
    from pooltool.events import EventType
    from pooltool.objects.table.components import (
        CircularCushionSegment,
        CushionDirection,
        CushionSegments,
        LinearCushionSegment,
        Pocket,
    )
    from pooltool.physics.engine import PhysicsEngine
    from pooltool.physics.resolve.ball_ball.friction import AlciatoreBallBallFriction
    from pooltool.physics.resolve.ball_ball.frictional_inelastic import FrictionalInelastic
    from pooltool.physics.resolve.ball_cushion.han_2005 import Han2005Circular, Han2005Linear
    from pooltool.physics.resolve.ball_pocket import CanonicalBallPocket
    from pooltool.physics.resolve.resolver import VERSION, Resolver
    from pooltool.physics.resolve.stick_ball.instantaneous_point import InstantaneousPoint
    from pooltool.physics.resolve.transition import CanonicalTransition
except ModuleNotFoundError as e:  # cuegym's own environment: say where this script runs
    if not (e.name or "").startswith("pooltool"):
        raise
    _WHERE = ("pooltool_runner runs inside pooltool's own environment (.venv-pooltool/), which "
              "experiments/validate_pooltool.py creates and calls it in; pooltool is not "
              "installed here")
    if __name__ == "__main__":
        sys.exit(f"error: {_WHERE}")
    raise ImportError(_WHERE) from None

#: cuegym defaults for keys a shot may leave out (keglebillard balls, docs/physics.md section 0).
DEFAULT_PARAMS = {
    "R": 0.03075,
    "m": 0.207,
    "u_s": 0.2,
    "u_r": 0.01,
    "u_sp": 10 * 2 / 5 / 9 * 0.03075,
    "e_b": 0.95,
    "e_c": 0.85,
    "f_c": 0.2,
    "g": 9.81,
}
#: cue mass [kg] (pooltool's CueSpecs default, cuegym's configs)
DEFAULT_M = 0.567


def make_engine(english_throttle: float = 1.0) -> PhysicsEngine:
    """The resolver both simulators share: Alciatore frictional inelastic, Han 2005, no squirt.

    pooltool's own default cushion model is Stronge's compliant impact, so every model is
    named here explicitly (docs/physics.md sections 3-5).
    """
    resolver = Resolver(
        ball_ball=FrictionalInelastic(
            friction=AlciatoreBallBallFriction(a=0.009951, b=0.108, c=1.088)
        ),
        ball_linear_cushion=Han2005Linear(),
        ball_circular_cushion=Han2005Circular(),
        ball_pocket=CanonicalBallPocket(),
        stick_ball=InstantaneousPoint(english_throttle=english_throttle, squirt_throttle=0.0),
        transition=CanonicalTransition(),
        version=VERSION,
    )
    return PhysicsEngine(resolver=resolver)


# --- frame mapping --------------------------------------------------------------------------


def pos_to_pt(x: float, y: float, length: float, width: float) -> tuple[float, float]:
    """cuegym position -> pooltool position."""
    return width / 2 - y, x + length / 2


def pos_from_pt(xp: float, yp: float, length: float, width: float) -> tuple[float, float]:
    """pooltool position -> cuegym position."""
    return yp - length / 2, width / 2 - xp


def vec_to_pt(v) -> list[float]:
    """cuegym vector (2-D or 3-D) -> pooltool vector (3-D)."""
    z = v[2] if len(v) > 2 else 0.0
    return [-float(v[1]), float(v[0]), float(z)]


def vec_from_pt(v) -> list[float]:
    """pooltool 3-D vector -> cuegym 3-D vector."""
    return [float(v[1]), -float(v[0]), float(v[2])]


# --- system construction --------------------------------------------------------------------

#: pooltool's rails of a pocketless table (layout.create_billiard_table_cushion_segments) and
#: the cuegym side each one lies on.
RAIL_NAMES = {"3": "+y", "12": "-y", "9": "+x", "18": "-x"}


def make_table(spec: dict, R: float, post_height: float | None) -> pt.Table:
    """A pocketless rectangle with round posts as circular cushion segments."""
    length, width = float(spec["length"]), float(spec["width"])
    h = float(spec.get("cushion_height", 0.0394))
    if spec.get("pockets"):
        raise ValueError("pooltool_runner: pockets are not supported (pocketless table only)")

    def arr(x, y, z):
        return np.array([x, y, z], dtype=np.float64)

    linear = {
        "3": LinearCushionSegment(
            "3", p1=arr(0, 0, h), p2=arr(0, length, h), direction=CushionDirection.SIDE2
        ),
        "12": LinearCushionSegment(
            "12", p1=arr(width, length, h), p2=arr(width, 0, h), direction=CushionDirection.SIDE1
        ),
        "9": LinearCushionSegment(
            "9", p1=arr(0, length, h), p2=arr(width, length, h), direction=CushionDirection.SIDE1
        ),
        "18": LinearCushionSegment(
            "18", p1=arr(0, 0, h), p2=arr(width, 0, h), direction=CushionDirection.SIDE2
        ),
    }
    circular = {}
    # A post is taller than the ball's centre, so its contact normal is horizontal: Han 2005
    # with contact height h = R (theta_c = 0), docs/physics.md section 8.
    hp = R if post_height is None else post_height
    for k, post in enumerate(spec.get("posts", [])):
        xp, yp = pos_to_pt(post["x"], post["y"], length, width)
        circular[f"post{k}"] = CircularCushionSegment(
            f"post{k}", center=arr(xp, yp, hp), radius=float(post["radius"])
        )
    return pt.Table(
        cushion_segments=CushionSegments(linear=linear, circular=circular),
        pockets={},
        table_type=pt.TableType.BILLIARD,
    )


def _side(p1: np.ndarray, p2: np.ndarray, n: tuple[float, float]) -> int:
    """pooltool's ``direction`` flag of the segment p1 -> p2 (pooltool frame) for a ball on the
    side the normal ``n`` (pooltool frame) points to.

    pooltool writes the line as f(x, y) = lx x + ly y + l0 = 0 (``LinearCushionSegment.lx``,
    ``ly``, ``l0``). SIDE1 looks for contact at f = -R |l| (ball where f < 0), SIDE2 at
    f = +R |l| (``solve.ball_linear_cushion_collision_time``). f(p1 + n) = lx n_x + ly n_y.
    """
    dx, dy = float(p2[0] - p1[0]), float(p2[1] - p1[1])
    lx = 1.0 if dx == 0 else -dy / dx
    ly = 0.0 if dx == 0 else 1.0
    f = lx * n[0] + ly * n[1]
    if f == 0.0:
        raise ValueError("pooltool_runner: a cushion normal parallel to its segment")
    return CushionDirection.SIDE2 if f > 0 else CushionDirection.SIDE1


def make_table_from_geometry(geom: dict, params: dict) -> pt.Table:
    """A pooltool Table of a cuegym table's own segments (see the module docstring)."""
    length, width = float(geom["length"]), float(geom["width"])
    h = float(geom["cushion_height"])

    def arr(x, y, z):
        return np.array([x, y, z], dtype=np.float64)

    linear = {}
    for k, (x1, y1, x2, y2, nx, ny) in enumerate(geom.get("lines", [])):
        a = arr(*pos_to_pt(x1, y1, length, width), h)
        b = arr(*pos_to_pt(x2, y2, length, width), h)
        n = vec_to_pt([nx, ny])
        linear[f"cushion{k}"] = LinearCushionSegment(
            f"cushion{k}", p1=a, p2=b, direction=_side(a, b, (n[0], n[1])))
    circular = {}
    for k, c in enumerate(geom.get("circles", [])):
        for key, ball in (("e", "e_c"), ("f", "f_c")):
            if key in c and float(c[key]) != float(params[ball]):
                raise ValueError(f"pooltool_runner: circle {k} has {key}={c[key]}, but pooltool "
                                 f"resolves it with the ball's {ball}={params[ball]}")
        kind = c.get("kind", "post")
        if kind not in ("jaw", "post"):
            raise ValueError(f"pooltool_runner: circle {k} of unknown kind {kind!r}")
        xp, yp = pos_to_pt(c["x"], c["y"], length, width)
        name = f"{kind}{k}"
        circular[name] = CircularCushionSegment(
            name, center=arr(xp, yp, float(c["h"])), radius=float(c["radius"]))
    pockets = {}
    for k, p in enumerate(geom.get("pockets", [])):
        xp, yp = pos_to_pt(p["x"], p["y"], length, width)
        pockets[f"pocket{k}"] = Pocket(f"pocket{k}", center=arr(xp, yp, 0.0),
                                       radius=float(p["radius"]))
    return pt.Table(
        cushion_segments=CushionSegments(linear=linear, circular=circular),
        pockets=pockets,
        table_type=pt.TableType.POCKET if pockets else pt.TableType.BILLIARD,
    )


def make_system(shot: dict, post_height: float | None) -> tuple[pt.System, dict]:
    """Build the pooltool System of one cuegym shot; returns it and the shot's parameters."""
    geom = shot.get("geometry")
    if geom is None and not isinstance(shot.get("table"), dict):
        raise ValueError("pooltool_runner: only custom table dicts are supported (or give "
                         "the table's segments as 'geometry')")
    if shot.get("pins"):
        raise ValueError("pooltool_runner: pins are not supported")
    models = shot.get("models", {})
    want = {"ball_ball": "frictional_inelastic", "cushion": "han_2005", "squirt": False}
    for key, value in models.items():
        if want.get(key, value) != value:
            raise ValueError(f"pooltool_runner: models.{key}={value!r} is not supported")
    params = dict(DEFAULT_PARAMS)
    params.update(shot.get("params", {}))
    # pooltool resolves a post (circular cushion) with the ball's e_c and f_c; cuegym with the
    # post's own e_cap and f_cap. Both must then be equal for the comparison to mean anything.
    if geom is None and shot["table"].get("posts"):
        for cap, ball in (("e_cap", "e_c"), ("f_cap", "f_c")):
            if cap in params and params[cap] != params[ball]:
                raise ValueError(f"pooltool_runner: params.{cap} must equal params.{ball}")
    R = float(params["R"])
    spec = shot["table"] if geom is None else geom
    length, width = float(spec["length"]), float(spec["width"])

    balls = {}
    for bid, b in shot["balls"].items():
        xp, yp = pos_to_pt(b["x"], b["y"], length, width)
        ball = pt.Ball.create(
            bid,
            xy=(xp, yp),
            m=float(params["m"]),
            R=R,
            u_s=float(params["u_s"]),
            u_r=float(params["u_r"]),
            u_sp_proportionality=float(params["u_sp"]) / R,
            e_b=float(params["e_b"]),
            e_c=float(params["e_c"]),
            f_c=float(params["f_c"]),
            g=float(params["g"]),
        )
        if "v" in b or "w" in b:
            v = vec_to_pt(b.get("v", [0.0, 0.0]))
            w = vec_to_pt(b.get("w", [0.0, 0.0, 0.0]))
            v[2] = 0.0
            ball.state.rvw[1] = v
            ball.state.rvw[2] = w
            ball.state.s = _motion_state(ball.state.rvw, R)
        balls[bid] = ball

    strike = shot.get("strike")
    if isinstance(strike, list):
        if len(strike) > 1:
            raise ValueError("pooltool_runner: one strike at most")
        strike = strike[0] if strike else None
    if strike is not None:
        cue = pt.Cue(
            cue_ball_id=strike["ball"],
            V0=float(strike["V0"]),
            phi=float(strike["phi"]) + 90.0,
            theta=float(strike.get("theta", 0.0)),
            a=float(strike.get("a", 0.0)),
            b=float(strike.get("b", 0.0)),  # pooltool's Cue defaults to b = 0.25
        )
        cue.specs = _cue_specs(params)
    else:
        cue = pt.Cue(cue_ball_id=next(iter(balls)), V0=0.0, b=0.0)
    table = (make_table(spec, R, post_height) if geom is None
             else make_table_from_geometry(geom, params))
    system = pt.System(cue=cue, table=table, balls=balls)
    return system, params


def _cue_specs(params: dict):
    from pooltool.objects.cue.datatypes import CueSpecs

    return CueSpecs(M=float(params.get("M", DEFAULT_M)))


def _motion_state(rvw: np.ndarray, R: float) -> int:
    """pooltool's motion-state label of a ball given its r, v, w (docs/physics.md section 1)."""
    v, w = rvw[1], rvw[2]
    u = np.array([v[0] - R * w[1], v[1] + R * w[0], 0.0])
    if np.linalg.norm(u) > 1e-14:
        return pt.constants.sliding
    if np.linalg.norm(v[:2]) > 1e-14:
        return pt.constants.rolling
    if abs(w[2]) > 1e-14:
        return pt.constants.spinning
    return pt.constants.stationary


# --- running --------------------------------------------------------------------------------

_TYPES = {
    EventType.BALL_BALL: "ball_ball",
    EventType.BALL_LINEAR_CUSHION: "ball_cushion",
    EventType.BALL_CIRCULAR_CUSHION: "ball_post",
}


_GEOM_TYPES = (EventType.BALL_BALL, EventType.BALL_LINEAR_CUSHION,
               EventType.BALL_CIRCULAR_CUSHION, EventType.BALL_POCKET)


def _pocket_name(geom: dict, k: int) -> str:
    return str(geom["pockets"][k].get("name") or f"pocket{k}")


def pooltool_cap(shot: dict, max_events: int) -> int:
    """The ``max_events`` to give ``pt.simulate`` so that it resolves as many events as
    cuegym's ``max_events`` log slots (the shot's own, else ``max_events``): pooltool stops once
    its count, the strike included, passes its cap, so it resolves cap + 1 events after a
    strike and cap + 2 in a shot that starts from given v, w. Its 0 means no cap, so caps of 1
    (a strike) and 1-2 (none) cannot be expressed and are refused."""
    want = int(shot.get("max_events", max_events))
    cap = want - (1 if shot.get("strike") else 2)
    if cap < 1:
        raise ValueError(f"max_events {want} cannot be expressed in pooltool (it resolves at "
                         f"least {want - cap + 1} events)")
    return cap


def _ball_ball_gap(ev) -> float:
    """[m] The two balls' centre distance less their radii just before a ball-ball event:
    about 0 for a real contact; pooltool 0.6 logs spurious ones between balls rolling along
    one line (docs/validation.md)."""
    a, b = (ag.initial for ag in ev.agents)
    d = np.hypot(*(np.asarray(a.state.rvw[0][:2]) - np.asarray(b.state.rvw[0][:2])))
    return float(d - a.params.R - b.params.R)


def _resolved(out, shot: dict) -> int:
    """The events pooltool resolved (its history also holds an entry at the start, one at the
    end and the strike)."""
    return len(out.events) - 2 - (1 if shot.get("strike") else 0)


def run_shot(shot: dict, engine: PhysicsEngine, max_events: int, post_height: float | None):
    """Simulate one shot; returns the output object described in the module docstring."""
    system, params = make_system(shot, post_height)
    geom = shot.get("geometry")
    spec = shot["table"] if geom is None else geom
    length, width = float(spec["length"]), float(spec["width"])
    cap = pooltool_cap(shot, max_events)
    out = pt.simulate(system, engine=engine, inplace=False, max_events=cap)

    init = {}
    events = []
    for ev in out.events:
        et = ev.event_type
        if et == EventType.STICK_BALL:
            ball = ev.agents[1].final
            init[ball.id] = {
                "v": vec_from_pt(ball.state.rvw[1])[:2],
                "w": vec_from_pt(ball.state.rvw[2]),
            }
        elif geom is not None and et in _GEOM_TYPES:
            ids = [a.id for a in ev.agents]
            extra = {}
            if et == EventType.BALL_BALL:
                typ, agents = "ball_ball", sorted(ids)
                extra = {"gap": _ball_ball_gap(ev)}
            elif et == EventType.BALL_POCKET:
                k = int(ids[1][len("pocket"):])
                typ, agents = "ball_pocket", [ids[0], _pocket_name(geom, k)]
            elif ids[1].startswith("post"):
                typ, agents = "ball_post", ids[:2]
            else:  # "cushion<k>" or "jaw<k>": cuegym logs both as ball_cushion
                typ, agents = "ball_cushion", ids[:2]
            events.append({"time": float(ev.time), "type": typ, "agents": agents, **extra})
        elif geom is None and et in _TYPES:
            ids = [a.id for a in ev.agents]
            extra = {}
            if et == EventType.BALL_BALL:
                agents = sorted(ids)
                extra = {"gap": _ball_ball_gap(ev)}
            elif et == EventType.BALL_LINEAR_CUSHION:
                agents = [ids[0], RAIL_NAMES[ids[1]]]
            else:
                agents = [ids[0], ids[1]]  # "post<k>", k = index in the shot's posts
            events.append({"time": float(ev.time), "type": _TYPES[et], "agents": agents,
                           **extra})
    final = {}
    for bid, ball in out.balls.items():
        x, y = pos_from_pt(ball.state.rvw[0][0], ball.state.rvw[0][1], length, width)
        final[bid] = {"x": x, "y": y, "state": int(ball.state.s)}
        if geom is not None:
            final[bid]["pocket"] = None
    if geom is not None:  # the pocket of each pocketed ball, from its ball-pocket event
        for ev in out.events:
            if ev.event_type == EventType.BALL_POCKET:
                final[ev.agents[0].id]["pocket"] = int(ev.agents[1].id[len("pocket"):])
    # pooltool stops a shot at its cap by setting every ball at rest, whether or not one was
    # still moving (its history holds the states by reference, so it cannot tell): a shot that
    # reached the cap is run once more with one event to spare, and overflowed if it used it
    slots = int(shot.get("max_events", max_events))
    overflow = _resolved(out, shot) >= slots and _resolved(
        pt.simulate(system, engine=engine, inplace=False, max_events=cap + 1), shot) > slots
    return {
        "final": final,
        "init": init,
        "events": events,
        "n_events": len(out.events),
        "t_end": float(out.t),
        "overflow": bool(overflow),
    }


def time_shots(shots: list, engine: PhysicsEngine, max_events: int, post_height: float | None,
                rounds: int) -> dict:
    """``--time``: seconds per pass over ``shots`` (System built, ``pt.simulate``), see the
    module docstring; numba's first calls fall in an untimed pass before."""
    def one_pass() -> list:
        outs = []
        for shot in shots:
            system, _ = make_system(shot, post_height)
            outs.append(pt.simulate(system, engine=engine, inplace=False,
                                    max_events=pooltool_cap(shot, max_events)))
        return outs

    outs = one_pass()
    cpu, wall = [], []
    for _ in range(rounds):
        c0, w0 = time.process_time(), time.perf_counter()
        one_pass()
        cpu.append(time.process_time() - c0)
        wall.append(time.perf_counter() - w0)
    final = []  # (after the clock) where each ball ended, in the shot's ball order
    for shot, out in zip(shots, outs, strict=True):
        spec = shot.get("geometry") or shot["table"]
        length, width = float(spec["length"]), float(spec["width"])
        final.append([pos_from_pt(*out.balls[bid].state.rvw[0][:2], length, width)
                      for bid in shot["balls"]])
    return {"shots": len(shots), "cpu_s": cpu, "wall_s": wall, "final": final,
            "events_per_shot": sum(len(o.events) for o in outs) / max(1, len(shots))}


def strike_only(strikes: list, R: float, m: float, M: float, english_throttle: float) -> list:
    """pooltool's InstantaneousPoint strike (squirt off) for cuegym-frame strike dicts."""
    engine = make_engine(english_throttle)
    out = []
    for s in strikes:
        ball = pt.Ball.create("cue", xy=(0.5, 1.0), m=m, R=R)
        cue = pt.Cue(
            cue_ball_id="cue",
            V0=float(s["V0"]),
            phi=float(s["phi"]) + 90.0,
            theta=float(s["theta"]),
            a=float(s["a"]),
            b=float(s["b"]),
        )
        from pooltool.objects.cue.datatypes import CueSpecs

        cue.specs = CueSpecs(M=M)
        _, ball = engine.resolver.stick_ball.resolve(cue, ball, inplace=False)
        out.append(
            {"v": vec_from_pt(ball.state.rvw[1])[:2], "w": vec_from_pt(ball.state.rvw[2])}
        )
    return out


def _clean(obj):
    """Replace non-finite floats so the output is strict JSON."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_clean(v) for v in obj]
    return obj


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--strike-only", action="store_true", help="only the cue strike (see doc)")
    ap.add_argument("--R", type=float, default=DEFAULT_PARAMS["R"])
    ap.add_argument("--m", type=float, default=DEFAULT_PARAMS["m"])
    ap.add_argument("--M", type=float, default=DEFAULT_M)
    ap.add_argument("--max-events", type=int, default=5000,
                    help="events resolved per shot, as cuegym's max_events (a shot's own wins)")
    ap.add_argument("--time", type=int, default=0, metavar="ROUNDS",
                    help="time ROUNDS passes over the shots instead (see doc)")
    ap.add_argument(
        "--post-height",
        type=float,
        default=None,
        help="contact height of posts [m] (default R: horizontal normal, docs/physics.md sec. 8)",
    )
    args = ap.parse_args(argv)
    data = json.load(sys.stdin)
    if args.strike_only:
        result = strike_only(data, args.R, args.m, args.M, 1.0)
    elif args.time > 0:
        result = time_shots(data if isinstance(data, list) else [data], make_engine(),
                            args.max_events, args.post_height, args.time)
    else:
        shots = data if isinstance(data, list) else [data]
        engine = make_engine()
        result = []
        for i, shot in enumerate(shots):
            try:
                result.append(run_shot(shot, engine, args.max_events, args.post_height))
            except Exception as exc:  # report, keep going: one bad shot must not hide the rest
                result.append({"error": f"{type(exc).__name__}: {exc}", "index": i})
        if not isinstance(data, list):
            result = result[0]
    json.dump(_clean(result), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
