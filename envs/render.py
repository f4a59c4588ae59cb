"""Fast top-view frames of a table (Pillow, drawn at 2x and downsampled for smooth edges).

A frame shows the rails, the cloth, the cushion noses, pockets or goals, jaws and caps, the pins
(standing: a wooden disc, the king gold; fallen: a pale stroke along the fall direction), the
balls (filled, with a label), where they started (thin rings) and the last shot's paths, plus a
text strip above the table. The static part is drawn once per table and size and cached.

``render_keglebillard`` / ``render_keglebillard_state`` / ``render_golfbillard*`` build frames for
the env cores; :class:`TableRenderer` is the drawing layer they share (also used by
``experiments/replay.py``). A shot animated frame by frame, and frames padded for videos:
:mod:`cuegym.envs.render_shots`.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from cuegym.compat import moved_names
from cuegym.configs import TableSpec

CLOTH = (31, 111, 63)
RAIL = (92, 58, 30)
RAIL_EDGE = (60, 36, 18)
CUSHION = (47, 143, 85)
POCKET = (12, 12, 12)
CAP_FILL = (40, 40, 40)
CAP_RING = (200, 200, 200)
PIN_WOOD = (240, 214, 160)
PIN_EDGE = (120, 72, 30)
KING_WOOD = (250, 200, 40)
FALLEN = (236, 220, 190)
LINE = (200, 230, 205)
HUD_BG = (24, 24, 28)
HUD_FG = (235, 235, 235)
BALL_COLOURS = {"red": (214, 39, 40), "white": (246, 246, 246), "spotted": (246, 240, 200)}
SS = 2  # supersampling factor


def ball_rgb(ball_id: str) -> tuple[int, int, int]:
    """Face colour by ball id (keglebillard red/white/spotted; golfbillard w*/r*)."""
    if ball_id in BALL_COLOURS:
        return BALL_COLOURS[ball_id]
    return BALL_COLOURS["red"] if ball_id.startswith("r") else BALL_COLOURS["white"]


@functools.lru_cache(maxsize=8)
def _font(size: int):
    from PIL import ImageFont

    try:
        import matplotlib

        path = os.path.join(os.path.dirname(matplotlib.__file__), "mpl-data", "fonts", "ttf",
                            "DejaVuSans.ttf")
        return ImageFont.truetype(path, size)
    except (OSError, ImportError):  # pragma: no cover - matplotlib ships the font
        return ImageFont.load_default()


@dataclass
class Ball:
    """A ball to draw: centre [m], colour, short label."""

    x: float
    y: float
    rgb: tuple[int, int, int]
    label: str = ""


@dataclass
class Pin:
    """A pin: spot [m], standing or fallen (with its unit fall direction), king or not."""

    x: float
    y: float
    up: bool
    fall: tuple[float, float] | None = None
    king: bool = False


@dataclass
class Scene:
    """Everything drawn on top of the static table."""

    balls: list[Ball] = field(default_factory=list)
    starts: list[Ball] = field(default_factory=list)
    pins: list[Pin] = field(default_factory=list)
    paths: list[tuple[np.ndarray, tuple[int, int, int]]] = field(default_factory=list)
    marks: list[tuple[float, float, tuple[int, int, int]]] = field(default_factory=list)
    hud: list[str] = field(default_factory=list)
    area: tuple[float, float] | None = None  # x range shaded (where the red may be placed)


class TableRenderer:
    """Draws scenes on one table at a fixed width in pixels.

    Args:
        table: the table geometry. R: ball radius [m]. width: image width [px].
        lines: extra straight lines [(x1, y1, x2, y2)] drawn on the cloth in ``line_rgb`` (the
            salvo line, zone edges). spots: small dots [(x, y)] (white spots, start spots).
        hud_lines: text lines above the table.
    """

    def __init__(self, table: TableSpec, R: float, width: int = 800,
                 lines: Sequence[tuple[float, float, float, float]] = (),
                 spots: Sequence[tuple[float, float]] = (), hud_lines: int = 2,
                 line_rgb: tuple[int, int, int] = LINE) -> None:
        self.table = table
        self.R = R
        self.rail = 0.07
        self.width = int(width)
        L, W = table.length, table.width
        self.scale = self.width * SS / (L + 2 * self.rail)
        self.hud_h = (8 + 20 * hud_lines) * SS if hud_lines else 0
        self.height_ss = int(round((W + 2 * self.rail) * self.scale)) + self.hud_h
        self.height = self.height_ss // SS
        self.lines = tuple(lines)
        self.spots = tuple(spots)
        self.line_rgb = line_rgb
        self._bg = None

    # coordinates -----------------------------------------------------------------------------

    def px(self, x, y):
        """Table metres -> supersampled pixel coordinates (y up on the table, down in images)."""
        L, W = self.table.length, self.table.width
        u = (np.asarray(x) + L / 2 + self.rail) * self.scale
        v = (W / 2 + self.rail - np.asarray(y)) * self.scale + self.hud_h
        return u, v

    def _circle(self, draw, x, y, r_m, **kw) -> None:
        u, v = self.px(x, y)
        r = r_m * self.scale
        draw.ellipse([u - r, v - r, u + r, v + r], **kw)

    # the static table ------------------------------------------------------------------------

    def background(self):
        """The table without balls or pins (cached)."""
        if self._bg is not None:
            return self._bg
        from PIL import Image, ImageDraw

        t = self.table
        L, W = t.length, t.width
        img = Image.new("RGB", (self.width * SS, self.height_ss), HUD_BG)
        d = ImageDraw.Draw(img)
        u0, v0 = self.px(-L / 2 - self.rail, W / 2 + self.rail)
        u1, v1 = self.px(L / 2 + self.rail, -W / 2 - self.rail)
        d.rounded_rectangle([u0, v0, u1, v1], radius=int(0.03 * self.scale), fill=RAIL,
                            outline=RAIL_EDGE, width=2 * SS)
        a0, b0 = self.px(-L / 2 - 0.02, W / 2 + 0.02)
        a1, b1 = self.px(L / 2 + 0.02, -W / 2 - 0.02)
        d.rectangle([a0, b0, a1, b1], fill=CUSHION)
        c0, e0 = self.px(-L / 2, W / 2)
        c1, e1 = self.px(L / 2, -W / 2)
        d.rectangle([c0, e0, c1, e1], fill=CLOTH)
        # diamonds on the rails (eighths of the length, quarters of the width)
        for k in range(1, 8):
            for sy in (-1, 1):
                self._circle(d, -L / 2 + k * L / 8, sy * (W / 2 + self.rail / 2 + 0.005), 0.006,
                             fill=(230, 225, 200))
        for k in range(1, 4):
            for sx in (-1, 1):
                self._circle(d, sx * (L / 2 + self.rail / 2 + 0.005), -W / 2 + k * W / 4, 0.006,
                             fill=(230, 225, 200))
        for x1, y1, x2, y2 in self.lines:
            p1, p2 = self.px(x1, y1), self.px(x2, y2)
            d.line([p1, p2], fill=self.line_rgb, width=max(1, SS))
        for x, y in self.spots:
            self._circle(d, x, y, 0.004, fill=LINE)
        # pockets cut the cushion (their centre lies on or past its line); a goal inside the
        # cloth (golfbillard) does not: its hole ends at the unbroken cushion
        cut = [abs(p.x) >= L / 2 - 1e-9 or abs(p.y) >= W / 2 - 1e-9 for p in t.pockets]
        for p, c in zip(t.pockets, cut, strict=True):
            if c:
                self._circle(d, p.x, p.y, p.radius + 0.012, fill=CLOTH)
        for p, c in zip(t.pockets, cut, strict=True):
            self._hole(d, p, c)
        for c in t.circles:
            if c.kind == 0:  # jaw
                self._circle(d, c.x, c.y, max(c.radius, 0.003), fill=CUSHION)
            else:  # cap
                self._circle(d, c.x, c.y, c.radius, fill=CAP_FILL, outline=CAP_RING,
                             width=max(1, int(0.004 * self.scale)))
        self._bg = img
        return img

    def _hole(self, d, p, cut: bool) -> None:
        """Pocket or goal ``p``; one that does not cut the cushion ends at the cushion's line
        (a chord of its circle), so the unbroken cushion and the rail stay drawn."""
        L, W = self.table.length, self.table.width
        over = [(abs(p.x) + p.radius - L / 2, 0.0 if p.x > 0 else 180.0, L / 2 - abs(p.x)),
                (abs(p.y) + p.radius - W / 2, 270.0 if p.y > 0 else 90.0, W / 2 - abs(p.y))]
        depth, alpha, inside = max(over)  # image angles run clockwise (y points down)
        if cut or depth <= 0.0:
            self._circle(d, p.x, p.y, p.radius, fill=POCKET)
            return
        theta = math.degrees(math.acos(max(-1.0, min(1.0, inside / p.radius))))
        u, v = self.px(p.x, p.y)
        r = p.radius * self.scale
        d.chord([u - r, v - r, u + r, v + r], alpha + theta, alpha + 360.0 - theta, fill=POCKET)

    # a scene ---------------------------------------------------------------------------------

    def draw(self, scene: Scene) -> np.ndarray:
        """(H, W, 3) uint8 image of ``scene``."""
        from PIL import Image, ImageDraw

        img = self.background().copy()
        d = ImageDraw.Draw(img, "RGBA")
        R = self.R
        t = self.table
        if scene.area is not None:  # where the red's centre may be placed
            u0, v0 = self.px(scene.area[0], t.width / 2 - R)
            u1, v1 = self.px(scene.area[1], -t.width / 2 + R)
            d.rectangle([u0, v0, u1, v1], fill=(255, 255, 255, 24))
        for pin in scene.pins:
            if pin.up:
                continue
            fx, fy = pin.fall if pin.fall is not None else (0.0, 0.0)
            if fx == 0.0 and fy == 0.0:
                self._circle(d, pin.x, pin.y, t.pin_base_radius, outline=FALLEN + (200,),
                             width=SS)
                continue
            p1 = self.px(pin.x, pin.y)
            p2 = self.px(pin.x + fx * t.pin_height, pin.y + fy * t.pin_height)
            d.line([p1, p2], fill=FALLEN + (170,), width=max(2, int(2 * t.pin_base_radius
                                                                      * self.scale)))
        for pts, rgb in scene.paths:
            if len(pts) < 2:
                continue
            u, v = self.px(pts[:, 0], pts[:, 1])
            d.line(list(zip(u.tolist(), v.tolist(), strict=True)), fill=rgb + (200,),
                   width=max(2, int(0.006 * self.scale)), joint="curve")
        for b in scene.starts:
            self._circle(d, b.x, b.y, R, outline=b.rgb + (230,), width=max(2, int(0.004 *
                                                                                 self.scale)))
        for x, y, rgb in scene.marks:
            self._circle(d, x, y, 0.012, outline=rgb + (255,), width=2 * SS)
        for pin in scene.pins:
            if not pin.up:
                continue
            fill = KING_WOOD if pin.king else PIN_WOOD
            r_pin = max(t.pin_radius, 5.0 * SS / self.scale)  # at least 5 px: readable
            self._circle(d, pin.x, pin.y, r_pin, fill=fill, outline=PIN_EDGE,
                         width=max(1, int(0.003 * self.scale)))
        font = _font(int(0.6 * R * self.scale))
        for b in scene.balls:
            self._circle(d, b.x, b.y, R, fill=b.rgb, outline=(20, 20, 20),
                         width=max(1, int(0.003 * self.scale)))
            if b.label:
                u, v = self.px(b.x, b.y)
                ink = (255, 255, 255) if sum(b.rgb) < 400 else (20, 20, 20)
                d.text((u, v), b.label, fill=ink, font=font, anchor="mm")
        if self.hud_h and scene.hud:
            room = (self.width - 16) * SS
            for k, line in enumerate(scene.hud[: (self.hud_h // SS - 8) // 20]):
                line, hf = _fitted(d, line, room)
                d.text((8 * SS, (4 + 20 * k) * SS), line, fill=HUD_FG, font=hf)
        small = img.resize((self.width, self.height), Image.LANCZOS)
        return np.array(small, dtype=np.uint8)  # writable, as gymnasium's frames are


def _fitted(d, line: str, room: float):
    """``line`` and a font that fits it into ``room`` supersampled pixels: 14 px, down to
    10 px, then the line cut with an ellipsis (the HUD has a fixed number of lines)."""
    for size in (14, 13, 12, 11, 10):
        font = _font(size * SS)
        if d.textlength(line, font=font) <= room:
            return line, font
    while len(line) > 1 and d.textlength(line + "…", font=font) > room:
        line = line[:-1]
    return line + "…", font


class HumanViewer:
    """A matplotlib window that shows frames (``render_mode="human"``); a no-op on a
    non-interactive backend."""

    def __init__(self, title: str = "cuegym") -> None:
        import matplotlib
        import matplotlib.pyplot as plt
        from matplotlib.backends import BackendFilter, backend_registry

        non_interactive_bk = backend_registry.list_builtin(BackendFilter.NON_INTERACTIVE)
        self.plt = plt
        self.fig = None
        self.im = None
        self.title = title
        # no window to show (Agg, a headless run): no figure, and no pause of 1/fps a frame
        # (no warning either: gymnasium's check_env renders every mode and expects none)
        self.windowless = matplotlib.get_backend().lower() in {
            b.lower() for b in non_interactive_bk}

    def show(self, frame: np.ndarray, pause: float) -> None:
        plt = self.plt
        if self.windowless:
            return
        if self.fig is None:
            plt.ion()
            self.fig, ax = plt.subplots(figsize=(frame.shape[1] / 100, frame.shape[0] / 100))
            ax.set_axis_off()
            self.fig.subplots_adjust(0, 0, 1, 1)
            self.im = ax.imshow(frame)
            self.fig.canvas.manager.set_window_title(self.title)
        else:
            self.im.set_data(frame)
        self.fig.canvas.draw_idle()
        plt.pause(pause)

    def close(self) -> None:
        if self.fig is not None:
            self.plt.close(self.fig)
            self.fig = None


class HumanDisplay:
    """Mixin of the envs: the ``human`` render mode's window (``self._viewer``, made on first
    use) and ``close``; the class needs ``metadata["render_fps"]``."""

    _viewer: HumanViewer | None = None

    def _show_human(self, frame: np.ndarray, title: str) -> None:
        if self._viewer is None:
            self._viewer = HumanViewer(title=title)
        self._viewer.show(frame, 1.0 / self.metadata["render_fps"])

    def close(self) -> None:
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None

    def __getstate__(self) -> dict:
        """Pickle and deepcopy without the window (a copy opens its own on its first render):
        a matplotlib window cannot be pickled."""
        state = self.__dict__.copy()
        state["_viewer"] = None
        return state


# ---------------------------------------------------------------------------------------------
# Keglebillard
# ---------------------------------------------------------------------------------------------

KEGLE_IDS = ("red", "white", "spotted")
KEGLE_LABELS = ("R", "W", "S")


@functools.lru_cache(maxsize=4)
def kegle_renderer(table_name: str, width: int = 800) -> TableRenderer:
    from cuegym.configs import load_params
    from cuegym.rules.keglebillard import default_table, salvo_x, white_spots

    table = default_table(table_name)
    R = load_params("keglebillard").R
    sx = salvo_x(table)
    spots = [tuple(s) for s in white_spots(table)]
    return TableRenderer(table, R, width, lines=[(sx, -table.width / 2, sx, table.width / 2)],
                         spots=spots, hud_lines=2)


def shot_paths(res, row: int, ids: Sequence[str], dt: float = 0.01
               ) -> list[tuple[np.ndarray, tuple[int, int, int]]]:
    """Sampled paths of the balls that moved in table ``row`` of a SimResult (until pocketed)."""
    from cuegym.physics.constants import EV_BALL_POCKET
    from cuegym.physics.path import positions_at

    t_end = float(res.t_end[row])
    times = _with_events(res, row, np.append(np.arange(0.0, t_end, dt), t_end))
    one = _one_table(res, row)
    pos = positions_at(one, times)[0]  # (N, B, 2)
    B = pos.shape[1]
    pocket_t = np.full(B, np.inf)
    for k in range(int(res.n_events[row])):
        if res.ev_type[row, k] == EV_BALL_POCKET:
            pocket_t[res.ev_i[row, k]] = res.ev_time[row, k]
    out = []
    for b in range(B):
        if res.motion0[row, b] == 4:
            continue
        p = pos[times <= pocket_t[b] + 1e-12, b]
        if len(p) > 1 and np.ptp(p, axis=0).max() > 1e-4:
            out.append((p, ball_rgb(ids[b])))
    return out


def _with_events(res, row: int, times: np.ndarray) -> np.ndarray:
    """``times`` [s] with table ``row``'s event times up to the last of them added (sorted,
    unique): a path sampled there bends where the ball met a cushion or a ball, and reaches the
    pocket a ball dropped into, however short the step."""
    ev = res.ev_time[row, : int(res.n_events[row])]
    return np.union1d(times, ev[ev <= times[-1]])


def _one_table(res, row: int, keep: bool = False):
    """A SimResult view of one table (path queries then cost one table, not the batch);
    ``keep``: a copy instead, which outlives the batch (a core's workspace is reused by its
    next step)."""
    import copy

    one = copy.copy(res)
    for name in ("rvw", "motion", "pocket", "rvw0", "motion0", "pins_up0", "pins_up",
                 "pin_toppler", "pin_topple_time", "pin_fall_dir", "ev_type", "ev_time", "ev_i",
                 "ev_j", "ev_state", "ev_motion", "n_events", "t_end", "overflow"):
        a = getattr(res, name)[row:row + 1]
        setattr(one, name, np.array(a) if keep else a)
    return one


def kegle_scene(table: TableSpec, balls_xy: np.ndarray, pins_up: Sequence[bool],
                fall_dir: np.ndarray | None = None, starts: np.ndarray | None = None,
                paths=(), hud: Sequence[str] = ()) -> Scene:
    """A keglebillard scene: balls_xy (3, 2) with NaN for balls off the table."""
    scene = Scene(hud=list(hud), paths=list(paths))
    for k, (px, py) in enumerate(table.pin_spots):
        fd = None if fall_dir is None else (float(fall_dir[k][0]), float(fall_dir[k][1]))
        scene.pins.append(Pin(px, py, bool(pins_up[k]), fd, king=k == 0))
    if starts is not None:
        for b in range(3):
            if not np.isnan(starts[b, 0]):
                scene.starts.append(Ball(*starts[b], ball_rgb(KEGLE_IDS[b])))
    for b in range(3):
        if not np.isnan(balls_xy[b, 0]):
            scene.balls.append(Ball(*balls_xy[b], ball_rgb(KEGLE_IDS[b]), KEGLE_LABELS[b]))
    return scene


def _hand_area(game, hand: str | None) -> tuple[float, float] | None:
    """x range of the red's placement area (K-3, K-19), or None when not in hand."""
    if hand is None:
        return None
    x0 = -game.table.length / 2 + game.R
    return (x0, game.salvo_x if hand == "salvo" else -x0)


