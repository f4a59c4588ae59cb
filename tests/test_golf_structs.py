"""The golfbillard kernels' structrefs (cuegym.rules.golf_structs) share the NamedTuples' arrays."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from cuegym.rules.golf_arrays import GolfLog, empty_outcomes, empty_states, plain_inputs
from cuegym.rules.golf_config import golf_geometry
from cuegym.rules.golf_paths import golf_arrays
from cuegym.rules.golf_structs import (
    GeometryStruct,
    InputStruct,
    LogStruct,
    OutcomeStruct,
    StateStruct,
    geometry_struct,
    struct,
)


@nb.njit
def _mark(out, st, t):
    out.err[t] = 7
    st.stroke_no[t] = st.stroke_no[t] + 1


@nb.njit
def _geometry_facts(ga):
    return ga.R, ga.caps.shape[0], ga.caps[3, 1]


def test_a_kernel_writing_through_the_structs_writes_the_namedtuples_arrays():
    out = empty_outcomes(3)
    st = empty_states(3).arrays()
    _mark(struct(out), struct(st), 1)
    assert out.err.tolist() == [0, 7, 0]
    assert st.stroke_no.tolist() == [0, 1, 0]


def test_the_geometry_struct_holds_the_geometrys_facts_and_is_built_once():
    geo = golf_geometry()
    ga = golf_arrays(geo)
    s = geometry_struct(geo)
    assert isinstance(s, GeometryStruct)
    assert geometry_struct(geo) is s
    R, n_caps, cap_y = _geometry_facts(s)
    assert (R, n_caps, cap_y) == (ga.R, ga.caps.shape[0], ga.caps[3, 1])


def test_each_bundle_gets_its_own_struct():
    T = 2
    inputs = plain_inputs(np.zeros((T, 2), np.int64), np.zeros((T, 2, 5)))
    log = GolfLog(*(np.zeros(1) for _ in GolfLog._fields))
    for bundle, kind in ((empty_states(T).arrays(), StateStruct), (inputs, InputStruct),
                         (empty_outcomes(T), OutcomeStruct), (log, LogStruct)):
        assert type(struct(bundle)) is kind


@pytest.mark.parametrize("bad", [(np.zeros(2),), {"xy": np.zeros(2)}, np.zeros(3), None])
def test_struct_refuses_what_is_not_a_kernel_bundle(bad):
    with pytest.raises(TypeError, match="not a golfbillard kernel bundle"):
        struct(bad)
