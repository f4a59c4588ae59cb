"""Seeded random mutations of JSON/YAML-like values, for the tests that feed a program's
valid input with one or two values spoiled (the web app's requests, the config files, the
referees' JSON).

:func:`mutate` replaces a value at a random path by a hostile one, removes it, adds an unknown
key to a mapping, appends to a list, or (rarely) replaces the whole value.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator, Sequence
from typing import Any

#: Values that break a program which trusts its input: wrong types, non-finite and huge
#: numbers, empty and nested containers, strings that look like numbers or names.
HOSTILE = [None, 0, -1, 2, 1e300, -1e300, "x", "", [], {}, [1, 2], [1, 2, 3], True, 10**30, -0.0,
           "NaN", float("nan"), float("inf"), [[]], {"a": 1}, 99, "w1", "red", [0.0, 0.0],
           [1e9, 1e9], 7.5]


def paths(x: Any, p: tuple = (), max_items: int | None = 4) -> Iterator[tuple]:
    """Every path into ``x`` (mapping keys, the first ``max_items`` list indices, all if
    None), ``()`` first."""
    yield p
    if isinstance(x, dict):
        for k, v in x.items():
            yield from paths(v, p + (k,), max_items)
    elif isinstance(x, list):
        for i, v in enumerate(x[:max_items]):
            yield from paths(v, p + (i,), max_items)


def at(x: Any, p: tuple) -> Any:
    """The value of ``x`` at path ``p``."""
    for k in p:
        x = x[k]
    return x


def replaced(body: Any, path: tuple, value: Any = None, delete: bool = False) -> Any:
    """A copy of ``body`` with the value at ``path`` set to ``value`` (or removed)."""
    out = copy.deepcopy(body)
    parent = at(out, path[:-1])
    if delete:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return out


def mutate(body: Any, rng: random.Random, hostile: Sequence = HOSTILE) -> Any:
    """A copy of ``body`` with one mutation (``body`` itself is left alone)."""
    x = copy.deepcopy(body)
    inner = [p for p in paths(x) if p]
    r = rng.random()
    if r < 0.05 or not inner:
        return rng.choice(hostile)
    if r < 0.15:
        maps = [p for p in paths(x) if isinstance(at(x, p), dict)]
        if maps:
            at(x, rng.choice(maps))["extra"] = rng.choice(hostile)
            return x
    if r < 0.22:
        lists = [p for p in paths(x) if isinstance(at(x, p), list)]
        if lists:
            seq = at(x, rng.choice(lists))
            seq.append(copy.deepcopy(seq[0]) if seq and rng.random() < 0.5 else
                       rng.choice(hostile))
            return x
    p = rng.choice(inner)
    parent = at(x, p[:-1])
    if rng.random() < 0.25:
        parent.pop(p[-1])
    else:
        v = at(x, p)
        if isinstance(v, int | float) and not isinstance(v, bool) and rng.random() < 0.4:
            parent[p[-1]] = v * rng.choice([-1, 0, 0.5, 10, 1e6]) + rng.choice([0, 0.01])
        else:
            parent[p[-1]] = rng.choice(hostile)
    return x
