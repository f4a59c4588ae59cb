"""Argument checks every cuegym env shares: ``num_envs``, ``render_mode``, reset ``options``.

Each raises ``ValueError`` naming the bad value (Gymnasium itself only warns about an unknown
render mode and passes unknown reset options through, which would silently do nothing here).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from cuegym.cli_errors import did_you_mean, unknown


def check_num_envs(num_envs: Any) -> int:
    """``num_envs`` as an int >= 1; a float, bool, string or non-positive value raises."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, int | np.integer) or num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    return int(num_envs)


def check_render_mode(render_mode: Any, modes: Iterable[str]) -> str | None:
    """``render_mode`` if it is None or one of ``modes``; otherwise a ValueError."""
    modes = list(modes)
    if render_mode is not None and render_mode not in modes:
        if isinstance(render_mode, str):
            raise ValueError(unknown("render_mode", render_mode, [None, *modes]))
        raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}"
                         f"{did_you_mean(render_mode, modes)}")
    return render_mode


def check_reset_options(options: Any, known: Iterable[str] = ()) -> dict[str, Any]:
    """``options`` (None or a mapping with keys among ``known``) as a dict."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a mapping or None, got {options!r}")
    known = list(known)
    bad = [k for k in options if k not in known]
    if bad:
        if not known:
            raise ValueError(f"this env takes no reset options, got {sorted(map(str, bad))}")
        raise ValueError(unknown("reset option", bad[0], known))
    return dict(options)