def _shot_line(info: dict, t: int) -> str:
    from .kegle import FOUL_FLAGS

    if not info["played"][t]:
        return "placement foul (K-19): the red cannot go there; skaeve 6"
    fouls = [FOUL_FLAGS[k] for k in np.flatnonzero(info["foul_flags"][t])]
    extra = [k for k in ("rodt", "blegt", "king_alone", "clean16") if info[k][t]]
    pins = int(info["pins_toppled"][t].sum())
    head = (f"foul {' '.join(fouls)}: skaeve {int(info['skaeve'][t])}" if info["foul"][t]
            else f"{int(info['shooter_points'][t])} points")
    tail = f"pins {pins}" + (f", {', '.join(extra)}" if extra else "")
    return f"{head}   ({tail})"


def render_keglebillard(core, t: int, last: dict | None) -> np.ndarray:
    """Frame of table t of a keglebillard Shot core: the position, or the last shot (paths,
    start rings, fallen pins) once played."""
    r = kegle_renderer(core.game.table_name)
    table = core.game.table
    hand = {0: "", 1: "red in hand behind the salvo line", 2: "red in hand (anywhere)"}
    if last is None or core.last_row[t] < 0:
        balls = np.concatenate([core.red[t][None], core.whites[t]])
        hud = [f"position {int(core.index[t])}" + (" (break)" if core.brk[t] else ""),
               hand[int(core.hand[t])] or "red on the table"]
        if last is not None:  # an unplayable placement
            hud[1] = _shot_line(last["info"], t)
        scene = kegle_scene(table, balls, core.pins[t], hud=hud)
        scene.area = _hand_area(core.game, {0: None, 1: "salvo", 2: "cloth"}[int(core.hand[t])])
        return r.draw(scene)
    res, row = last["res"], int(core.last_row[t])
    balls = np.concatenate([core.red[t][None], core.whites[t]])
    starts = res.rvw0[row, :, 0, :2].copy()
    starts[res.motion0[row] == 4] = np.nan
    cue = last["info"]["strike"][t]
    hud = [f"V0 {cue[0]:.2f} m/s  phi {cue[1]:.1f} deg  theta {cue[2]:.1f}  a {cue[3]:+.2f}  "
           f"b {cue[4]:+.2f}", _shot_line(last["info"], t)]
    scene = kegle_scene(table, balls, res.pins_up[row], res.pin_fall_dir[row], starts,
                        shot_paths(res, row, KEGLE_IDS), hud)
    return r.draw(scene)


