// cuegym play: the lobby, the table view, aiming, animation, stepping through shots.
// The server owns the game; this page draws what it says and sends strikes.
"use strict";

const $ = id => document.getElementById(id);
const S = {           // page state
  info: null, geo: null, view: null, tv: null, shots: [], shown: 0, anim: null, busy: false,
  aim: { phi: 0, V0: 3, theta: 0, a: 0, b: 0 }, place: null, placeOk: null, placeReason: "",
  ball: null, openWith: [null, null], drag: null, pending: null, status: "idle", error: "", timer: null,
  thoughts: 0,  // agent moves requested by this page (tests read it)
};
window.cuegym = S;
S.displayState = () => displayState();  // what the table shows (for tests and tools)
// table metres -> page pixels of the table canvas (for tests and tools)
S.toClient = (x, y) => {
  const r = S.tv.c.getBoundingClientRect(), [u, v] = S.tv.px(x, y);
  return [r.left + u * r.width / S.tv.c.width, r.top + v * r.height / S.tv.c.height];
};

async function api(method, url, body) {
  const opt = { method, headers: {} };
  if (body !== undefined) { opt.body = JSON.stringify(body); opt.headers["Content-Type"] = "application/json"; }
  let r;
  try { r = await fetch(url, opt); }
  catch (e) {  // no answer at all (the browser says only "Failed to fetch")
    const err = new Error("The server cannot be reached: is it still running? (" + (e.message || e) + ")");
    err.status = 0; throw err;
  }
  let data = null;
  try { data = await r.json(); } catch (e) { data = { detail: r.statusText }; }
  if (!r.ok) { const e = new Error(typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail)); e.status = r.status; throw e; }
  return data;
}
function setStatus(s) { S.status = s; document.body.dataset.status = s; }

// ---------------------------------------------------------------------------------------------
// Lobby
// ---------------------------------------------------------------------------------------------

function agentOptions(sel, value) {
  sel.innerHTML = "";
  for (const a of S.info.agents) sel.add(new Option(a, a));
  sel.add(new Option("model .zip…", "__zip"));
  sel.value = value || "pretrained";
  sel.addEventListener("change", () => {
    if (sel.value === "__zip") {
      const p = prompt("Path to a Stable-Baselines3 model .zip (on the server's disk):");
      if (p) { sel.add(new Option(p, p)); sel.value = p; } else sel.value = "pretrained";
    }
  });
}

function seatLabels() {
  const game = $("p-game").value;
  if (game === "keglebillard") return Array.from({ length: +$("p-players").value }, (_, k) => `Player ${k + 1}`);
  return $("p-duo").value === "1" ? ["White 1", "White 2", "Red 1", "Red 2"] : ["White", "Red"];
}

function renderSeats() {
  const box = $("p-seats"), labels = seatLabels();
  const old = Array.from(box.querySelectorAll(".seat")).map(r => {
    const name = r.querySelector(".name");
    return { kind: r.querySelector(".kind").value, agent: r.querySelector(".agent").value, name: name.dataset.auto ? "" : name.value };
  });
  box.innerHTML = "";
  labels.forEach((lab, k) => {
    const row = document.createElement("div"); row.className = "seat";
    row.innerHTML = `<span>${lab}</span><select class="kind"><option value="human">person</option><option value="agent">agent</option></select><select class="agent"></select><input class="name" type="text" placeholder="name">`;
    box.appendChild(row);
    const prev = old[k] || {};
    const kind = row.querySelector(".kind"), agent = row.querySelector(".agent"), name = row.querySelector(".name");
    agentOptions(agent, prev.agent && prev.agent !== "__zip" ? prev.agent : "pretrained");
    kind.value = prev.kind || (k === 0 ? "human" : "agent");
    if (prev.name) name.value = prev.name;
    name.addEventListener("input", () => { delete name.dataset.auto; });
    const sync = () => { agent.disabled = kind.value !== "agent"; };
    kind.addEventListener("change", () => { sync(); autoNames(); });
    sync();
  });
  autoNames();
}

// Default names (data-auto) follow the seats' kinds: "You" for the first person (whichever
// seat it takes), the seat's label for other people, none for an agent (the server names it
// after the agent, "geometric", "geometric 2", ...); a name typed in stays.
function autoNames() {
  const labels = seatLabels();
  let first = true;
  $("p-seats").querySelectorAll(".seat").forEach((row, k) => {
    const human = row.querySelector(".kind").value === "human", name = row.querySelector(".name");
    const n = human ? (first ? "You" : labels[k]) : "";
    if (human) first = false;
    if (name.value && !name.dataset.auto) return;
    name.value = n;
    if (n) name.dataset.auto = n; else delete name.dataset.auto;
  });
}

