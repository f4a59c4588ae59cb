"""Golfbillard zones (configs/zones/golfbillard.yaml, cuegym.configs.zones): data and geometry.

Test names carry the rule ids of docs/rules_golfbillard.md whose zones they check.
"""

import math

import numpy as np
import pytest

from cuegym.configs import load_params, load_table
from cuegym.configs.zones import (
    in_zone,
    load_zones,
    offset_polygon,
    path_leaves_band,
    path_leaves_polygon,
    path_max,
    points_in_polygon,
    polygon_area,
    zone_of,
    zones_from_dict,
)

ZS = load_zones()
TABLE = load_table("golfbillard")
R = load_params("golfbillard").R
EPS = ZS.eps_line


def mirror(poly):
    return np.column_stack([-poly[:, 0], poly[:, 1]])


def same_polygon(a, b):
    """Same vertex set (orientation and start may differ)."""
    ka = sorted(map(tuple, np.round(a, 9)))
    kb = sorted(map(tuple, np.round(b, 9)))
    return ka == kb


def test_epsilon_line_is_half_line_plus_half_mm():
    assert ZS.eps_line == pytest.approx(0.00085)


@pytest.mark.parametrize("name", ["great_triangle", "small_triangle", "below_stroke_line"])
def test_goal_zones_mirror_each_other(name):
    z0, z1 = ZS.zone(f"{name}_0"), ZS.zone(f"{name}_1")
    assert z0.goal == 0 and z1.goal == 1
    assert len(z0.polygons) == len(z1.polygons)
    for p0 in z0.polygons:
        assert any(same_polygon(mirror(p0), p1) for p1 in z1.polygons)


def test_G14_great_triangle_geometry():
    tri = ZS.zone("great_triangle_0").polygons[0]
    assert polygon_area(tri) == pytest.approx(0.5 * 0.45 * 2 * 0.3577)
    assert ZS.in_zone("great_triangle_0", [0.89, 0.0])
    assert ZS.in_zone("great_triangle_0", [0.46, 0.34])
    assert not ZS.in_zone("great_triangle_0", [0.44, 0.0])
    assert not ZS.in_zone("great_triangle_0", [0.80, 0.2])


def test_G10_G14_small_triangle_pokes_out_of_the_great_triangle_at_the_goal():
    """The stroke lines meet at the small apex; the small triangle reaches the goal corners."""
    small = ZS.zone("small_triangle_0").polygons[0]
    # the great triangle ends in a point on the cushion, the small one does not (G-14 says
    # "great or small" for that reason); the apex and the middle are shared
    assert ZS.in_zone("great_triangle_0", [[0.72, 0.0], [0.85, 0.0]]).all()
    assert not ZS.in_zone("great_triangle_0", small[small[:, 0] > 0.89]).any()
    for seg in ZS.zone("stroke_line_0").segments:
        assert any(np.allclose(p, [0.72, 0.0]) for p in seg)
        assert any(np.allclose(np.abs(p), [0.0, 0.45]) for p in seg)


def test_G10_below_stroke_line_region():
    # between the stroke line and the goal-0 corners, outside the small triangle
    assert ZS.in_zone("below_stroke_line_0", [[0.6, 0.3], [0.6, -0.3], [0.88, 0.2]]).all()
    assert not ZS.in_zone("below_stroke_line_0", [[0.3, 0.0], [0.6, 0.05], [0.8, 0.0]]).any()
    # the stroke line at x = 0.36 is at |y| = 0.225
    assert ZS.in_zone("stroke_line_0", [0.36, 0.225], EPS)
    assert not ZS.in_zone("below_stroke_line_0", [0.36, 0.225 - 0.002])
    assert ZS.in_zone("below_stroke_line_0", [0.36, 0.225 - 0.0004], EPS)  # on the line: below
    # below + small triangle + the rest (above the stroke lines) cover the half table x > 0
    xs, ys = np.meshgrid(np.linspace(0.01, 0.89, 60), np.linspace(-0.44, 0.44, 60))
    pts = np.stack([xs, ys], -1).reshape(-1, 2)
    below = ZS.in_zone("below_stroke_line_0", pts)
    small = ZS.in_zone("small_triangle_0", pts)
    assert not np.any(below & ZS.in_zone("small_triangle_0", pts, -1e-6))
    y_line = 0.45 * (1 - pts[:, 0] / 0.72)
    above = (pts[:, 0] < 0.72) & (np.abs(pts[:, 1]) < y_line)
    assert np.all(below | small | above)