def kegle_game_hud(st, last, learner: int | None = None) -> list[str]:
    """The text lines of :func:`render_kegle_game`: scores (``*`` the learner) and who is to
    move, then the last shot's outcome and the pins it toppled (the position shows them stood
    up again, K-P7)."""
    from .kegle import outcome_summary

    scores = "  ".join(f"{'*' if p == learner else ''}P{p} {s}" for p, s in enumerate(st.scores))
    who = "game over" if st.game_over else f"to move: P{st.to_play}"
    hud = [f"{scores}   {who}" + (f"   (red in hand: {st.ball_in_hand})"
                                   if st.ball_in_hand else "")]
    if last is not None:
        outcome, shooter = last[2], last[3]
        down = f"; pins down: {', '.join(outcome.pins_toppled)}" if outcome.pins_toppled else ""
        hud.append(f"last shot P{shooter}{' (learner)' if shooter == learner else ''}: "
                   f"{outcome_summary(outcome)}{down}")
    return hud


def render_kegle_game(game, st, last, learner: int | None = None) -> np.ndarray:
    """Frame of a keglebillard game state with the last shot's paths (``last``: (SimResult,
    row, ShotOutcome, shooter, strike) or None). The position is after spotting and re-standing.
    """
    r = kegle_renderer(game.table_name)
    balls = np.array([b if b is not None else (np.nan, np.nan) for b in st.balls], float)
    hud = kegle_game_hud(st, last, learner)
    paths, starts = (), None
    if last is not None:
        res, row = last[0], last[1]
        if res is not None and row >= 0:
            paths = shot_paths(res, row, KEGLE_IDS)
            starts = res.rvw0[row, :, 0, :2].copy()
            starts[res.motion0[row] == 4] = np.nan
    scene = kegle_scene(game.table, balls, st.pins, starts=starts, paths=paths, hud=hud)
    scene.area = None if st.game_over else _hand_area(game, st.ball_in_hand)
    return r.draw(scene)


