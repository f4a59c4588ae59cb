"""Robust polynomial root finding for event prediction (degree <= 4, real arithmetic only).

Event prediction needs one number: the first time in (0, T] at which a non-negative gap
function ``f(t)`` (squared distance minus squared contact distance) *enters* zero from above.
Instead of computing all complex roots (pooltool uses Algorithm 1010, which returns t = 0 for
the degenerate ``A = 0`` case of two balls rolling in parallel), we isolate the monotone pieces
of ``f`` on [0, T] from the roots of its derivative and refine the first bracket with a sign
change by safeguarded Newton. This is exact up to rounding, never returns a root where the pair
separates, and degrades gracefully when leading coefficients vanish (parallel motion).

All functions are pure numba kernels over floats.
"""

from __future__ import annotations

import math

import numba as nb

INF = math.inf
#: Relative size below which a leading coefficient is dropped (docs/physics.md sec. 6, step 3).
DEGREE_TOL = 1e-14


@nb.njit(cache=True, error_model="numpy", inline="always")
def poly4(c4: float, c3: float, c2: float, c1: float, c0: float, t: float) -> float:
    """Evaluate c4 t^4 + c3 t^3 + c2 t^2 + c1 t + c0 (Horner)."""
    return (((c4 * t + c3) * t + c2) * t + c1) * t + c0


@nb.njit(cache=True, error_model="numpy", inline="always")
def dpoly4(c4: float, c3: float, c2: float, c1: float, t: float) -> float:
    """Derivative of :func:`poly4` at t."""
    return ((4.0 * c4 * t + 3.0 * c3) * t + 2.0 * c2) * t + c1


@nb.njit(cache=True, error_model="numpy")
def refine_bracket(c4, c3, c2, c1, c0, lo, hi, flo):
    """Root of a polynomial that is monotone on [lo, hi] with a sign change.

    Safeguarded Newton: a Newton step that leaves the bracket is replaced by bisection. Returns
    the converged Newton iterate, or the ``hi`` end of a bracket that has shrunk to a few ulps.
    """
    x = 0.5 * (lo + hi)
    for _ in range(100):
        fx = poly4(c4, c3, c2, c1, c0, x)
        if fx == 0.0:
            return x
        if (fx > 0.0) == (flo > 0.0):
            lo = x
            flo = fx
        else:
            hi = x
        width = hi - lo
        if width <= 4e-16 * max(1.0, abs(hi)):
            return hi
        d = dpoly4(c4, c3, c2, c1, x)
        xn = x - fx / d if d != 0.0 else 0.5 * (lo + hi)
        if not (lo < xn < hi):
            xn = 0.5 * (lo + hi)
        elif abs(xn - x) <= 1e-16 * max(1.0, abs(x)):
            return xn  # Newton converged (to within a few ulps of the root)
        x = xn
    return hi


@nb.njit(cache=True, error_model="numpy")
def quadratic_roots(a: float, b: float, c: float, T: float):
    """Real roots of a t^2 + b t + c, sorted; degree lowered when ``|a| T^2`` is negligible.

    Returns (n, r0, r1) with n in {0, 1, 2}; unused roots are +inf.
    """
    sa = abs(a) * T * T
    sb = abs(b) * T
    if sa <= DEGREE_TOL * max(sb, abs(c)):
        if sb <= DEGREE_TOL * abs(c) or b == 0.0:
            return 0, INF, INF
        return 1, -c / b, INF
    disc = b * b - 4.0 * a * c
    if disc < 0.0:
        return 0, INF, INF
    sq = math.sqrt(disc)
    q = -0.5 * (b + sq) if b >= 0.0 else -0.5 * (b - sq)  # stable (no cancellation)
    r0 = q / a
    r1 = c / q if q != 0.0 else r0
    if r0 > r1:
        r0, r1 = r1, r0
    return 2, r0, r1