def test_G11_strips_are_92mm_wide_and_name_their_cushion():
    for name, sign in (("strip_top", 1.0), ("strip_bottom", -1.0)):
        z = ZS.zone(name)
        cu = TABLE.cushions[z.cushion]
        assert (cu.nx, cu.ny) == (0.0, -sign)  # the long cushion on that side
        assert polygon_area(z.polygons[0]) == pytest.approx(1.8 * 0.0923)
        assert z.contains([0.0, sign * 0.40])
        assert not z.contains([0.0, sign * (0.3577 - 0.0005)])
        assert z.contains([0.0, sign * (0.3577 - 0.0005)], EPS)  # on the vlieglijn counts


def test_G24_fifteen_kaders_tile_the_table():
    assert [k.id for k in ZS.kaders] == list(range(1, 16))
    assert sum(polygon_area(k.polygon) for k in ZS.kaders) == pytest.approx(1.8 * 0.9)
    rng = np.random.default_rng(0)
    pts = rng.uniform([-0.9, -0.45], [0.9, 0.45], size=(4000, 2))
    counts = sum(points_in_polygon(k.polygon, pts, -1e-9).astype(int) for k in ZS.kaders)
    assert np.all(counts == 1)  # away from the lines every point is in exactly one kader
    assert int(ZS.kader_of([0.0, 0.0])) == 8  # the bos
    assert ZS.kader(8).name == "bos"
    assert polygon_area(ZS.zone("bos").polygons[0]) == pytest.approx(2 * 0.09**2)


def test_G24_kader_names_and_layout():
    names = {k.id: k.name for k in ZS.kaders}
    pts = {2: (0.0, 0.40), 11: (0.8, 0.0), 10: (0.85, 0.3), 12: (0.85, -0.3), 9: (0.3, 0.0),
           7: (-0.3, 0.0), 5: (-0.8, 0.0), 15: (0.7, -0.40), 13: (-0.7, -0.4)}
    got = ZS.kader_of(np.array(list(pts.values())))
    assert got.tolist() == list(pts)
    assert names[11] == "great_triangle_0" and names[5] == "great_triangle_1"


def test_G23_merged_kader_replaces_great_triangle_and_corners():
    merged, replaced = ZS.merges[0]
    assert sorted(replaced) == [10, 11, 12]
    assert polygon_area(merged.polygon) == pytest.approx(sum(
        polygon_area(ZS.kader(k).polygon) for k in replaced))
    view = ZS.kader_set(0)
    assert len(view) == 13
    assert ZS.kader_of([[0.8, 0.0], [0.85, 0.3]], merged_goal=0).tolist() == [16, 16]
    assert ZS.kader_of([[0.8, 0.0], [0.85, 0.3]]).tolist() == [11, 10]
    # the merged view has no line between the triangle and a corner
    p = np.array([0.675, 0.3577 / 2])  # on the triangle's side
    assert ZS.on_kader_line(p)
    assert not ZS.on_kader_line(p, merged_goal=0)