function seatsFromForm() {
  return Array.from($("p-seats").querySelectorAll(".seat")).map(r => {
    const kind = r.querySelector(".kind").value, name = r.querySelector(".name").value.trim();
    const s = { kind };
    if (kind === "agent") s.agent = r.querySelector(".agent").value;
    if (name) s.name = name;
    return s;
  });
}

// G-31: a duo best-of-3 may come to a deciding game, whose openers the duos choose
function decidingAsked() { return $("p-game").value === "golfbillard" && $("p-duo").value === "1" && $("p-match").value === "best_of_3"; }

// The keglebillard tables (configs/tables, as /api/info lists them: kleinmatch, the default,
// and helmatch) in a select; the option "table" is sent only for another than the default.
function tableOptions(sel) {
  sel.innerHTML = "";
  for (const t of S.info.tables.keglebillard) {
    sel.add(new Option(`${t.label} (${t.length.toFixed(2)} × ${t.width.toFixed(2)} m)`, t.name));
  }
  sel.value = S.info.defaults.keglebillard.table;
}
// What the page calls a table config ("helmatch"), from /api/info; the name when not listed.
function tableLabel(game, name) {
  const t = ((S.info.tables || {})[game] || []).find(x => x.name === name);
  return t ? t.label : String(name);
}
function withTable(opts, sel) {
  if (sel.value !== S.info.defaults.keglebillard.table) opts.table = sel.value;
  return opts;
}

function gameOptions(game) {
  if (game === "keglebillard") return withTable({ players: +$("p-players").value, distance: +$("p-distance").value }, $("p-table"));
  const opts = { duo: $("p-duo").value === "1", match: $("p-match").value };
  if (decidingAsked()) opts.deciding_openers = [+$("p-dec0").value, +$("p-dec1").value];
  return opts;
}

async function startGame(body, errEl, watch) {
  errEl.textContent = "";
  try {
    const r = await api("POST", "/api/games", body);
    location.search = `?game=${r.view.id}${watch ? "&watch=1" : ""}`;
  } catch (e) { errEl.textContent = e.message; }
}

async function loadRecords() {
  const box = $("records");
  try {
    const recs = await api("GET", "/api/records");
    box.innerHTML = recs.length ? "" : '<p class="hint">No saved games yet.</p>';
    for (const r of recs.slice(0, 100)) {
      const row = document.createElement("div"); row.className = "rec";
      // every string here comes from a record file: text only, never markup
      const what = r.meta && r.meta.tournament ? `tournament ${r.meta.tournament}` : (r.over ? "finished" : "unfinished");
      const seats = Array.isArray(r.seats) ? sidesText(r.game, r.seats.map(x => String(x))) : "";
      const file = String(r.name).split(":").slice(1).join(":");
      const on = r.table ? ` (${tableLabel(r.game, r.table)})` : "";
      row.innerHTML = `<div>${esc(r.game)}${esc(on)}: ${esc(seats)}<small>${esc(r.shots)} shot${r.shots === 1 ? "" : "s"} · ${esc(what)} · ${esc(file)}</small></div><button>Open</button>`;
      row.querySelector("button").addEventListener("click", () => openReplay({ name: r.name }));
      box.appendChild(row);
    }
  } catch (e) { box.textContent = e.message; }
}

// Who plays whom in a record: "A vs B vs C", a golfbillard duo (four seats, G-31) by its sides,
// "A & B vs C & D" (as the game's title says it).
function sidesText(game, names) {
  if (game === "golfbillard" && names.length === 4) return `${names[0]} & ${names[1]} vs ${names[2]} & ${names[3]}`;
  return names.join(" vs ");
}

async function openReplay(body) {
  $("r-err").textContent = "";
  try { const r = await api("POST", "/api/replays", body); location.search = `?game=${r.view.id}`; }
  catch (e) { $("r-err").textContent = e.message; }
}

