"""Configuration: frozen, validated dataclasses loaded from the YAML files beside this module.

Every table size, spot, zone and physical constant of cuegym lives in one YAML file here and is
read through this module, never re-typed elsewhere:

- ``tables/<name>.yaml``   table geometry (:class:`TableSpec`)
- ``physics/<game>.yaml``  physical parameters (:class:`PhysicsParams`)

Units are SI (metres, kilograms, seconds). Origin at the table centre, x along the length.

Example:
    >>> from cuegym.configs import load_table, load_params
    >>> table = load_table("keglebillard")
    >>> table.length, len(table.pockets), len(table.pin_spots)
    (2.1, 6, 5)
    >>> load_params("keglebillard").R
    0.03075
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from cuegym.cli_errors import did_you_mean

CONFIG_DIR = Path(__file__).resolve().parent

#: Named tables shipped in ``configs/tables`` (the JSON interface accepts these names).
TABLE_NAMES = ("keglebillard", "keglebillard-helmatch", "golfbillard", "rectangle")

#: Circle kinds: a jaw is part of a cushion (its hits are ``ball_cushion`` events), a post is a
#: free-standing cap (``ball_post`` events).
CIRCLE_JAW = 0
CIRCLE_POST = 1


class ConfigError(ValueError):
    """A configuration value is missing, unknown or out of range."""


class ConfigLoader(yaml.SafeLoader):
    """PyYAML's safe loader that reads numbers as YAML 1.2 and Python do: ``1e-3``, ``1.5e3``
    and ``-.2`` are floats (plain PyYAML, YAML 1.1, reads them as text, a trap for learning
    rates), ``010`` is 10 and ``1:30`` text (not octal 8 and base-60 90). A key given twice
    in one mapping is an error (plain PyYAML keeps the last one silently)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> dict:
        seen: set = set()
        if isinstance(node, yaml.MappingNode):
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                try:
                    key = self.construct_object(key_node, deep=deep)
                    new = key not in seen
                    seen.add(key)
                except TypeError:  # unhashable: PyYAML itself refuses it below
                    continue
                if not new:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"found the key {key!r} twice", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


# Numbers as YAML 1.2 (and Python) read them. YAML 1.1 (PyYAML) read ``010`` as octal 8 and
# ``1:30`` as base 60 (90), so ``n_candidates=010`` was 8; ``1e-3``, ``1.5e3`` (an exponent
# without a dot, or without a sign) and ``-.2`` as text; ``1:30.0`` as 90.0. Here ``010`` is 10,
# ``1:30`` and ``1:30.0`` text, ``0o17`` / ``0x1f`` octal / hex, ``1_000`` still 1000, and
# every decimal or exponent form a float.
ConfigLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers
            if tag not in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in ConfigLoader.yaml_implicit_resolvers.items()}
ConfigLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(
        r"^(?:[-+]?(?:(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)?"
        r"|[0-9][0-9_]*[eE][-+]?[0-9]+)|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+.0123456789"))
ConfigLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9][0-9_]*|0o[0-7]+|0x[0-9a-fA-F]+)$"),
    list("-+0123456789"))


def _yaml12_int(loader: ConfigLoader, node: Any) -> int:
    text = loader.construct_scalar(node).replace("_", "")
    if text[:2] in ("0o", "0x"):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text, 10)


ConfigLoader.add_constructor("tag:yaml.org,2002:int", _yaml12_int)


def load_yaml(stream: Any) -> Any:
    """The YAML document in ``stream`` (text or an open file), read safely by
    :class:`ConfigLoader`: every cuegym config, option and ``--set`` value goes through it."""
    return yaml.load(stream, Loader=ConfigLoader)  # noqa: S506 (a SafeLoader subclass)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    obj: dict = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"the key {key!r} appears twice in one object (plain JSON readers "
                             "keep the last silently; give it once)")
        obj[key] = value
    return obj


