// cuegym play: playing and stepping: the aim, power, elevation and spin controls, placing the
// red, strikes, the answers to the referee's questions, agents' moves, the replay bar, and
// initTable, which wires the table view's handlers. Loaded last: it starts the page (main).
"use strict";

// ---------------------------------------------------------------------------------------------
// Aiming and moves
// ---------------------------------------------------------------------------------------------

function updateSliders() {
  $("v0-val").textContent = `${S.aim.V0.toFixed(2)} m/s`;
  $("theta-val").textContent = `${S.aim.theta.toFixed(0)}°`;
  S.aim.phi = wrapDeg(S.aim.phi);
  $("phi-val").textContent = `${S.aim.phi.toFixed(2)}°`;
  $("spin-val").textContent = `a ${S.aim.a >= 0 ? "+" : ""}${S.aim.a.toFixed(2)} b ${S.aim.b >= 0 ? "+" : ""}${S.aim.b.toFixed(2)}`;
  $("v0").value = S.aim.V0; $("theta").value = S.aim.theta; $("phi").value = S.aim.phi;
  drawSpin();
}

// An angle in degrees wrapped to (-180, 180]: the aim shown and sent. The server takes phi in
// [-360, 360] and wraps it to [-180, 180) (the page's 180 is its -180, the same direction).
function wrapDeg(p) { let w = ((p % 360) + 360) % 360; if (w > 180) w -= 360; return w + 0; }

function drawSpin() {
  const c = $("spin"), ctx = c.getContext("2d"), r = 50, cx = 60, cy = 60;
  ctx.clearRect(0, 0, 120, 120);
  const g = ctx.createRadialGradient(cx - 15, cy - 18, 5, cx, cy, r);
  g.addColorStop(0, "#ffffff"); g.addColorStop(1, "#b9b9b9");
  ctx.beginPath(); ctx.arc(cx, cy, r, 0, 2 * Math.PI); ctx.fillStyle = g; ctx.fill();
  ctx.beginPath(); ctx.arc(cx, cy, r * S.info.limits.spin, 0, 2 * Math.PI); ctx.setLineDash([3, 3]); ctx.strokeStyle = "#888"; ctx.stroke(); ctx.setLineDash([]);
  ctx.strokeStyle = "#999"; ctx.beginPath(); ctx.moveTo(cx - r, cy); ctx.lineTo(cx + r, cy); ctx.moveTo(cx, cy - r); ctx.lineTo(cx, cy + r); ctx.stroke();
  // a > 0: left English (tip left of centre, seen from behind the cue); b > 0: follow (above)
  ctx.beginPath(); ctx.arc(cx - S.aim.a * r, cy - S.aim.b * r, 7, 0, 2 * Math.PI); ctx.fillStyle = "#2060d0"; ctx.fill();
}

// (a, b) rounded to 0.01 and still on the cue ball (a^2 + b^2 <= m^2, as the server checks):
// rounding can push a point on the rim outside, so step the larger component toward 0.
function legalSpin(a, b, m) {
  a = Math.round(a * 100) / 100; b = Math.round(b * 100) / 100;
  while (Math.hypot(a, b) > m) {
    if (Math.abs(a) >= Math.abs(b)) a = Math.round((a - Math.sign(a) * 0.01) * 100) / 100;
    else b = Math.round((b - Math.sign(b) * 0.01) * 100) / 100;
  }
  return [a + 0, b + 0];  // no -0
}
window.legalSpin = legalSpin;

// The spin from the keyboard: the arrows move the tip (seen from behind the cue: left is a > 0,
// up is b > 0) by 0.02, with Shift 0.1; a step past the dashed limit stops on it (Home, 0 or
// Delete centres it). Returns whether the key was one of these.
function spinKey(e) {
  const step = e.shiftKey ? 0.1 : 0.02, m = S.info.limits.spin;
  let a = S.aim.a, b = S.aim.b;
  if (e.key === "ArrowLeft") a += step;
  else if (e.key === "ArrowRight") a -= step;
  else if (e.key === "ArrowUp") b += step;
  else if (e.key === "ArrowDown") b -= step;
  else if (["Home", "0", "Delete", "Backspace"].includes(e.key)) { a = 0; b = 0; }
  else return false;
  const n = Math.hypot(a, b);
  if (n > m) { a *= m / n; b *= m / n; }
  [S.aim.a, S.aim.b] = legalSpin(a, b, m);
  updateSliders();
  return true;
}