function initLobby() {
  $("lobby").hidden = false;
  for (let n = 2; n <= 6; n++) $("p-players").add(new Option(String(n), String(n)));
  tableOptions($("p-table")); tableOptions($("w-table"));
  const syncGame = () => {
    const kegle = $("p-game").value === "keglebillard";
    $("p-kegle-opts").hidden = !kegle; $("p-golf-opts").hidden = kegle; renderSeats();
    $("p-deciding").hidden = !decidingAsked();
  };
  $("p-game").addEventListener("change", syncGame);
  $("p-players").addEventListener("change", renderSeats);
  $("p-duo").addEventListener("change", syncGame);
  $("p-match").addEventListener("change", syncGame);
  syncGame();
  $("p-start").addEventListener("click", () => {
    const game = $("p-game").value;
    startGame({ game, options: gameOptions(game), seats: seatsFromForm(), noise: $("p-noise").value }, $("p-err"), false);
  });
  agentOptions($("w-a0"), "pretrained"); agentOptions($("w-a1"), "geometric");
  const syncWatch = () => { $("w-kegle-opts").hidden = $("w-game").value !== "keglebillard"; };
  $("w-game").addEventListener("change", syncWatch);
  syncWatch();
  $("w-start").addEventListener("click", () => {
    const a = [$("w-a0").value, $("w-a1").value], game = $("w-game").value;
    const body = { game, seats: a.map(x => ({ kind: "agent", agent: x })), noise: $("w-noise").value };
    if (game === "keglebillard") { const opts = withTable({}, $("w-table")); if (opts.table) body.options = opts; }
    startGame(body, $("w-err"), true);
  });
  $("r-file").addEventListener("change", async ev => {
    const f = ev.target.files[0]; if (!f) return;
    let rec;
    try { rec = JSON.parse(await f.text()); } catch (e) { $("r-err").textContent = "not a JSON file: " + e.message; return; }
    openReplay({ record: rec });
  });
  loadRecords();
  setStatus("lobby");
}

// ---------------------------------------------------------------------------------------------
// The table view
// ---------------------------------------------------------------------------------------------

const kegle = () => S.view.game === "keglebillard";
const seatName = k => S.view.seats[k].name;
// "You score", "Ann scores" (the calls from the server say it the same way)
const PLURAL = { wins: "win", chooses: "choose", scores: "score", has: "have", picks: "pick" };
const says = (name, verb) => `${name} ${name === "You" || / & /.test(name) ? PLURAL[verb] || verb : verb}`;
// A question ("choose a penalty spot for r1 (G-30)") as a sentence about who answers it:
// "You choose a penalty spot for r1 (G-30)", "Ann picks one of the offender's balls ...".
function asked(name, text) {
  const m = /^(choose|pick)\s+(.*)$/.exec(text);
  return m ? `${says(name, m[1] + "s")} ${m[2]}` : `${name}: ${text}`;
}

// The opponent's choice (golfbillard G-25, G-30) the live table shows, or null: the question,
// the call so far and where the stroke left the balls (the referee moves them after the answer).
function pendingShown() {
  const v = S.view;
  return v && v.mode === "play" && v.pending && v.pending.balls && S.shown >= v.shots ? v.pending : null;
}

function displayState() {
  if (S.shown >= S.view.shots) {
    const p = pendingShown();
    return p ? { ...S.view.state, balls: p.balls } : S.view.state;
  }
  return S.shots[S.shown] ? S.shots[S.shown].before : S.view.state;
}
function live() { return S.view.mode === "play" && S.shown >= S.view.shots && !S.anim; }

// The person (seat) who is to act in this browser now, or null.
function humanTurn() {
  if (!live() || S.busy) return null;
  const a = S.view.awaiting;
  if (a.type === "move" && S.view.seats[a.seat].kind === "human") return { seat: a.seat };
  if (a.type === "opening") {
    for (const seat of a.missing) if (S.view.seats[seat].kind === "human") return { seat, side: a.seats.indexOf(seat) };
  }
  return null;
}

// The ball person ``h`` opens with (G-3): the middle ball; in a repeat after both sides scored,
// when any own ball may open, the one clicked (default: the one the server names).
function openingBall(h) {
  const a = S.view.awaiting, b = S.openWith[h.side];
  return a.options[h.side].includes(b) ? b : a.balls[h.side];
}

function cueBall(st) {
  const h = humanTurn();
  if (!h) return null;
  if (kegle()) return st.ball_in_hand ? S.place : st.balls.red;
  if (st.phase === "opening") return st.balls[openingBall(h)];
  return S.ball ? st.balls[S.ball] : null;
}

function obstacles(st, skip) {
  const R = S.geo.R, out = [];
  for (const [id, p] of Object.entries(st.balls)) if (p && id !== skip) out.push({ x: p[0], y: p[1], r: 2 * R, ball: true, id });
  if (kegle()) S.geo.pin_spots.forEach((p, k) => { if (Object.values(st.pins)[k]) out.push({ x: p[0], y: p[1], r: R + S.geo.pin_radius }); });
  for (const [x, y, r] of S.geo.circles) out.push({ x, y, r: r + R });
  return out;
}

function pinsOf(st) {
  return S.geo.pin_spots.map((p, k) => ({ x: p[0], y: p[1], up: Object.values(st.pins)[k], fall: null, king: k === 0 }));
}

