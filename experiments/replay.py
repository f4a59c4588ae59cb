"""Write a GIF (or MP4) replay of a shot or a whole game, drawn by the envs' renderer.

    python experiments/replay.py                                   # a keglebillard shot
    python experiments/replay.py --game golfbillard --what shot --seed 3
    python experiments/replay.py --what game --max-shots 30        # a whole game, one frame a shot
    python experiments/replay.py --what game --animate --max-shots 6 --out runs/replay/game.gif
    python experiments/replay.py --agents pretrained,geometric     # a whole game between agents
    python experiments/replay.py --what game --table keglebillard-helmatch
    python experiments/replay.py --what game --rules variant=ddbu distance=30

A shot is drawn from the Shot env's position bank (``--seed``) and played with ``--action``
(seven numbers in [-1, 1], the env's action layout) or, by default, the rules' random policy
(keglebillard: half the shots aimed at a white; golfbillard: a random own ball aimed roughly at
the attack goal). A game is played from the break / opening with that policy for every player,
or with ``--agents a,b`` between two agents (``cuegym.agents`` names or model .zip paths, seat 0
first; implies ``--what game``), through the play app's game layer (``cuegym.play.session``).
``--rules`` gives rule options over the shipped ones, as ``evaluate.py`` takes them: a shot
takes those that score it (a Shot env refuses the game's flow: ``first_player``, ``distance``...),
a random game all of them, a game between agents those the play app's table takes
(:data:`AGENT_RULES`). Frames come from cuegym.envs.render; ``.mp4`` needs imageio's ffmpeg
plugin. Prints a JSON line
with the output path and the number of frames.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from cuegym.cli_errors import UsageError, check_writable_dir, cli_main, script_prog, seed_arg
from cuegym.experiments.train_config import RULES_HELP, parse_rules


@dataclass
class Settings:
    """Replay settings (one line each)."""

    game: str = "keglebillard"  # keglebillard | golfbillard
    what: str = "shot"  # shot | game
    seed: int = 0  # position draw and policy seed
    action: list[float] = field(default_factory=list)  # shot: the env action (else the policy)
    noise: str = "none"  # shot-noise preset of the executed strikes
    max_shots: int = 60  # game: stop after this many shots
    animate: bool = False  # game: animate every shot (else one frame per shot)
    fps: float = 20.0  # frames per second of the output
    speed: float = 1.0  # simulated seconds per real second
    out: str = ""  # output file (default runs/replay/<game>_<what>_<seed>.gif)
    agents: str = ""  # game between two agents "a,b" (else the rules' random policy)
    table: str = ""  # keglebillard table config (default the game's own: the kleinmatch)
    rules: dict | None = None  # rule options over the shipped ones (None: the shipped rules)


#: The rule options of a game between agents: the web table's (``cuegym.play.session``, which
#: plays it two seats at a time, golfbillard singles); the rest are the shipped rules.
AGENT_RULES = {"keglebillard": ("distance",), "golfbillard": ("match",)}

#: Simulated seconds of a shot animated at most (``shot_frames``' ``max_seconds``): with --fps
#: and --speed it bounds a shot's frames, checked before anything is simulated.
SHOT_SECONDS = 10.0


def _kegle_policy_action(core, rng) -> np.ndarray:
    """The rules' random policy for a Shot-env keglebillard table, as an env action."""
    from cuegym.envs.actions import actions_from_strikes
    from cuegym.rules.keglebillard_game import random_policy

    st = core.states.state(0)  # the position, as a rules state
    hand = st.ball_in_hand
    red, cue = random_policy(core.game, st, rng)
    a = np.zeros(7)
    a[:5] = actions_from_strikes(cue, core.settings.action)[0]
    if red is not None:
        m = core.actions
        x_hi = m.salvo_x if hand == "salvo" else m.hx
        a[5] = np.clip(2 * (red[0] + m.hx) / (x_hi + m.hx) - 1, -1, 1)
        a[6] = np.clip(red[1] / m.hy, -1, 1)
    return a


