"""Keglebillard environments: the Shot envs (one decision per episode) and the full-game envs.

Each single env is the one-table case of its vector env (same core, see :mod:`.base`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from .base import CoreEnv, CoreVectorEnv
from .checks import check_num_envs, check_render_mode
from .config import with_episode_limit
from .kegle import KegleGameCore, KegleShotCore

if TYPE_CHECKING:
    from cuegym.rules.keglebillard import KeglebillardRules

    from .config import KeglebillardReward, NoiseArg, SettingsArg
    from .positions import KeglebillardPositions

    RulesArg = Mapping[str, Any] | KeglebillardRules | None
    RewardArg = Mapping[str, float] | KeglebillardReward | None

_OBS_TABLE = """
    | index | name | meaning | bounds |
    |---|---|---|---|
    | 0, 1 | red_x, red_y | red centre / (L/2, W/2) (0 when in hand) | [-1.1, 1.1] |
    | 2 | red_on_table | 1 on the table, 0 in hand | {0, 1} |
    | 3..5 | white_x, white_y, white_on_table | the white (0, 0, 0 while waiting, K-18) | as 0..2 |
    | 6..8 | spotted_x, spotted_y, spotted_on_table | the spotted white | as 0..2 |
    | 9..13 | king_up, pin1_up .. pin4_up | pin standing (K-P7) | {0, 1} |
    | 14 | red_in_hand | the player places the red (K-19, K-3) | {0, 1} |
    | 15 | in_hand_behind_salvo_line | placement behind the salvo line, which applies | {0, 1} |
    | 16 | break | no shot played yet in this game (K-3) | {0, 1} |
    | 17 | to_move | the observation is for the player to move | {0, 1} |
    | 18 | own_score | own points / distance (70) | [0, 4] |
    | 19..23 | seat1_score .. seat5_score | other seats' points / distance (a) | [0, 4] |
    | 24..28 | seat1_in_game .. seat5_in_game | those seats still in the game (a) | {0, 1} |

    (a) in turn order after the player; 0 for empty seats. Scores are clipped to the bounds;
    ``to_move`` is 0 in terminal observations. Line 15 covers the break and the ball in hand
    after K-14.
"""

_ACTION_TABLE = """
    | index | name | maps to (u = action value) | range |
    |---|---|---|---|
    | 0 | V0 | cue speed, linear | 0.5 .. 6.0 m/s |
    | 1 | phi | aim ``180 u``, counter-clockwise from +x | -180 .. 180 deg |
    | 2 | theta | cue elevation, linear | 0 .. 60 deg |
    | 3 | a | side spin ``0.5 u`` (> 0: left English) | -0.5 .. 0.5 (offset / R) |
    | 4 | b | top/back spin ``0.5 u`` (> 0: follow) | -0.5 .. 0.5 |
    | 5 | place_x | red placement x, only with the red in hand (b) | see (b) |
    | 6 | place_y | red placement y, likewise | -(W/2 - R) .. W/2 - R |

    (b) linear from x = -(L/2 - R) up to the salvo line x = -L/4 when the placement is behind
    the line, up to L/2 - R when anywhere. Ranges: ``configs/envs/keglebillard.yaml``.
