// cuegym play: the table view drawn: what the table shows and whose turn it is, the canvas
// (balls, pins, trails, the aim line, penalty spots), a shot's animation, and the side panel
// (scoreboard, turn, the referee's question, the shot list). Loaded after app.js.
"use strict";

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

// A ball's centre at time t, held from its drop on where it crossed the pocket's capture
// circle (the physics puts a pocketed ball at the pocket's centre, as pooltool does).
function onCloth(b, t) {
  return ballAt(b.segs, b.drop && t >= b.drop[0] ? b.drop[0] - 1e-9 : t);
}

function trailPoints(b, tEnd, upTo) {
  const t1 = Math.min(upTo === undefined ? tEnd : upTo, b.drop ? b.drop[0] : tEnd), pts = [];
  for (let t = 0; t < t1; t += 0.02) pts.push(ballAt(b.segs, t));
  pts.push(onCloth(b, t1));
  const moved = pts.some(p => Math.hypot(p[0] - pts[0][0], p[1] - pts[0][1]) > 1e-4);
  return moved ? pts : [];
}

// Animate a shot's motion from ``before``; resolves when it has ended.
function animate(anim, before) {
  return new Promise(resolve => {
    if (!anim) { resolve(); return; }
    setStatus("animating");
    const tv = S.tv;
    // the motion's own time, advanced each frame at the speed then chosen: a change of speed
    // goes on from where the shot is (a time scaled from the start rewound or jumped it)
    let t = 0, last = performance.now();
    S.anim = { anim, before };
    stepButtons();  // no stepping while a shot is shown moving (the step would land past it)
    const pins = kegle() ? anim.pins : [];
    const frame = now => {
      t = Math.min(anim.t_end, t + Math.max(0, now - last) / 1000 * +$("speed").value); last = now;
      tv.background();
      if (kegle()) {
        tv.pins(pins.map((p, k) => {
          const spot = S.geo.pin_spots[k], fallen = p.t !== null && t >= p.t;
          return { x: spot[0], y: spot[1], up: p.up0 && !fallen, fall: p.dir, frac: fallen ? Math.min(1, (t - p.t) / 0.18) : 1, king: k === 0, show: p.up0 };
        }).filter(p => p.show));
      }
      for (const [id, b] of Object.entries(anim.balls)) tv.trail(trailPoints(b, anim.t_end, t), ballColour(id));
      for (const [id, b] of Object.entries(anim.balls)) {
        const p = onCloth(b, t);
        if (b.drop && t >= b.drop[0]) {  // it slides into the pocket's centre and fades
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
      // a match's games won beside the name: the name alone is cut short, never the count
      const bo3 = v.options.match === "best_of_3", games = bo3 ? `games ${st.match.games_won[side]}` : "";
      const title = names[side] + (bo3 ? ` · ${games}` : "");
      const name = bo3 ? `<span class="nm">${esc(names[side])}</span><small class="games">${esc(games)}</small>` : esc(names[side]);
      d.innerHTML = `<span class="swatch" style="background:${col}"></span><span class="pname${bo3 ? " bo3" : ""}" title="${esc(title)}">${name}</span><span class="pts balls" data-side="${side}" data-left="${left}">${dots}</span>`;
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

// The result as [the winner's name ("" for none), the rest]: "Ann", "wins the match 2-1".
function resultParts() {
  const st = S.view.state;
  const win = (who, more) => [who, says(who, "wins").slice(who.length + 1) + more];
  if (kegle()) return st.ranking ? win(seatName(st.ranking[0]), "") : ["", "game over"];
  const w = st.match.winner, won = st.match.games_won, bo3 = S.view.options.match === "best_of_3";
  if (w === null) return ["", "match over"];
  if (w === "draw") return ["", bo3 ? `match drawn ${won[0]}-${won[1]}` : "drawn (G-5, no progress)"];
  return win(S.view.side_names[w], bo3 ? ` the match ${won[w]}-${won[1 - w]}` : "");
}
function resultText() { const [who, rest] = resultParts(); return who ? `${who} ${rest}` : rest; }

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
    const rank = kegle() && st.ranking ? st.ranking.map((p, k) => `${k + 1}. ${seatName(p)} ${st.scores[p]}`) : [];
    // the result on one line, the name cut short with "…" but never "wins" (the whole of it
    // is the title): long names must not push the banner off the table over the page's header
    const [who, rest] = resultParts();
    b.innerHTML = `<span class="result">${who ? `<span class="who">${esc(who)}</span> ` : ""}<span>${esc(rest)}</span></span><small>${esc(rank.join(" · "))}</small>`;
    b.title = [resultText(), ...rank].join("\n");
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
      li.addEventListener("click", () => showShot(k + 1));
      ol.appendChild(li);
    }
  }
  Array.from(ol.children).forEach((li, k) => { li.className = k === S.shown - 1 ? "current" : ""; if (S.shots[k]) li.textContent = li.title = S.shots[k].call[0]; });
  // the shot shown in view in the list, once when it changes (a list the reader scrolled
  // stays put while they aim); only the list scrolls, not the panel or the page
  if (ol.dataset.scrolled !== `${S.shown}/${S.view.shots}`) {
    ol.dataset.scrolled = `${S.shown}/${S.view.shots}`;
    const cur = ol.querySelector("li.current");
    if (cur) scrollInto(ol, cur);
  }
}

// Scroll ``box`` (only) so that its child ``el`` is in view, as little as needed.
function scrollInto(box, el) {
  const b = box.getBoundingClientRect(), r = el.getBoundingClientRect();
  if (r.top < b.top) box.scrollTop -= b.top - r.top;
  else if (r.bottom > b.bottom) box.scrollTop += r.bottom - b.bottom;
}
