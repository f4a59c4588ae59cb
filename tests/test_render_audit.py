"""Pictures, measured: replay GIF / video files (colours, timing, proportions, no half-written
file), the trajectory plot (goals, matplotlib backend) and the golfbillard game HUD."""

from __future__ import annotations

import subprocess
import sys
import types

import numpy as np
import pytest

from cuegym.experiments import replay


def _gif_frames(path):
    """(frames as (H, W, 3) uint8, delays [ms]) of a GIF, as a viewer shows them."""
    from PIL import Image

    im = Image.open(path)
    frames, delays = [], []
    for k in range(im.n_frames):
        im.seek(k)
        frames.append(np.asarray(im.convert("RGB")))
        delays.append(im.info["duration"])
    return frames, delays


def test_gif_keeps_the_kings_gold_in_every_frame(tmp_path):
    """One palette for the whole GIF, with the renderer's colours in it: imageio quantised each
    frame on its own and the king (a 5 px disc) came out pale wood in most frames."""
    from cuegym.envs.render import KING_WOOD, SS, kegle_renderer

    frames = replay.replay_shot(replay.Settings(seed=0, fps=5))  # the king is not hit
    out = tmp_path / "shot.gif"
    replay.write(frames, out, 5)
    u, v = kegle_renderer("keglebillard").px(0.0, 0.0)  # the king's spot
    gold = [np.abs(f[int(v) // SS, int(u) // SS].astype(int) - KING_WOOD).max() <= 12
            for f in frames]
    assert all(gold)  # as drawn (no ball crosses the king in this shot)
    shown, _ = _gif_frames(out)
    assert len(shown) >= 3
    for f in shown:
        assert np.abs(f[int(v) // SS, int(u) // SS].astype(int) - KING_WOOD).max() <= 12


@pytest.mark.parametrize("fps", [20.0, 30.0, 15.0, 7.0, 60.0, 100.0])
def test_gif_plays_for_frames_over_fps_seconds(tmp_path, fps):
    """GIF delays are whole centiseconds: 1000 / fps ms each, rounded down, made a 30 fps GIF
    10 % fast and a 60 fps one 40 %; under 2 cs browsers show 10 cs. The delays now add up to
    n / fps, none under 20 ms, and the last frame is the last one given."""
    n = 30
    frames = [np.full((16, 24, 3), (8 * k, 255 - 8 * k, 40), np.uint8) for k in range(n)]
    out = tmp_path / "t.gif"
    replay.write(frames, out, fps)
    shown, delays = _gif_frames(out)
    assert abs(sum(delays) - 1000.0 * n / fps) <= 10
    assert min(delays) >= 20
    assert np.abs(shown[-1].astype(int) - frames[-1]).max() <= 2


def test_video_keeps_the_tables_proportions(tmp_path):
    """A 473 px high frame is padded to 480 (the codec's 16 px blocks), not stretched."""
    pytest.importorskip("imageio_ffmpeg")
    import imageio.v2 as imageio

    from cuegym.envs.render import CLOTH, kegle_renderer, kegle_scene

    r = kegle_renderer("keglebillard")
    frame = r.draw(kegle_scene(r.table, np.array([[-0.6, 0.2], [0.3, -0.1], [0.5, 0.3]]),
                               [True] * 5, hud=["video"]))
    assert frame.shape[0] % 16 != 0  # the case: 473 rows
    out = tmp_path / "v.mp4"
    replay.write([frame] * 4, out, 5)
    back = imageio.mimread(out)[0]
    pad = -frame.shape[0] % 16
    assert back.shape[:2] == (frame.shape[0] + pad, frame.shape[1])
    # the table where it was drawn (lossy codec: a small mean difference), its cloth starting
    # ``pad`` rows lower (stretched, it started 1 row lower)
    assert np.abs(back[pad:].astype(int) - frame).mean() < 4

    def cloth_top(img):
        col = img[:, 300].astype(int)  # a column of cloth between the rails
        return int(np.flatnonzero(np.abs(col - CLOTH).max(axis=1) <= 12)[0])

    assert abs(cloth_top(back) - (cloth_top(frame) + pad)) <= 1


def test_failed_write_leaves_no_file(tmp_path, monkeypatch):
    """A writer that fails half way (here ffmpeg) leaves neither the output nor a temporary."""
    import imageio.v2 as imageio

    from cuegym.cli_errors import UsageError

    def half(path, frames, **kw):
        with open(path, "wb") as fh:
            fh.write(b"\x00" * 100)
        raise RuntimeError("encoder died")

    monkeypatch.setattr(imageio, "mimsave", half)
    out = tmp_path / "v.mp4"
    with pytest.raises(UsageError, match="cannot write .mp4"):
        replay.write([np.zeros((16, 16, 3), np.uint8)] * 2, out, 5)
    assert list(tmp_path.iterdir()) == []


def _golf_break():
    from cuegym.configs import load_params, load_table
    from cuegym.physics import simulate
    from cuegym.rules.golfbillard import golf_geometry

    table, params = load_table("golfbillard"), load_params("golfbillard")
    xy = golf_geometry().start[None]
    cue = [[[1.8, 33.0, 0.0, 0.0, 0.2], [1.8, -147.0, 0.0, 0.0, 0.2]]]
    return simulate(table, params, xy, cue_ball=[[0, 5]], cue=cue)


def test_plot_draws_golf_goals_inside_the_cloth(tmp_path):
    """A golfbillard goal is a hole in the cloth ending at the unbroken cushion (as
    envs/render.py draws it): the rail behind it stays rail, the hole is black."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    from cuegym.physics.plot import RAIL, plot_shot

    fig = plot_shot(_golf_break(), 0)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    img = np.asarray(canvas.buffer_rgba())[..., :3].astype(int)
    ax = fig.axes[0]

    def rgb(x, y):
        u, v = ax.transData.transform((x, y))
        return img[img.shape[0] - 1 - int(round(v)), int(round(u))]

    rail = np.array([int(RAIL[i:i + 2], 16) for i in (1, 3, 5)])
    for sx in (1, -1):
        assert np.abs(rgb(sx * 0.918, 0.0) - rail).max() <= 8  # behind the cushion nose
        assert rgb(sx * 0.885, 0.0).max() <= 8  # the hole
    assert fig.canvas is canvas


def test_plot_shot_leaves_the_callers_backend_alone():
    """plot_shot selected Agg with matplotlib.use: a notebook's or a Qt session's figures then
    no longer showed. It now draws on a Figure of its own."""
    code = (
        "import matplotlib; matplotlib.use('svg')\n"
        "import matplotlib.pyplot as plt, numpy as np\n"
        "from cuegym.configs import load_params, load_table\n"
        "from cuegym.physics import simulate\n"
        "from cuegym.physics.plot import plot_shot\n"
        "t, p = load_table('keglebillard'), load_params('keglebillard')\n"
        "res = simulate(t, p, np.array([[[-0.5, 0.1], [0.5, 0.2], [0.5, -0.2]]]), "
        "cue_ball=[0], cue=[[0.5, 0.0, 0.0, 0.0, 0.0]])\n"
        "fig = plot_shot(res)\n"
        "import io; fig.savefig(io.BytesIO(), format='png')\n"
        "print(matplotlib.get_backend(), plt.get_fignums())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[-2] == "svg []"


def test_golf_game_hud_names_the_last_strokes_side(monkeypatch):
    """'scored own 1, opponent 0; turn passes' is the shooter's: the line names the side (the
    last stroke of a full-game step may be the opponent's)."""
    from cuegym.envs import render

    seen = []
    monkeypatch.setattr(render.TableRenderer, "draw", lambda self, scene: seen.append(scene))
    res = _golf_break()
    st = types.SimpleNamespace(balls_left=np.array([5, 4]), phase="play", to_move=0,
                               kader=False, xy=res.rvw[0, :, 0, :2])
    o = types.SimpleNamespace(shooter=1, scored=np.array([0, 1]), foul=None, turn_kept=False,
                              game_over=False, winner=-1)
    before = types.SimpleNamespace(to_move=1)
    render.render_golf_game(st, (res, 0, o, before, None, None), learner=0)
    assert seen[0].hud[1] == ("last stroke side 1 (red): no foul; scored own 1, opponent 0; "
                              "turn passes")