// Did shot ``s`` end a game of a match (golfbillard G-4, G-5)? Then the state after it is the
// next game's fresh rack, which its trails do not belong on.
function newGame(s) { return !kegle() && s.before.match.game !== s.after.match.game; }

function draw() {
  const tv = S.tv; if (!tv) return;
  if (S.anim) return;  // the animation loop draws
  const st = displayState();
  tv.background();
  const h = humanTurn();
  // the last shot's trails (while the opponent chooses: the stroke's, when this page played it)
  const pend = pendingShown();
  S.pending = pend;
  let prev = pend ? (S.pendingAnim ? { anim: S.pendingAnim } : null) : S.shown > 0 && S.shown <= S.view.shots ? S.shots[S.shown - 1] : null;
  if (prev && prev.before && newGame(prev)) prev = null;  // its table was cleared for the next game
  if (prev && prev.anim) for (const [id, b] of Object.entries(prev.anim.balls)) tv.trail(trailPoints(b, prev.anim.t_end), ballColour(id));
  if (kegle()) {
    if (st.ball_in_hand && h) {
      const x0 = -S.geo.length / 2 + S.geo.R, x1 = st.ball_in_hand === "salvo" ? S.geo.salvo_x : -x0;
      tv.area(x0, x1, "rgba(255,255,255,0.10)");
    }
    tv.pins(pinsOf(st));
  }
  const cue = cueBall(st);
  if (cue && h) drawAim(st, cue);
  for (const [id, p] of Object.entries(st.balls)) {
    if (!p) continue;
    let ring = null;
    if (!kegle() && h && st.phase === "play" && S.view.own_balls && S.view.own_balls.includes(id)) ring = id === S.ball ? "#ffd24a" : "rgba(255,210,74,0.45)";
    if (!kegle() && h && st.phase === "opening" && S.view.awaiting.options[h.side].includes(id)) ring = openingBall(h) === id ? "#ffd24a" : "rgba(255,210,74,0.45)";
    if (pend && pend.question.kind === "spot" && pend.question.ball === id) ring = "#ff9b7b";
    if (pend && pend.question.kind === "pick" && pend.question.options.includes(id)) ring = "#ffd24a";
    tv.ball(id, p[0], p[1], { ring });
  }
  if (kegle() && st.ball_in_hand && h && S.place) {
    tv.ball("red", S.place[0], S.place[1], { ring: S.placeOk === false ? "#ff4040" : "#ffffff" });
  }
  if (pend && !kegle()) drawSpotChoices(pend.question); else S.spotsDrawn = [];
}

function drawAim(st, p) {
  const tv = S.tv, skip = kegle() ? "red" : (st.phase === "opening" ? openingBall(humanTurn()) : S.ball);
  const g = ghostLine(S.geo, p, S.aim.phi, obstacles(st, skip));
  tv.line(p[0], p[1], g.end[0], g.end[1], "rgba(255,255,255,0.8)", 1.4, [6, 5]);
  tv.circle(g.end[0], g.end[1], S.geo.R, null, "rgba(255,255,255,0.9)", 1.3);
  if (g.after) tv.line(g.after[2], g.after[3], g.after[0], g.after[1], "rgba(255,230,120,0.8)", 1.4, [3, 4]);
  // the cue behind the ball, pulled back with the power
  const d = [Math.cos(S.aim.phi * Math.PI / 180), Math.sin(S.aim.phi * Math.PI / 180)];
  const back = S.geo.R * 1.6 + 0.02 + 0.03 * S.aim.V0, len = 0.9;
  const a = [p[0] - d[0] * back, p[1] - d[1] * back], b = [a[0] - d[0] * len, a[1] - d[1] * len];
  const ctx = tv.ctx; ctx.lineCap = "round";
  tv.line(a[0], a[1], b[0], b[1], "#d9b77e", 0.016 * tv.s / tv.dpr);
  tv.line(a[0], a[1], a[0] - d[0] * 0.03, a[1] - d[1] * 0.03, "#f4f1e8", 0.014 * tv.s / tv.dpr);
  ctx.lineCap = "butt";
}

// The penalty spots 1-3 the opponent chooses among (G-30), numbered as the choice buttons; the
// offender's spots (q.side: 0 white, 1 red), G-27..G-29. Those not offered are dimmed.
function drawSpotChoices(q) {
  S.spotsDrawn = [];
  if (q.kind !== "spot") return;
  const side = q.side;
  S.geo.penalty_spots[side].slice(0, 3).forEach((p, k) => {
    const ok = q.options.includes(k + 1);
    S.spotsDrawn.push({ spot: k + 1, x: p[0], y: p[1], offered: ok });
    S.tv.circle(p[0], p[1], S.geo.R, ok ? "rgba(255,210,74,0.25)" : null, ok ? "#ffd24a" : "rgba(255,255,255,0.3)", 2);
    const [u, v] = S.tv.px(p[0], p[1]);
    S.tv.ctx.fillStyle = ok ? "#ffd24a" : "#999"; S.tv.ctx.font = `bold ${Math.round(S.geo.R * S.tv.s)}px sans-serif`;
    S.tv.ctx.textAlign = "center"; S.tv.ctx.textBaseline = "middle"; S.tv.ctx.fillText(String(k + 1), u, v);
  });
}