def render_keglebillard_state(core, t: int) -> np.ndarray:
    """Frame of table t of a keglebillard full-game core (``*`` marks the learner)."""
    return render_kegle_game(core.game, core.states[t], core.last[t], int(core.seat[t]))


def render_keglebillard_aec(env) -> np.ndarray:
    """Frame of the PettingZoo keglebillard env."""
    return render_kegle_game(env.game, env.game_state, env.last_shot)


# ---------------------------------------------------------------------------------------------
# Golfbillard
# ---------------------------------------------------------------------------------------------

GOLF_IDS = tuple([f"w{k}" for k in range(1, 6)] + [f"r{k}" for k in range(1, 6)])
SIDE_NAMES = ("white", "red")


@functools.lru_cache(maxsize=4)
def golf_renderer(zones: bool = True, width: int = 800) -> TableRenderer:
    """The golfbillard table; ``zones`` draws the triangles, stroke lines and strip lines."""
    from cuegym.rules.golfbillard import golf_geometry

    geo = golf_geometry()
    lines = []
    if zones:
        zs = geo.zones
        for name, z in zs.zones.items():
            if not (name.startswith(("great_triangle", "small_triangle", "stroke_line"))
                    or name.startswith("strip")):
                continue
            for poly in z.polygons:
                for k in range(len(poly)):
                    (x1, y1), (x2, y2) = poly[k], poly[(k + 1) % len(poly)]
                    lines.append((float(x1), float(y1), float(x2), float(y2)))
            for (x1, y1), (x2, y2) in z.segments:
                lines.append((float(x1), float(y1), float(x2), float(y2)))
    spots = [tuple(p) for p in geo.start]
    return TableRenderer(geo.table, geo.R, width, lines=lines, spots=spots, hud_lines=2,
                         line_rgb=(95, 165, 120))