@pytest.mark.parametrize("side", [0, 1])
def test_G27_G28_G29_penalty_spots_touch_what_they_should(side):
    spots = ZS.penalty_spots[side]
    sign = 1.0 if side == 0 else -1.0
    caps = np.array([[c.x, c.y] for c in TABLE.circles])
    r_cap = TABLE.circles[0].radius
    touch = R + r_cap
    # G-27: spots 1, 2 touch the attack-end short cushion, 3 mm from a goal cap, left = spot 1
    for k in (0, 1):
        assert sign * spots[k, 0] == pytest.approx(0.90 - R)
        d = np.min(np.hypot(*(caps - spots[k]).T))
        assert d == pytest.approx(touch + 0.003, abs=2e-5)
    left = spots[0, 1] * sign  # left is +y facing +x (side 0), -y facing -x (side 1)
    assert left > 0
    # G-28: spot 3 in the bos, touching the inner long-axis cap of the attack side
    inner = np.array([sign * 0.09, 0.0])
    assert np.hypot(*(spots[2] - inner)) == pytest.approx(touch, abs=1e-6)
    assert in_zone("bos", spots[2])
    # G-29: spots 4, 5 touch both caps of a cross-axis arm, on the defence side
    for k, ysign in ((3, 1.0), (4, -1.0)):
        arm = np.array([[0.0, ysign * sign * 0.09], [0.0, ysign * sign * 0.18]])
        assert np.hypot(*(arm - spots[k]).T) == pytest.approx([touch, touch], abs=2e-5)
        assert sign * spots[k, 0] < 0
    # no spot overlaps a cap
    d = np.hypot(spots[:, None, 0] - caps[None, :, 0], spots[:, None, 1] - caps[None, :, 1])
    assert np.all(d >= touch - 2e-5)


def test_caps_indices_match_the_table():
    caps = np.array([[c.x, c.y] for c in TABLE.circles])
    for g, sign in ((0, 1.0), (1, -1.0)):
        assert np.allclose(np.abs(caps[ZS.goal_caps[g]]), [[0.835, 0.05575]] * 2)
        assert np.all(np.sign(caps[ZS.goal_caps[g], 0]) == sign)
        assert np.allclose(caps[ZS.front_caps[g]], [sign * 0.18, 0.0])
    assert np.allclose(np.abs(caps[ZS.outer_side_caps]), [[0.0, 0.18]] * 2)


def test_in_zone_and_zone_of_are_vectorised():
    pts = np.zeros((3, 4, 2))
    pts[..., 0] = 0.8
    assert in_zone("great_triangle_0", pts).shape == (3, 4)
    idx = zone_of([[0.8, 0.0], [0.0, 0.0], [0.0, 0.4]], ["small_triangle_0", "bos", "strip_top"])
    assert idx.tolist() == [0, 1, 2]
    assert zone_of([[0.1, 0.2]], ["bos"]).tolist() == [-1]


