"""The golfbillard kernels' array bundles as numba structrefs: one reference count per bundle.

numba increments the reference count of every array in a NamedTuple argument when a kernel is
entered and decrements it on exit, and its pruning pass cannot drop the pair in a kernel that
calls another one. With the state (21 arrays), event log (13), inputs (18), geometry (25
arrays) and outcomes (48), a referee stroke paid about 1,250 increments, some 40 % of its time.
A structref holding the same arrays is one reference-counted object, and kernels read it with
the same ``bundle.field`` syntax, so the kernels' code does not change: 327 increments a
stroke, the referee about twice as fast (README, Performance).

The Python side keeps the NamedTuples (they pickle, and their fields read at Python speed);
:func:`struct` wraps one at the kernel call, sharing its arrays (kernel writes land in them).
Each bundle has its own registered type and proxy class at module level, so the kernels that
take them cache like any other (``cache=True``).
"""

from __future__ import annotations

from typing import Any

import numba as nb
from numba.core import types
from numba.experimental import structref

from .golf_arrays import GolfInputs, GolfLog, OutcomeArrays, StateArrays
from .golf_paths import GolfArrays, golf_arrays


def _struct_type(name: str, bundle: str) -> type:
    """A registered StructRef type class, at module level under ``name`` (numba's cache and
    pickling find a type by its module and name)."""

    def preprocess_fields(self: Any, fields: Any) -> tuple:
        # a bundle's int or float field (e.g. GolfArrays.R) types as int64 / float64, not a literal
        return tuple((n, types.unliteral(t)) for n, t in fields)

    cls = type(name, (types.StructRef,), {"preprocess_fields": preprocess_fields,
                                          "__module__": __name__,
                                          "__doc__": f"numba type of the {bundle} struct."})
    return structref.register(cls)


StateStructType = _struct_type("StateStructType", "StateArrays")
LogStructType = _struct_type("LogStructType", "GolfLog")
InputStructType = _struct_type("InputStructType", "GolfInputs")
GeometryStructType = _struct_type("GeometryStructType", "GolfArrays")
OutcomeStructType = _struct_type("OutcomeStructType", "OutcomeArrays")


class StateStruct(structref.StructRefProxy):
    """A :class:`~cuegym.rules.golf_arrays.StateArrays` as the kernels take it."""


class LogStruct(structref.StructRefProxy):
    """A :class:`~cuegym.rules.golf_arrays.GolfLog` as the kernels take it."""


class InputStruct(structref.StructRefProxy):
    """A :class:`~cuegym.rules.golf_arrays.GolfInputs` as the kernels take it."""


class GeometryStruct(structref.StructRefProxy):
    """A :class:`~cuegym.rules.golf_paths.GolfArrays` as the kernels take it."""


class OutcomeStruct(structref.StructRefProxy):
    """A :class:`~cuegym.rules.golf_arrays.OutcomeArrays` as the kernels take it."""


structref.define_proxy(StateStruct, StateStructType, list(StateArrays._fields))
structref.define_proxy(LogStruct, LogStructType, list(GolfLog._fields))
structref.define_proxy(InputStruct, InputStructType, list(GolfInputs._fields))
structref.define_proxy(GeometryStruct, GeometryStructType, list(GolfArrays._fields))
structref.define_proxy(OutcomeStruct, OutcomeStructType, list(OutcomeArrays._fields))


# Cached constructors: calling a proxy class from Python compiles its constructor in every
# process; these load from the cache.
@nb.njit(cache=True)
def _state_struct(nt):
    return StateStruct(*nt)


@nb.njit(cache=True)
def _log_struct(nt):
    return LogStruct(*nt)


@nb.njit(cache=True)
def _input_struct(nt):
    return InputStruct(*nt)


@nb.njit(cache=True)
def _geometry_struct(nt):
    return GeometryStruct(*nt)


@nb.njit(cache=True)
def _outcome_struct(nt):
    return OutcomeStruct(*nt)


_MAKERS = {StateArrays: _state_struct, GolfLog: _log_struct, GolfInputs: _input_struct,
           GolfArrays: _geometry_struct, OutcomeArrays: _outcome_struct}


def struct(bundle: Any) -> structref.StructRefProxy:
    """The structref of a kernel bundle (StateArrays, GolfLog, GolfInputs, GolfArrays or
    OutcomeArrays), sharing its arrays; a few microseconds a call."""
    try:
        make = _MAKERS[type(bundle)]
    except KeyError:
        raise TypeError(f"not a golfbillard kernel bundle: {type(bundle).__name__}") from None
    return make(bundle)


_GEOMETRY: dict[int, tuple[GolfArrays, GeometryStruct]] = {}


def geometry_struct(geo: Any) -> GeometryStruct:
    """The :class:`GeometryStruct` of a GolfGeometry's :func:`golf_arrays` (cached)."""
    ga = golf_arrays(geo)
    hit = _GEOMETRY.get(id(ga))
    if hit is None or hit[0] is not ga:
        hit = _GEOMETRY[id(ga)] = (ga, struct(ga))  # holds ga, so its id stays its own
    return hit[1]
