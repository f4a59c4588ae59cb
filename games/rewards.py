"""The weighted sum of reward terms, shared by both games' ``reward_terms``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def weighted_total(terms: Mapping[str, np.ndarray], weights: Any) -> np.ndarray:
    """(T,) sum(weight * term) over the weights' terms (``weights.terms`` names them; a zero
    weight skips its term)."""
    out = np.zeros(len(next(iter(terms.values()))))
    for name in weights.terms:
        w = getattr(weights, name)
        if w:
            out = out + w * terms[name]
    return out
