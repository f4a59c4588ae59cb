"""Golfbillard as a PettingZoo AEC environment (``from cuegym.envs import golfbillard_v0``).

    >>> from cuegym.envs import golfbillard_v0
    >>> env = golfbillard_v0.env(duo=False)
    >>> env.reset(seed=0)
    >>> for agent in env.agent_iter(max_iter=6):
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     env.step(None if terminated or truncated else env.action_space(agent).sample())

Singles: agents ``side_0`` (white, attacks +x) and ``side_1`` (red). Duo (G-31,
``duo=True``): ``side_0_p0``, ``side_0_p1``, ``side_1_p0``, ``side_1_p1``; partners alternate
per turn as the rules say. The agent to act is the rules' (``to_move`` and its due partner): a
side keeps the turn while it validly scores (G-1). The opening (G-3) is simultaneous: side 0's
opener chooses its stroke, then side 1's, then both balls are struck at t = 0 (the selection
part of an opening action is ignored: the rules fix the ball).

Actions and observations are those of ``cuegym/Golfbillard-v0`` (each agent sees the table from
its side; ``to_move`` tells whether it is to act). Rewards per stroke, weights from
``configs/reward/golfbillard.yaml``, shared by partners: the striking side gets ``own_goals``,
``opponent_goals``, ``foul`` and ``progress``; the other side ``opponent_scored``; the last
reward adds ``result`` (+1 win, -1 loss, 0 draw). All agents terminate when the game ends
(``match: single`` by default; pass ``rules={"match": "best_of_3"}`` for a match) and are
truncated when it ends in a G-5 no-progress draw, or after ``max_shots`` strokes. The rules
state is ``env.game_state`` (a :class:`~cuegym.rules.golfbillard.GolfState`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from cuegym.games.golf import Golf
from cuegym.games.strikes import Strikes

from .actions import check_actions
from .aec import CuegymAEC
from .golf import GolfActionMap, action_space, golf_rules, observation_space, policy_seeds


def env(**kwargs: Any) -> AECEnv:
    """The AEC env wrapped as PettingZoo's own envs are: ``OrderEnforcingWrapper`` (a clear
    error for ``step``/``observe``/``render`` before ``reset``); :class:`raw_env` (same
    arguments) is the unwrapped env. Out-of-range actions raise in the env itself (or are
    clipped with ``clip=True``), so no ``ClipOutOfBoundsWrapper`` is added."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(CuegymAEC):  # noqa: N801 - the PettingZoo naming convention
    """Golfbillard for two sides (or two duos).

    Args:
        duo: G-31 duo play (four agents). rules: golfbillard options over the shipped file
            (``match: single`` unless given). reward, noise, settings, clip: as
            ``cuegym/Golfbillard-v0``. max_shots: strokes before truncation (default: the
            settings' max_steps times 2). render_mode: None, ``rgb_array`` or ``human``.
    """

    metadata = {"name": "golfbillard_v0", "render_modes": ["rgb_array", "human"],
                "render_fps": 4, "is_parallelizable": False}

    def __init__(self, duo: bool = False, *, rules: Any = None, reward: Any = None,
                 noise: Any = "none", settings: Any = None, clip: bool = False,
                 max_shots: int | None = None, render_mode: str | None = None) -> None:
        super().__init__()
        if not isinstance(duo, bool | np.bool_):  # a numpy bool is one (as check_bool takes)
            raise ValueError(f"duo must be true or false, got {duo!r}")
        duo = bool(duo)
        if rules is not None and not isinstance(rules, Mapping):
            raise ValueError(f"rules must be None or a mapping of rule options, got {rules!r}")
        if rules and "duo" in rules and rules["duo"] != duo:
            raise ValueError(f"rules duo={rules['duo']!r} contradicts duo={duo!r}: pass duo= "
                             "only")
        self.rules = golf_rules({**dict(rules or {}), "duo": duo})
        self.duo = duo
        self.game = Golf(self.rules)
        self.geo = self.game.geo
        self._setup("golfbillard", reward=reward, noise=noise, settings=settings, clip=clip,
                    render_mode=render_mode, observation_space=observation_space(),
                    action_space=action_space())
        self.max_shots = self._max_shots(max_shots, self.settings.max_steps * 2)
        self.possible_agents = ([f"side_{s}_p{p}" for s in (0, 1) for p in (0, 1)] if duo
                                else ["side_0", "side_1"])
        self.map = GolfActionMap(self.settings, self.geo)
        self.half = self.game.half
        self.states = self.game.new(1)

    def _side(self, agent: str) -> int:
        return int(self._check_agent(agent)[5])

    def _agent(self, side: int, partner: int) -> str:
        return f"side_{side}_p{partner}" if self.duo else f"side_{side}"

    def _to_act(self) -> str:
        st = self.game_state
        if st.phase == "opening":
            s = 0 if self._pending is None else 1
            return self._agent(s, int(st.openers[s]))
        return self._agent(int(st.to_move), int(st.partner[st.to_move]))

    @property
    def game_state(self):
        """The rules state of the table (a :class:`~cuegym.rules.golfbillard.GolfState`)."""
        return self.states[0]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._start_episode(seed, options)
        self.states = self.game.new(1, seed=policy_seeds(self.game.rules, [self.np_random]))
        self._pending = None  # side 0's opening strike while side 1 chooses
        self.agent_selection = self._to_act()

    def observe(self, agent: str) -> np.ndarray:
        self._check_reset("observe")
        s = self._side(agent)
        # the rules' agent to act, not the selected one: after a max_shots truncation each
        # agent is selected for its dead step; after the match nobody is to move (as in the
        # Gym envs' terminal observations)
        to_move = self.game_state.phase != "over" and agent == self._to_act()
        return self.game.observe(self.states, [s], to_move=np.array([to_move]))[0]

    def step(self, action) -> None:
        self._check_can_step()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self.game_state
        side = self._side(agent)
        a = check_actions(action, None, self._act_space.shape[0], clip=self.clip)
        self._cumulative_rewards[agent] = 0.0  # after the check: a refused action keeps it
        sides = np.array([side])
        cue1 = self.noise.execute(self.map.strikes(a, sides), [self.np_random])[0]
        self._clear_rewards()
        strikes = self._strikes(st.phase == "opening", side, a, cue1)
        if strikes is None:  # side 0's opening strike waits for side 1's
            self.agent_selection = self._to_act()
            self._accumulate_rewards()
            return
        s0, s1 = strikes
        before = self.states
        s = self.settings
        # the strikes are executed already (noise above); a stroke cut off by max_events /
        # t_max is scored where it ended and reported in the outcome
        out, self.states = self.game.play(
            before, s0, strikes1=s1, max_events=s.max_events, t_max=s.t_max,
            workspace=None if self.render_mode else self.workspace, allow_overflow=True)
        o = out.outcome(0)
        self.shots += 1
        self.last_shot = (out.sim, 0, o, st, out.cue_ball[0], out.strike[0])
        self._settle(out, before, o.to_json(self.geo))
        if self.game_state.phase != "over" and self.shots < self.max_shots:
            self.agent_selection = self._to_act()
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _strikes(self, opening: bool, side: int, a: np.ndarray, cue1: np.ndarray
                 ) -> tuple[Strikes, Strikes | None] | None:
        """The stroke(s) to play for ``side``'s action ``a`` executed as ``cue1`` (5,): its
        ball's strike, or at the opening both sides' (None while side 0's waits for side 1's
        choice)."""
        none = np.full((1, 2), np.nan)
        if not opening:
            ball = int(self.map.select(a, np.array([side]), self.states.xy)[0])
            return Strikes(cue1[None], [ball], none), None
        ball = int(self.game.opening_balls(self.states)[0, side])
        if side == 0:
            self._pending = (ball, cue1)
            return None
        b0, c0 = self._pending
        self._pending = None
        return Strikes(c0[None], [b0], none), Strikes(cue1[None], [ball], none)

    def _settle(self, out: Any, before: Any, shot_info: dict) -> None:
        """Each agent's reward terms, reward, end flags and info for the stroke ``out`` played
        from ``before``."""
        w = self.reward_spec
        over = self.game_state.phase == "over"
        # G-5: a no-progress draw is a truncation, not an end
        no_progress = bool(self.game.ended_by_no_progress(self.states)[0])
        for name in self.agents:
            k = self._side(name)
            tk, _ = self.game.reward_terms(out, w, viewer=np.array([k]))
            terms = {t: float(tk[t][0]) for t in w.terms}
            # progress over the stroke, to the state after it (0 if it ended a game of a
            # match: the balls are then on the next game's start spots)
            terms["progress"] = float(self.game.progress(
                before.xy, self.states.xy, np.array([k]),
                new_game=self.states.game_no != before.game_no)[0]) \
                if (out.opening[0] or out.shooter[0] == k) else 0.0
            terms["result"] = float(self.game.result(self.states, np.array([k]))[0])
            if over and not no_progress:
                self.terminations[name] = True
            elif no_progress or self.shots >= self.max_shots:
                self.truncations[name] = True
            self.rewards[name] = float(sum(getattr(w, t) * v for t, v in terms.items()))
            self.infos[name] = {"shot": shot_info, "reward_terms": terms}

    def _frame(self) -> np.ndarray:
        from .render import render_golf_game

        return render_golf_game(self.game_state, self.last_shot)