function spinFromEvent(ev) {
  const c = $("spin"), rect = c.getBoundingClientRect();
  let a = -((ev.clientX - rect.left) * 120 / rect.width - 60) / 50, b = -((ev.clientY - rect.top) * 120 / rect.height - 60) / 50;
  const m = S.info.limits.spin, n = Math.hypot(a, b);
  if (n > m) { a *= m / n; b *= m / n; }
  if (Math.hypot(a, b) < 0.04) { a = 0; b = 0; }
  [S.aim.a, S.aim.b] = legalSpin(a, b, m);
  updateSliders();
}

async function checkPlacement() {
  if (!S.place) return;
  const p = S.place;
  try {
    const r = await api("GET", `/api/games/${S.view.id}/placement?x=${p[0]}&y=${p[1]}`);
    if (S.place === p) { S.placeOk = r.ok; S.placeReason = r.reason || ""; }
    if ($("g-err").textContent === S.placeErr) $("g-err").textContent = "";  // answered again
  } catch (e) {
    if (S.place !== p) return;
    // only the server's refusal of the point (400) says the placement is illegal; no answer
    // (status 0), a game gone or a server error says nothing about it: say it as an error
    if (e.status === 400) { S.placeOk = false; S.placeReason = e.message; }
    else { S.placeOk = null; S.placeReason = ""; $("g-err").textContent = S.placeErr = e.message; }
  }
  renderTurn(); draw();
}

function defaultPlace(st) {
  const g = S.geo, x = st.ball_in_hand === "salvo" ? g.salvo_x - 0.15 : -g.length / 4 - 0.15;
  return [x, 0.12];
}

// The end of a press on the table (released, cancelled, capture lost), whoever's turn it is
// now: a release while a shot was played must still end the drag, or the aim would follow
// the bare pointer on the next turn.
function endDrag(ev) {
  const was = S.drag;
  S.drag = null;
  if (ev.type === "pointerup" && S.tv.c.hasPointerCapture(ev.pointerId)) S.tv.c.releasePointerCapture(ev.pointerId);
  if (was === "place" && humanTurn()) checkPlacement();
}

function onPointer(ev) {
  if (["pointerup", "pointercancel", "lostpointercapture"].includes(ev.type)) { endDrag(ev); return; }
  const h = humanTurn(); if (!h) return;
  const st = displayState(), p = S.tv.toTable(ev.clientX, ev.clientY), R = S.geo.R;
  if (ev.type === "pointerdown") {
    S.tv.c.setPointerCapture(ev.pointerId);
    if (kegle() && st.ball_in_hand && S.place && Math.hypot(p[0] - S.place[0], p[1] - S.place[1]) < 2.2 * R) { S.drag = "place"; return; }
    if (!kegle() && pickBall(h, st, p)) return;
    S.drag = "aim";
  }
  if (ev.buttons === 0) return;  // a bare pointer moving over the table aims nothing
  if (S.drag === "place") {
    const g = S.geo, x0 = -g.length / 2 + R, x1 = st.ball_in_hand === "salvo" ? g.salvo_x : g.length / 2 - R;
    S.place = [Math.min(x1, Math.max(x0, p[0])), Math.min(g.width / 2 - R, Math.max(-g.width / 2 + R, p[1]))];
    S.placeOk = null; renderTurn(); draw(); return;
  }
  if (S.drag === "aim") {
    const c = cueBall(st); if (!c) return;
    if (Math.hypot(p[0] - c[0], p[1] - c[1]) < 1.4 * R) return;  // on the cue ball: no direction yet
    S.aim.phi = Math.atan2(p[1] - c[1], p[0] - c[0]) * 180 / Math.PI;
    updateSliders(); draw();
  }
}

// Golfbillard: a press on a ball person ``h`` may strike (an own ball, or one the opening may
// use, G-3) selects it and re-aims; a press on the ball already selected is the start of a
// drag from the cue ball (the cue follows the pointer). Returns whether the press is handled.
function pickBall(h, st, p) {
  const opening = st.phase === "opening", R = S.geo.R;
  const selected = opening ? openingBall(h) : S.ball;
  for (const id of opening ? S.view.awaiting.options[h.side] : S.view.own_balls || []) {
    const b = st.balls[id];
    if (!b || Math.hypot(p[0] - b[0], p[1] - b[1]) >= 1.4 * R) continue;
    if (id === selected) return false;
    if (opening) S.openWith[h.side] = id; else S.ball = id;
    S.drag = null; aimAtTarget(); renderTurn(); draw(); return true;
  }
  return false;
}