"""


class KeglebillardShotEnv(CoreEnv):
    __doc__ = f"""One keglebillard shot from a realistic position (``cuegym/KeglebillardShot-v0``).

    ## Description
    Keglebillard (Danish pin billiards, house rules: ``docs/rules_keglebillard.md``) on the
    2.10 x 1.05 m kleinmatch table: three balls (the red is every player's cue ball, a white and
    a spotted white), five pins in a cross at the centre, six pockets. The agent plays one shot:
    it strikes the red (and places it first when it has the red in hand or breaks). The shot is
    simulated by the batched event-based physics (``cuegym.physics``) and scored by the referee
    (``cuegym.rules.keglebillard.score_shots``, K-5..K-20).

    ## Action Space
    ``Box(-1, 1, (7,), float32)``; every component maps linearly (``cuegym.envs.actions``):
    {_ACTION_TABLE}
    NaN or inf raises ``ValueError``; a value outside [-1, 1] raises too unless ``clip=True``.
    A placement that overlaps a ball, a pin spot's R + r_pin, a jaw or a pocket is not moved: it
    is the K-19 foul (no shot, skæve 6, ``info["played"] = False``). Shot noise (``noise``) is
    added to the executed strike (``info["strike"]``).

    ## Observation Space
    ``Box((29,), float32)``, from the point of view of the player to move:
    {_OBS_TABLE}
    In the Shot env the scores are 0 and one opponent seat is in the game.

    ## Rewards
    ``sum(weight * term)`` with weights from ``configs/reward/keglebillard.yaml`` (``reward=``
    overrides them); unweighted terms in ``info["reward_terms"]``: ``points`` (credited to the
    shot, weight 1/16), ``skaeve`` (handed over by a foul: the shot's points plus the penalty,
    counted once; weight -1/16), ``foul`` (0), ``win`` (K-20, 1). So a clean 16 is +1, a K-11
    miss -0.375, a rødt +0.25. The default follows the rule book: points minus skæve, about [-1, 1].

    ## Starting State
    A position drawn uniformly from a bank of 8192 positions recorded before shots in simulated
    two-player games (``cuegym.envs.positions``; ``experiments/make_position_bank.py``): breaks,
    red in hand behind the salvo line or anywhere, whites waiting to be spotted, pins down.

    ## Episode End
    Terminates after the one shot. The terminal observation shows the balls and pins as the shot
    left them (before spotting and re-standing), with ``to_move = 0``. Never truncates.

    ## Arguments
    ``rules`` (mapping of rule options, ``configs/rules/keglebillard.yaml``), ``table``
    (``keglebillard``; ``keglebillard-helmatch`` uses its own bank, generated on first use),
    ``reward`` (mapping of weights or a ``KeglebillardReward``), ``noise`` (``"none"``,
    ``"tournament"``, a mapping or a ``ShotNoise``), ``settings`` (mapping over
    ``configs/envs/keglebillard.yaml``: action ranges, ``max_events``, ``t_max``), ``positions``
    (a bank), ``clip``, ``threads`` (numba threads for the physics), ``render_mode``
    (``"rgb_array"``; ``"rgb_array_list"``: each shot animated, for videos; ``"human"``).
    All keyword-only; a bad value raises ``ValueError`` naming it.

    ``info``: ``played``, ``points``, ``penalty``, ``shooter_points``, ``skaeve``, ``foul``,
    ``foul_flags`` (bool per ``cuegym.envs.kegle.FOUL_FLAGS``), ``rodt``, ``blegt``,
    ``king_alone``, ``clean16``, ``win``, ``pins_toppled`` (5,), ``pocketed`` (3,),
    ``overflow`` (physics end code, non-zero when a limit cut the shot), ``strike`` (the executed
    V0, phi, theta, a, b), ``in_hand``, ``placement`` (the red's placement [m]; 0, 0 when
    not in hand), ``position_index``,
    ``reward_terms``.

    ## Version History
    * v0: first version.
    """

    def __init__(self, *, rules: RulesArg = None, table: str = "keglebillard",
                 reward: RewardArg = None, noise: NoiseArg = "none",
                 settings: SettingsArg = None, positions: KeglebillardPositions | None = None,
                 clip: bool = False, threads: int | None = None,
                 render_mode: str | None = None) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        super().__init__(KegleShotCore(
            1,
            rules=rules, table=table, reward=reward, noise=noise, settings=settings,
            positions=positions, clip=clip, threads=threads, render_mode=render_mode))


class KeglebillardShotVectorEnv(CoreVectorEnv):
    """``num_envs`` tables of :class:`KeglebillardShotEnv` in one batched physics call per step
    (``gymnasium.make_vec("cuegym/KeglebillardShot-v0", num_envs=256,
    vectorization_mode="vector_entry_point")``). Same arguments; autoreset mode SAME_STEP. Table
    i reset with ``seed=s`` plays exactly the single env reset with ``seed=s + i``.
    """

    def __init__(self, num_envs: int = 1, *, rules: RulesArg = None, table: str = "keglebillard",
                 reward: RewardArg = None, noise: NoiseArg = "none",
                 settings: SettingsArg = None, positions: KeglebillardPositions | None = None,
                 clip: bool = False, threads: int | None = None,
                 render_mode: str | None = None, max_episode_steps: int | None = None) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        settings = with_episode_limit("keglebillard", settings, max_episode_steps, one_step=True)
        super().__init__(KegleShotCore(
            check_num_envs(num_envs),
            rules=rules, table=table, reward=reward, noise=noise, settings=settings,
            positions=positions, clip=clip, threads=threads, render_mode=render_mode))


class KeglebillardEnv(CoreEnv):
    __doc__ = f"""A whole keglebillard game for one learning player (``cuegym/Keglebillard-v0``).

    ## Description
    The learner sits at one seat of an N-player game (default 2); the other seats are played by
    an opponent agent. One step is the learner's shot, then the opponents' shots until the
    learner is to play again (or the game ends for the learner). Rules, table and physics as in
    :class:`KeglebillardShotEnv`; the game flow (turns, skæve to every other player, spotting,
    ball in hand, the end rules K-20..K-22) is the compiled game layer, ``cuegym.games.kegle``.

    ## Action Space
    As :class:`KeglebillardShotEnv`:
    {_ACTION_TABLE}

    ## Observation Space
    ``Box((29,), float32)`` from the learner's point of view (it is always the learner's turn):
    {_OBS_TABLE}
    It describes up to six players: with more, the seats after the fifth next are not shown
    (their scores are in ``info["scores"]``).

    ## Rewards
    As the Shot env for the learner's own shot (``points``, ``skaeve``, ``foul``, ``win``), plus
    ``skaeve_received`` (from the opponents' fouls, weight 0), ``opponent_points`` (the
    opponents' own points, weight 0) and, on the last step, ``result`` (+1 ranked first, -1
    last, linear between; weight 1). Weights: ``configs/reward/keglebillard.yaml``.

    ## Starting State
    A new game (whites on their spots, pins up, seat 0 breaks, K-3/K-4). The learner's seat is
    drawn at each reset (``seat="random"``) or fixed (``seat=k``); opponents shoot first when
    they sit before it. A game that leaves the learner out before its first shot (a break that
    ends it, or skæve that finish the learner) is replaced by a new one with the same seat
    (after 100 in a row the reset raises a RuntimeError).

    ## Episode End
    Terminates when the game is over or the learner is out (finished with 70 points among three
    or more players, K-21). Truncates after ``max_steps`` learner steps (500) or when one step
    needed ``max_opponent_shots`` (2000) opponent shots.

    ## Arguments
    ``num_players`` (2), ``opponent`` (``"random"``: the uniform random action; or an agent with
    ``act(states, rng)`` returning ``cue`` (T, 5) and ``place`` (T, 2), as ``cuegym.agents``
    agents do; or a callable), ``opponent_batching`` (``"per_table"`` | ``"batched"``),
    ``seat``, and the Shot env's ``rules``, ``table``, ``reward``, ``noise`` (applied to every
    executed shot, the opponents' too), ``settings``, ``clip``, ``threads``, ``render_mode``.

    ``info``: the learner's shot (``played``, ``points``, ``penalty``, ``foul``,
    ``foul_flags``, ``overflow``, ``strike``, ``in_hand``, ``placement``), ``scores`` (N,) in
    seat order starting with the learner, ``game_over``, ``seat``, ``reward_terms``.

    ## Version History
    * v0: first version; default opponent random (the geometric baseline of ``cuegym.agents``
      can be passed as ``opponent``).
    """

    def __init__(self, *, num_players: int = 2, opponent: Any = "random",
                 opponent_batching: Literal["per_table", "batched"] = "per_table",
                 seat: int | Literal["random"] = "random", rules: RulesArg = None,
                 table: str = "keglebillard", reward: RewardArg = None,
                 noise: NoiseArg = "none", settings: SettingsArg = None, clip: bool = False,
                 threads: int | None = None, render_mode: str | None = None) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        super().__init__(KegleGameCore(
            1,
            num_players=num_players, opponent=opponent, opponent_batching=opponent_batching,
            seat=seat, rules=rules, table=table, reward=reward, noise=noise, settings=settings,
            clip=clip, threads=threads, render_mode=render_mode))


class KeglebillardVectorEnv(CoreVectorEnv):
    """``num_envs`` tables of :class:`KeglebillardEnv` (batched physics per round of shots, the
    rules' per-table game flow). Same arguments; autoreset mode SAME_STEP."""

    def __init__(self, num_envs: int = 1, *, num_players: int = 2, opponent: Any = "random",
                 opponent_batching: Literal["per_table", "batched"] = "per_table",
                 seat: int | Literal["random"] = "random", rules: RulesArg = None,
                 table: str = "keglebillard", reward: RewardArg = None,
                 noise: NoiseArg = "none", settings: SettingsArg = None, clip: bool = False,
                 threads: int | None = None, render_mode: str | None = None,
                 max_episode_steps: int | None = None) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        settings = with_episode_limit("keglebillard", settings, max_episode_steps, one_step=False)
        super().__init__(KegleGameCore(
            check_num_envs(num_envs),
            num_players=num_players, opponent=opponent, opponent_batching=opponent_batching,
            seat=seat, rules=rules, table=table, reward=reward, noise=noise, settings=settings,
            clip=clip, threads=threads, render_mode=render_mode))
