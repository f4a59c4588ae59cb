"""cuegym: batched billiards physics, rules and Gymnasium envs for keglebillard and golfbillard.

Subpackages (imports go one way, top to bottom):

- ``cuegym.configs``  frozen, validated dataclasses loaded from the YAML files in ``configs/``
- ``cuegym.physics``  numba event-based simulator (no gymnasium, no torch)
- ``cuegym.rules``    referees: pure functions over a shot's event log
- ``cuegym.envs``     Gymnasium / vector / SB3 / PettingZoo adapters
- ``cuegym.agents``   baselines, planners and trained policies
- ``cuegym.experiments``  the scripts behind the ``cuegym`` command (``cuegym --help``)

``import cuegym`` registers the Gymnasium ids (``cuegym/KeglebillardShot-v0``,
``cuegym/GolfbillardShot-v0``, ``cuegym/Keglebillard-v0``, ``cuegym/Golfbillard-v0``) when
gymnasium is installed, as ``ale_py`` or ``minigrid`` do; the registration is a table of strings
(nothing heavy is imported until ``gymnasium.make``). In a worker process that has not imported
cuegym, ``gymnasium.make("cuegym:cuegym/KeglebillardShot-v0")`` imports it first.
"""

__version__ = "0.1.0"


def _prepare_numba_caches() -> None:
    from cuegym.numba_cache import drop_stale_caches, ensure_cache_location

    ensure_cache_location()  # a read-only install with no writable home: a temp folder
    try:
        drop_stale_caches()
    except OSError:  # an unreadable tree: numba's own cache checks still apply
        pass


def _register_envs() -> None:
    from importlib.util import find_spec

    if find_spec("gymnasium") is None:  # the physics and the referees work without it
        return
    from cuegym.envs import register_envs  # absolute: pytest may import this file as a plain
    # module when the checkout's folder name is not a valid package name (tmp.X1y2)

    register_envs()


_prepare_numba_caches()
_register_envs()