function trailPoints(b, tEnd, upTo) {
  const t1 = Math.min(upTo === undefined ? tEnd : upTo, b.drop ? b.drop[0] : tEnd), pts = [];
  for (let t = 0; t < t1; t += 0.02) pts.push(ballAt(b.segs, t));
  pts.push(ballAt(b.segs, t1));
  const moved = pts.some(p => Math.hypot(p[0] - pts[0][0], p[1] - pts[0][1]) > 1e-4);
  return moved ? pts : [];
}

// Animate a shot's motion from ``before``; resolves when it has ended.
function animate(anim, before) {
  return new Promise(resolve => {
    if (!anim) { resolve(); return; }
    setStatus("animating");
    const t0 = performance.now(), tv = S.tv;
    S.anim = { anim, before };
    stepButtons();  // no stepping while a shot is shown moving (the step would land past it)
    const pins = kegle() ? anim.pins : [];
    const frame = now => {
      const speed = +$("speed").value, t = Math.min(anim.t_end, (now - t0) / 1000 * speed);
      tv.background();
      if (kegle()) {
        tv.pins(pins.map((p, k) => {
          const spot = S.geo.pin_spots[k], fallen = p.t !== null && t >= p.t;
          return { x: spot[0], y: spot[1], up: p.up0 && !fallen, fall: p.dir, frac: fallen ? Math.min(1, (t - p.t) / 0.18) : 1, king: k === 0, show: p.up0 };
        }).filter(p => p.show));
      }
      for (const [id, b] of Object.entries(anim.balls)) tv.trail(trailPoints(b, anim.t_end, t), ballColour(id));
      for (const [id, b] of Object.entries(anim.balls)) {
        const p = ballAt(b.segs, t);
        if (b.drop && t >= b.drop[0]) {
          const f = (t - b.drop[0]) / 0.25;
          if (f < 1) { const pk = S.geo.pockets[b.drop[1]]; tv.ball(id, p[0] + (pk[0] - p[0]) * f, p[1] + (pk[1] - p[1]) * f, { scale: 1 - 0.6 * f, alpha: 1 - f }); }
          continue;
        }
        tv.ball(id, p[0], p[1]);
      }
      if (t < anim.t_end && S.anim) requestAnimationFrame(frame);
      else { S.anim = null; setStatus("idle"); resolve(); }
    };
    requestAnimationFrame(frame);
  });
}

function renderCall(lines) {
  const box = $("call"); box.innerHTML = "";
  S.callShown = JSON.stringify(lines || []);
  (lines || []).forEach(l => { const p = document.createElement("p"); p.textContent = l; if (/^[KG]-\d/.test(l) || /foul/.test(l)) p.className = "foul"; box.appendChild(p); });
}