def test_bad_points_raise_value_error_naming_the_value():
    with pytest.raises(ValueError, match="nan"):
        in_zone("bos", [float("nan"), 0.0])
    with pytest.raises(ValueError, match="shape"):
        in_zone("bos", [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="no_such_zone"):
        in_zone("no_such_zone", [0.0, 0.0])


def test_unknown_keys_in_zone_file_raise():
    with pytest.raises(ValueError, match="colour"):
        zones_from_dict({"epsilon_line": 0.001, "colour": 1})


def test_offset_polygon_moves_each_edge_by_eps():
    sq = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    assert np.allclose(offset_polygon(sq, 0.1), [[-0.1, -0.1], [1.1, -0.1], [1.1, 1.1],
                                                 [-0.1, 1.1]])
    assert polygon_area(offset_polygon(sq, -0.1)) == pytest.approx(0.64)


def seg(t0, t1, p0, q, acc=(0.0, 0.0)):
    return (t0, t1, np.array(p0, float), np.array(q, float), np.array(acc, float))


def sample(segs, n=4001):
    pts = []
    for t0, t1, p0, q, a in segs:
        tau = np.linspace(0.0, t1 - t0, n)[:, None]
        pts.append(p0 + q * tau + a * tau**2)
    return np.concatenate(pts)


def test_G21_path_leaves_polygon_is_exact_against_dense_sampling():
    rng = np.random.default_rng(1)
    poly = ZS.kader(9).polygon  # non-convex: the bos notch
    agree = 0
    for _ in range(300):
        p0 = rng.uniform([0.02, -0.33], [0.43, 0.33])
        if not points_in_polygon(poly, p0[None], -EPS)[0]:
            continue
        q = rng.normal(0, 0.4, 2)
        acc = -0.5 * q * rng.uniform(0.2, 1.0)
        segs = [seg(0.0, 1.0, p0, q, acc)]
        exact = path_leaves_polygon(segs, poly, -EPS)
        dense = not points_in_polygon(poly, sample(segs), -EPS).all()
        if exact != dense:  # only a graze thinner than the sampling step may disagree
            pts = sample(segs, 200001)
            assert exact == (not points_in_polygon(poly, pts, -EPS).all())
        agree += 1
    assert agree > 100


def test_path_leaves_polygon_grazing_and_returning():
    tri = ZS.zone("great_triangle_0").polygons[0]
    # out across the base x = 0.45 and back: left
    out_back = [seg(0.0, 1.0, [0.5, 0.0], [-0.2, 0.0], [0.2, 0.0])]  # x(t)=0.5-0.2t+0.2t^2
    assert path_max(out_back, (-1.0, 0.0)) == pytest.approx(-0.45)
    assert not path_leaves_polygon(out_back, tri, 0.0)  # touches x = 0.45 exactly at t = 0.5
    deeper = [seg(0.0, 1.0, [0.5, 0.0], [-0.4, 0.0], [0.4, 0.0])]  # reaches 0.4
    assert path_leaves_polygon(deeper, tri, 0.0)
    assert path_leaves_polygon(deeper, tri, EPS)
    shallow = [seg(0.0, 1.0, [0.5, 0.0], [-0.2015, 0.0], [0.2015, 0.0])]  # reaches 0.44962
    assert path_leaves_polygon(shallow, tri, 0.0)
    assert not path_leaves_polygon(shallow, tri, EPS)  # within the line band: still inside


def test_G21_path_leaves_band_of_a_line():
    line = np.array([[[-0.45, 0.3577], [0.45, 0.3577]]])
    along = [seg(0.0, 1.0, [0.0, 0.3577], [0.2, 0.0])]
    assert not path_leaves_band(along, line, EPS)
    off = [seg(0.0, 1.0, [0.0, 0.3577], [0.0, 0.002])]
    assert path_leaves_band(off, line, EPS)
    beyond_end = [seg(0.0, 1.0, [0.0, 0.3577], [0.5, 0.0])]
    assert path_leaves_band(beyond_end, line, EPS)


def test_G3_path_max_crossing_x0():
    s = [seg(0.0, 2.0, [-0.8, 0.0], [1.0, 0.0], [-0.25, 0.0])]  # x_max = -0.8 + 1 = 0.2 at t=2
    assert path_max(s, (1.0, 0.0)) == pytest.approx(0.2)
    s = [seg(0.0, 4.0, [-0.8, 0.0], [0.6, 0.0], [-0.15, 0.0])]  # vertex at t=2: -0.2
    assert path_max(s, (1.0, 0.0)) == pytest.approx(-0.2)
    assert math.isinf(path_max([], (1.0, 0.0)))


def test_draw_golf_zones_smoke(tmp_path):
    import importlib.util
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "experiments" / "draw_golf_zones.py"
    spec = importlib.util.spec_from_file_location("draw_golf_zones", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["draw_golf_zones"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    out = mod.main(["--out", str(tmp_path / "zones.png"), "--dpi", "30"])
    assert out.exists() and out.stat().st_size > 10_000


def test_docs_table_maps_every_rule_to_existing_tests():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "rules_golfbillard.md").read_text()
    table = doc[doc.index("## Rule ids and their tests"):]
    defined = set()
    for f in (root / "tests").glob("test_*.py"):  # the envs' tests cite G-4 / G-5 too
        defined |= set(re.findall(r"^def (test_\w+)", f.read_text(), re.M))
    named = set(re.findall(r"`(test_\w+)`", table))
    assert named <= defined, sorted(named - defined)
    rows = re.findall(r"^\| (G-\d+)[a-b]? ", table, re.M)
    assert {int(r[2:]) for r in rows} == set(range(1, 32))
    assert "img/golfbillard_zones.png" in doc