def _golf_policy_action(core, rng) -> np.ndarray:
    from cuegym.envs.actions import actions_from_strikes
    from cuegym.rules.golfbillard_game import random_policy

    st = core.states[0]
    cb, cue = random_policy(st, rng)
    side = st.to_move
    a = np.zeros(7)
    a[:5] = actions_from_strikes(cue[:1], core.settings.action, 180.0 * side)[0]
    sign = 1.0 if side == 0 else -1.0
    a[5:7] = np.clip(st.xy[cb[0]] * sign / core.actions.half, -1, 1)
    return a


def replay_shot(cfg: Settings) -> list[np.ndarray]:
    import gymnasium as gym

    import cuegym.envs  # noqa: F401
    from cuegym.envs.render_shots import shot_frames

    env_id = "cuegym/KeglebillardShot-v0" if cfg.game == "keglebillard" \
        else "cuegym/GolfbillardShot-v0"
    kw = {"table": cfg.table} if cfg.table and cfg.game == "keglebillard" else {}
    env = gym.make(env_id, render_mode="rgb_array", noise=cfg.noise, rules=cfg.rules, **kw)
    env.reset(seed=cfg.seed)
    core = env.unwrapped.core
    rng = np.random.default_rng(cfg.seed)
    if cfg.action:
        a = np.asarray(cfg.action, np.float32)
    elif cfg.game == "keglebillard":
        a = _kegle_policy_action(core, rng).astype(np.float32)
    else:
        a = _golf_policy_action(core, rng).astype(np.float32)
    start = env.render()
    _, reward, _, _, info = env.step(a)
    end = env.render()
    # the start held 1 s and the end 2 s, at least one frame each (--fps may be below 1)
    held = [start] * max(1, round(cfg.fps)), [end] * max(1, round(2 * cfg.fps))
    if cfg.game == "keglebillard":
        if core.last_row[0] < 0:  # an unplayable placement: nothing moves
            return held[0] + held[1]
        res, row = core.last["res"], int(core.last_row[0])
    else:
        res, row = core.last["res"], 0
    from cuegym.envs.render import _golf_line, _shot_line  # noqa: PLC0415

    line = _shot_line(info_batch(info), 0) if cfg.game == "keglebillard" else \
        _golf_line(core.last["outs"][0], int(core.last["side"][0]))
    frames = shot_frames(cfg.game, res, row, result=f"{line}   reward {reward:+.3f}",
                         fps=cfg.fps, speed=cfg.speed, max_seconds=SHOT_SECONDS)
    return held[0] + frames + held[1]


def info_batch(info: dict) -> dict:
    """A single env's info as the one-table batch the HUD helpers read."""
    return {k: (info_batch(v) if isinstance(v, dict) else np.asarray([v]))
            for k, v in info.items()}


