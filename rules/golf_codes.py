"""Codes shared by the compiled golfbillard referee and its Python views (specs/golfbillard.md).

One place for the rule tables: the foul order (G-19a), the consequence letters of every foul
(spec, Fouls) and of every G-18 behavioural kind (seed list, G-25 in kader play), the foul kinds,
the outcome notes and the opening reasons, each as a code the kernels use and the text the JSON
and the Python views print.
"""

from __future__ import annotations

import numpy as np

#: Foul order within one stroke (G-19a): by event time, ties in this order (the rule code of a
#: foul is its index here). G-18 (behavioural, injected) and G-19 (jam) are not in the spec's
#: list: G-18 goes first, G-19 after G-17.
FOUL_ORDER = ("G-18", "G-10", "G-11", "G-13", "G-12", "G-8", "G-16", "G-17", "G-19", "G-15",
              "G-21", "G-14")
RULE = {r: k for k, r in enumerate(FOUL_ORDER)}
F_G18, F_G10, F_G11, F_G13, F_G12, F_G8, F_G16, F_G17, F_G19, F_G15, F_G21, F_G14 = range(12)

#: Consequence letters (spec, Fouls): LT turn lost, RA balls replaced, CS cue ball to a penalty
#: spot, SPOT named balls to penalty spots, GOAL named balls into their goal, PICK the opponent
#: picks one of the offender's balls for a penalty spot (G-25). Bits of ``consequences``.
LETTERS = ("LT", "RA", "CS", "SPOT", "GOAL", "PICK")
LT, RA, CS, SPOT, GOAL, PICK = (1 << k for k in range(6))

CONSEQUENCES: dict[str, frozenset[str]] = {
    "G-8": frozenset({"LT", "SPOT"}),
    "G-10": frozenset({"LT", "RA", "CS"}),
    "G-11": frozenset({"LT", "RA", "CS"}),
    "G-12": frozenset({"LT", "RA", "CS"}),
    "G-13": frozenset({"LT", "RA", "CS"}),
    "G-14": frozenset({"LT", "RA", "SPOT"}),
    "G-15": frozenset({"LT", "SPOT"}),
    "G-16": frozenset({"LT", "SPOT"}),
    "G-17": frozenset({"LT", "GOAL", "CS"}),
    "G-19": frozenset({"LT", "SPOT"}),
    "G-21": frozenset({"LT", "CS"}),
}

#: G-18 behavioural fouls (seed: Fehler, Zielen, Berührung, Reihenfolge, Dauer, Beratung):
#: kind -> (consequences outside kader play, consequences in kader play, G-25).
#: ``consultation`` has no penalty in the seed; we read it as LT.
BEHAVIOURAL: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    k: (frozenset(a.split()), frozenset(b.split()))
    for k, (a, b) in {
        "foot_off_floor": ("LT RA", "LT RA CS"),
        "over_caps_or_balls": ("LT RA CS", "LT RA CS"),
        "aiming_behind_opponent": ("LT", "LT PICK"),
        "played_opponent_ball": ("LT RA", "LT RA PICK"),
        "before_rest": ("LT RA", "LT RA CS"),
        "touch": ("LT RA CS", "LT RA CS"),
        "touch_without_stroke": ("LT RA", "LT RA"),
        "touch_own_ball": ("LT RA CS", "LT RA CS"),
        "touch_opponent_ball": ("LT RA CS", "LT RA PICK"),
        "deflect_own_ball": ("LT RA SPOT", "LT RA SPOT"),
        "deflect_opponent_ball": ("LT RA CS GOAL", "LT RA CS GOAL"),
        "out_of_turn": ("LT RA", "LT RA CS"),
        "wrong_opener": ("LT CS", "LT CS"),
        "time": ("LT", "LT PICK"),
        "consultation": ("LT", "LT"),
    }.items()
}

#: Foul kinds: the G-18 kinds (codes 0..14), then the tags of the other fouls.
KINDS = tuple(BEHAVIOURAL) + ("hard", "raised cue toward a goal cap", "vliegeren", "push",
                              "own_ball", "own_goal", "off_table", "blocking", "kader", "jam",
                              "defence_triangle")
KIND = {k: i for i, k in enumerate(KINDS)}
(K_HARD, K_RAISED, K_VLIEGEREN, K_PUSH, K_OWN_BALL, K_OWN_GOAL, K_OFF_TABLE, K_BLOCKING,
 K_KADER, K_JAM, K_DEFENCE) = (KIND[k] for k in KINDS[len(BEHAVIOURAL):])
K_PLAYED_OPP = KIND["played_opponent_ball"]
K_OUT_OF_TURN = KIND["out_of_turn"]
K_WRONG_OPENER = KIND["wrong_opener"]
K_DEFLECT_OWN = KIND["deflect_own_ball"]
K_DEFLECT_OPP = KIND["deflect_opponent_ball"]


def _bits(letters: frozenset[str]) -> int:
    return sum(1 << LETTERS.index(x) for x in letters)


#: (12,) consequence bits of each rule code (0 for G-18, whose letters depend on the kind).
RULE_BITS = np.array([0 if r == "G-18" else _bits(CONSEQUENCES[r]) for r in FOUL_ORDER],
                     np.int64)
#: (15, 2) consequence bits of each G-18 kind outside / in kader play.
KIND_BITS = np.array([[_bits(a), _bits(b)] for a, b in BEHAVIOURAL.values()], np.int64)

# Detail variants of a foul (``f_det[..., 0]``): how its text is built.
D_PLAIN, D_INJECTED, D_PLAYED_OPP, D_OUT_OF_TURN, D_OPENING_SIDE, D_WRONG_OPENER = range(6)

#: Injected event types (module docstring of cuegym.rules.golfbillard), code = index.
INJECTED_TYPES = ("off_table", "rests_on_rail", "rail_return", "jam", "fall_after_rest", "foul")
I_OFF, I_RAIL, I_RETURN, I_JAM, I_FALL, I_FOUL = range(6)

# Notes (code, ball): what an outcome says beyond its fouls.
N_LIMIT_EVENTS, N_LIMIT_TIME, N_RAIL_RETURN, N_FALL, N_JAM_FREED, N_IGNORED = range(6)

#: G-3 reasons of an opening outcome, code = index.
OPENING_REASONS = (
    "both sides scored their opening ball: repeat with another ball",
    "side {first} scored its opening ball",
    "equal distances: balls back, repeat",
    "side {first}'s ball stopped nearer its attack goal",
    "side {loser}'s ball did not cross x = 0 (or fouled)",
    "neither ball crossed x = 0: balls back, repeat",
)

# Policies (GolfRules.spot_policy / pick_policy), code = index.
SPOT_POLICIES = ("first_free", "random", "agent")
PICK_POLICIES = ("nearest_goal", "cue_ball", "random", "agent")

# Errors a kernel reports per table (raised as ValueError by the Python layer).
(E_NONE, E_NOT_ON_TABLE, E_DEFLECT_NEEDS, E_SPOTS_MISSING, E_SPOTS_RAN_OUT, E_SPOT_NOT_FREE,
 E_PICK_MISSING, E_PICK_NOT_OWN, E_OPENING_FOUL_SIDE, E_NO_FREE_POINT) = range(10)

# Phases of a state, code = index.
PHASES = ("opening", "play", "over")
P_OPENING, P_PLAY, P_OVER = range(3)