def golf_scene(xy: np.ndarray, starts: np.ndarray | None = None, paths=(),
               hud: Sequence[str] = (), marks=()) -> Scene:
    """A golfbillard scene: xy (10, 2) with NaN for scored balls."""
    scene = Scene(hud=list(hud), paths=list(paths), marks=list(marks))
    if starts is not None:
        for b in range(len(starts)):
            if not np.isnan(starts[b, 0]):
                scene.starts.append(Ball(*starts[b], ball_rgb(GOLF_IDS[b])))
    for b in range(len(xy)):
        if not np.isnan(xy[b, 0]):
            scene.balls.append(Ball(*xy[b], ball_rgb(GOLF_IDS[b]), GOLF_IDS[b][1:]))
    return scene


def _golf_line(o, side: int) -> str:
    from cuegym.rules.golfbillard_game import OpeningOutcome

    if isinstance(o, OpeningOutcome):
        return f"opening: {o.reason}"
    own, opp = int(o.scored[side]), int(o.scored[1 - side])
    head = f"foul {o.foul.rule}" if o.foul is not None else "no foul"
    turn = "keeps the turn" if o.turn_kept else "turn passes"
    return f"{head}; scored own {own}, opponent {opp}; {turn}" + (
        f"; game over, winner side {o.winner}" if o.game_over and o.winner >= 0 else "")