async function shoot() {
  const h = humanTurn(); if (!h) return;
  const st = displayState();
  // every aim is in [-180, 180] already (the slider, the keys and updateSliders wrap; a drag or
  // a target aims by atan2): wrapped here too, so no way of aiming sends one past the server's
  const strike = { V0: S.aim.V0, phi: wrapDeg(S.aim.phi), theta: S.aim.theta, a: S.aim.a, b: S.aim.b };
  const move = { strike };
  if (kegle() && st.ball_in_hand) move.place = S.place;
  if (!kegle()) move.ball = st.phase === "opening" ? openingBall(h) : S.ball;
  S.drag = null;  // the move is sent: a press still held aims nothing more
  await act(() => api("POST", `/api/games/${S.view.id}/move`, { seat: h.seat, move, shot: S.view.shots }));
}

async function answer(ans) {
  // the shot and the question's number: a tab showing an answered question is refused (409)
  const aw = S.view.awaiting;
  await act(() => api("POST", `/api/games/${S.view.id}/choice`, { seat: aw.seat, answer: ans, shot: S.view.shots, question: aw.question.number }));
}

async function agentMove() {
  S.thoughts += 1;
  $("thinking").hidden = false;
  $("thinking-text").textContent = `${S.view.agents_to_act.map(seatName).join(" & ")} thinking…`;
  setStatus("thinking");
  try { await act(() => api("POST", `/api/games/${S.view.id}/agent`, { shot: S.view.shots })); }
  finally { $("thinking").hidden = true; if (S.status === "thinking") setStatus("idle"); }
}

// Send a request that may play a shot; animate it, then show the call.
async function act(request) {
  if (S.busy) return;
  const was = humanTurn();  // who acted here before: another person after it is re-aimed
  S.busy = true; $("g-err").textContent = ""; renderTurn(); draw();
  let r;
  try { r = await request(); }
  catch (e) {
    $("thinking").hidden = true;
    S.busy = false;
    // busy: another request (another tab, or this page before a reload) is being played; wait
    if (!(e.status === 409 && /busy/.test(e.message))) $("g-err").textContent = e.message;
    if (e.status === 409) {  // the game moved on (another tab, a request before a reload): show where it is now
      try {
        await reload();
        S.shown = S.view.shots; S.pendingAnim = null;
        renderCall(currentCall()); resetAim();
        if (/moved on/.test(e.message)) $("g-err").textContent = "The game has moved on (a shot was played elsewhere): this is where it is now.";
      } catch (e2) { $("g-err").textContent = e2.message; }
    }
    refresh(); return;
  }
  $("thinking").hidden = true;
  const before = S.view;
  // a look back chosen while the request ran (◀◀, ◀, the shot list) stays on its shot
  // (docs/play.md): the new shot is kept for ▶ / ▶▶, not animated over it
  const looking = S.review;
  S.pendingAnim = r.pending ? r.pending.anim : null;
  if (r.pending && !before.pending && !looking) {  // the stroke ran; the opponent chooses before the call
    S.view = r.view;
    await animate(r.pending.anim, r.pending.before);
  }
  if (r.pending && !looking) renderCall(r.pending.call);  // the foul that gives the choice, who chooses
  if (r.shot) {
    S.shots[r.shot.index] = r.shot;
    if (!looking) {
      if (!before.pending) await animate(r.shot.anim, r.shot.before);
      renderCall(r.shot.call);
    }
  }
  S.view = r.view; S.busy = false;
  if (!looking) S.shown = S.view.shots;
  // a shot played, or another person to act with no shot (the first stroke of a hot-seat
  // opening, G-3): aim afresh for them (their cushion and goal are not the last one's)
  const now = humanTurn();
  if (looking) S.reaim = true;  // no one aims at a look back: afresh once back at the present
  else if (r.shot || (now && (!was || was.seat !== now.seat))) resetAim();
  // the game goes on, but the lobby promised it is saved: say so when it was not
  if (r.save_error) $("g-err").textContent = `This game could not be saved: ${r.save_error}`;
  refresh();
}

function resetAim() {
  const st = S.view.state;
  S.place = null; S.placeOk = null; S.placeReason = "";
  if (!kegle() && S.ball && !(S.view.own_balls || []).includes(S.ball)) S.ball = null;
  S.openWith = [null, null];  // each opening stroke (G-3) starts from the suggested ball
  if (kegle() && st.ball_in_hand && humanTurn()) { S.place = defaultPlace(st); checkPlacement(); }
  aimAtTarget();
}