def load_json(source: Any) -> Any:
    """The JSON document ``source`` (text, bytes or an open file), read as ``json.loads``
    reads it except that a key given twice in one object is refused (a ValueError naming it),
    as :func:`load_yaml` refuses it: every JSON that a user hands cuegym (the ``simulate`` and
    ``rules`` commands' input, the web app's requests) goes through it. Malformed JSON raises
    ``json.JSONDecodeError`` (a ValueError), too deep a nesting ``RecursionError``."""
    text = source.read() if hasattr(source, "read") else source
    return json.loads(text, object_pairs_hook=_unique_keys)


def from_mapping(cls: type, data: Any, base: Any = None, what: str = "config") -> Any:
    """An instance of the dataclass ``cls`` from the mapping ``data``: the fields it names
    replace those of ``base`` (default: ``cls``'s defaults). Not a mapping, or a key that is
    not a field, raises :class:`ConfigError` naming ``what``, the key, the closest field and
    all fields (the dataclass checks the values)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{what} must be a mapping, got {data!r}")
    known = {f.name for f in fields(cls)}
    extra = sorted(set(data) - known)
    if extra:
        raise ConfigError(f"unknown {what} key(s) {extra}{did_you_mean(extra[0], known)}; "
                          f"known: {sorted(known)}")
    return replace(base, **dict(data)) if base is not None else cls(**dict(data))


def _read_yaml(path: Path) -> dict:
    with open(path) as fh:
        data = load_yaml(fh)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` for an error message: numpy scalars as plain Python numbers (no
    ``np.float64(...)``), at most ``limit`` characters (huge or deeply nested values are cut)."""
    try:
        r = repr(value.item() if isinstance(value, np.generic) else value)
    except RecursionError:
        r = f"<deeply nested {type(value).__name__}>"
    return r if len(r) <= limit else r[:limit - 3] + "..."


def text_number_hint(value: Any) -> str:
    """For a string that reads as a finite number (``'0.5'``, a quoted ``'1e-3'`` in YAML): a
    note that it is text and the number to write."""
    if not isinstance(value, str):
        return ""
    try:
        x: float = int(value)
    except ValueError:
        try:
            x = float(value)
        except ValueError:
            return ""
    if math.isfinite(x):
        return f" (text, not a number: write {x!r} without quotes)"
    return ""


def finite_number(name: str, value: Any, *, positive: bool = False, nonneg: bool = False) -> float:
    """``value`` as a finite float; a bool, a string (even a numeric one) or anything else
    that is not a real number raises :class:`ConfigError` naming ``name``."""
    if isinstance(value, bool | np.bool_ | str | bytes | complex | np.complexfloating):
        raise ConfigError(f"{name} must be a number, got {short_repr(value)}"
                          f"{text_number_hint(value)}")
    try:
        x = float(value)
    except OverflowError:  # an integer too large for a float
        x = math.inf
    except (TypeError, ValueError):
        raise ConfigError(f"{name} must be a number, got {short_repr(value)}") from None
    if not math.isfinite(x):
        raise ConfigError(f"{name} must be finite, got {short_repr(value)}")
    if positive and x <= 0.0:
        raise ConfigError(f"{name} must be > 0, got {x!r}")
    if nonneg and x < 0.0:
        raise ConfigError(f"{name} must be >= 0, got {x!r}")
    return x