def render_golf_shot(core, t: int) -> np.ndarray:
    """Frame of table t of a golfbillard Shot core (zones drawn unless ``core.render_zones`` is
    False)."""
    r = golf_renderer(getattr(core, "render_zones", True))
    st = core.states[t]
    side = int(core.pov[t])
    last = core.last if core.done[t] else None
    left = st.balls_left
    hud = [f"side {side} ({SIDE_NAMES[side]}) to strike" + ("   kader play" if st.kader else "")
           + f"   balls left: white {left[0]}, red {left[1]}"]
    if last is None:
        hud.append(f"position {int(core.index[t])}")
        return r.draw(golf_scene(st.xy, hud=hud))
    res, o = last["res"], last["outs"][t]
    cue = last["cue"][t]
    b = int(last["cb"][t])
    hud[0] = (f"side {side} struck {GOLF_IDS[b]}: V0 {cue[0]:.2f} m/s  phi {cue[1]:.1f}  theta "
              f"{cue[2]:.1f}  a {cue[3]:+.2f}  b {cue[4]:+.2f}")
    hud.append(_golf_line(o, side))
    starts = res.rvw0[t, :, 0, :2].copy()
    starts[res.motion0[t] == 4] = np.nan
    return r.draw(golf_scene(o.xy, starts, shot_paths(res, t, GOLF_IDS), hud))