function renderScoreboard() {
  const v = S.view, st = displayState(), box = $("scoreboard"); box.innerHTML = "";
  box.className = v.seats.length > 3 && kegle() ? "many" : "";
  const colours = ["#d9d2c5", "#e0b04a", "#6fa8dc", "#93c47d", "#c27ba0", "#e06666"];
  if (kegle()) {
    const dist = v.options.distance, toMove = st.to_play;
    v.seats.forEach((s, k) => {
      const d = document.createElement("div");
      const fin = st.finished.includes(k);
      d.className = "player" + (k === toMove && !st.game_over ? " to-move" : "") + (fin ? " finished" : "");
      const tag = s.kind === "agent" && s.agent !== s.name ? `<small class="tag">${esc(s.agent)}</small>` : "";
      const rank = fin ? `<small class="rank">#${st.finished.indexOf(k) + 1}</small>` : "";
      d.innerHTML = `<span class="swatch" style="background:${colours[k]}"></span><span class="pname" title="${esc(s.name)}">${esc(s.name)}${tag}${rank}</span><span class="pts" data-seat="${k}">${esc(st.scores[k])}</span><span class="bar"><i style="width:${Math.min(100, 100 * st.scores[k] / dist)}%"></i></span>`;
      box.appendChild(d);
    });
    const p = document.createElement("p"); p.className = "hint"; p.textContent = `to ${dist} points${v.options.table ? " · " + tableLabel(v.game, v.options.table) : ""} · noise ${v.noise}`; box.appendChild(p);
  } else {
    // while the opponent chooses a penalty spot or ball, that side acts, not the shooter
    const pend = pendingShown(), names = v.side_names;
    const toMove = pend ? pend.chooser_side : st.phase === "play" ? st.to_move : null;
    [0, 1].forEach(side => {
      const d = document.createElement("div");
      d.className = "player" + (side === toMove ? " to-move" : "");
      const pre = side === 0 ? "w" : "r", col = side === 0 ? "#f6f6f6" : "#d62728";
      let dots = "";
      for (let k = 1; k <= 5; k++) dots += `<i style="background:${st.balls[pre + k] ? col : "transparent"}"></i>`;
      const left = [1, 2, 3, 4, 5].filter(k => st.balls[pre + k]).length;
      const won = v.options.match === "best_of_3" ? `<small>games ${esc(st.match.games_won[side])}</small>` : "";
      d.innerHTML = `<span class="swatch" style="background:${col}"></span><span class="pname" title="${esc(names[side])}">${esc(names[side])}${won}</span><span class="pts balls" data-side="${side}" data-left="${left}">${dots}</span>`;
      box.appendChild(d);
    });
    const p = document.createElement("p"); p.className = "hint";
    const game = v.options.match === "best_of_3" && st.phase !== "over" ? `game ${st.match.game + 1} · ` : "";
    const phase = st.phase === "over" ? `${v.options.match === "best_of_3" ? "match" : "game"} over after ${st.turns} turns`
      : `${st.phase === "opening" ? "opening (G-3)" : st.kader ? "kader play (G-20)" : "play"} · turn ${st.turns}`;
    p.textContent = `${game}${phase} · noise ${v.noise}`;
    if (st.phase === "play" && st.kader) p.textContent += " · G-21: a ball must leave its kader";
    if (st.phase === "play" && st.turn.duty.length && !st.turn.duty_met) {
      p.textContent += ` · G-14 duty: ${st.turn.duty.join(", ")} in the defence triangle`;
    }
    box.appendChild(p);
  }
}

// Text for innerHTML: every string from the server or a record goes through here.
function esc(s) { return String(s).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]); }

function resultText() {
  const st = S.view.state;
  if (kegle()) return st.ranking ? says(seatName(st.ranking[0]), "wins") : "game over";
  const w = st.match.winner, won = st.match.games_won, bo3 = S.view.options.match === "best_of_3";
  if (w === null) return "match over";
  if (w === "draw") return bo3 ? `match drawn ${won[0]}-${won[1]}` : "drawn (G-5, no progress)";
  return says(S.view.side_names[w], "wins") + (bo3 ? ` the match ${won[w]}-${won[1 - w]}` : "");
}

function renderTurn() {
  const el = $("turn"), v = S.view, h = humanTurn();
  el.className = "";
  $("banner").hidden = true;
  if (v.mode === "replay") el.textContent = `Replay · ${S.shown} / ${v.shots} shots${v.meta && v.meta.tournament ? " · tournament " + v.meta.tournament : ""}`;
  else if (S.shown < v.shots) el.textContent = `Viewing shot ${S.shown} of ${v.shots} (▶▶ returns to the game)`;
  else if (v.awaiting.type === "over") {
    el.textContent = "Game over — " + resultText();
    const b = $("banner"); b.hidden = false;
    const st = v.state;
    const rank = kegle() && st.ranking ? st.ranking.map((p, k) => `${k + 1}. ${esc(seatName(p))} ${esc(st.scores[p])}`).join(" · ") : "";
    b.innerHTML = `${esc(resultText())}<small>${rank}</small>`;
  } else if (v.awaiting.type === "choice") {
    el.textContent = asked(seatName(v.awaiting.seat), v.awaiting.question.text);
  } else if (h) {
    el.className = "mine";
    const st = displayState();
    let what = "";
    if (kegle() && st.ball_in_hand) what = st.ball_in_hand === "salvo" ? " — red in hand: drag it behind the salvo line" : " — red in hand: drag it anywhere";
    if (!kegle() && st.phase === "opening") what = ` — opening: strike ${openingBall(h)} off the left long cushion (G-3)`;
    if (!kegle() && st.phase === "play") what = S.ball ? ` — striking ${S.ball}` : " — click one of your balls";
    el.textContent = `${seatName(h.seat)} to play${what}`;
  } else {
    const seats = S.view.agents_to_act;
    el.textContent = seats.length ? `${seats.map(seatName).join(" & ")} to play` : "…";
  }
  $("controls").hidden = !h;
  $("shoot").disabled = !h || (kegle() && displayState().ball_in_hand && S.placeOk !== true) || (!kegle() && displayState().phase === "play" && !S.ball);
  const hint = [];
  if (h && kegle() && displayState().ball_in_hand && S.placeOk === false) hint.push("Illegal placement: " + S.placeReason);
  const choose = h && !kegle() && displayState().phase === "opening" && v.awaiting.options[h.side].length > 1;
  const usual = "Drag on the table to aim; ←/→ fine-tune, space shoots.";
  // a repeated opening (G-3, both sides scored): any own ball may open, so say it can be chosen
  $("aim-hint").textContent = hint.length ? hint.join(" ") : choose ? `Any of your balls may open this repeat (G-3): click one to strike it. ${usual}` : usual;
  $("aim-hint").className = hint.length ? "err" : "hint";
  stepButtons();
  renderChoice();
  renderHistory();
  updateSliders();
}

