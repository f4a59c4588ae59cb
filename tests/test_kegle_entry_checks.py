"""Keglebillard entry checks (audit s48): Injected objects get the dict form's checks,
score_shots refuses a non-bool salvo_line and a bad rules / table, GameState values reach the
game layer only when they convert without changing and lie legally on the table."""
import numpy as np
import pytest

from cuegym.games.kegle import Kegle
from cuegym.games.strikes import Strikes
from cuegym.rules.keglebillard import Injected, build_log, score_shots
from cuegym.rules.keglebillard_game import GameState

LOG = build_log([(0.2, "ball_ball", "red", "white")])
BREAK_BALLS = ((-0.8, 0.1), (-0.525, 0.0), (0.525, 0.0))


# --- Injected objects: the dict form's checks --------------------------------------------------

@pytest.mark.parametrize("kw, field", [
    (dict(type="pin_toppled", pins=(-1,)), "pins"),
    (dict(type="pin_toppled", pins=(7,)), "pins"),
    (dict(type="pin_toppled", pins=(0.5,)), "pins"),
    (dict(type="pin_toppled", pins="king"), "pins"),
    (dict(type="pin_toppled", pins=(1,), by=5), "by"),
    (dict(type="off_table", ball=True), "ball"),
    (dict(type="off_table", ball=1.5), "ball"),
    (dict(type="deliberate_touch", balls=((5, 0.0, 0.0),)), "balls"),
    (dict(type="deliberate_touch", balls=((-1, 0.0, 0.0),)), "balls"),
    (dict(type="deliberate_touch", balls=((1, float("nan"), 0.1),)), "finite"),
    (dict(type="off_table", ball=2, returned="no"), "returned"),
    (dict(type="touche", unsporting=1), "unsporting"),
    (dict(type="touche", pins=(1,)), "pins"),  # the dict form has no pins for a touche
])
def test_kegle_injected_object_is_validated(kw, field):
    with pytest.raises(ValueError, match=field) as exc:
        score_shots(LOG, injected=[[Injected(**kw)]])
    assert "ambiguous" not in str(exc.value)  # a message naming the field, not numpy's


def test_kegle_injected_object_refused_by_play_too():
    game = Kegle()
    strikes = Strikes.of([[3.0, 5.0, 0.0, 0.0, 0.0]], place=[[-0.7, 0.1]])
    with pytest.raises(ValueError, match="pins"):
        game.play(game.new(1, 2), strikes, None, np.random.default_rng(0),
                  injected=[[Injected(type="pin_toppled", pins=(-1,))]])


def test_kegle_injected_object_and_dict_agree():
    obj = Injected(type="deliberate_touch", balls=((np.int64(1), 0.1, np.float64(0.2)),),
                   unsporting=np.bool_(True))
    assert obj == Injected.from_dict(obj.to_dict())
    assert Injected.from_dict({"type": "pin_toppled", "pins": ["pin2", "king"]}).pins == (0, 2)


# --- score_shots arguments ---------------------------------------------------------------------

@pytest.mark.parametrize("value", [["no"], ["False"], [0.5], [np.nan], [2], [1], "yes"])
def test_kegle_score_shots_salvo_line_must_be_bool(value):
    log = build_log([(0.2, "ball_ball", "red", "white")], start={"red": (0.0, 0.2)})
    with pytest.raises(ValueError, match="salvo_line"):
        score_shots(log, salvo_line=value)


def test_kegle_score_shots_salvo_line_bools_still_work():
    log = build_log([(0.2, "ball_ball", "red", "white")], start={"red": (0.0, 0.2)})
    assert "K-15" in score_shots(log, salvo_line=[True]).fouls_of(0)
    assert "K-15" in score_shots(log, salvo_line=np.bool_(True)).fouls_of(0)
    assert "K-15" not in score_shots(log, salvo_line=[False]).fouls_of(0)


@pytest.mark.parametrize("kw, word", [(dict(rules={"ddbu": True}), "ddbu"),  # "variant"
                                      (dict(rules="house"), "rules"),
                                      (dict(table=5), "table"),
                                      (dict(table="no_such_table"), "table")])
def test_kegle_score_shots_rules_and_table_give_a_clear_error(kw, word):
    with pytest.raises(ValueError, match=word):
        score_shots(LOG, **kw)


