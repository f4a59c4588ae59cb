"""cuegym.physics: a batched, event-based billiards simulator (numba), no gymnasium or torch.

Main entry points:

- :func:`simulate` — T tables in one compiled call (``prange`` over tables), returning a
  :class:`SimResult` with final states and per-table event logs.
- :func:`simulate_json` — the JSON shot interface (also ``python -m cuegym.physics simulate``).
- :mod:`cuegym.physics.path` — closed-form ball positions at any time from a result.

Units: metres, seconds, kilograms, degrees at the API. See docs/physics.md for the models and
conventions, docs/physics_api.md for the arrays.
"""

from .api import Models, PhysicsInputError, SimResult, simulate
from .constants import EVENT_NAMES, MOTION_NAMES

__all__ = ["Models", "PhysicsInputError", "SimResult", "simulate", "simulate_json",
           "EVENT_NAMES", "MOTION_NAMES"]


def __getattr__(name):
    if name == "simulate_json":
        from .jsonio import simulate_json

        return simulate_json
    raise AttributeError(name)