// The shot counter and ◀◀ ◀ ▶ ▶▶: disabled at the ends and while a shot is animated.
function stepButtons() {
  const v = S.view;
  $("shotpos").textContent = `${S.shown} / ${v.shots}`;
  for (const [id, dis] of [["first", S.shown === 0], ["prev", S.shown === 0], ["next", S.shown >= v.shots], ["last", S.shown >= v.shots]]) $(id).disabled = dis || !!S.anim;
}

function renderChoice() {
  const box = $("choice"), v = S.view;
  if (!live() || v.awaiting.type !== "choice" || S.view.seats[v.awaiting.seat].kind !== "human") { box.hidden = true; return; }
  const q = v.awaiting.question; box.hidden = false;
  box.innerHTML = `<p><b>${esc(seatName(v.awaiting.seat))}</b>: ${esc(q.text)}</p>`;
  for (const o of q.options) {
    const b = document.createElement("button"); b.textContent = q.kind === "spot" ? `spot ${o}` : o;
    b.dataset.answer = o;
    b.addEventListener("click", () => answer(q.kind === "spot" ? { spot: o } : { pick: o }));
    box.appendChild(b);
  }
}

function renderHistory() {
  const ol = $("history");
  if (ol.children.length !== S.view.shots) {
    ol.innerHTML = "";
    for (let k = 0; k < S.view.shots; k++) {
      const li = document.createElement("li"); const s = S.shots[k];
      li.textContent = s ? s.call[0] : `shot ${k + 1}`;
      li.addEventListener("click", () => { if (!S.anim) { S.shown = k + 1; refresh(); } });
      ol.appendChild(li);
    }
  }
  Array.from(ol.children).forEach((li, k) => { li.className = k === S.shown - 1 ? "current" : ""; if (S.shots[k]) li.textContent = li.title = S.shots[k].call[0]; });
}

function updateSliders() {
  $("v0-val").textContent = `${S.aim.V0.toFixed(2)} m/s`;
  $("theta-val").textContent = `${S.aim.theta.toFixed(0)}°`;
  S.aim.phi = wrapDeg(S.aim.phi);
  $("phi-val").textContent = `${S.aim.phi.toFixed(2)}°`;
  $("spin-val").textContent = `a ${S.aim.a >= 0 ? "+" : ""}${S.aim.a.toFixed(2)} b ${S.aim.b >= 0 ? "+" : ""}${S.aim.b.toFixed(2)}`;
  $("v0").value = S.aim.V0; $("theta").value = S.aim.theta; $("phi").value = S.aim.phi;
  drawSpin();
}

// An angle in degrees wrapped to (-180, 180] (the server wraps the strike's phi the same way).
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
  } catch (e) { S.placeOk = false; S.placeReason = e.message; }
  renderTurn(); draw();
}

function defaultPlace(st) {
  const g = S.geo, x = st.ball_in_hand === "salvo" ? g.salvo_x - 0.15 : -g.length / 4 - 0.15;
  return [x, 0.12];
}