// A starting aim: keglebillard at the nearer white, golfbillard at the attack goal.
function aimAtTarget() {
  const st = displayState(), c = cueBall(st);
  if (!c) return;
  let target = null;
  if (kegle()) {
    let best = Infinity;
    for (const id of ["white", "spotted"]) {
      const p = st.balls[id];
      if (p && Math.hypot(p[0] - c[0], p[1] - c[1]) < best) { best = Math.hypot(p[0] - c[0], p[1] - c[1]); target = p; }
    }
  } else {
    const side = st.phase === "opening" ? humanTurn().side : st.to_move;
    target = [side === 0 ? S.geo.length / 2 : -S.geo.length / 2, 0];
  }
  if (target) S.aim.phi = Math.atan2(target[1] - c[1], target[0] - c[0]) * 180 / Math.PI;
}

// ---------------------------------------------------------------------------------------------
// The game's flow: reloading, the call shown, agents' turns, stepping, and the view's set-up
// ---------------------------------------------------------------------------------------------

async function reload() {
  S.view = await api("GET", `/api/games/${S.view.id}`);
  await fetchShots();
}

async function fetchShots() {
  const need = [];
  for (let k = 0; k < S.view.shots; k++) if (!S.shots[k]) need.push(k);
  const got = await Promise.all(need.map(k => api("GET", `/api/games/${S.view.id}/shots/${k}`)));
  got.forEach(s => { S.shots[s.index] = s; });
}

// The call the live table shows: the last shot's, or while the opponent chooses, why.
function currentCall() { return S.view.pending && S.view.pending.call ? S.view.pending.call : S.view.last_call; }
// The call of what the table shows: the present's (above), else the last shot shown (none
// before the first): stepping back shows that shot's call, as the shot list marks it.
function shownCall() {
  if (S.view.mode === "play" && S.shown >= S.view.shots) return currentCall() || [];
  const s = S.shown > 0 ? S.shots[S.shown - 1] : null;
  return s ? s.call : [];
}

function refresh() {
  renderScoreboard(); renderTurn(); draw();
  if (!S.anim && JSON.stringify(shownCall()) !== S.callShown) renderCall(shownCall());
  if (S.view.mode === "play" && S.shown >= S.view.shots && kegle() && humanTurn() && S.view.state.ball_in_hand && !S.place) {
    S.place = defaultPlace(S.view.state); aimAtTarget(); checkPlacement();
  }
  schedule();
}

// Agents move by themselves (and replays advance with "auto"), after a pause for reading.
function schedule() {
  clearTimeout(S.timer);
  if (S.shown >= S.view.shots) {  // back at the present
    S.review = false;
    if (S.reaim) { S.reaim = false; resetAim(); renderTurn(); draw(); }  // a move that came in meanwhile
  }
  if (S.anim || S.busy || !$("autoplay").checked) return;
  const pause = 900 / Math.max(0.25, +$("speed").value);
  // a replay advances; a live game looked back at stays there until ▶ / ▶▶ (its own new
  // moves wait for the present)
  if (S.shown < S.view.shots) { if (!(S.review && S.view.mode === "play")) S.timer = setTimeout(stepForward, pause); return; }
  if (S.view.mode !== "play" || S.view.awaiting.type === "over") return;
  if (S.view.thinking !== null) {  // an agent is already thinking (a request before a reload)
    $("thinking").hidden = false;
    S.timer = setTimeout(async () => {
      try { await reload(); }
      catch (e) { $("g-err").textContent = e.message; await new Promise(r => setTimeout(r, 1600)); }
      $("thinking").hidden = true; refresh();
    }, 400);
    return;
  }
  if (S.view.agents_to_act.length) S.timer = setTimeout(agentMove, pause);
}

// Show the table before shot ``k`` (◀◀, ◀, the shot list): a look back that "auto" does not
// step forward from in a live game.
function showShot(k) {
  if (S.anim) return;
  S.shown = k; S.review = S.shown < S.view.shots; refresh();
}

async function stepForward() {
  if (S.anim || S.busy || S.shown >= S.view.shots) return;
  const k = S.shown, s = S.shots[k];
  await animate(s.anim, s.before);
  renderCall(s.call);
  S.shown = k + 1; refresh();
}