def test_kegle_score_shots_takes_a_table_name_and_rule_options_as_kegle_does():
    log = build_log([(0.2, "ball_ball", "red", "white")], table="keglebillard-helmatch")
    assert len(score_shots(log, table="keglebillard-helmatch")) == 1
    assert score_shots(LOG, rules={"variant": "ddbu"}).variant == "ddbu"


# --- GameState values entering the game layer --------------------------------------------------

def _play(gs: GameState) -> None:
    Kegle().play([gs], Strikes.of([[0.5, 180.0, 0, 0, 0]]), None, np.random.default_rng(0))


def test_kegle_gamestate_fractional_score_is_not_truncated():
    with pytest.raises(ValueError, match="scores"):
        _play(GameState(order=(0, 1), scores=(2.5, 0), to_play=0, balls=BREAK_BALLS,
                        ball_in_hand=None, shot=1))


@pytest.mark.parametrize("pins", [(True, "x", True, True, True), (True, None, True, True, True),
                                  (True, 2, True, True, True)])
def test_kegle_gamestate_pins_must_be_flags(pins):
    with pytest.raises(ValueError, match="pins"):
        _play(GameState(order=(0, 1), scores=(0, 0), to_play=0, balls=BREAK_BALLS,
                        ball_in_hand=None, shot=1, pins=pins))


@pytest.mark.parametrize("balls, word", [
    (((-0.8, 0.1), (0.525, 0.0), (0.525, 0.0)), "overlap"),     # white on the spotted ball
    (((-0.8, 0.1), (0.50, 0.0), (0.5415, 0.0)), "overlap"),     # 1 cm into it
    (((-0.8, 0.1), (0.0, 0.0), (0.525, 0.0)), "overlap"),       # white on the king
    (((-0.8, 0.1), (50.0, 0.0), (0.525, 0.0)), "cloth"),        # 50 m off the table
])
def test_kegle_gamestate_overlapping_balls_are_refused(balls, word):
    gs = GameState(order=(0, 1), scores=(0, 0), to_play=0, balls=balls, ball_in_hand=None,
                   shot=1)
    with pytest.raises(ValueError, match=word):
        _play(gs)


def test_kegle_gamestate_legal_states_still_convert():
    game = Kegle()
    states = game.new(3, 2)
    out, nxt = game.play(states, Strikes.of([[3.0, 5.0, 0.0, 0.0, 0.0]] * 3,
                                            place=[[-0.7, 0.1]] * 3),
                         None, np.random.default_rng(0))
    again = game.batch(list(nxt))  # GameState values of the flow's own states convert back
    for name in ("xy", "pins", "scores", "order", "wait_spot", "game_over"):
        a, b = getattr(again, name), getattr(nxt, name)
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")


@pytest.mark.parametrize("injected", [iter([None]), {"a": None}, "x"])
def test_kegle_score_shots_injected_must_be_a_list(injected):
    with pytest.raises(ValueError, match="injected must be a list"):
        score_shots(LOG, injected=injected)


def test_a_refused_state_is_named_by_its_index_in_the_callers_list():
    # repeated states are converted once: the error named the index in the shortened list
    from cuegym.games.kegle import Kegle
    from cuegym.rules.keglebillard_game import GameState

    good = Kegle().new_state(2)
    bad = GameState(order=(0, 1), scores=(0, 0), to_play=0,
                    balls=((-0.8, 0.1), (0.525, 0.0), (0.525, 0.0)), ball_in_hand=None, shot=1)
    with pytest.raises(ValueError, match=r"states\[2\]"):
        Kegle().batch([good, good, bad])


# --- audit s49: the distance's bound, next_game's table ------------------------------------------

def test_a_distance_beyond_the_scores_bound_is_a_config_error():
    from cuegym.configs import ConfigError
    from cuegym.rules.keglebillard_config import load_rules

    with pytest.raises(ConfigError, match=r"rules.distance .* up to 2\*\*53"):
        load_rules(distance=10**20)  # was accepted, then OverflowError in Kegle()
    assert load_rules(distance=2**53).distance == 2**53


