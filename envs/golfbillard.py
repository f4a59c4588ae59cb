"""Golfbillard environments: the Shot envs (one stroke per episode) and the full-game envs.

Each single env is the one-table case of its vector env (same core, see :mod:`.base`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from .base import CoreEnv, CoreVectorEnv
from .checks import check_num_envs, check_render_mode
from .config import with_episode_limit
from .golf import GolfGameCore, GolfShotCore

if TYPE_CHECKING:
    from cuegym.rules.golfbillard import GolfRules

    from .config import GolfbillardReward, NoiseArg, SettingsArg
    from .golf_positions import GolfbillardPositions

    RulesArg = Mapping[str, Any] | GolfRules | None
    RewardArg = Mapping[str, float] | GolfbillardReward | None

_OBS_TABLE = """
    | index | name | meaning | bounds |
    |---|---|---|---|
    | 0..14 | own1_x, own1_y, own1_on_table .. own5_* | the player's balls (a) | (b) |
    | 15..29 | opp1_x .. opp5_on_table | the opponent's balls, same frame | (b) |
    | 30, 31 | own_balls_left, opp_balls_left | balls on the table / 5 | [0, 1] |
    | 32 | kader | kader play is on (G-20) | {0, 1} |
    | 33 | opening | the next stroke is the opening (G-3) | {0, 1} |
    | 34 | turn_continues | the side already scored in this turn (G-1) | {0, 1} |
    | 35..39 | own1_duty .. own5_duty | own ball under the turn's defence duty (G-14) | {0, 1} |
    | 40 | to_move | the observation is for the side to move | {0, 1} |
    | 41, 42 | own_games_won, opp_games_won | games won / games needed (match play) | [0, 1] |

    (a) w1..w5 for side 0, r1..r5 for side 1: centre / (L/2, W/2) in the side's frame (its
    attack goal at +x: side 1's coordinates are turned by 180 deg), then on the table; 0, 0, 0
    once scored. (b) x, y in [-1.1, 1.1], on_table in {0, 1}. ``to_move`` is 0 in terminal
    observations.
"""

_ACTION_TABLE = """
    | index | name | maps to (u = action value) | range |
    |---|---|---|---|
    | 0 | V0 | cue speed, linear | 0.3 .. 4.0 m/s |
    | 1 | phi | aim ``180 u`` in the side's frame (0: to its attack goal) (c) | -180 .. 180 deg |
    | 2 | theta | cue elevation, linear | 0 .. 60 deg |
    | 3 | a | side spin ``0.5 u`` | -0.5 .. 0.5 (offset / R) |
    | 4 | b | top/back spin ``0.5 u`` | -0.5 .. 0.5 |
    | 5, 6 | select_x, select_y | aimed point ``(u5 L/2, u6 W/2)``, side's frame (d) | -1 .. 1 |

    (c) +180 deg in table coordinates for side 1. (d) the own ball on the table nearest the
    aimed point is struck (ignored in the opening, where the rules fix the ball). Ranges:
    ``configs/envs/golfbillard.yaml``.
