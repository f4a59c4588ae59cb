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
truncated after ``max_shots`` strokes. The rules state is ``env.game_state`` (a
:class:`~cuegym.rules.golfbillard.GolfState`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from cuegym.rules.golfbillard import golf_geometry
from cuegym.rules.golfbillard_game import new_match, opening_balls

from .actions import check_actions
from .aec import CuegymAEC
from .golf import (
    GolfActionMap,
    _stroke_terms,
    action_space,
    goal_distance,
    golf_rules,
    observation_space,
    observe_states,
    play_golf_strokes,
)


def env(**kwargs: Any) -> AECEnv:
    """The AEC env (see :class:`raw_env` for the arguments)."""
    return raw_env(**kwargs)


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
        if not isinstance(duo, bool):
            raise ValueError(f"duo must be true or false, got {duo!r}")
        self.rules = golf_rules({**dict(rules or {}), "duo": duo})
        self.duo = duo
        self.geo = golf_geometry()
        self._setup("golfbillard", reward=reward, noise=noise, settings=settings, clip=clip,
                    render_mode=render_mode, observation_space=observation_space(),
                    action_space=action_space())
        self.max_shots = max_shots or self.settings.max_steps * 2
        self.possible_agents = ([f"side_{s}_p{p}" for s in (0, 1) for p in (0, 1)] if duo
                                else ["side_0", "side_1"])
        self.map = GolfActionMap(self.settings, self.geo)
        self.half = (self.geo.table.length / 2, self.geo.table.width / 2)

    def _side(self, agent: str) -> int:
        return int(agent[5])

    def _agent(self, side: int, partner: int) -> str:
        return f"side_{side}_p{partner}" if self.duo else f"side_{side}"

    def _to_act(self) -> str:
        st = self.game_state
        if st.phase == "opening":
            s = 0 if self._pending is None else 1
            return self._agent(s, int(st.openers[s]))
        return self._agent(int(st.to_move), int(st.partner[st.to_move]))

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._start_episode(seed)
        self.game_state = new_match(self.rules)
        self._pending = None  # side 0's opening strike while side 1 chooses
        self.agent_selection = self._to_act()

    def observe(self, agent: str) -> np.ndarray:
        s = self._side(agent)
        return observe_states([self.game_state], [s], self.half,
                              to_move=[agent == self.agent_selection],
                              games_to_win=self.rules.games_to_win)[0]

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        st = self.game_state
        side = self._side(agent)
        a = check_actions(action, 1, self._act_space.shape[0], clip=self.clip)
        sides = np.array([side])
        cue1 = self.noise.execute(self.map.strikes(a, sides), [self.np_random])[0]
        self._clear_rewards()
        if st.phase == "opening":
            ball = opening_balls(st)[side]
            if side == 0:  # wait for side 1's opening choice
                self._pending = (ball, cue1)
                self.agent_selection = self._to_act()
                self._accumulate_rewards()
                return
            b0, c0 = self._pending
            self._pending = None
            cb = np.array([[b0, ball]])
            cue = np.stack([c0, cue1])[None]
        else:
            ball = int(self.map.select(a, sides, st.xy[None])[0])
            cb = np.array([[ball, -1]])
            cue = np.zeros((1, 2, 5))
            cue[0, 0] = cue1
        d0 = [goal_distance(st.xy[None], np.array([s]), self.geo)[0] for s in (0, 1)]
        s = self.settings
        outs, new, res = play_golf_strokes(
            self.geo, self.rules, self.params, [st], cb, cue, max_events=s.max_events,
            t_max=s.t_max, workspace=None if self.render_mode else self.workspace)
        o = outs[0]
        self.game_state = new[0]
        self.shots += 1
        self.last_shot = (res, 0, o, st, cb[0], cue[0])
        w = self.reward_spec
        shooter = side if st.phase == "play" else None
        shot_info = o.to_json(self.geo)
        for name in self.agents:
            k = self._side(name)
            terms = dict.fromkeys(w.terms, 0.0)
            if shooter is None:  # the opening: both sides struck
                own, _, foul, opp_own = _stroke_terms(o, k)
                terms.update(own_goals=own, foul=foul, opponent_scored=opp_own)
            elif k == shooter:
                own, opp, foul, _ = _stroke_terms(o, k)
                terms.update(own_goals=own, opponent_goals=opp, foul=foul)
            else:
                terms["opponent_scored"] = _stroke_terms(o, 1 - k)[0]
            d1 = goal_distance(self.game_state.xy[None], np.array([k]), self.geo)[0]
            if shooter is None or k == shooter:
                terms["progress"] = (d0[k] - d1) / self.geo.table.length
            if self.game_state.phase == "over":
                wnr = self.game_state.match_winner
                terms["result"] = 0.0 if wnr not in (0, 1) else (1.0 if wnr == k else -1.0)
                self.terminations[name] = True
            elif self.shots >= self.max_shots:
                self.truncations[name] = True
            self.rewards[name] = float(sum(getattr(w, t) * v for t, v in terms.items()))
            self.infos[name] = {"shot": shot_info, "reward_terms": terms}
        if self.game_state.phase != "over" and self.shots < self.max_shots:
            self.agent_selection = self._to_act()
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _frame(self) -> np.ndarray:
        from .render import render_golf_game

        return render_golf_game(self.game_state, self.last_shot)