def render_golf_game(st, last, learner: int | None = None, zones: bool = True) -> np.ndarray:
    """Frame of a golfbillard state with the last stroke's paths (``last``: (SimResult, row,
    outcome, state before, struck balls, strikes) or None)."""
    r = golf_renderer(zones)
    left = st.balls_left
    who = ("match over" if st.phase == "over" else
           "opening" if st.phase == "opening" else f"to move: side {st.to_move}")
    me = "" if learner is None else f"learner side {learner}   "
    hud = [f"{me}balls left: white {left[0]}, red {left[1]}   {who}"
           + ("   kader play" if st.kader else "")]
    paths, starts = (), None
    if last is not None:
        from cuegym.rules.golfbillard_game import OpeningOutcome

        res, row, o, before, _, _ = last
        shooter = getattr(o, "shooter", None)
        side = before.to_move if shooter is None else shooter
        line = _golf_line(o, side)
        # "own" and "turn passes" are the shooter's: name it (an opponent's stroke may be the
        # last one of a full-game step, and the opening is both sides' at once)
        hud.append(line if isinstance(o, OpeningOutcome)
                   else f"last stroke side {side} ({SIDE_NAMES[side]}): {line}")
        paths = shot_paths(res, row, GOLF_IDS)
        starts = res.rvw0[row, :, 0, :2].copy()
        starts[res.motion0[row] == 4] = np.nan
    return r.draw(golf_scene(st.xy, starts, paths, hud))


def render_golf_state(core, t: int) -> np.ndarray:
    """Frame of table t of a golfbillard full-game core."""
    return render_golf_game(core.states[t], core.last[t], int(core.side[t]),
                            getattr(core, "render_zones", True))


#: ``from cuegym.envs.render import video_frames`` (and the animation's other names) keeps
#: working: :mod:`cuegym.envs.render_shots` imports this module, so they come on first use
__getattr__ = moved_names(__name__, "cuegym.envs.render_shots",
                          ("ANIMATION_FPS", "MAX_SHOT_FRAMES", "StepClip", "VIDEO_BLOCK",
                           "check_shot_frames", "shot_frame_count", "shot_frames", "step_clip",
                           "video_frames"))