"""


class GolfbillardShotEnv(CoreEnv):
    __doc__ = f"""One golfbillard stroke from a realistic position (``cuegym/GolfbillardShot-v0``).

    ## Description
    Golfbillard (Belgian golf billiards: ``docs/rules_golfbillard.md``) on the 1.80 x 0.90 m
    table: five white balls (side 0, attacking the goal at +x) and five red (side 1, attacking
    -x), a goal in each short cushion, twelve caps. The agent is the side to move and plays one
    stroke: it picks one of its own balls and strikes it. Physics: ``cuegym.physics``; referee:
    ``cuegym.rules.golfbillard`` (goals, fouls G-8..G-21 with their consequences, kader play).

    ## Action Space
    ``Box(-1, 1, (7,), float32)``, linear maps (``cuegym.envs.actions``):
    {_ACTION_TABLE}
    NaN or inf raises ``ValueError``; values outside [-1, 1] raise unless ``clip=True``.

    ## Observation Space
    ``Box((43,), float32)``, from the point of view of the side to move:
    {_OBS_TABLE}

    ## Rewards
    ``sum(weight * term)``, weights in ``configs/reward/golfbillard.yaml``; unweighted terms in
    ``info["reward_terms"]``: ``own_goals`` (own balls scored by the stroke, 0.2 each: five
    balls = +1), ``opponent_goals`` (opponent balls scored because of the stroke, -0.2),
    ``foul`` (-0.1), ``progress`` (mean decrease of the own balls' distance to the attack goal in
    table lengths, 0 by default). The default follows the rule book (goals minus opponent goals
    minus a foul penalty) at a scale where one stroke stays within about [-1, 1].

    ## Starting State
    A play-phase position drawn uniformly from a bank of 8192 positions recorded before strokes
    in simulated games (``cuegym.envs.golf_positions``): either side to move, penalty spots,
    defence duties, kader play.

    ## Episode End
    Terminates after the one stroke; the terminal observation is the position after the stroke
    and its consequences, from the striker's side, ``to_move = 0``. Never truncates.

    ## Arguments
    ``rules`` (golfbillard options over ``configs/rules/golfbillard.yaml``; the envs set
    ``match: single``), ``reward``, ``noise`` (``"none"``, ``"tournament"``, ...), ``settings``
    (over ``configs/envs/golfbillard.yaml``), ``positions`` (a ``GolfbillardPositions`` bank
    instead of the settings' named one; checked whole when the env is made, each position
    against the rules: balls on the cloth and apart, both sides with a ball, ...), ``clip``,
    ``threads``,
    ``render_mode`` (``"rgb_array"``; ``"rgb_array_list"``: each stroke animated, for videos;
    ``"human"``). All keyword-only; a bad value raises ``ValueError`` naming it.

    ``info``: ``foul``, ``foul_rule`` (``"G-12"``, ``""`` for none), ``turn_kept``, ``opening``,
    ``cue_ball`` (ball index 0..9), ``strike`` (executed, table frame), ``overflow``,
    ``balls_left`` (own, opponent), ``game_over``, ``winner`` (+1 the striker's side won, -1
    lost, 0 none), ``side``, ``position_index``, ``reward_terms``. Reset ``info``:
    ``position_index`` (the start position's index in the bank).

    ## Version History
    * v0: first version.
    """

    def __init__(self, *, rules: RulesArg = None, reward: RewardArg = None,
                 noise: NoiseArg = "none", settings: SettingsArg = None,
                 positions: GolfbillardPositions | None = None, clip: bool = False,
                 threads: int | None = None, render_mode: str | None = None) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        super().__init__(GolfShotCore(
            1,
            rules=rules, reward=reward, noise=noise, settings=settings, positions=positions,
            clip=clip, threads=threads, render_mode=render_mode))


class GolfbillardShotVectorEnv(CoreVectorEnv):
    """``num_envs`` tables of :class:`GolfbillardShotEnv`: one batched physics call per step,
    the referee per table. Same arguments; autoreset mode SAME_STEP."""

    def __init__(self, num_envs: int = 1, *, rules: RulesArg = None, reward: RewardArg = None,
                 noise: NoiseArg = "none", settings: SettingsArg = None,
                 positions: GolfbillardPositions | None = None, clip: bool = False,
                 threads: int | None = None, render_mode: str | None = None,
                 max_episode_steps: int | None = None) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        settings = with_episode_limit("golfbillard", settings, max_episode_steps, one_step=True)
        super().__init__(GolfShotCore(
            check_num_envs(num_envs),
            rules=rules, reward=reward, noise=noise, settings=settings, positions=positions,
            clip=clip, threads=threads, render_mode=render_mode))


class GolfbillardEnv(CoreEnv):
    __doc__ = f"""A whole golfbillard game for one learning side (``cuegym/Golfbillard-v0``).

    ## Description
    The learner plays one side of a single game (``match: single``); the other side is played
    by an opponent agent. One step is the learner's stroke, then the opponent's strokes until
    the learner is to play again: a side keeps the turn while it validly scores (G-1), so a
    step may have no opponent stroke. The opening (G-3, ``opening: simultaneous``) is one step:
    the learner's action strikes its opening ball while the opponent strikes its own at the
    same instant; a repeated opening is another opening step.

    ## Action Space
    As :class:`GolfbillardShotEnv`:
    {_ACTION_TABLE}

    ## Observation Space
    ``Box((43,), float32)`` from the learner's side:
    {_OBS_TABLE}

    ## Rewards
    The Shot env's terms for the learner's stroke, ``progress`` over the whole step,
    ``opponent_scored`` (balls the opponent scored for itself, weight 0) and ``result`` on the
    last step (+1 win, -1 loss, 0 draw by G-5 or truncation; weight 1).

    ## Starting State
    A new game: balls on their start spots, the opening to play. The learner's side is drawn at
    each reset (``seat="random"``) or fixed (``seat=0`` / ``1``). With ``opening: alternate``
    and the learner side 1 the opponent plays its first turn in ``reset`` (all of it:
    ``max_opponent_shots`` bounds a step's strokes); a game it ends there is replaced by a new
    one with the same side (after 100 in a row the reset raises a RuntimeError).

    ## Episode End
    Terminates when the game is over (G-4 win, G-17a). Truncates when it ends in a G-5
    no-progress draw (the match over, its last game drawn; the rule book says the env
    truncates), after ``max_steps`` learner steps (500) or after ``max_opponent_shots`` opponent
    strokes in one step (2000).

    ## Arguments
    ``opponent`` (``"random"``: uniform random actions; or an agent with ``act(states, rng)``
    returning ``cue`` (T, 5) and ``cue_ball`` (T,) and optionally ``act_opening(states, side,
    rng)``, as ``cuegym.agents`` agents do; without it the rules' soft opening stroke is used),
    ``opponent_batching`` (``"per_table"`` | ``"batched"``), ``seat``, and the Shot env's
    ``rules``, ``reward``, ``noise`` (every executed stroke), ``settings``, ``clip``,
    ``threads``, ``render_mode``.

    ``info``: the learner's stroke (``foul``, ``foul_rule``, ``turn_kept``, ``opening``,
    ``cue_ball``, ``strike``, ``overflow``), then ``balls_left``, ``game_over``, ``winner``,
    ``side``, ``reward_terms`` and ``opponent_strokes`` (the opponent's strokes after the
    learner's in this step; its simultaneous opening stroke is not counted). Reset ``info``:
    ``side`` (the learner's side). An opponent's answer that is no strikes, strikes a ball not
    its own on the table, or holds a non-finite value (without noise: one outside the physics'
    limits) raises a ValueError naming the opponent; after the learner's stroke that leaves the
    table to be reset.

    ## Version History
    * v0: first version; default opponent random.
    """

    def __init__(self, *, opponent: Any = "random",
                 opponent_batching: Literal["per_table", "batched"] = "per_table",
                 seat: int | Literal["random"] = "random", rules: RulesArg = None,
                 reward: RewardArg = None, noise: NoiseArg = "none",
                 settings: SettingsArg = None, clip: bool = False, threads: int | None = None,
                 render_mode: str | None = None) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        super().__init__(GolfGameCore(
            1,
            opponent=opponent, opponent_batching=opponent_batching, seat=seat, rules=rules,
            reward=reward, noise=noise, settings=settings, clip=clip, threads=threads,
            render_mode=render_mode))


class GolfbillardVectorEnv(CoreVectorEnv):
    """``num_envs`` tables of :class:`GolfbillardEnv`. Same arguments; autoreset SAME_STEP."""

    def __init__(self, num_envs: int = 1, *, opponent: Any = "random",
                 opponent_batching: Literal["per_table", "batched"] = "per_table",
                 seat: int | Literal["random"] = "random", rules: RulesArg = None,
                 reward: RewardArg = None, noise: NoiseArg = "none",
                 settings: SettingsArg = None, clip: bool = False, threads: int | None = None,
                 render_mode: str | None = None, max_episode_steps: int | None = None) -> None:
        check_render_mode(render_mode, self.metadata["render_modes"])
        settings = with_episode_limit("golfbillard", settings, max_episode_steps, one_step=False)
        super().__init__(GolfGameCore(
            check_num_envs(num_envs),
            opponent=opponent, opponent_batching=opponent_batching, seat=seat, rules=rules,
            reward=reward, noise=noise, settings=settings, clip=clip, threads=threads,
            render_mode=render_mode))
