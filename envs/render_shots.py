"""Shot animations and video frames: a simulated shot drawn frame by frame as it happens.

:func:`shot_frames` draws one shot of a SimResult (balls at their closed-form positions, growing
paths, pins falling, pocketed balls gone) with the frame renderers of
:mod:`cuegym.envs.render`; ``experiments/replay.py`` writes them as GIFs and videos, and the
envs' ``render_mode="rgb_array_list"`` keeps each step's :class:`StepClip` to draw on
``render()``. :func:`video_frames` pads frames to the video codecs' blocks (``cuegym replay``,
:class:`cuegym.envs.wrappers.RecordShotVideo`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .render import (
    GOLF_IDS,
    HUD_BG,
    KEGLE_IDS,
    _golf_line,
    _one_table,
    _shot_line,
    _with_events,
    ball_rgb,
    golf_renderer,
    golf_scene,
    kegle_renderer,
    kegle_scene,
)

#: Rows and columns of a video frame are a multiple of this (the codecs' macro block; imageio
#: would otherwise resize the frames, stretching the table).
VIDEO_BLOCK = 16


def video_frames(frames: list[np.ndarray]) -> list[np.ndarray]:
    """``frames`` (H, W, 3) uint8 padded to a multiple of :data:`VIDEO_BLOCK` pixels: rows added
    on top in the text strip's colour, columns on the right in the edge's colour, so that the
    table keeps its proportions. imageio's own fix is to resize, stretching it by up to 15 / H;
    moviepy has none, and an odd height gets a 4:4:4 H.264 that most players cannot decode.
    Used by ``cuegym replay`` and :class:`cuegym.envs.wrappers.RecordShotVideo`."""
    if not frames:
        return frames
    h, w = frames[0].shape[:2]
    dh, dw = -h % VIDEO_BLOCK, -w % VIDEO_BLOCK
    if not dh and not dw:
        return frames
    out = []
    for f in frames:
        g = np.empty((h + dh, w + dw, 3), np.uint8)
        g[:dh] = HUD_BG
        g[dh:, :w] = f
        g[dh:, w:] = f[:, -1:]
        out.append(g)
    return out


# ---------------------------------------------------------------------------------------------
# Animation (replays)
# ---------------------------------------------------------------------------------------------

#: Most frames of one animated shot (each about 1 MB in memory until the file is written): a
#: tiny speed would otherwise fill the memory for hours (``replay --speed 1e-6``).
MAX_SHOT_FRAMES = 2500


def shot_frame_count(shown: float, fps: float, speed: float) -> int | float:
    """Frames :func:`shot_frames` draws for ``shown`` simulated seconds at ``fps`` frames per
    second and ``speed`` simulated seconds per real second (both ends included); ``inf`` where
    the count would not fit in a float."""
    n = shown * fps / speed
    return max(2, math.ceil(n) + 1) if math.isfinite(n) else math.inf


def check_shot_frames(shown: float, fps: float, speed: float) -> int:
    """:func:`shot_frame_count`, or a ValueError naming the speed, fps and count where it is
    over :data:`MAX_SHOT_FRAMES` (replay.py asks before simulating, :func:`shot_frames` when
    drawing)."""
    n = shot_frame_count(shown, fps, speed)
    if n > MAX_SHOT_FRAMES:
        raise ValueError(f"speed {speed:g} at {fps:g} fps would make {n:,} frames of a "
                         f"{shown:g} s shot (at most {MAX_SHOT_FRAMES}): raise the speed or "
                         "lower the fps")
    return int(n)


def shot_frames(game: str, res, row: int, *, hud: Sequence[str] = (), result: str = "",
                fps: float = 20.0, speed: float = 1.0, max_seconds: float = 10.0,
                zones: bool = True) -> list[np.ndarray]:
    """Frames of one simulated shot as it happens: balls at their closed-form positions,
    growing paths, pins falling at their topple time (keglebillard), pocketed balls gone.

    Args:
        game: ``keglebillard`` or ``golfbillard``. res, row: a SimResult and the table in it.
        hud: heading lines, shown on every frame, followed by the simulated time.
        result: the shot's outcome (points, fouls), shown from its last frame on only, so the
            animation does not tell the result before the balls reach it.
        fps: frames per second of the output; speed: simulated seconds per real second.
        max_seconds: simulated time shown at most (the last frame is the shot's end).
    """
    from cuegym.physics.constants import EV_BALL_POCKET
    from cuegym.physics.path import positions_at

    kegle = game == "keglebillard"
    r = kegle_renderer(res.table.name) if kegle else golf_renderer(zones)
    ids = KEGLE_IDS if kegle else GOLF_IDS
    t_end = float(res.t_end[row])
    shown = min(t_end, max_seconds)
    n = check_shot_frames(shown, fps, speed)
    times = np.linspace(0.0, shown, n)
    if t_end > shown:
        times = np.append(times, t_end)
    one = _one_table(res, row)
    fine = _with_events(res, row, times)  # the trails also pass through every event
    pos = positions_at(one, fine)[0]
    at = np.searchsorted(fine, times)
    B = pos.shape[1]
    pocket_t = np.full(B, np.inf)
    for k in range(int(res.n_events[row])):
        if res.ev_type[row, k] == EV_BALL_POCKET:
            pocket_t[res.ev_i[row, k]] = res.ev_time[row, k]
    present0 = res.motion0[row] != 4
    frames = []
    for k, tk in enumerate(times):
        xy = pos[at[k]].copy()
        gone = ~present0 | (tk >= pocket_t)
        xy[gone] = np.nan
        paths = []
        for b in range(B):
            if not present0[b]:
                continue
            p = pos[: at[k] + 1][fine[: at[k] + 1] <= pocket_t[b] + 1e-12, b]
            if len(p) > 1 and np.ptp(p, axis=0).max() > 1e-4:
                paths.append((p, ball_rgb(ids[b])))
        clock = f"t = {tk:5.2f} s"
        if result and k == len(times) - 1:
            clock = f"{result}   {clock}"
        lines = [*hud, clock] if len(hud) < 2 else [hud[0], f"{hud[1]}   {clock}"]
        if kegle:
            up = res.pins_up0[row] & (res.pin_topple_time[row] > tk)
            scene = kegle_scene(res.table, xy, up, res.pin_fall_dir[row], paths=paths,
                                hud=lines)
        else:
            scene = golf_scene(xy, paths=paths, hud=lines)
        frames.append(r.draw(scene))
    return frames


#: Frames per second of the animated render mode (``rgb_array_list``) and of its videos.
ANIMATION_FPS = 25


@dataclass
class StepClip:
    """One step of table t as ``render_mode="rgb_array_list"`` shows it, kept until
    ``render()``: the step's last shot (``res``, one table's SimResult, copied; None when
    nothing moved) with its outcome line, and ``final``, the table as the step left it (drawn
    at once, as gymnasium's RenderCollection draws each step). The animation is drawn only
    when asked for (:meth:`frames`): drawing it at every step cost seconds and about 170 MiB a
    step of a full game that nobody rendered."""

    game: str
    res: object | None
    result: str
    zones: bool
    final: np.ndarray

    def frames(self, fps: float = ANIMATION_FPS, max_seconds: float = 10.0
               ) -> list[np.ndarray]:
        """(H, W, 3) uint8 frames: the shot at ``fps`` frames per second of simulated time (at
        most ``max_seconds`` shown), then the final table."""
        shot = [] if self.res is None else shot_frames(
            self.game, self.res, 0, result=self.result, fps=fps, max_seconds=max_seconds,
            zones=self.zones)
        return [*shot, self.final]


def step_clip(core, t: int) -> StepClip:
    """Table ``t``'s last step (see :class:`StepClip`). The Shot envs keep their one shot; the
    full-game envs the last shot of the step (an opponent's when opponents shot after the
    learner). A keglebillard placement foul (nothing moves) keeps the final table only."""
    from .kegle import outcome_summary

    golf = hasattr(core, "geo")
    last = core.last
    res, row, result = None, -1, ""
    if isinstance(last, dict):  # Shot cores: the step's batch of shots
        if golf:
            res, row = last["res"], t
            result = _golf_line(last["outs"][t], int(last["side"][t]))
        elif int(core.last_row[t]) >= 0:
            res, row = last["res"], int(core.last_row[t])
            result = _shot_line(last["info"], t)
    elif isinstance(last, list) and last[t] is not None:  # game cores: per table
        res, row = last[t][0], int(last[t][1])
        o = last[t][2]
        result = (_golf_line(o, getattr(o, "shooter", None) or last[t][3].to_move) if golf
                  else outcome_summary(o))
    return StepClip("golfbillard" if golf else "keglebillard",
                    None if res is None or row < 0 else _one_table(res, row, keep=True),
                    result, getattr(core, "render_zones", True), core.render_table(t))
