"""cuegym: batched billiards physics, rules and Gymnasium envs for keglebillard and golfbillard.

Subpackages (imports go one way, top to bottom):

- ``cuegym.configs``  frozen, validated dataclasses loaded from the YAML files in ``configs/``
- ``cuegym.physics``  numba event-based simulator (no gymnasium, no torch)
- ``cuegym.rules``    referees: pure functions over a shot's event log
- ``cuegym.envs``     Gymnasium / vector / SB3 / PettingZoo adapters
- ``cuegym.agents``   baselines, planners and trained policies
"""

__version__ = "0.1.0"