def test_the_rules_cli_refuses_a_huge_distance_with_a_usage_error(monkeypatch, capsys):
    import io
    import json

    from cuegym.rules.__main__ import main

    inp = {"state": {"players": 2}, "place": [-0.7, 0.1],
           "hand_log": {"events": [[0.1, "ball_ball", "red", "white"]]},
           "rules": {"distance": 10**20}}
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(inp)))
    assert main(["score", "--game", "keglebillard"]) == 2  # was a traceback, status 1
    assert "rules.distance" in capsys.readouterr().err


def test_next_game_refuses_a_game_of_another_table():
    st = GameState(order=(0, 1), scores=(70, 10), to_play=None, balls=BREAK_BALLS,
                   ball_in_hand=None, finished=(0, 1), game_over=True, shot=9,
                   table="keglebillard-helmatch")
    with pytest.raises(ValueError, match="table 'keglebillard-helmatch' is not this game's"):
        Kegle().next_game(st)  # was: a kleinmatch game on the helmatch's whites
    nxt = Kegle(table="keglebillard-helmatch").next_game(st)
    assert nxt.table == "keglebillard-helmatch" and nxt.order == (1, 0)


def test_apply_refuses_a_log_whose_ball_rests_off_the_cloth():
    """A hand-made log (a mapping of SimResult fields) with the white at rest 5 m off the table
    was scored, and the next state held the white there; the next play refused it."""
    log = build_log([(0.1, "ball_ball", "red", "white")])
    fields = {k: np.array(getattr(log, k)) for k in log.__dataclass_fields__}
    fields["rvw"][0, 1, 0, :2] = (5.0, 0.0)
    g = Kegle()
    with pytest.raises(ValueError, match=r"the log leaves the table in a layout no state can "
                                         r"hold: next states\[0\]: 'balls.white' at \(5.0000"):
        g.apply(g.new_state(2), fields)
    out, nxt = g.apply(g.new_state(2), {k: np.array(getattr(log, k))
                                        for k in log.__dataclass_fields__})
    assert nxt.balls[1] == pytest.approx(BREAK_BALLS[1])


def _kleinmatch_result():
    from cuegym.configs import load_params, load_table
    from cuegym.physics import simulate

    xy = np.array([[[-0.8, 0.1], [-0.71, 0.0], [0.71, 0.0]]])  # legal on both tables
    return simulate(load_table("keglebillard"), load_params("keglebillard"), xy,
                    cue_ball=[0], cue=[[3.0, -5.0, 0.0, 0.0, 0.0]])


def test_a_simresult_is_scored_only_on_the_table_it_was_simulated_on():
    """A kleinmatch SimResult was scored on the helmatch (8 points, K-12 and K-13, the next
    state on the kleinmatch's positions) by the game layer and by score_shots."""
    res = _kleinmatch_result()
    st = GameState.from_dict({"players": 2, "table": "keglebillard-helmatch",
                              "ball_in_hand": None, "shot": 1,
                              "balls": {"red": [-0.8, 0.1], "white": [-0.71, 0.0],
                                        "spotted": [0.71, 0.0]}})
    says = r"the log was simulated on table 'keglebillard', not on 'keglebillard-helmatch'"
    with pytest.raises(ValueError, match=says):
        Kegle(table="keglebillard-helmatch").apply(st, res)
    with pytest.raises(ValueError, match=says):
        score_shots(res, None, table="keglebillard-helmatch")
    assert len(score_shots(res, None)) == 1  # its own table


def test_stack_logs_reads_helmatch_simresults_on_their_table():
    """stack_logs read every log on the kleinmatch, so the table check refused helmatch
    SimResults; it reads them on their own table and refuses a mix."""
    from cuegym.configs import load_params, load_table
    from cuegym.physics import simulate
    from cuegym.rules.keglebillard import stack_logs

    xy = np.array([[[-0.8, 0.1], [-0.71, 0.0], [0.71, 0.0]]])
    res = [simulate(load_table(t), load_params("keglebillard"), xy, cue_ball=[0],
                    cue=[[v, -5.0, 0.0, 0.0, 0.0]])
           for t, v in (("keglebillard-helmatch", 2.0), ("keglebillard-helmatch", 3.0),
                        ("keglebillard", 2.0))]
    assert len(stack_logs(res[:2])) == 2
    with pytest.raises(ValueError, match="different tables"):
        stack_logs(res)
