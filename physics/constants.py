"""Codes shared by the physics kernels, the event log and the rules.

Motion states (per ball), as in Leckie & Greenspan (2006) and pooltool:

=====  ============  ==================================================
code   name          meaning
=====  ============  ==================================================
0      stationary    v = 0, w = 0
1      spinning      v = 0, only w_z != 0
2      sliding       contact-point slip u != 0
3      rolling       u = 0, v != 0
4      pocketed      dropped into a pocket/goal (or absent): ignored
=====  ============  ==================================================

Event types (``SimResult.ev_type``) and their agents ``(ev_i, ev_j)``:

=====  ============  ===============  ==========================================================
code   name          ev_i             ev_j
=====  ============  ===============  ==========================================================
1      ball_ball     ball             ball (ev_i < ev_j)
2      ball_cushion  ball             cushion: j < NL is straight cushion j; j >= NL is jaw
                                      circle j - NL (index into ``table.circles``)
3      ball_pocket   ball             pocket index
4      ball_post     ball             circle index of the post (cap) in ``table.circles``
5      ball_pin      ball             pin index (0 = king); state after shows the ball only
6      pin_pin       falling pin      pin toppled by it (chain, K-P2)
7      transition    ball             new motion state (0..3)
=====  ============  ===============  ==========================================================
"""

STATIONARY = 0
SPINNING = 1
SLIDING = 2
ROLLING = 3
POCKETED = 4
MOTION_NAMES = ("stationary", "spinning", "sliding", "rolling", "pocketed")

EV_NONE = 0
EV_BALL_BALL = 1
EV_BALL_CUSHION = 2
EV_BALL_POCKET = 3
EV_BALL_POST = 4
EV_BALL_PIN = 5
EV_PIN_PIN = 6
EV_TRANSITION = 7
EVENT_NAMES = ("none", "ball_ball", "ball_cushion", "ball_pocket", "ball_post", "ball_pin",
               "pin_pin", "transition")

#: ``SimResult.overflow`` codes: why a table's simulation ended.
END_REST = 0  # every ball at rest or pocketed, every pin settled
END_MAX_EVENTS = 1  # the event log filled up (max_events)
END_T_MAX = 2  # simulated time reached t_max

#: Ball-ball collision models.
BB_FRICTIONAL_INELASTIC = 0  # Alciatore friction (TP A-14), default
BB_FRICTIONLESS_ELASTIC = 1
BALL_BALL_MODELS = {"frictional_inelastic": 0, "frictionless_elastic": 1}

#: Ball-cushion collision models.
BC_HAN_2005 = 0  # Han (2005), default
BC_MIRROR = 1  # mirror with restitution
CUSHION_MODELS = {"han_2005": 0, "mirror": 1}

#: What separates two balls left moving together after their collision ("continually
#: touching", docs/physics.md section 7).
TOUCH_BOUNDED = 0  # pushed apart to the minimum separation speed, momentum conserved (default)
TOUCH_POOLTOOL = 1  # pooltool 0.6's: the chased ball takes 10 % of the chaser's speed along n
TOUCHING_MODELS = {"bounded": 0, "pooltool": 1}

#: Column of a per-event agent state (``SimResult.ev_state[..., k]``).
S_X, S_Y, S_VX, S_VY, S_WX, S_WY, S_WZ = range(7)

# ---------------------------------------------------------------------------------------------
# Input limits (checked by physics.api; each error message quotes the range)
# ---------------------------------------------------------------------------------------------

#: Cue speed V0 range of a strike [m/s].
MAX_V0 = 20.0
#: Largest initial ball speed |v| [m/s] (above the ~29 m/s a 20 m/s centre strike gives).
MAX_SPEED = 30.0
#: Largest initial spin |w| [rad/s] of a ball of radius 30.75 mm or more (above the ~880
#: rad/s a 20 m/s strike can give it); a smaller ball's is :func:`spin_limit`.
MAX_SPIN = 1000.0
#: Largest initial surface speed R |w| [m/s] (MAX_SPIN at R = 30.75 mm): a strike's spin goes
#: as 1/R, so a small ball struck at the V0 limit spins faster than MAX_SPIN.
MAX_SPIN_SURFACE = 30.75


def spin_limit(R: float) -> float:
    """Largest initial spin |w| [rad/s] of a ball of radius ``R`` [m]: MAX_SPIN, or
    MAX_SPIN_SURFACE / R where that is more (a strike at the V0 limit stays below both)."""
    return max(MAX_SPIN, MAX_SPIN_SURFACE / R)
#: Largest event log per table (the memory check below still applies).
MAX_EVENTS = 1_000_000
#: Largest simulated time per shot [s].
MAX_T = 3600.0
#: Most tables in one call (memory is checked as well).
MAX_TABLES = 10_000_000
#: Most shot objects in one JSON list.
MAX_JSON_SHOTS = 100_000
#: Largest kiss spacer [m] (pooltool's is 1e-6).
MAX_KISS = 1e-3
#: Valid ranges of physical parameters (inclusive) in which the models and the event detection
#: are meaningful: friction floors keep every motion phase finite (a sliding ball with
#: u_s = 1e-60 would slide for 1e60 s and the predictions lose all precision), gravity from the
#: Moon's 1.6 m/s^2 up. Restitutions are in [0, 1] (configs).
PARAM_RANGES = {
    "R": (0.005, 0.2),
    "m": (0.01, 10.0),
    "u_s": (0.01, 2.0),
    "u_r": (0.001, 1.0),
    "u_sp": (0.001, 1.0),
    "g": (1.0, 100.0),
    "M": (0.01, 100.0),
    "m_e": (1e-4, 100.0),
    "m_pin": (1e-4, 10.0),
    "f_c": (0.0, 10.0),
    "f_cap": (0.0, 10.0),
    "f_jaw": (0.0, 10.0),
    "pin_topple_speed": (0.0, MAX_SPEED),
    "pin_chain_delay": (0.0, 10.0),
}
