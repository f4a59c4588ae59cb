// Drawing a table, evaluating the closed-form shot motion, and the aiming ghost line.
// Units: metres on the table (x right, y up), seconds. No game logic: the server referees.
"use strict";

const COL = {
  rail: "#5c3a1e", railEdge: "#3c2412", cushion: "#2f8f55", cloth: "#1f6f3f", clothDark: "#185a33",
  pocket: "#0b0b0b", line: "rgba(220,240,225,0.55)", zone: "rgba(150,210,170,0.35)",
  pin: "#f0d6a0", pinEdge: "#78481e", king: "#fac828", fallen: "rgba(236,220,190,0.75)",
  red: "#d62728", white: "#f6f6f6", spotted: "#f6eec8", ghost: "rgba(255,255,255,0.85)",
};
const RAIL = 0.075;

function ballColour(id) {
  if (id === "red" || id[0] === "r") return COL.red;
  if (id === "spotted") return COL.spotted;
  return COL.white;
}
function ballLabel(id) {
  if (id === "red") return "";
  if (id === "white") return "";
  if (id === "spotted") return "•";
  return id.slice(1);
}

class TableView {
  constructor(canvas, geo, game) {
    this.c = canvas; this.ctx = canvas.getContext("2d"); this.geo = geo; this.game = game;
    this.resize();
  }
  resize() {
    const g = this.geo, dpr = window.devicePixelRatio || 1;
    const w = this.c.clientWidth || 900;
    const h = w * (g.width + 2 * RAIL) / (g.length + 2 * RAIL);
    this.c.width = Math.round(w * dpr); this.c.height = Math.round(h * dpr);
    this.c.style.height = h + "px";
    this.s = this.c.width / (g.length + 2 * RAIL);
    this.dpr = dpr;
  }
  px(x, y) { const g = this.geo; return [(x + g.length / 2 + RAIL) * this.s, (g.width / 2 + RAIL - y) * this.s]; }
  toTable(clientX, clientY) {
    const r = this.c.getBoundingClientRect(), g = this.geo;
    const u = (clientX - r.left) * this.c.width / r.width, v = (clientY - r.top) * this.c.height / r.height;
    return [u / this.s - g.length / 2 - RAIL, g.width / 2 + RAIL - v / this.s];
  }
  circle(x, y, r, fill, stroke, lw) {
    const [u, v] = this.px(x, y), ctx = this.ctx;
    ctx.beginPath(); ctx.arc(u, v, r * this.s, 0, 2 * Math.PI);
    if (fill) { ctx.fillStyle = fill; ctx.fill(); }
    if (stroke) { ctx.strokeStyle = stroke; ctx.lineWidth = (lw || 1) * this.dpr; ctx.stroke(); }
  }
  line(x1, y1, x2, y2, colour, lw, dash) {
    const ctx = this.ctx, a = this.px(x1, y1), b = this.px(x2, y2);
    ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]);
    ctx.strokeStyle = colour; ctx.lineWidth = (lw || 1) * this.dpr; ctx.setLineDash(dash || []); ctx.stroke();
    ctx.setLineDash([]);
  }
  background() {
    const g = this.geo, ctx = this.ctx, L = g.length, W = g.width;
    ctx.fillStyle = "#15171c"; ctx.fillRect(0, 0, this.c.width, this.c.height);
    const [u0, v0] = this.px(-L / 2 - RAIL, W / 2 + RAIL);
    const grad = ctx.createLinearGradient(0, v0, 0, v0 + (W + 2 * RAIL) * this.s);
    grad.addColorStop(0, "#6b4424"); grad.addColorStop(0.5, COL.rail); grad.addColorStop(1, "#4a2e17");
    ctx.fillStyle = grad;
    roundRect(ctx, u0, v0, (L + 2 * RAIL) * this.s, (W + 2 * RAIL) * this.s, 0.035 * this.s); ctx.fill();
    // diamonds
    for (let k = 1; k < 8; k++) for (const sy of [-1, 1]) this.circle(-L / 2 + k * L / 8, sy * (W / 2 + RAIL / 2 + 0.008), 0.006, "#e6e1c8");
    for (let k = 1; k < 4; k++) for (const sx of [-1, 1]) this.circle(sx * (L / 2 + RAIL / 2 + 0.008), -W / 2 + k * W / 4, 0.006, "#e6e1c8");
    // cushion band and cloth
    const [a0, b0] = this.px(-L / 2 - 0.022, W / 2 + 0.022);
    ctx.fillStyle = COL.cushion; ctx.fillRect(a0, b0, (L + 0.044) * this.s, (W + 0.044) * this.s);
    const [c0, e0] = this.px(-L / 2, W / 2);
    const cg = ctx.createRadialGradient(this.c.width / 2, this.c.height / 2, 10, this.c.width / 2, this.c.height / 2, this.c.width * 0.6);
    cg.addColorStop(0, "#237a47"); cg.addColorStop(1, COL.clothDark);
    ctx.fillStyle = cg; ctx.fillRect(c0, e0, L * this.s, W * this.s);
    // markings
    if (this.game === "keglebillard") {
      this.line(g.salvo_x, -W / 2, g.salvo_x, W / 2, COL.line, 1.2);
      for (const [x, y] of g.white_spots) this.circle(x, y, 0.005, COL.line);
    } else {
      for (const poly of g.zones) {
        const pts = poly.filter(p => p !== null), closed = poly[poly.length - 1] === null;
        ctx.beginPath();
        pts.forEach((p, i) => { const [u, v] = this.px(p[0], p[1]); if (i) ctx.lineTo(u, v); else ctx.moveTo(u, v); });
        if (closed) ctx.closePath();
        ctx.strokeStyle = COL.zone; ctx.lineWidth = this.dpr; ctx.stroke();
      }
      for (const side of g.penalty_spots) for (const [x, y] of side) this.circle(x, y, 0.004, "rgba(240,240,200,0.6)");
      for (const [x, y] of g.start) this.circle(x, y, 0.003, COL.line);
    }
    // a pocket whose centre lies on or past the cushion's line cuts the cushion; a goal inside
    // the cloth (golfbillard) does not: its hole ends at the unbroken cushion
    const cuts = ([x, y]) => Math.abs(x) >= L / 2 - 1e-9 || Math.abs(y) >= W / 2 - 1e-9;
    for (const p of g.pockets) if (cuts(p)) this.circle(p[0], p[1], p[2] + 0.012, COL.cloth);
    for (const [x, y, r] of g.pockets) {
      const [u, v] = this.px(x, y), pg = ctx.createRadialGradient(u, v, 0, u, v, r * this.s);
      pg.addColorStop(0, "#000"); pg.addColorStop(1, "#1d1d1d");
      ctx.save();
      if (!cuts([x, y])) { ctx.beginPath(); ctx.rect(c0, e0, L * this.s, W * this.s); ctx.clip(); }
      ctx.beginPath(); ctx.arc(u, v, r * this.s, 0, 2 * Math.PI); ctx.fillStyle = pg; ctx.fill();
      ctx.restore();
    }
    for (const [x, y, r, kind] of g.circles) {
      if (kind === 0) this.circle(x, y, Math.max(r, 0.003), COL.cushion);
      else this.circle(x, y, r, "#2a2a2a", "#c8c8c8", 1.5);
    }
  }
  pins(pins) {
    // pins: [{x, y, up, fall: [dx, dy] | null, frac: 0..1 fallen, king}]
    const g = this.geo, ctx = this.ctx;
    for (const p of pins) {
      if (p.up) continue;
      const f = p.frac === undefined ? 1 : p.frac, d = p.fall || [0, 0];
      if (!d[0] && !d[1]) { this.circle(p.x, p.y, 0.007, null, COL.fallen, 1.5); continue; }
      ctx.lineCap = "round";
      this.line(p.x, p.y, p.x + d[0] * g.pin_height * f, p.y + d[1] * g.pin_height * f, p.king ? "rgba(250,210,80,0.8)" : COL.fallen, 0.014 * this.s / this.dpr);
      ctx.lineCap = "butt";
    }
    for (const p of pins) {
      if (!p.up) continue;
      const r = Math.max(g.pin_radius, 4.5 / this.s * this.dpr);
      const [u, v] = this.px(p.x, p.y);
      ctx.beginPath(); ctx.arc(u + 1.5 * this.dpr, v + 2 * this.dpr, r * this.s, 0, 2 * Math.PI); ctx.fillStyle = "rgba(0,0,0,0.35)"; ctx.fill();
      this.circle(p.x, p.y, r, p.king ? COL.king : COL.pin, COL.pinEdge, 1.2);
    }
  }
  ball(id, x, y, opts) {
    const R = this.geo.R, ctx = this.ctx, [u, v] = this.px(x, y), r = R * this.s * ((opts && opts.scale) || 1);
    const alpha = (opts && opts.alpha !== undefined) ? opts.alpha : 1;
    ctx.save(); ctx.globalAlpha = alpha;
    ctx.beginPath(); ctx.arc(u + 0.25 * r, v + 0.3 * r, r, 0, 2 * Math.PI); ctx.fillStyle = "rgba(0,0,0,0.35)"; ctx.fill();
    const base = ballColour(id), gr = ctx.createRadialGradient(u - 0.35 * r, v - 0.4 * r, 0.1 * r, u, v, r);
    gr.addColorStop(0, "#ffffff"); gr.addColorStop(0.25, base); gr.addColorStop(1, shade(base));
    ctx.beginPath(); ctx.arc(u, v, r, 0, 2 * Math.PI); ctx.fillStyle = gr; ctx.fill();
    ctx.strokeStyle = "rgba(0,0,0,0.6)"; ctx.lineWidth = this.dpr; ctx.stroke();
    if (id === "spotted") { ctx.beginPath(); ctx.arc(u, v, 0.22 * r, 0, 2 * Math.PI); ctx.fillStyle = "#c02020"; ctx.fill(); }
    const lab = id === "spotted" ? "" : ballLabel(id);
    if (lab) {
      ctx.fillStyle = base === COL.red ? "#fff" : "#222"; ctx.font = `bold ${Math.round(0.95 * r)}px sans-serif`;
      ctx.textAlign = "center"; ctx.textBaseline = "middle"; ctx.fillText(lab, u, v + 0.05 * r);
    }
    if (opts && opts.ring) { ctx.beginPath(); ctx.arc(u, v, r + 3 * this.dpr, 0, 2 * Math.PI); ctx.strokeStyle = opts.ring; ctx.lineWidth = 2.2 * this.dpr; ctx.stroke(); }
    ctx.restore();
  }
  area(x0, x1, colour) {
    const g = this.geo, R = g.R, [u0, v0] = this.px(x0, g.width / 2 - R), [u1, v1] = this.px(x1, -g.width / 2 + R);
    this.ctx.fillStyle = colour; this.ctx.fillRect(u0, v0, u1 - u0, v1 - v0);
  }
  trail(points, colour) {
    if (points.length < 2) return;
    const ctx = this.ctx; ctx.beginPath();
    points.forEach((p, i) => { const [u, v] = this.px(p[0], p[1]); if (i) ctx.lineTo(u, v); else ctx.moveTo(u, v); });
    ctx.strokeStyle = colour; ctx.lineWidth = 2 * this.dpr; ctx.globalAlpha = 0.55; ctx.stroke(); ctx.globalAlpha = 1;
  }
}