@nb.njit(cache=True, error_model="numpy")
def _cubic_critical(c4, c3, c2, c1, T):
    """Roots in (0, T) of f'(t) = 4 c4 t^3 + 3 c3 t^2 + 2 c2 t + c1 (sorted; +inf pads)."""
    a3 = 4.0 * c4
    a2 = 3.0 * c3
    a1 = 2.0 * c2
    a0 = c1
    out0 = INF
    out1 = INF
    out2 = INF
    n = 0
    scale = max(abs(a2) * T * T, abs(a1) * T, abs(a0))
    if abs(a3) * T * T * T <= DEGREE_TOL * scale:
        # f' is at most quadratic
        k, r0, r1 = quadratic_roots(a2, a1, a0, T)
        if k >= 1 and 0.0 < r0 < T:
            out0 = r0
            n = 1
        if k == 2 and 0.0 < r1 < T and r1 != r0:
            if n == 0:
                out0 = r1
            else:
                out1 = r1
            n += 1
        return n, out0, out1, out2
    # Cubic: split [0, T] at the roots of f'' and refine each monotone piece with a sign change.
    k, s0, s1 = quadratic_roots(3.0 * a3, 2.0 * a2, a1, T)
    p0 = 0.0
    g0 = a0
    for idx in range(3):
        if idx == 0:
            p1 = s0 if (k >= 1 and 0.0 < s0 < T) else -1.0
        elif idx == 1:
            p1 = s1 if (k == 2 and 0.0 < s1 < T and s1 > p0) else -1.0
        else:
            p1 = T
        if p1 < 0.0:
            continue
        g1 = ((a3 * p1 + a2) * p1 + a1) * p1 + a0
        if (g0 > 0.0 and g1 < 0.0) or (g0 < 0.0 and g1 > 0.0):
            r = refine_bracket(0.0, a3, a2, a1, a0, p0, p1, g0)
            if 0.0 < r < T:
                if n == 0:
                    out0 = r
                elif n == 1:
                    out1 = r
                else:
                    out2 = r
                n += 1
        p0 = p1
        g0 = g1
    return n, out0, out1, out2


@nb.njit(cache=True, error_model="numpy")
def first_entry_root(c4: float, c3: float, c2: float, c1: float, c0: float, T: float) -> float:
    """First t in [0, T] where f(t) = c4 t^4 + ... + c0 enters f <= 0 while decreasing.

    ``f`` is a gap function (positive apart, zero at contact). Rules (docs/physics.md sec. 6,
    step 5): if f(0) <= 0 the event fires now only when the pair approaches (f'(0) < 0);
    otherwise the first later entry counts, or the moment an overlapping pair starts to
    approach (f turns down while still <= 0). Returns +inf when there is none in [0, T].
    """
    if not (T > 0.0):
        return INF
    if c0 <= 0.0:
        if c1 < 0.0:
            return 0.0
    n, t0, t1, t2 = _cubic_critical(c4, c3, c2, c1, T)
    lo = 0.0
    flo = c0
    for idx in range(n + 1):
        if idx == n:
            hi = T
        elif idx == 0:
            hi = t0
        elif idx == 1:
            hi = t1
        else:
            hi = t2
        if hi <= lo:
            continue
        fhi = poly4(c4, c3, c2, c1, c0, hi)
        if flo <= 0.0 and fhi < flo:
            # Still overlapping (f <= 0) when the gap starts to close: that is a contact too.
            # Only a pair left overlapping by a kiss elsewhere gets here; without this it could
            # curve (spin) into and through each other without an event.
            return lo
        if flo > 0.0 and fhi <= 0.0:
            if fhi == 0.0 and hi < T and dpoly4(c4, c3, c2, c1, hi) >= 0.0:
                # touches zero at a critical point and turns back: a graze, not an entry
                lo = hi
                flo = fhi
                continue
            return refine_bracket(c4, c3, c2, c1, c0, lo, hi, flo)
        lo = hi
        flo = fhi
    return INF