function onPointer(ev) {
  const h = humanTurn(); if (!h) return;
  const st = displayState(), p = S.tv.toTable(ev.clientX, ev.clientY), R = S.geo.R;
  if (ev.type === "pointerdown") {
    S.tv.c.setPointerCapture(ev.pointerId);
    if (kegle() && st.ball_in_hand && S.place && Math.hypot(p[0] - S.place[0], p[1] - S.place[1]) < 2.2 * R) { S.drag = "place"; return; }
    if (!kegle()) {  // a click on a ball to strike: an own ball, or one the opening may use (G-3)
      const opening = st.phase === "opening";
      for (const id of opening ? S.view.awaiting.options[h.side] : S.view.own_balls || []) {
        const b = st.balls[id];
        if (!b || Math.hypot(p[0] - b[0], p[1] - b[1]) >= 1.4 * R) continue;
        if (opening) S.openWith[h.side] = id; else S.ball = id;
        S.drag = null; aimAtTarget(); renderTurn(); draw(); return;
      }
    }
    S.drag = "aim";
  }
  if (ev.type === "pointerup") {
    S.tv.c.releasePointerCapture(ev.pointerId);
    if (S.drag === "place") { S.drag = null; checkPlacement(); return; }
    S.drag = null; return;
  }
  if (S.drag === "place") {
    const g = S.geo, x0 = -g.length / 2 + R, x1 = st.ball_in_hand === "salvo" ? g.salvo_x : g.length / 2 - R;
    S.place = [Math.min(x1, Math.max(x0, p[0])), Math.min(g.width / 2 - R, Math.max(-g.width / 2 + R, p[1]))];
    S.placeOk = null; renderTurn(); draw(); return;
  }
  if (S.drag === "aim") {
    const c = cueBall(st); if (!c) return;
    S.aim.phi = Math.atan2(p[1] - c[1], p[0] - c[0]) * 180 / Math.PI;
    updateSliders(); draw();
  }
}

async function shoot() {
  const h = humanTurn(); if (!h) return;
  const st = displayState();
  const strike = { V0: S.aim.V0, phi: S.aim.phi, theta: S.aim.theta, a: S.aim.a, b: S.aim.b };
  const move = { strike };
  if (kegle() && st.ball_in_hand) move.place = S.place;
  if (!kegle()) move.ball = st.phase === "opening" ? openingBall(h) : S.ball;
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
  if (r.pending && !before.pending) {  // the stroke ran; the opponent chooses before the call
    S.view = r.view; S.pendingAnim = r.pending.anim;
    await animate(r.pending.anim, r.pending.before);
  }
  if (r.pending) renderCall(r.pending.call);  // the foul that gives the choice, who chooses
  else S.pendingAnim = null;
  if (r.shot) {
    S.shots[r.shot.index] = r.shot;
    if (!before.pending) await animate(r.shot.anim, r.shot.before);
    renderCall(r.shot.call);
  }
  S.view = r.view; S.shown = S.view.shots; S.busy = false;
  if (r.shot) resetAim();
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
  if (S.anim || S.busy || !$("autoplay").checked) return;
  const pause = 900 / Math.max(0.25, +$("speed").value);
  if (S.shown < S.view.shots) { S.timer = setTimeout(stepForward, pause); return; }
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

async function stepForward() {
  if (S.anim || S.busy || S.shown >= S.view.shots) return;
  const k = S.shown, s = S.shots[k];
  await animate(s.anim, s.before);
  renderCall(s.call);
  S.shown = k + 1; refresh();
}

async function initTable(gid, watch) {
  $("lobby").hidden = true; $("table-view").hidden = false; $("gamebar").hidden = false;
  try { S.view = await api("GET", `/api/games/${gid}`); }
  catch (e) { $("table-view").hidden = true; $("lobby").hidden = false; initLobby(); $("p-err").textContent = e.message; return; }
  // the game's own table (a keglebillard game on helmatch names it in its options)
  const table = (S.view.options || {}).table;
  S.geo = await api("GET", `/api/geometry/${S.view.game}` + (table ? `?table=${encodeURIComponent(table)}` : ""));
  S.tv = new TableView($("table"), S.geo, S.view.game);
  const sides = S.view.side_names || S.view.seats.map(s => s.name);
  const on = table ? ` (${tableLabel(S.view.game, table)})` : "";
  $("title").textContent = `${S.view.game}${on} · ${S.view.mode === "replay" ? "replay" : sides.join(" vs ")}`;
  $("download").href = `/api/games/${gid}/record`;
  $("autoplay").checked = S.view.mode === "play";
  await fetchShots();
  S.shown = S.view.shots;
  if (S.view.mode === "replay") S.shown = 0;
  window.addEventListener("resize", () => { S.tv.resize(); draw(); });
  const cv = $("table");
  for (const t of ["pointerdown", "pointermove", "pointerup"]) cv.addEventListener(t, onPointer);
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
  $("first").addEventListener("click", () => { if (!S.anim) { S.shown = 0; refresh(); } });
  $("prev").addEventListener("click", () => { if (!S.anim) { S.shown = Math.max(0, S.shown - 1); refresh(); } });
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
    if (!humanTurn()) return;
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

async function main() {
  S.info = await api("GET", "/api/info");
  const q = new URLSearchParams(location.search);
  if (q.get("game")) initTable(q.get("game"), q.get("watch") === "1");
  else initLobby();
}
main();