function roundRect(ctx, x, y, w, h, r) {
  ctx.beginPath(); ctx.moveTo(x + r, y); ctx.arcTo(x + w, y, x + w, y + h, r); ctx.arcTo(x + w, y + h, x, y + h, r);
  ctx.arcTo(x, y + h, x, y, r); ctx.arcTo(x, y, x + w, y, r); ctx.closePath();
}
function shade(hex) {
  const n = parseInt(hex.slice(1), 16), f = 0.55;
  return `rgb(${Math.round((n >> 16) * f)},${Math.round(((n >> 8) & 255) * f)},${Math.round((n & 255) * f)})`;
}

// Closed-form position of a ball at time t from its segments [t0, t1, x, y, qx, qy, ax, ay].
function ballAt(segs, t) {
  let s = segs[0];
  for (const seg of segs) { if (seg[0] <= t) s = seg; else break; }
  const tau = Math.max(0, Math.min(t, s[1]) - s[0]);
  return [s[2] + s[4] * tau + s[6] * tau * tau, s[3] + s[5] * tau + s[7] * tau * tau];
}

// The aiming ghost: from p along angle phi (deg) to the first ball, pin or cushion.
// obstacles: [{x, y, r}] centre distance at contact. Returns {end, hit, ghost}.
function ghostLine(geo, p, phi, obstacles) {
  const d = [Math.cos(phi * Math.PI / 180), Math.sin(phi * Math.PI / 180)], R = geo.R;
  let best = Infinity, hit = null;
  for (const o of obstacles) {
    const fx = p[0] - o.x, fy = p[1] - o.y, b = fx * d[0] + fy * d[1], c = fx * fx + fy * fy - o.r * o.r;
    const disc = b * b - c;
    if (disc < 0) continue;
    const t = -b - Math.sqrt(disc);
    if (t > 1e-6 && t < best) { best = t; hit = o; }
  }
  const hx = geo.length / 2 - R, hy = geo.width / 2 - R;
  for (const [k, lim] of [[0, hx], [0, -hx], [1, hy], [1, -hy]]) {
    if (Math.abs(d[k]) < 1e-9) continue;
    const t = (lim - p[k]) / d[k];
    if (t > 1e-6 && t < best) { best = t; hit = { cushion: true }; }
  }
  const end = [p[0] + d[0] * best, p[1] + d[1] * best];
  let after = null;
  if (hit && !hit.cushion && hit.ball) {  // the object ball leaves along the line of centres
    const nx = hit.x - end[0], ny = hit.y - end[1], n = Math.hypot(nx, ny) || 1;
    // 0.25 m of its path, cut where its centre meets a cushion (it never runs onto the rail)
    const u = [nx / n, ny / n], q = [hit.x, hit.y];
    let len = 0.25;
    for (const [k, lim] of [[0, hx], [0, -hx], [1, hy], [1, -hy]]) {
      if (Math.abs(u[k]) < 1e-9) continue;
      const t = (lim - q[k]) / u[k];
      if (t >= 0 && t < len) len = t;
    }
    after = [hit.x + u[0] * len, hit.y + u[1] * len, hit.x, hit.y];
  }
  return { end, hit, after };
}

window.TableView = TableView; window.ballAt = ballAt; window.ghostLine = ghostLine;
