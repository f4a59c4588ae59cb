"""Keglebillard with 3 to 6 players through its public surfaces (K-1, K-9a, K-17, K-20..K-23).

An independent tracker written from docs/rules_keglebillard.md (who moves next, who gets the
points and the skæve, who finishes, the ranking) follows whole games and must agree with: the
game-level referee on hand-built shots (every end rule, any turn order, both ``skaeve_to``
options), the PettingZoo AEC env and the full-game Gymnasium vector env on real physics with
random actions, and the CLI's ``play``. The tracker reads from each shot only what the scorer
(K-5..K-16) decides: played, points, penalty, foul, win, pins toppled. Plus the refusals of bad
player counts, ``play_game`` arguments and states.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pytest

from cuegym.rules.keglebillard import build_log
from cuegym.rules.keglebillard_game import GameState, KeglebillardGame, play_game

DIST = 70
#: reward weights with every term non-zero, so that each term's recipient is checked
WEIGHTS = {"points": 1 / 16, "skaeve": -1 / 16, "foul": -0.125, "win": 1.0,
           "skaeve_received": 1 / 32, "opponent_points": -1 / 64, "result": 1.0}


@dataclass
class Tracker:
    """One house-rules game as the rule book tells it (independent of cuegym's game flow)."""

    order: tuple[int, ...]
    only_next: bool = False  # K-17 option skaeve_to: next
    first: int | None = None
    scores: list[int] = field(default_factory=list)
    out: list[int] = field(default_factory=list)  # finishing order; the ranking once over
    to_play: int | None = None
    over: bool = False

    def __post_init__(self) -> None:
        self.n = len(self.order)
        self.scores = [0] * self.n
        self.to_play = self.order[0] if self.first is None else self.first

    def in_game(self) -> list[int]:
        return [p for p in self.order if p not in self.out]

    def after(self, p: int) -> list[int]:
        """The other players in turn order after ``p`` (K-1)."""
        i = self.order.index(p)
        return [self.order[(i + k) % self.n] for k in range(1, self.n)]

    def shot(self, shooter: int, played: bool, points: int, penalty: int, foul: bool,
             win: bool, any_pin: bool) -> dict:
        assert not self.over and shooter == self.to_play
        if not played:  # K-19: no shot, a foul with penalty 6 and no points
            foul, points, penalty, win, any_pin = True, 0, 6, False, False
        recipients: list[int] = []
        shooter_points = skaeve = 0
        if win:  # K-20 overrides the physics fouls: nothing changes hands
            pass
        elif foul:  # K-9a, K-17: the shot's points plus the penalty to every other player in
            skaeve = points + penalty
            recipients = [p for p in self.after(shooter) if p in self.in_game()]
            recipients = recipients[:1] if self.only_next else recipients
            for p in recipients:
                self.scores[p] += skaeve
        else:
            shooter_points = points
            self.scores[shooter] += points
        now: list[int] = []
        if win:  # K-20: the shooter first, the others still in by points, ties in turn order
            rest = sorted((p for p in self.after(shooter) if p in self.in_game()),
                          key=lambda p: -self.scores[p])
            now = [shooter, *rest]
            self.out += now
        else:
            for p in [shooter, *self.after(shooter)]:  # K-21a
                left = self.in_game()
                if p not in left or self.scores[p] < DIST or len(left) < 2:
                    continue
                # K-22: with two left only a legal pin or the opponent's skæve finishes
                if len(left) == 2 and not ((p == shooter and not foul and any_pin)
                                           or p in recipients):
                    continue
                self.out.append(p)
                now.append(p)
            if len(self.in_game()) <= 1:  # the last player left loses
                now += self.in_game()
                self.out += self.in_game()
        self.over = len(self.in_game()) == 0
        self.to_play = None if self.over else next(
            p for p in self.after(shooter) if p in self.in_game())
        return {"shooter_points": shooter_points, "skaeve": skaeve, "recipients": recipients,
                "finished": now}

    def result(self, p: int) -> float:
        """+1 ranked first .. -1 last; 0 while in."""
        return 1.0 - 2.0 * self.out.index(p) / (self.n - 1) if p in self.out else 0.0

    def check(self, o: dict, exp: dict) -> None:
        """An outcome dict (``ShotOutcome.to_dict``) against the tracker after its shot."""
        assert o["scores"] == self.scores
        assert sorted(o["skaeve_to"]) == sorted(exp["recipients"])
        assert o["shooter_points"] == exp["shooter_points"]
        assert (o["skaeve"] if o["foul"] and not o["win"] else 0) == exp["skaeve"]
        assert list(o["finished"]) == exp["finished"]
        assert o["game_over"] == self.over and o["next_player"] == self.to_play
        if self.over:
            assert list(o["ranking"]) == self.out

    def apply(self, o: dict) -> dict:
        exp = self.shot(o["shooter"], o["played"], o["points"], o["penalty"], o["foul"],
                        o["win"], bool(o["pins_toppled"]))
        self.check(o, exp)
        return exp


# --- the game-level referee on hand-built shots ----------------------------------------------

HIT = [(0.10, "ball_ball", "red", "white"), (0.30, "cushion", "white", 1)]
SHOTS = {
    "hit": HIT,  # legal, 0 points
    "rodt": [(0.10, "ball_ball", "red", "white"), (0.30, "cushion", "red", 1),
             (0.60, "ball_ball", "red", "spotted")],  # 4, no pin (K-22 keeps a player in)
    "pin": HIT + [(0.8, "pin", "white", "pin1")],
    "pins3": HIT + [(0.8, "pin", "white", "pin1"), (0.85, "pin", "white", "pin2"),
                    (0.9, "pin", "white", "pin4")],
    "k11": [(0.1, "cushion", "red", 0)],
    "k13": HIT + [(0.8, "pin", "red", "pin2")],  # penalty 0, 2 across
    "k10": [(0.1, "ball_ball", "red", "white")],  # ball in hand anywhere
    "k12": [(0.1, "pin", "red", "king")],  # 6 + 6 across
    "k14": HIT + [(1.2, "pocket", "red", 1)],  # ball in hand behind the salvo line
    "all": HIT + [(0.6, "ball_ball", "white", "spotted"), (0.9, "pocket", "white", 3),
                  (1.0, "pocket", "spotted", 0), (1.2, "pocket", "red", 1)],  # K-20
}
PROB = np.array([3, 2, 4, 3, 4, 2, 2, 2, 2, 0.15])
PROB = PROB / PROB.sum()
START = {"red": (-0.7, 0.1), "white": (-0.525, 0.0), "spotted": (0.525, 0.0)}


@pytest.fixture(scope="module")
def logs():
    # every canned shot starts and (pocketed balls aside) ends at START, so any state
    # reached from START can play any of them
    return {k: build_log(v, start=START) for k, v in SHOTS.items()}


def _mid_state(order: tuple[int, ...]) -> GameState:
    return GameState(order=order, scores=(0,) * len(order), to_play=order[0],
                     balls=(START["red"], START["white"], START["spotted"]), ball_in_hand=None)


@pytest.mark.parametrize("skaeve_to", ["all", "next"])
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_referee_random_games_follow_the_rule_book(logs, n, skaeve_to):
    game = KeglebillardGame({"skaeve_to": skaeve_to})
    rng = np.random.default_rng(n)
    names = list(logs)
    seen = {"all": 0, "hold": 0, "placement": 0}
    for _ in range(25):
        order = tuple(int(p) for p in rng.permutation(n))
        s = _mid_state(order)
        tr = Tracker(order, only_next=skaeve_to == "next")
        while not s.game_over:
            if s.ball_in_hand is not None and rng.random() < 0.1:
                o, s = game.placement_foul(s, reason="test")
                seen["placement"] += 1
            else:
                k = names[rng.choice(len(names), p=PROB)]
                o, s = game.apply(s, logs[k])
                seen["all"] += k == "all"
            tr.apply(o.to_dict())
            assert list(s.scores) == tr.scores and s.game_over == tr.over
            if not s.game_over:
                assert s.to_play == tr.to_play and list(s.finished) == tr.out
                held = [p for p in tr.in_game() if tr.scores[p] >= DIST]
                seen["hold"] += bool(held)
                assert not held or len(tr.in_game()) == 2  # only K-22 keeps one in
            assert GameState.from_dict(s.to_dict()) == s
        assert list(s.ranking) == tr.out
        # K-23: the loser breaks the next game, then the others in reverse finishing order
        nxt = game.next_game(s)
        assert nxt.order == tuple(reversed(tr.out)) and nxt.to_play == tr.out[-1]
    assert seen["all"] and seen["placement"]  # K-20 and K-19 were met


# --- the envs on real physics, random actions --------------------------------------------------


def _aec_game(n: int, seed: int, rules: dict | None = None) -> int:
    """One AEC game against the tracker: agent_selection, rewards, cumulative rewards,
    terminations, observations, infos. Returns the shots played."""
    from cuegym.envs import keglebillard_v0

    env = keglebillard_v0.env(num_players=n, reward=WEIGHTS, rules=rules)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(seed + 1000)
    st = raw.states
    tr = Tracker(tuple(int(p) for p in st.order[0]), first=int(st.to_play[0]),
                 only_next=(rules or {}).get("skaeve_to") == "next")
    cum = dict.fromkeys(raw.possible_agents, 0.0)
    shots = 0
    for agent in env.agent_iter(max_iter=100_000):
        obs, r, term, trunc, _ = env.last()
        p = raw.possible_agents.index(agent)
        assert r == pytest.approx(cum[agent], abs=1e-9)
        assert obs[18] == pytest.approx(min(tr.scores[p] / DIST, 4.0), abs=1e-6)
        for k, q in enumerate(tr.after(p)[:5]):
            assert obs[19 + k] == pytest.approx(min(tr.scores[q] / DIST, 4.0), abs=1e-6)
            assert obs[24 + k] == (q in tr.in_game())
        cum[agent] = 0.0
        if term or trunc:
            assert p in tr.out and not trunc
            env.step(None)
            continue
        assert p == tr.to_play and obs[17] == 1.0
        env.step(rng.uniform(-1.0, 1.0, 7).astype(np.float32))
        shots += 1
        o = raw.infos[agent]["shot"]
        assert o["shooter"] == p
        before = tr.in_game()
        exp = tr.apply(o)
        for a in raw.agents:
            q = raw.possible_agents.index(a)
            if q not in before:
                continue
            if q == p:
                want = (WEIGHTS["points"] * exp["shooter_points"] + WEIGHTS["skaeve"] *
                        exp["skaeve"] + WEIGHTS["foul"] * o["foul"] + WEIGHTS["win"] * o["win"])
            else:
                want = (WEIGHTS["skaeve_received"] * exp["skaeve"] * (q in exp["recipients"])
                        + WEIGHTS["opponent_points"] * exp["shooter_points"])
            done = tr.over or q in tr.out
            want += WEIGHTS["result"] * tr.result(q) * done
            assert raw.rewards[a] == pytest.approx(want, abs=1e-9)
            assert raw.terminations[a] == done
            cum[a] += want
    assert tr.over and raw.agents == []
    return shots


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_aec_random_games_follow_the_rule_book(n):
    assert sum(_aec_game(n, seed) for seed in range(6)) > 0


def test_aec_random_first_player_and_skaeve_to_next():
    _aec_game(4, 0, {"first_player": "random"})
    _aec_game(5, 1, {"skaeve_to": "next"})


@pytest.mark.parametrize("n", [3, 6])
def test_vector_env_random_games_follow_the_rule_book(n):
    """Every shot the full-game vector env plays (learner and opponents) against the tracker;
    the learner's reward, terminated, info scores and observation."""
    import gymnasium as gym

    env = gym.make_vec("cuegym/Keglebillard-v0", num_envs=2, reward=WEIGHTS, num_players=n,
                       vectorization_mode="vector_entry_point")
    core = env.unwrapped.core
    trs: list[Tracker | None] = [None, None]
    acc = np.zeros(2)  # the learner's reward terms of the shots since its last step
    fresh = np.zeros(2, bool)  # shots of a game begun by an (auto)reset: not rewarded
    play, reset = core.game.play, core.reset

    def spy_reset(idx):
        for t in idx:
            trs[t], fresh[t] = Tracker(tuple(range(n))), True
        return reset(idx)

    def spy_play(states, strikes, *a, active=None, **kw):
        out, new = play(states, strikes, *a, active=active, **kw)
        for t in np.flatnonzero(np.ones(2, bool) if active is None else active):
            if trs[t].over:  # a K-20 among the opponents' shots at reset: a new game
                trs[t] = Tracker(tuple(range(n)))
            o = out.outcome(int(t)).to_dict()
            exp = trs[t].apply(o)
            seat = int(core.seat[t])
            if fresh[t]:
                continue
            if o["shooter"] == seat:
                acc[t] += (WEIGHTS["points"] * exp["shooter_points"] + WEIGHTS["skaeve"] *
                           exp["skaeve"] + WEIGHTS["foul"] * o["foul"] +
                           WEIGHTS["win"] * o["win"])
            else:
                acc[t] += (WEIGHTS["skaeve_received"] * exp["skaeve"] *
                           (seat in exp["recipients"]) +
                           WEIGHTS["opponent_points"] * exp["shooter_points"])
        return out, new

    core.game.play, core.reset = spy_play, spy_reset
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(60):
        fresh[:] = False
        for t in range(2):
            if trs[t].over:
                trs[t] = Tracker(tuple(range(n)))
        seats, before = core.seat.copy(), list(trs)
        obs, rew, term, trunc, info = env.step(rng.uniform(-1, 1, (2, 7)).astype(np.float32))
        for t in range(2):
            tr, seat = before[t], int(seats[t])
            done = tr.over or seat in tr.out
            assert term[t] == done and not trunc[t]
            assert rew[t] == pytest.approx(acc[t] + WEIGHTS["result"] * tr.result(seat) * done,
                                           abs=1e-9)
            ends += done
            if not done:
                assert tr.to_play == seat and obs[t, 17] == 1.0
                assert list(info["scores"][t]) == [tr.scores[(seat + k) % n] for k in range(n)]
                assert obs[t, 18] == pytest.approx(min(tr.scores[seat] / DIST, 4), abs=1e-6)
        acc[:] = 0.0
    assert ends > 0


def test_cli_play_follows_the_rule_book():
    for n in (3, 4, 5, 6):
        rec = play_game(n, seed=n)
        tr = Tracker(tuple(range(n)))
        for o in rec["shots"]:
            tr.apply(o)
        assert tr.over and rec["ranking"] == tr.out and rec["state"]["scores"] == tr.scores


# --- refusals ------------------------------------------------------------------------------------

BAD_COUNTS = [0, 1, 1001, 2.5, "3", True, None, np.bool_(True)]


@pytest.mark.parametrize("bad", BAD_COUNTS)
def test_env_player_counts_are_refused_at_construction(bad):
    import gymnasium as gym

    from cuegym.envs import keglebillard_v0

    msg = rf"num_players must be an integer from 2 to 1000, got {bad!r}"
    for make in (lambda: keglebillard_v0.raw_env(num_players=bad),
                 lambda: keglebillard_v0.env(num_players=bad),
                 lambda: gym.make("cuegym/Keglebillard-v0", num_players=bad),
                 lambda: gym.make_vec("cuegym/Keglebillard-v0", num_envs=2, num_players=bad,
                                      vectorization_mode="vector_entry_point")):
        with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            make()


def test_aec_env_refuses_1001_players_when_made_not_at_reset():
    from cuegym.envs import keglebillard_v0

    # was: accepted by raw_env, then reset() failed with "n_players must be ... <= 1000"
    with pytest.raises(ValueError, match="num_players must be an integer from 2 to 1000, "
                                         "got 1001"):
        keglebillard_v0.raw_env(num_players=1001)
    env = keglebillard_v0.raw_env(num_players=np.int64(7))  # seven and more are played
    env.reset(seed=0)
    assert env.possible_agents[-1] == "player_6" and env.num_players == 7


def test_play_game_does_not_ignore_n_players_given_with_a_state():
    s3 = KeglebillardGame().new_state(3)
    # was: the state's three players were played, the 5 silently ignored
    with pytest.raises(ValueError, match="n_players = 5 but the state has 3 players"):
        play_game(5, state=s3, max_shots=1)
    assert play_game(state=s3, max_shots=1)["state"]["players"] == 3
    assert play_game(3, state=s3, max_shots=1)["state"]["players"] == 3
    assert play_game(max_shots=1)["state"]["players"] == 2  # default: two players


def test_play_game_checks_the_state_against_the_rules():
    # four players in and one at 75: K-21 says she finished (score_json refuses it too)
    bad = GameState(order=(0, 1, 2, 3), scores=(0, 75, 0, 0), to_play=0,
                    balls=(None, START["white"], START["spotted"]), ball_in_hand="salvo",
                    shot=1)
    # was: played; the next shot "finished" player 1 whatever it did
    with pytest.raises(ValueError, match=r"state.scores\[1\] = 75 reaches the distance 70"):
        play_game(4, state=bad, max_shots=1)
    with pytest.raises(TypeError, match="state must be a keglebillard GameState or None, "
                                        "got dict"):
        play_game(state={"players": 3}, max_shots=1)


def test_play_game_plays_a_state_on_its_own_table():
    helmatch = KeglebillardGame(table="keglebillard-helmatch").new_state(3)
    # was: simulated on the kleinmatch table (the default) from the helmatch positions
    with pytest.raises(ValueError, match="table = 'keglebillard' but the state is on "
                                         "'keglebillard-helmatch'"):
        play_game(state=helmatch, table="keglebillard", max_shots=1)
    rec = play_game(state=helmatch, seed=3, max_shots=2)  # the table is the state's
    assert rec["state"]["table"] == "keglebillard-helmatch" and rec["n_shots"] == 2


@pytest.mark.parametrize(("kwargs", "msg"), [
    ({"max_shots": 0}, "max_shots must be an integer >= 1, got 0"),
    ({"max_shots": -1}, "max_shots must be an integer >= 1, got -1"),
    ({"max_shots": 2.5}, "max_shots must be an integer, got 2.5"),
    ({"max_shots": True}, "max_shots must be an integer, got True"),
    ({"max_shots": "3"}, "max_shots must be an integer, got '3'"),
    ({"seed": -1}, "seed must be an integer >= 0, got -1"),
    ({"seed": 2.5}, "seed must be an integer, got 2.5"),
    ({"seed": "1"}, "seed must be an integer, got '1'"),
])
def test_play_game_refuses_bad_arguments(kwargs, msg):
    # was: 2.5 played 3 shots, True 1, 0 and -1 none; "3" a TypeError from '<'; numpy's
    # seed errors did not name the value
    with pytest.raises(ValueError, match=msg):
        play_game(3, **{"max_shots": 1, **kwargs})


@pytest.mark.parametrize("bad", [1, 0, 7.0, 2.5, "3", True, None])
def test_referee_player_counts(bad):
    game = KeglebillardGame()
    with pytest.raises(ValueError, match=repr(bad).replace("(", r"\(").replace(".", r"\.")):
        game.new_state(bad)
    if bad is not None:  # play_game(None): the default, two players
        with pytest.raises(ValueError, match=repr(bad).replace(".", r"\.")):
            play_game(bad, max_shots=1)
    assert game.new_state(6).n_players == 6 and game.new_state(7).n_players == 7


def test_game_layer_apply_and_placement_foul_check_the_state():
    """Were unchecked: ``Kegle.apply`` and ``placement_foul`` played a state the rules cannot
    reach (a player at 75 still in with four players) and "finished" her on the next shot."""
    from cuegym.games.kegle import Kegle

    g = Kegle()
    bad = GameState(order=(0, 1, 2, 3), scores=(0, 75, 0, 0), to_play=0,
                    balls=(None, START["white"], START["spotted"]), ball_in_hand="salvo",
                    shot=1)
    with pytest.raises(ValueError, match=r"state.scores\[1\] = 75 reaches the distance 70"):
        g.placement_foul(bad, reason="test")
    good = dataclasses.replace(bad, scores=(0, 10, 0, 0))
    out, new = g.placement_foul(good, reason="test")  # K-19: skæve 6 to each of the others
    assert out.foul and new.to_play == 1 and new.scores == (0, 16, 6, 6)
