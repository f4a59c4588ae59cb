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
#: Rule codes: FOUL_ORDER, then the opening's G-3 foul (a side struck another ball than its due
#: opening ball), which is never sorted against the others.
RULES = FOUL_ORDER + ("G-3",)
RULE = {r: k for k, r in enumerate(RULES)}
F_G18, F_G10, F_G11, F_G13, F_G12, F_G8, F_G16, F_G17, F_G19, F_G15, F_G21, F_G14, F_G3 = \
    range(13)

#: Consequence letters (docs/rules_golfbillard.md, Fouls): LT turn lost, RA balls replaced (every
#: ball the stroke moved), CS cue ball to a penalty spot, SPOT named balls to penalty spots, GOAL
#: named balls into their goal, PICK the opponent picks one of the offender's balls for a
#: penalty spot (G-25), RF only the balls the foul displaced are put back (the injected event
#: carries them and their positions; the others stay where the stroke left them). Bits of
#: ``consequences``.
LETTERS = ("LT", "RA", "CS", "SPOT", "GOAL", "PICK", "RF")
LT, RA, CS, SPOT, GOAL, PICK, RF = (1 << k for k in range(7))

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
    "G-19": frozenset({"SPOT"}),  # the only rule of the table without LT: the spec names none
    "G-21": frozenset({"LT", "CS"}),
}

#: G-18 behavioural fouls (seed: Fehler, Zielen, Berührung, Reihenfolge, Dauer, Beratung):
#: kind -> (consequences outside kader play, consequences in kader play, G-25).
#: ``consultation`` has no penalty in the seed, so none here (no letters: a foul whose
#: stroke still scores validly keeps the turn, as G-19).
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
        "deflect_own_ball": ("LT RF SPOT", "LT RF SPOT"),
        "deflect_opponent_ball": ("LT RF CS GOAL", "LT RF CS GOAL"),
        "out_of_turn": ("LT RA", "LT RA CS"),
        "wrong_opener": ("LT CS", "LT CS"),
        "time": ("LT", "LT PICK"),
        "consultation": ("", ""),
    }.items()
}

#: G-18 kinds whose consequence puts back only the balls the foul displaced (RF): their event
#: may carry ``restore``, the displaced balls and where they lay before the foul.
RESTORE_KINDS = frozenset(k for k, v in BEHAVIOURAL.items() if "RF" in v[0] | v[1])

#: Foul kinds: the G-18 kinds (codes 0..14), then the tags of the other fouls.
KINDS = tuple(BEHAVIOURAL) + ("hard", "raised cue toward a goal cap", "vliegeren", "push",
                              "own_ball", "own_goal", "off_table", "blocking", "kader", "jam",
                              "defence_triangle", "wrong_opening_ball")
KIND = {k: i for i, k in enumerate(KINDS)}
(K_HARD, K_RAISED, K_VLIEGEREN, K_PUSH, K_OWN_BALL, K_OWN_GOAL, K_OFF_TABLE, K_BLOCKING,
 K_KADER, K_JAM, K_DEFENCE, K_WRONG_BALL) = (KIND[k] for k in KINDS[len(BEHAVIOURAL):])
K_PLAYED_OPP = KIND["played_opponent_ball"]
K_OUT_OF_TURN = KIND["out_of_turn"]
K_WRONG_OPENER = KIND["wrong_opener"]
K_DEFLECT_OWN = KIND["deflect_own_ball"]
K_DEFLECT_OPP = KIND["deflect_opponent_ball"]


def _bits(letters: frozenset[str]) -> int:
    return sum(1 << LETTERS.index(x) for x in letters)


#: (13,) consequence bits of each rule code (0 for G-18, whose letters depend on the kind, and for
#: the opening's G-3).
RULE_BITS = np.array([_bits(CONSEQUENCES[r]) if r in CONSEQUENCES else 0 for r in RULES],
                     np.int64)
#: (15, 2) consequence bits of each G-18 kind outside / in kader play.
KIND_BITS = np.array([[_bits(a), _bits(b)] for a, b in BEHAVIOURAL.values()], np.int64)

# Detail variants of a foul (``f_det[..., 0]``): how its text is built.
D_PLAIN, D_INJECTED, D_PLAYED_OPP, D_OUT_OF_TURN, D_OPENING_SIDE, D_WRONG_OPENER, D_WRONG_BALL = \
    range(7)

#: Injected event types (module docstring of cuegym.rules.golfbillard), code = index.
INJECTED_TYPES = ("off_table", "rests_on_rail", "rail_return", "jam", "fall_after_rest", "foul")
I_OFF, I_RAIL, I_RETURN, I_JAM, I_FALL, I_FOUL = range(6)

# Notes (code, value): what an outcome says beyond its fouls (no injected event is ignored,
# in play or in the opening).
(N_LIMIT_EVENTS, N_LIMIT_TIME, N_RAIL_RETURN, N_FALL, N_JAM_FREED, N_SPOTS_UNUSED,
 N_PICK_UNUSED, N_SPOTS_REPEAT) = range(8)

#: G-3 reasons of an opening outcome, code = index.
OPENING_REASONS = (
    "both sides scored their opening ball: repeat with another ball",
    "side {first} scored its opening ball",
    "equal distances: balls back, repeat",
    "side {first}'s ball stopped nearer its attack goal",
    "side {loser} lost the opening (its ball did not cross x = 0, or it fouled or struck another "
    "ball than its middle ball)",
    "neither side opened validly (no ball crossed x = 0, or both fouled): balls back, repeat",
)

# Policies (GolfRules.spot_policy / pick_policy), code = index.
SPOT_POLICIES = ("first_free", "random", "agent")
PICK_POLICIES = ("nearest_goal", "cue_ball", "random", "agent")

# Errors a kernel reports per table (raised as ValueError by the Python layer).
(E_NONE, E_NOT_ON_TABLE, E_DEFLECT_NEEDS, E_SPOTS_MISSING, E_SPOTS_RAN_OUT, E_SPOT_NOT_FREE,
 E_PICK_MISSING, E_PICK_NOT_OWN, E_OPENING_FOUL_SIDE, E_NO_FREE_POINT, E_RESTORE_NOT_ON_TABLE,
 E_RESTORE_OFF_CLOTH, E_RESTORE_CAP, E_RESTORE_GOAL, E_RESTORE_OVERLAP,
 E_INJECTED_DROPPED) = range(16)

# Phases of a state, code = index.
PHASES = ("opening", "play", "over")
P_OPENING, P_PLAY, P_OVER = range(3)