# ---------------------------------------------------------------------------------------------
# Physical parameters
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PhysicsParams:
    """Physical parameters (SI). Symbols as in the literature; glossary in docs/physics.md.

    Attributes:
        R: ball radius [m]. m: ball mass [kg].
        u_s: sliding friction, u_r: rolling resistance, u_sp: spinning friction [-].
        e_b: ball-ball restitution. e_c, f_c: cushion restitution and friction.
        g: gravity [m/s^2]. M: cue mass [kg]. m_e: cue end mass for squirt [kg].
        e_cap, f_cap: post (cap) rubber restitution and friction.
        e_jaw, f_jaw: pocket-jaw restitution and friction.
        m_pin: pin mass [kg]. e_pin: ball-pin restitution.
        pin_topple_speed: normal contact speed above which a pin topples [m/s] (K-P1).
        pin_chain_delay: delay before a pin struck by a falling pin topples [s] (K-P2).
        e_pin_post: restitution of a contact below the topple threshold (pin acts as a post).
    """

    R: float = 0.03075
    m: float = 0.207
    u_s: float = 0.2
    u_r: float = 0.01
    u_sp: float = 0.013667
    e_b: float = 0.95
    e_c: float = 0.85
    f_c: float = 0.2
    g: float = 9.81
    M: float = 0.567
    m_e: float = 0.00567
    e_cap: float = 0.8
    f_cap: float = 0.2
    e_jaw: float = 0.85
    f_jaw: float = 0.2
    m_pin: float = 0.0105
    e_pin: float = 0.7
    pin_topple_speed: float = 0.03
    pin_chain_delay: float = 0.1
    e_pin_post: float = 0.5

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            positive = f.name in ("R", "m", "u_s", "u_r", "u_sp", "g", "M", "m_e", "m_pin")
            x = finite_number(f"params.{f.name}", v, positive=positive, nonneg=True)
            object.__setattr__(self, f.name, x)
        for name in ("e_b", "e_c", "e_cap", "e_jaw", "e_pin", "e_pin_post"):
            if getattr(self, name) > 1.0:
                raise ConfigError(f"params.{name} is a restitution and must be in [0, 1], got "
                                  f"{getattr(self, name)!r}")

    @classmethod
    def from_dict(cls, data: dict, base: PhysicsParams | None = None) -> PhysicsParams:
        """Build from a mapping; unknown keys are errors. Missing keys come from ``base``."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"unknown physics parameter(s) {unknown}; known: {sorted(known)}")
        return replace(base or cls(), **data)

    def as_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def load_params(game: str = "keglebillard", **overrides: float) -> PhysicsParams:
    """Load ``configs/physics/<game>.yaml`` (``game``: keglebillard or golfbillard).

    Tables that are not a game (``rectangle``) use the keglebillard ball set.
    """
    game = {"rectangle": "keglebillard", "none": "keglebillard"}.get(game, game)
    game = game.split("-")[0]
    path = CONFIG_DIR / "physics" / f"{game}.yaml"
    if not path.exists():
        raise ConfigError(f"unknown game {game!r} for physics parameters")
    params = PhysicsParams.from_dict(_read_yaml(path))
    return PhysicsParams.from_dict(overrides, base=params) if overrides else params


@functools.lru_cache(maxsize=4)
def default_params(game: str) -> PhysicsParams:
    """:func:`load_params` of ``game`` without overrides, read once per process (the
    referees' layout checks call it for every state; PhysicsParams is frozen)."""
    return load_params(game)


# ---------------------------------------------------------------------------------------------
# Table geometry
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pocket:
    """A capture circle: a ball whose centre enters it drops. Metres."""

    x: float
    y: float
    radius: float
    name: str = ""


@dataclass(frozen=True)
class Circle:
    """A round obstacle: a pocket jaw (kind CIRCLE_JAW) or a fixed post/cap (CIRCLE_POST)."""

    x: float
    y: float
    radius: float
    kind: int


@dataclass(frozen=True)
class Cushion:
    """A straight cushion nose from (x1, y1) to (x2, y2); (nx, ny) is its unit normal into the
    playing area."""

    x1: float
    y1: float
    x2: float
    y2: float
    nx: float
    ny: float


@dataclass(frozen=True)
class TableSpec:
    """Static table geometry (OpenSpiel's "Game" side: nothing here changes during play).

    Attributes:
        name: table name (file stem). game: ``keglebillard``, ``golfbillard`` or ``none``.
        length, width: playing surface between cushion noses [m]; x in [-length/2, length/2].
        cushion_height: cushion nose height above the cloth [m].
        cushions: straight cushion segments. circles: jaws and posts. pockets: capture circles.
        pin_spots: (P, 2) pin spot coordinates [m], king first. pin_radius, pin_height [m].
        ball_ids, pin_ids: names used by the JSON interface and rules.
        spots: game-specific spots and lines, as read from the YAML (for the rules).
    """

    name: str
    game: str
    length: float
    width: float
    cushion_height: float
    cushions: tuple[Cushion, ...]
    circles: tuple[Circle, ...] = ()
    pockets: tuple[Pocket, ...] = ()
    pin_spots: tuple[tuple[float, float], ...] = ()
    pin_radius: float = 0.010
    pin_base_radius: float = 0.007
    pin_height: float = 0.120
    ball_ids: tuple[str, ...] = ()
    pin_ids: tuple[str, ...] = ()
    spots: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def posts(self) -> tuple[Circle, ...]:
        return tuple(c for c in self.circles if c.kind == CIRCLE_POST)

    @property
    def jaws(self) -> tuple[Circle, ...]:
        return tuple(c for c in self.circles if c.kind == CIRCLE_JAW)

    def arrays(self, params: PhysicsParams) -> dict[str, np.ndarray]:
        """Unpack into the contiguous float64 arrays the physics kernels take.

        Returns:
            ``lines`` (NL, 6): x1, y1, x2, y2, nx, ny.
            ``circles`` (NC, 6): x, y, radius, restitution, friction, contact height h [m].
            ``circle_kind`` (NC,) int32: CIRCLE_JAW or CIRCLE_POST.
            ``pockets`` (NP, 3): x, y, radius.
            ``pin_spots`` (P, 2).
        """
        lines = np.array(
            [[c.x1, c.y1, c.x2, c.y2, c.nx, c.ny] for c in self.cushions], dtype=np.float64
        ).reshape(-1, 6)
        circ = []
        for c in self.circles:
            if c.kind == CIRCLE_JAW:
                circ.append([c.x, c.y, c.radius, params.e_jaw, params.f_jaw, self.cushion_height])
            else:
                # A post is taller than the ball centre: contact normal horizontal (h = R).
                circ.append([c.x, c.y, c.radius, params.e_cap, params.f_cap, params.R])
        circles = np.array(circ, dtype=np.float64).reshape(-1, 6)
        kind = np.array([c.kind for c in self.circles], dtype=np.int32)
        pockets = np.array([[p.x, p.y, p.radius] for p in self.pockets], dtype=np.float64)
        pockets = pockets.reshape(-1, 3)
        pins = np.array(self.pin_spots, dtype=np.float64).reshape(-1, 2)
        return {
            "lines": np.ascontiguousarray(lines),
            "circles": np.ascontiguousarray(circles),
            "circle_kind": kind,
            "pockets": np.ascontiguousarray(pockets),
            "pin_spots": np.ascontiguousarray(pins),
        }

    def on_cloth(self, x: float, y: float, R: float) -> bool:
        """True when a ball of radius R centred at (x, y) lies on the cloth, inside the cushions."""
        return abs(x) <= self.length / 2 - R + 1e-12 and abs(y) <= self.width / 2 - R + 1e-12


def _rect_cushions(L: float, W: float) -> list[Cushion]:
    hx, hy = L / 2, W / 2
    return [
        Cushion(-hx, -hy, hx, -hy, 0.0, 1.0),  # bottom long cushion (y = -W/2)
        Cushion(hx, -hy, hx, hy, -1.0, 0.0),  # right short cushion (x = +L/2)
        Cushion(hx, hy, -hx, hy, 0.0, -1.0),  # top long cushion (y = +W/2)
        Cushion(-hx, hy, -hx, -hy, 1.0, 0.0),  # left short cushion (x = -L/2)
    ]


def _six_pocket_geometry(L: float, W: float, p: dict) -> tuple[list, list, list]:
    """Cushions cut at four corner and two side pockets, round jaws at every cut end."""
    mouth = finite_number("pockets.mouth", p["mouth"], positive=True)
    rho = finite_number("pockets.jaw_radius", p["jaw_radius"], nonneg=True)
    rc = finite_number("pockets.corner_capture_radius", p["corner_capture_radius"], positive=True)
    rs = finite_number("pockets.side_capture_radius", p["side_capture_radius"], positive=True)
    ds = finite_number("pockets.side_capture_depth", p["side_capture_depth"], nonneg=True)
    hx, hy = L / 2, W / 2
    c = mouth / math.sqrt(2.0)  # corner cut along each nose so the two jaw tips are `mouth` apart
    g = mouth / 2
    cushions = []
    jaws = []
    # long cushions, split at the side pocket
    for sy in (-1.0, 1.0):
        ny = -sy
        for x1, x2 in ((-hx + c, -g), (g, hx - c)):
            a, b = (x1, x2) if sy < 0 else (x2, x1)
            cushions.append(Cushion(a, sy * hy, b, sy * hy, 0.0, ny))
        for xe in (-hx + c, -g, g, hx - c):
            jaws.append(Circle(xe, sy * (hy + rho), rho, CIRCLE_JAW))
    # short cushions
    for sx in (-1.0, 1.0):
        nx = -sx
        y1, y2 = -hy + c, hy - c
        a, b = (y1, y2) if sx > 0 else (y2, y1)
        cushions.append(Cushion(sx * hx, a, sx * hx, b, nx, 0.0))
        for ye in (y1, y2):
            jaws.append(Circle(sx * (hx + rho), ye, rho, CIRCLE_JAW))
    pockets = []
    names = {(-1, -1): "bottom_left", (1, -1): "bottom_right", (1, 1): "top_right",
             (-1, 1): "top_left"}
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        pockets.append(Pocket(sx * hx, sy * hy, rc, names[(sx, sy)] + "_corner"))
    pockets.append(Pocket(0.0, -(hy + ds), rs, "bottom_side"))
    pockets.append(Pocket(0.0, hy + ds, rs, "top_side"))
    return cushions, jaws, pockets


_TABLE_KEYS = {"name", "game", "length", "width", "cushion_height", "balls", "pockets", "posts",
               "pins", "spots"}


#: Longest table side [m] a table config may give (the largest shipped is 2.84 m).
MAX_TABLE_SIDE = 100.0


def _check_on_table(where: str, x: float, y: float, r: float, L: float, W: float) -> None:
    """A pocket's or post's circle must reach the cloth (centre within ``r`` of the cushion
    rectangle): one entirely outside could never be touched, a mistake in the config. The
    finer check, that a ball of the shot's radius R can reach it, needs R:
    :func:`reach_problem`, run by the physics (``physics.api.check_physics``)."""
    if abs(x) > L / 2 + r or abs(y) > W / 2 + r:
        raise ConfigError(f"{where} at ({short_repr(x)}, {short_repr(y)}) with radius "
                          f"{short_repr(r)} m lies outside the {L:g} x {W:g} m table: no ball "
                          "could reach it")


@dataclass(frozen=True)
class Unreachable:
    """A pocket or post no ball can reach (:func:`unreachable`), its message in two parts so
    that a caller can name the element its own way (the JSON API: ``table.posts[k]``)."""

    kind: str
    """``"pocket"`` or ``"post"``"""
    index: int
    """its index in ``table.pockets`` or ``table.circles``"""
    label: str
    """its name in a table config: ``table.pockets[0] ('top')``, ``table.circles[3] (a post)``"""
    detail: str
    """the rest of the message: where it is, and how far from the balls' reach"""

    def message(self, label: str | None = None) -> str:
        """The message, the element named ``label`` (default: :attr:`label`)."""
        return f"{self.label if label is None else label} {self.detail}"


def unreachable(table: TableSpec, R: float) -> Unreachable | None:
    """The first pocket or post of ``table`` that no ball of radius ``R`` could ever reach, or
    None. Only for a table whose cushions are the uncut rectangle (the four full sides, no
    jaws: custom tables, ``rectangle``, ``golfbillard``): there every ball centre stays within
    |x| <= L/2 - R, |y| <= W/2 - R, so a pocket whose capture circle does not reach into that
    rectangle can never capture a ball, and a post farther than R + its radius from it can never
    be touched (:func:`_check_on_table`, which does not know R, lets both through). On a table
    with cut cushions (``layout: six``) ball centres enter the pocket mouths, beyond that
    rectangle, so its pockets are not judged by it. Posts are not taken as obstacles here."""
    L, W = table.length, table.width
    if (table.cushions != tuple(_rect_cushions(L, W))
            or any(c.kind == CIRCLE_JAW for c in table.circles)):
        return None
    hx, hy = max(L / 2 - R, 0.0), max(W / 2 - R, 0.0)
    area = (f"with balls of radius R = {short_repr(R)} m every ball centre stays within "
            f"|x| <= {hx:.6g}, |y| <= {hy:.6g} m on this uncut {L:g} x {W:g} m table")

    def gap(x: float, y: float) -> float:  # distance from (x, y) to the reachable rectangle
        return math.hypot(max(abs(x) - hx, 0.0), max(abs(y) - hy, 0.0))

    for k, p in enumerate(table.pockets):
        d = gap(p.x, p.y)
        if d > p.radius:
            name = f" ({p.name!r})" if p.name and p.name != f"pocket{k}" else ""
            return Unreachable(
                "pocket", k, f"table.pockets[{k}]{name}",
                f"at ({short_repr(p.x)}, {short_repr(p.y)}) with radius {short_repr(p.radius)} "
                f"m can never capture a ball: {area}, {d - p.radius:.3g} m short of the "
                f"capture circle")
    for k, c in enumerate(table.circles):
        d = gap(c.x, c.y)
        if c.kind == CIRCLE_POST and d > c.radius + R:
            return Unreachable(
                "post", k, f"table.circles[{k}] (a post)",
                f"at ({short_repr(c.x)}, {short_repr(c.y)}) with radius {short_repr(c.radius)} "
                f"m can never be touched: {area}, {d - c.radius - R:.3g} m too far from the "
                f"post")
    return None


def reach_problem(table: TableSpec, R: float) -> str | None:
    """The message of :func:`unreachable` (the element named as in a table config), or None."""
    found = unreachable(table, R)
    return None if found is None else found.message()


def config_mapping(what: str, value: Any, required: tuple[str, ...],
                   optional: tuple[str, ...] = ()) -> Mapping:
    """``value`` as a mapping with all of ``required`` and nothing but ``required`` and
    ``optional``; ConfigError naming ``what`` otherwise."""
    if not isinstance(value, Mapping):
        raise ConfigError(f"{what} must be a mapping, got {short_repr(value)}")
    known = (*required, *optional)
    extra = sorted(map(str, set(value) - set(known)))
    if extra:
        raise ConfigError(f"unknown {what} key(s) {extra}{did_you_mean(extra[0], known)}; "
                          f"known: {sorted(known)}")
    missing = [k for k in required if k not in value]
    if missing:
        raise ConfigError(f"{what} needs {missing}")
    return value


def config_list(what: str, value: Any) -> list:
    """``value`` as a list (a YAML sequence); ConfigError naming ``what`` otherwise."""
    if not isinstance(value, list | tuple):
        raise ConfigError(f"{what} must be a list, got {short_repr(value)}")
    return list(value)


def config_names(what: str, value: Any, n: int | None = None) -> tuple[str, ...]:
    """``value`` as distinct non-empty names (``n`` of them when given)."""
    names = config_list(what, value)
    if not all(isinstance(x, str) and x for x in names) or len(set(names)) != len(names):
        raise ConfigError(f"{what} must be distinct non-empty names, got {short_repr(value)}")
    if n is not None and len(names) != n:
        raise ConfigError(f"{what} must name {n}, got {len(names)}: {short_repr(value)}")
    return tuple(names)


SIX_POCKET_KEYS = ("mouth", "jaw_radius", "corner_capture_radius", "side_capture_radius",
                   "side_capture_depth")


def _circle(what: str, spec: Any, kind: int, optional: tuple[str, ...] = ()) -> Circle:
    """A pocket or post ``{x, y, radius}`` [m] (and the keys ``optional``) as a
    :class:`Circle`."""
    spec = config_mapping(what, spec, ("x", "y", "radius"), optional)
    return Circle(finite_number(f"{what}.x", spec["x"]), finite_number(f"{what}.y", spec["y"]),
                  finite_number(f"{what}.radius", spec["radius"], positive=True), kind)


def _table_pockets(L: float, W: float, cfg: Any) -> tuple[list, list, list]:
    """(cushions, jaws, pockets) of the ``pockets`` section: ``layout: six`` (the cut
    cushions of :func:`_six_pocket_geometry`) or ``layout: list`` of ``{x, y, radius, name}``
    capture circles on the plain rectangle (none when the section is absent or empty)."""
    if cfg is None or (isinstance(cfg, Mapping | list) and not cfg):
        cfg = {"layout": "list"}
    if not isinstance(cfg, Mapping):
        raise ConfigError(f"pockets must be a mapping, got {short_repr(cfg)}")
    layout = cfg.get("layout", "list")
    if layout == "six":
        six = config_mapping("pockets", cfg, ("layout", *SIX_POCKET_KEYS))
        return _six_pocket_geometry(L, W, six)
    if layout != "list":
        raise ConfigError(f"unknown pocket layout {short_repr(layout)} (known: six, list)")
    pockets = []
    for i, spec in enumerate(config_list("pockets.list", config_mapping(
            "pockets", cfg, (), ("layout", "list")).get("list", []))):
        c = _circle(f"pockets.list[{i}]", spec, CIRCLE_POST, ("name",))  # kind unused here
        pockets.append(Pocket(c.x, c.y, c.radius, str(spec.get("name", f"pocket{i}"))))
    return _rect_cushions(L, W), [], pockets


def _table_posts(cfg: Any) -> list[Circle]:
    """The ``posts`` section ``{radius, centres: [[x, y], ...]}`` as circles."""
    if not cfg:
        return []
    cfg = config_mapping("posts", cfg, ("radius",), ("centres",))
    r = finite_number("posts.radius", cfg["radius"], positive=True)
    posts = []
    for i, xy in enumerate(config_list("posts.centres", cfg.get("centres", []))):
        if not isinstance(xy, list | tuple) or len(xy) != 2:
            raise ConfigError(f"posts.centres[{i}] must be [x, y], got {short_repr(xy)}")
        posts.append(Circle(finite_number(f"posts[{i}].x", xy[0]),
                            finite_number(f"posts[{i}].y", xy[1]), r, CIRCLE_POST))
    return posts


def _table_pins(cfg: Any) -> dict[str, Any]:
    """The ``pins`` section (``arm, radius, base_radius, height`` [m], ``ids``) as
    :class:`TableSpec` fields: a king at the centre and four pins ``arm`` away along +x, +y,
    -x, -y."""
    if not cfg:
        return {}
    cfg = config_mapping("pins", cfg, ("arm", "radius", "base_radius", "height"), ("ids",))
    arm = finite_number("pins.arm", cfg["arm"], positive=True)
    return {"pin_spots": ((0.0, 0.0), (arm, 0.0), (0.0, arm), (-arm, 0.0), (0.0, -arm)),
            "pin_ids": config_names("pins.ids", cfg.get("ids", ["king", "pin1", "pin2", "pin3",
                                                          "pin4"]), 5),
            "pin_radius": finite_number("pins.radius", cfg["radius"], positive=True),
            "pin_base_radius": finite_number("pins.base_radius", cfg["base_radius"],
                                             positive=True),
            "pin_height": finite_number("pins.height", cfg["height"], positive=True)}


def table_from_dict(data: Any, name: str | None = None) -> TableSpec:
    """Build a :class:`TableSpec` from a YAML-style mapping (configs/tables/*.yaml). Unknown
    keys, missing ones and values of the wrong kind raise :class:`ConfigError` naming them."""
    data = config_mapping("table", data, ("length", "width"),
                          tuple(sorted(_TABLE_KEYS - {"length", "width"})))
    L = finite_number("length", data.get("length"), positive=True)
    W = finite_number("width", data.get("width"), positive=True)
    for what, x in (("length", L), ("width", W)):
        if x > MAX_TABLE_SIDE:
            raise ConfigError(f"{what} = {short_repr(x)} m: a table side is at most "
                              f"{MAX_TABLE_SIDE:g} m")
    h = finite_number("cushion_height", data.get("cushion_height", 0.0394), positive=True)
    cushions, jaws, pockets = _table_pockets(L, W, data.get("pockets"))
    posts = _table_posts(data.get("posts"))
    for what, items in (("pockets", pockets), ("posts", posts)):
        for i, c in enumerate(items):
            _check_on_table(f"{what}[{i}]", c.x, c.y, c.radius, L, W)
    spots = data.get("spots") or {}
    if not isinstance(spots, Mapping):
        raise ConfigError(f"spots must be a mapping, got {short_repr(spots)}")
    return TableSpec(
        name=str(data.get("name", name or "custom")),
        game=str(data.get("game", "none")),
        length=L,
        width=W,
        cushion_height=h,
        cushions=tuple(cushions),
        circles=tuple(jaws) + tuple(posts),
        pockets=tuple(pockets),
        ball_ids=config_names("balls", data.get("balls") or ()),
        spots=dict(spots),
        **_table_pins(data.get("pins")),
    )


def load_table(name: str = "keglebillard") -> TableSpec:
    """Load a named table from ``configs/tables/<name>.yaml``.

    ``"keglebillard"`` is the kleinmatch table (2.10 x 1.05 m), ``"keglebillard-helmatch"`` the
    large one, ``"golfbillard"`` the 1.80 x 0.90 m golf table, ``"rectangle"`` a pocketless bed.
    """
    path = CONFIG_DIR / "tables" / f"{name}.yaml"
    if name not in TABLE_NAMES or not path.exists():
        raise ConfigError(f"unknown table {name!r}; known: {list(TABLE_NAMES)}")
    return table_from_dict(_read_yaml(path), name)


#: Each game's own table config (the default where a game is played on several).
DEFAULT_TABLES = {"keglebillard": "keglebillard", "golfbillard": "golfbillard"}


def game_tables(game: str) -> tuple[str, ...]:
    """The table configs ``game`` is played on (``configs/tables``, the one source of their
    sizes, pockets, pins and spots), its default first: keglebillard the kleinmatch
    (``keglebillard``) and ``keglebillard-helmatch``; golfbillard its one table."""
    if game not in DEFAULT_TABLES:
        raise ConfigError(f"unknown game {game!r}; use one of {list(DEFAULT_TABLES)}")
    own = [n for n in TABLE_NAMES if load_table(n).game == game]
    return tuple(sorted(own, key=lambda n: n != DEFAULT_TABLES[game]))


def check_game_table(game: str, table: Any) -> str:
    """``table`` when it is a table ``game`` is played on (:func:`game_tables`), else a
    ConfigError naming it and the tables there are."""
    names = game_tables(game)
    if not isinstance(table, str) or table not in names:
        shown = repr(table) if not isinstance(table, str) or len(table) <= 80 \
            else repr(table[:77] + "...")
        if len(names) == 1:
            raise ConfigError(f"table {shown}: {game} is played on its one table "
                              f"({names[0]!r})")
        raise ConfigError(f"unknown {game} table {shown}; use one of {list(names)}")
    return table


def custom_table(length: float, width: float, cushion_height: float = 0.0394,
                 pockets: list[dict] | None = None, posts: list[dict] | None = None) -> TableSpec:
    """A plain rectangle with optional capture pockets and round posts (each {x, y, radius})."""
    spec = table_from_dict({"name": "custom", "game": "none", "length": length, "width": width,
                            "cushion_height": cushion_height,
                            "pockets": {"layout": "list", "list": config_list(
                                "pockets", [] if pockets is None else pockets)}})
    circles = [_circle(f"posts[{i}]", p, CIRCLE_POST)
               for i, p in enumerate(config_list("posts", [] if posts is None else posts))]
    for i, c in enumerate(circles):
        _check_on_table(f"posts[{i}]", c.x, c.y, c.radius, spec.length, spec.width)
    return replace(spec, circles=tuple(circles))
