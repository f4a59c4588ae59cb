"""Rendering, second outside audit: the animated render mode draws only what is rendered,
replay's held frames and video suffixes, the agents' replay heading, the human mode on a
headless backend and the full-game keglebillard text (docs/envs.md, "Rendering and
replays")."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import cuegym  # noqa: F401 (registers the env ids)
from cuegym.envs import render, render_shots
from cuegym.envs.render_shots import step_clip
from cuegym.experiments import replay


def test_rgb_array_list_draws_the_animation_only_when_rendered(monkeypatch):
    """Each step drew its whole animation (about 4 s, 170 MiB a full-game step) even where no
    render() came; the frames are the same when drawn later."""
    eager = gym.make("cuegym/Keglebillard-v0", render_mode="rgb_array_list")
    lazy = gym.make("cuegym/Keglebillard-v0", render_mode="rgb_array_list")
    for e in (eager, lazy):
        e.reset(seed=3)
    want = [eager.render()[0]]
    a = np.array([0.4, 0.1, 0.0, 0.0, 0.0, -0.5, 0.2], np.float32)
    calls = []
    real = render_shots.shot_frames
    monkeypatch.setattr(render_shots, "shot_frames",
                        lambda *x, **k: calls.append(1) or real(*x, **k))
    for _ in range(3):  # the core's workspace is reused: what a step kept must outlive it
        eager.step(a)
        want += step_clip(eager.unwrapped.core, 0).frames()
    n_eager = len(calls)
    assert n_eager >= 3
    for _ in range(3):
        lazy.step(a)
    assert len(calls) == n_eager  # the steps drew no animation
    got = lazy.render()
    assert len(calls) == 2 * n_eager  # drawn now, by render()
    assert len(got) == len(want)
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True))
    assert lazy.render() == []


def test_replay_holds_start_and_end_below_one_frame_a_second(tmp_path):
    """--fps 0.4 held int(0.4) = 0 start frames (and made a K-19 replay an empty list)."""
    cfg = replay.Settings(seed=0, fps=0.4)
    frames = replay.replay_shot(cfg)
    env = gym.make("cuegym/KeglebillardShot-v0", render_mode="rgb_array")
    env.reset(seed=0)
    assert np.array_equal(frames[0], env.render())  # the position, before the shot
    assert len(frames) >= 3


def test_replay_writes_webm(tmp_path):
    """imageio's default codec (libx264) is refused by WebM: a broken-pipe traceback."""
    pytest.importorskip("imageio_ffmpeg")
    frames = [np.full((48, 64, 3), v, np.uint8) for v in range(0, 250, 5)]  # 50 frames
    out = tmp_path / "clip.webm"
    replay.write(frames, out, 4)
    assert out.stat().st_size > 0


def test_agents_replay_heading_shows_the_score_before_the_shot(monkeypatch):
    huds = []
    real = render_shots.shot_frames

    def spy(*a, hud=(), **k):
        huds.append(list(hud))
        return real(*a, hud=hud, **k)

    monkeypatch.setattr(render_shots, "shot_frames", spy)
    replay.replay_agents(replay.Settings(agents="geometric,geometric", max_shots=2,
                                         animate=True, fps=2))
    assert "scores [0, 0]" in huds[0][0]


def test_human_mode_on_a_headless_backend_makes_no_window():
    import matplotlib
    import matplotlib.pyplot as plt

    if matplotlib.get_backend().lower() != "agg":
        pytest.skip("needs the Agg backend")
    before = plt.get_fignums()
    env = gym.make("cuegym/KeglebillardShot-v0", render_mode="human")
    env.reset(seed=0)
    env.step(np.zeros(7, np.float32))
    assert plt.get_fignums() == before
    assert env.unwrapped._viewer.windowless
    env.close()


def test_game_frame_text_names_the_pins_the_last_shot_toppled():
    """The frame shows the pins stood up again (K-P7); the text said only the points."""
    env = gym.make("cuegym/Keglebillard-v0", render_mode="rgb_array")
    env.reset(seed=0)
    env.action_space.seed(0)
    core = env.unwrapped.core
    for _ in range(40):
        env.step(env.action_space.sample())
        last = core.last[0]
        if last is not None and last[2].pins_toppled:
            break
    else:
        pytest.fail("no pin toppled in 40 random steps")
    hud = render.kegle_game_hud(core.states[0], last)
    assert "pins down: " in hud[1]
    assert all(p in hud[1] for p in last[2].pins_toppled)


@pytest.mark.parametrize("env_id", ["cuegym/KeglebillardShot-v0", "cuegym/GolfbillardShot-v0"])
def test_record_shot_video_writes_4_2_0_h264(tmp_path, env_id):
    """RecordShotVideo pads its frames (800 x 473 / 477) to whole 16-pixel blocks, as ``cuegym
    replay`` does: moviepy wrote the odd-sized frames as a 4:4:4 H.264 (High 4:4:4 Predictive)
    that browsers and most players cannot decode."""
    pytest.importorskip("moviepy")
    ffmpeg = pytest.importorskip("imageio_ffmpeg")
    import subprocess

    from cuegym.envs.wrappers import RecordShotVideo

    out = tmp_path / "videos"  # a folder of its own: RecordVideo warns of an existing one
    env = RecordShotVideo(gym.make(env_id, render_mode="rgb_array_list"), str(out),
                          episode_trigger=lambda e: True, disable_logger=True)
    env.reset(seed=0)
    env.step(env.action_space.sample())
    env.close()
    (video,) = out.glob("*.mp4")
    probe = subprocess.run([ffmpeg.get_ffmpeg_exe(), "-hide_banner", "-i", str(video)],
                           capture_output=True, text=True).stderr
    line = next(x for x in probe.splitlines() if "Video:" in x)
    assert "yuv420p" in line and "800x480" in line, line


def test_video_frames_pad_to_whole_blocks_keeping_the_table():
    from cuegym.envs.render import HUD_BG
    from cuegym.envs.render_shots import video_frames

    f = np.arange(473 * 801 * 3, dtype=np.uint32).reshape(473, 801, 3).astype(np.uint8)
    (g,) = video_frames([f])
    assert g.shape == (480, 816, 3) and g.dtype == np.uint8
    assert (g[:7] == np.array(HUD_BG, np.uint8)).all()  # rows on top: the text strip's colour
    assert (g[7:, :801] == f).all() and (g[7:, 801:] == f[:, -1:]).all()
    even = np.zeros((480, 800, 3), np.uint8)
    assert video_frames([even])[0] is even