def replay_game(cfg: Settings) -> list[np.ndarray]:
    """A whole game of random legal play (the rules' ``random_policy``), one held frame per
    shot, or every shot animated."""
    from cuegym.envs.config import load_noise

    rng = np.random.default_rng(cfg.seed)
    noise = load_noise(cfg.noise)
    hold = max(1, int(cfg.fps // 2))
    play = _kegle_random_game if cfg.game == "keglebillard" else _golf_random_game
    frames = play(cfg, rng, noise, hold)
    return frames + [frames[-1]] * int(cfg.fps)


def _kegle_random_game(cfg: Settings, rng: np.random.Generator, noise: Any,
                       hold: int) -> list[np.ndarray]:
    from cuegym.envs.config import load_settings
    from cuegym.envs.kegle import outcome_summary
    from cuegym.envs.render import render_kegle_game
    from cuegym.envs.render_shots import shot_frames
    from cuegym.games.kegle import Kegle
    from cuegym.games.strikes import Strikes
    from cuegym.rules.keglebillard_game import random_policy

    game = Kegle(cfg.rules, table=cfg.table or "keglebillard")
    s = load_settings("keglebillard")
    states = game.new(1, 2, rng=rng)  # (the breaker's draw under first_player: random)
    st = states.state(0)
    frames = [render_kegle_game(game, st, None)] * hold
    for _ in range(cfg.max_shots):
        if st.game_over:
            break
        shooter = st.to_play
        red, cue = random_policy(game, st, rng)
        place = np.full((1, 2), np.nan) if red is None else np.asarray(red)[None]
        out, states = game.play(states, Strikes.of(cue, place=place), noise, [rng],
                                max_events=s.max_events, t_max=s.t_max, allow_overflow=True)
        res, row, o = out.sim, int(out.row[0]), out.outcome(0)
        if cfg.animate and row >= 0:
            hud = [f"P{shooter} shoots   scores {list(st.scores)}"]
            frames += shot_frames("keglebillard", res, row, hud=hud, result=outcome_summary(o),
                                  fps=cfg.fps, speed=cfg.speed, max_seconds=SHOT_SECONDS)
        st = states.state(0)
        frames += [render_kegle_game(game, st, (res, row, o, shooter, out.strike[0]))] * hold
    return frames


def _golf_random_game(cfg: Settings, rng: np.random.Generator, noise: Any,
                      hold: int) -> list[np.ndarray]:
    from cuegym.envs.config import load_settings
    from cuegym.envs.golf import golf_rules
    from cuegym.envs.render import _golf_line, render_golf_game
    from cuegym.envs.render_shots import shot_frames
    from cuegym.games.golf import Golf
    from cuegym.games.strikes import Strikes
    from cuegym.rules.golfbillard_game import random_policy

    game = Golf(golf_rules(cfg.rules))
    s = load_settings("golfbillard")
    states = game.new(1)
    st = states[0]
    frames = [render_golf_game(st, None)] * hold
    for _ in range(cfg.max_shots):
        if st.phase == "over":
            break
        cb, cue = random_policy(st, rng, game.geo)
        s0 = Strikes(cue[0][None], cb[:1], np.full((1, 2), np.nan))
        s1 = Strikes(cue[1][None], [max(int(cb[1]), 0)], np.full((1, 2), np.nan))
        out, states = game.play(states, s0, noise, [rng], strikes1=s1,
                                max_events=s.max_events, t_max=s.t_max, allow_overflow=True)
        res, o = out.sim, out.outcome(0)
        if cfg.animate:
            side = st.to_move
            hud = [f"side {side} strokes   balls left {st.balls_left.tolist()}"]
            frames += shot_frames("golfbillard", res, 0, hud=hud, result=_golf_line(o, side),
                                  fps=cfg.fps, speed=cfg.speed, max_seconds=SHOT_SECONDS)
        frames += [render_golf_game(states[0], (res, 0, o, st, out.cue_ball[0],
                                                out.strike[0]))] * hold
        st = states[0]
    return frames


def replay_agents(cfg: Settings) -> list[np.ndarray]:
    """A whole game between two agents (``cfg.agents``), one held frame per shot (the shot's
    paths and where the balls stopped) or every shot animated."""
    from cuegym.agents import make_agent
    from cuegym.envs.render import render_golf_game, render_kegle_game
    from cuegym.envs.render_shots import shot_frames
    from cuegym.experiments.evaluate import tournament_arena
    from cuegym.play import session
    from cuegym.play.call import golf_call, kegle_call

    specs = agent_specs(cfg.agents)
    table = session.make_table(cfg.game, {**({"table": cfg.table} if cfg.table else {}),
                                          **(cfg.rules or {})})
    arena = tournament_arena(cfg.game, cfg.table or None, cfg.rules)  # (agents aim on it)
    agents = [make_agent(s, cfg.game, arena=arena) for s in specs]
    noise = session.noise_of(cfg.noise)
    rng = np.random.default_rng(cfg.seed)
    st = table.new_state()
    kegle = cfg.game == "keglebillard"
    hold = max(1, int(cfg.fps // 2))

    def still(state):
        return render_kegle_game(table.g, state, None) if kegle else render_golf_game(state, None)

    frames = [still(st)] * hold
    for k in range(cfg.max_shots):
        if table.over(st):
            break
        p = session.agents_move(table, agents, st, noise, rng)
        call = kegle_call(p.outcome, specs) if kegle else golf_call(p.outcome, specs)
        if p.res is None:  # an unplayable K-19 placement: nothing moves
            frames += [still(p.state)] * hold
        else:
            # the score before the shot: the animation does not tell its result (shot_frames
            # shows the call on the last frame)
            scores = (f"scores {list(st.scores)}" if kegle else
                      f"balls left {st.balls_left.tolist()}")
            hud = [f"shot {k + 1}   {specs[0]} vs {specs[1]}   {scores}"]
            # not animated: two frames, of which the last (the shot's end) is kept
            shot = shot_frames(cfg.game, p.res, 0, hud=hud, result=call[0],
                               fps=cfg.fps if cfg.animate else 1e-3,
                               speed=cfg.speed if cfg.animate else 1.0,
                               max_seconds=SHOT_SECONDS)
            frames += (shot if cfg.animate else []) + [shot[-1]] * hold
        st = p.state
    return frames + [still(st)] * int(cfg.fps)


def agent_specs(text: str) -> list[str]:
    """The two agent specs of ``--agents``, split as evaluate splits them (options after a
    colon: ``planner:n_candidates=8,n_noise=2,random`` is two agents) and checked the same way
    (a malformed option is one line naming the spec)."""
    from cuegym.experiments.evaluate import check_agent_names, split_specs

    specs = split_specs(text)
    if len(specs) != 2:
        raise UsageError(f"--agents needs two agents a,b; got {text!r}")
    check_agent_names(specs)
    return specs


def out_path(cfg: Settings) -> Path:
    """The output file: ``--out``, or ``runs/replay/<game or table>_<what>_<seed>.gif``."""
    return Path(cfg.out or f"runs/replay/{cfg.table or cfg.game}_{cfg.what}_{cfg.seed}.gif")


#: what ``--out`` may end in: a GIF, or a video through imageio's ffmpeg plugin
OUT_SUFFIXES = (".gif", ".mp4", ".webm", ".mov", ".mkv", ".avi")
#: the codec of a video suffix whose container does not take imageio's default (libx264)
VIDEO_CODECS = {".webm": "libvpx-vp9"}


def write(frames: list[np.ndarray], path: Path, fps: float) -> None:
    """Write ``frames`` ((H, W, 3) uint8 each, one size) to ``path`` at ``fps`` frames per
    second: a GIF (:func:`write_gif`) or a video through imageio's ffmpeg plugin.

    The file is written next to ``path`` under a temporary name and renamed when complete, so
    a failed or interrupted write leaves no half-written file (and an older ``path`` intact).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.partial{path.suffix}")  # the suffix picks the format
    try:
        if path.suffix.lower() == ".gif":
            write_gif(frames, tmp, fps)
        else:
            import imageio.v2 as imageio

            from cuegym.envs.render_shots import video_frames

            codec = VIDEO_CODECS.get(path.suffix.lower())
            try:
                imageio.mimsave(tmp, video_frames(frames), fps=fps,
                                ffmpeg_log_level="error", **({"codec": codec} if codec else {}))
            except (ValueError, RuntimeError, ImportError, OSError) as e:
                raise UsageError(f"cannot write {path.suffix} ({e}); install imageio-ffmpeg or "
                                 "write a .gif") from None
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


#: A GIF frame's delay is a whole number of centiseconds; browsers show a delay under 2 cs as
#: 10 cs, so no frame is shorter than this.
GIF_MIN_CS = 2


def gif_timing(n: int, fps: float) -> tuple[list[int], list[int]]:
    """Which of ``n`` frames at ``fps`` a GIF shows and for how long: (frame indices, delays
    [ms], multiples of 10). Frame k is due at k / fps s; each shown frame starts at its due
    time rounded to a centisecond, so the total is n / fps s to within 5 ms whatever the fps
    (equal 1000 / fps ms delays, rounded down by the format, made a 30 fps GIF 10 % fast).
    Frames due less than :data:`GIF_MIN_CS` after the last shown one are skipped (fps > 50);
    the last frame is always shown."""
    t = np.rint(np.arange(n + 1) * 100.0 / fps).astype(np.int64)  # due times [cs]
    keep = [0]
    for k in range(1, n):
        if t[k] - t[keep[-1]] >= GIF_MIN_CS:
            keep.append(k)
    starts = t[keep]
    keep[-1] = n - 1  # the final resting state, in the last slot
    cs = np.maximum(np.diff(np.append(starts, t[n])), GIF_MIN_CS)
    return keep, [int(10 * c) for c in cs]


def gif_palette(frames: list[np.ndarray]):
    """One 256-colour palette (a PIL "P" image) for every frame of a GIF: the renderer's named
    colours exactly (the king's gold, the balls' faces, the cloth), then a median cut of a few
    frames for the edges and text. imageio cut each frame on its own: a small patch such as
    the king lost its colour in some frames (drawn pale wood) and flickered."""
    from PIL import Image

    from cuegym.envs import render as r

    named = [r.CLOTH, r.RAIL, r.RAIL_EDGE, r.CUSHION, r.POCKET, r.CAP_FILL, r.CAP_RING,
             r.PIN_WOOD, r.PIN_EDGE, r.KING_WOOD, r.FALLEN, r.LINE, r.HUD_BG, r.HUD_FG,
             *r.BALL_COLOURS.values(), (255, 255, 255), (20, 20, 20), (0, 0, 0)]
    named = list(dict.fromkeys(named))
    step = max(1, len(frames) // 8)
    sample = np.concatenate([*frames[::step][:8], frames[-1]], axis=0)
    cut = Image.fromarray(sample).quantize(256 - len(named), method=Image.Quantize.MEDIANCUT,
                                           dither=Image.Dither.NONE)
    rest = cut.getpalette()[: 3 * (256 - len(named))]
    pal = [c for rgb in named for c in rgb] + rest
    img = Image.new("P", (1, 1))
    img.putpalette(pal + [0] * (768 - len(pal)))
    return img


def write_gif(frames: list[np.ndarray], path: Path, fps: float) -> None:
    """A looping GIF of ``frames`` at ``fps``: one shared palette (:func:`gif_palette`), delays
    that add up to the real duration (:func:`gif_timing`)."""
    from PIL import Image

    keep, delays = gif_timing(len(frames), fps)
    pal = gif_palette(frames)
    images = [Image.fromarray(frames[k]).quantize(palette=pal, dither=Image.Dither.NONE)
              for k in keep]
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:],
                   duration=delays, loop=0)


def check_args(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """Refuse values out of range and options the replay would silently ignore."""
    if a.agents is not None and not a.agents.strip(" ,"):
        ap.error(f"--agents {a.agents!r}: give two agents a,b")
    game = bool(a.agents) or a.what == "game"
    if a.agents and a.what == "shot":
        ap.error("--agents plays a whole game: it cannot be used with --what shot")
    if a.action is not None and game:
        ap.error("--action is the action of a shot (--what shot), not of a game")
    if a.action is not None and not all(np.isfinite(x) and -1.0 <= x <= 1.0 for x in a.action):
        ap.error(f"--action takes seven numbers in [-1, 1] (the env's action), got "
                 f"{' '.join(f'{x:g}' for x in a.action)}")
    if a.max_shots is not None and not game:
        ap.error("--max-shots is for a game (--what game or --agents), not a shot")
    if a.animate and not game:  # a shot is always animated: the flag would do nothing
        ap.error("--animate animates every shot of a game (--what game or --agents); a single "
                 "shot is animated anyway")
    if a.max_shots is not None and a.max_shots < 1:
        ap.error(f"--max-shots must be >= 1, got {a.max_shots}")
    # a GIF frame lasts at most 655.35 s: fps >= 0.01; more than 100 only makes huge files
    if not (np.isfinite(a.fps) and 0.01 <= a.fps <= 100):
        ap.error(f"--fps must be a number in [0.01, 100], got {a.fps}")
    if a.speed is not None and not (np.isfinite(a.speed) and a.speed > 0):
        ap.error(f"--speed must be a finite number > 0, got {a.speed}")
    if a.speed is not None and game and not a.animate:  # one still frame a shot: no pace
        ap.error("--speed sets the pace of an animated shot (--what shot, or a game with "
                 "--animate); without --animate a game shows one frame per shot")
    if not game or a.animate:  # every shot animated: its frames, before anything is simulated
        from cuegym.envs.render_shots import check_shot_frames

        try:
            check_shot_frames(SHOT_SECONDS, a.fps, Settings.speed if a.speed is None else a.speed)
        except ValueError as exc:
            ap.error(f"--speed, --fps: {exc}")
    if a.out is not None and not a.out.strip():
        ap.error(f"--out {a.out!r}: give the output file (an empty one is not the default)")
    if a.out and Path(a.out).suffix.lower() not in OUT_SUFFIXES:
        ap.error(f"--out {a.out!r}: the replay is a .gif or a video "
                 f"({', '.join(OUT_SUFFIXES[1:])}, with imageio-ffmpeg)")
    out = Path(a.out) if a.out else None
    if out is not None and out.is_dir():  # found now, not when writing after the simulation
        ap.error(f"--out {a.out!r} is a folder: give the output file")
    if out is not None:
        check_writable_dir(out.parent, "--out", out)
    from cuegym.games.noise import check_noise_option

    check_noise_option(a.noise)  # before the replay is simulated
    if a.agents:
        agent_specs(a.agents)  # split and checked as evaluate does, before any agent is made
    if a.rules is not None and a.agents:  # the web table's game flow plays a game of agents
        agent_rules = AGENT_RULES[a.game]
        other = sorted(set(a.rules) - set(agent_rules))
        if other:
            ap.error(f"--rules {', '.join(other)}: a game between --agents is played as the web "
                     f"table plays it, which takes the {a.game} options "
                     f"{', '.join(agent_rules)} only")
    if a.table is not None:  # a table the game does not have, before anything is simulated
        from cuegym.configs import check_game_table

        try:
            check_game_table(a.game, a.table)
        except ValueError as exc:
            ap.error(f"--table: {exc}")


@cli_main
def main(argv: list[str] | None = None) -> int:
    d = Settings()
    ap = argparse.ArgumentParser(prog=script_prog(__name__, __spec__),
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--game", default=d.game, choices=["keglebillard", "golfbillard"],
                    help=f"the game (default {d.game})")
    ap.add_argument("--what", default=None, choices=["shot", "game"],
                    help=f"one shot from the env's position bank or a whole game (default "
                         f"{d.what}; --agents implies game)")
    ap.add_argument("--seed", type=seed_arg, default=d.seed,
                    help=f"position draw and policy seed (default {d.seed})")
    ap.add_argument("--action", type=float, nargs=7, default=None, metavar="A",
                    help="shot: the env action, seven numbers in [-1, 1] (default: the rules' "
                         "random policy)")
    ap.add_argument("--noise", default=d.noise, help=f"shot noise of the executed strikes: "
                    f"none, tournament or a scale of it (default {d.noise})")
    ap.add_argument("--max-shots", type=int, default=None,
                    help=f"game: stop after this many shots (default {d.max_shots})")
    ap.add_argument("--animate", action="store_true",
                    help="game: animate every shot (default: one frame per shot)")
    ap.add_argument("--fps", type=float, default=d.fps,
                    help=f"frames per second of the output (default {d.fps:g})")
    ap.add_argument("--speed", type=float, default=None,
                    help=f"simulated seconds per real second of an animated shot (default "
                         f"{d.speed:g}; with --fps it sets a shot's frames, of which there may "
                         "be a few thousand at most)")
    ap.add_argument("--out", default=None, help="output .gif or .mp4 (default "
                    "runs/replay/<table>_<what>_<seed>.gif, <table> the --table given, else "
                    "the game)")
    ap.add_argument("--agents", default=None,
                    help="a whole game between two agents a,b (names with options after ':', "
                    "as evaluate takes them, or model .zip paths)")
    ap.add_argument("--table", default=None,
                    help="the table config played (keglebillard: keglebillard, the default, or "
                         "keglebillard-helmatch)")
    ap.add_argument("--rules", nargs="+", action="extend", metavar="KEY=VALUE|FILE",
                    help=RULES_HELP + "; a shot takes the options that score it, a game between "
                    "--agents " + "; ".join(f"{g} {', '.join(k)}" for g, k in
                                            AGENT_RULES.items()))
    a = ap.parse_args(argv)
    a.rules = parse_rules(a.rules)
    check_args(ap, a)
    cfg = Settings(game=a.game, what="game" if a.agents else a.what or d.what, seed=a.seed,
                   action=list(a.action or []), noise=a.noise, max_shots=a.max_shots or d.max_shots,
                   animate=a.animate, fps=a.fps, speed=d.speed if a.speed is None else a.speed,
                   out=a.out or d.out,
                   agents=a.agents or d.agents, table=a.table or d.table, rules=a.rules)
    out = out_path(cfg)
    if out.is_dir():  # the default path, taken by a folder
        raise UsageError(f"{out} is a folder: give --out")
    if cfg.agents:
        frames = replay_agents(cfg)
    else:
        frames = replay_shot(cfg) if cfg.what == "shot" else replay_game(cfg)
    write(frames, out, cfg.fps)
    print(json.dumps({"out": str(out), "frames": len(frames), "bytes": out.stat().st_size}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