async function initTable(gid, watch) {
  $("lobby").hidden = true; $("table-view").hidden = false; $("gamebar").hidden = false;
  // the id is one path segment: an id holding "/" must not reach another API route
  try {
    S.view = await api("GET", `/api/games/${encodeURIComponent(gid)}`);
    // the game's own table (a keglebillard game on helmatch names it in its options)
    const table = (S.view.options || {}).table;
    S.geo = await api("GET", `/api/geometry/${encodeURIComponent(S.view.game)}` + (table ? `?table=${encodeURIComponent(table)}` : ""));
  } catch (e) {  // an unknown or dropped game: the lobby, with no save record link or game URL
    $("table-view").hidden = true; $("gamebar").hidden = true; history.replaceState(null, "", "/");
    initLobby(); $("p-err").textContent = e.message; return;
  }
  const table = (S.view.options || {}).table;
  S.tv = new TableView($("table"), S.geo, S.view.game);
  const sides = S.view.side_names || S.view.seats.map(s => s.name);
  const on = table ? ` (${tableLabel(S.view.game, table)})` : "";
  $("title").textContent = `${S.view.game}${on} · ${S.view.mode === "replay" ? "replay" : sides.join(" vs ")}`;
  $("download").href = `/api/games/${encodeURIComponent(S.view.id)}/record`;
  $("autoplay").checked = S.view.mode === "play";
  await fetchShots();
  S.shown = S.view.shots;
  if (S.view.mode === "replay") S.shown = 0;
  window.addEventListener("resize", () => { S.tv.resize(); draw(); });
  const cv = $("table");
  for (const t of ["pointerdown", "pointermove", "pointerup", "pointercancel", "lostpointercapture"]) cv.addEventListener(t, onPointer);
  const [vmin, vmax] = S.info.limits.V0;
  $("v0").min = vmin; $("v0").max = vmax;
  $("v0").addEventListener("input", e => { S.aim.V0 = +e.target.value; updateSliders(); draw(); });
  $("theta").addEventListener("input", e => { S.aim.theta = +e.target.value; updateSliders(); });
  $("phi").addEventListener("input", e => { S.aim.phi = +e.target.value; updateSliders(); draw(); });
  let spinDrag = false;
  $("spin").addEventListener("pointerdown", e => { spinDrag = true; spinFromEvent(e); });
  $("spin").addEventListener("pointermove", e => { if (spinDrag) spinFromEvent(e); });
  window.addEventListener("pointerup", () => { spinDrag = false; });
  $("spin").addEventListener("dblclick", () => { S.aim.a = 0; S.aim.b = 0; updateSliders(); });
  // the diagram's own keys (it is focusable): its arrows move the tip, not the aim
  $("spin").addEventListener("keydown", e => {
    if (e.altKey || e.ctrlKey || e.metaKey || !spinKey(e)) return;
    e.preventDefault(); e.stopPropagation();
  });
  $("shoot").addEventListener("click", shoot);
  $("first").addEventListener("click", () => showShot(0));
  $("prev").addEventListener("click", () => showShot(Math.max(0, S.shown - 1)));
  $("next").addEventListener("click", () => stepForward());
  $("last").addEventListener("click", () => { if (!S.anim) { S.shown = S.view.shots; refresh(); } });
  $("autoplay").addEventListener("change", schedule);
  $("speed").addEventListener("change", schedule);
  window.addEventListener("keydown", e => {
    // a focused control keeps its own keys (a slider its arrows, a button its space); space
    // on a slider, which has no use for it, still shoots
    const tag = e.target.tagName;
    const slider = tag === "INPUT" && e.target.type === "range";
    if (["INPUT", "SELECT", "TEXTAREA", "BUTTON"].includes(tag) && !(slider && e.key === " ")) return;
    // Alt/Ctrl/Meta + arrows are the browser's (Back, Forward): not an aim, not prevented
    if (!humanTurn() || e.altKey || e.ctrlKey || e.metaKey) return;
    const step = e.shiftKey ? 1 : 0.1;
    if (e.key === "ArrowLeft") { S.aim.phi += step; updateSliders(); draw(); e.preventDefault(); }
    if (e.key === "ArrowRight") { S.aim.phi -= step; updateSliders(); draw(); e.preventDefault(); }
    if (e.key === " ") { e.preventDefault(); if (!$("shoot").disabled) shoot(); }
  });
  if ((S.view.shots || S.view.pending) && S.view.mode === "play") renderCall(currentCall());
  if (!(kegle() && S.view.state.ball_in_hand)) aimAtTarget();
  setStatus("idle");
  refresh();
}

// the last script: every function is defined, so the page may start
main();
