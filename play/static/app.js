// cuegym play: the page's state and its calls to the server, the lobby, and the entry (main).
// The server owns the game; this page draws what it says and sends strikes. The scripts, in
// the order index.html loads them: table.js (the canvas), app.js (this), view.js (the table
// view drawn: the table, the animation, the side panel), play.js (aiming, moves, answers,
// stepping through shots; it calls main() last, once every function is defined).
"use strict";

const $ = id => document.getElementById(id);
const S = {           // page state
  info: null, geo: null, view: null, tv: null, shots: [], shown: 0, anim: null, busy: false,
  aim: { phi: 0, V0: 3, theta: 0, a: 0, b: 0 }, place: null, placeOk: null, placeReason: "", placeErr: null,
  ball: null, openWith: [null, null], drag: null, pending: null, status: "idle", error: "", timer: null,
  review: false,  // a live game's past shot looked at (◀◀, ◀, the shot list): "auto" stays there
  reaim: false,  // a move came in during a look back: aim afresh back at the present
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

// Text for innerHTML: every string from the server or a record goes through here.
function esc(s) { return String(s).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]); }

// ---------------------------------------------------------------------------------------------
// Lobby
// ---------------------------------------------------------------------------------------------

function agentOptions(sel, value) {
  sel.innerHTML = "";
  for (const a of S.info.agents) sel.add(new Option(a, a));
  // a model file chosen before: the seats are drawn again when Players, Game or Format change
  if (value && value !== "__zip" && !S.info.agents.includes(value)) sel.add(new Option(value, value));
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

// The options, or null when the form cannot give them (said in #p-err).
function gameOptions(game) {
  if (game === "keglebillard") {
    const opts = { players: +$("p-players").value }, dist = $("p-distance");
    if (dist.validity.badInput) { $("p-err").textContent = "Play to must be a number of points (1..500)"; return null; }
    // an empty "Play to" is no other distance: the rules' 70 (K-21), the server's default
    if (dist.value.trim() !== "") opts.distance = +dist.value;
    return withTable(opts, $("p-table"));
  }
  const opts = { duo: $("p-duo").value === "1", match: $("p-match").value };
  if (decidingAsked()) opts.deciding_openers = [+$("p-dec0").value, +$("p-dec1").value];
  return opts;
}

// POST the new game and go to it; ``button`` waits meanwhile (a double click made two games).
async function startGame(body, errEl, watch, button) {
  errEl.textContent = "";
  button.disabled = true;
  try {
    const r = await api("POST", "/api/games", body);
    location.search = `?game=${r.view.id}${watch ? "&watch=1" : ""}`;
  } catch (e) { errEl.textContent = e.message; button.disabled = false; }
}

// Rows the Replay list draws at a time: the server lists every record of every folder, newest
// first; thousands of rows at once would make the lobby slow, so "Show more" draws the next ones.
const RECORDS_SHOWN = 100;

async function loadRecords() {
  const box = $("records");
  try {
    const recs = await api("GET", "/api/records");
    box.innerHTML = recs.length ? "" : '<p class="hint">No saved games yet.</p>';
    const more = document.createElement("button");
    more.id = "records-more"; more.className = "more";
    box.appendChild(more);
    let shown = 0;
    const showMore = () => {
      for (const r of recs.slice(shown, shown + RECORDS_SHOWN)) box.insertBefore(recordRow(r), more);
      shown = Math.min(recs.length, shown + RECORDS_SHOWN);
      const left = recs.length - shown;
      more.hidden = left === 0;
      more.textContent = left <= RECORDS_SHOWN ? `Show the other ${left}`
        : `Show ${RECORDS_SHOWN} more (${left} not shown)`;
    };
    more.addEventListener("click", showMore);
    showMore();
  } catch (e) { box.textContent = e.message; }
}

// A row of the Replay list: what the record is, and its Open button.
function recordRow(r) {
  const row = document.createElement("div"); row.className = "rec";
  // every string here comes from a record file: text only, never markup
  const what = r.meta && r.meta.tournament ? `tournament ${r.meta.tournament}` : (r.over ? "finished" : "unfinished");
  const seats = Array.isArray(r.seats) ? sidesText(r.game, r.seats.map(x => String(x))) : "";
  const file = String(r.name).split(":").slice(1).join(":");
  const on = r.table ? ` (${tableLabel(r.game, r.table)})` : "";
  row.innerHTML = `<div>${esc(r.game)}${esc(on)}: ${esc(seats)}<small>${esc(r.shots)} shot${r.shots === 1 ? "" : "s"} · ${esc(what)} · ${esc(file)}</small></div><button>Open</button>`;
  row.querySelector("button").addEventListener("click", () => openReplay({ name: r.name }));
  return row;
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
    const game = $("p-game").value, options = gameOptions(game);
    if (!options) return;
    startGame({ game, options, seats: seatsFromForm(), noise: $("p-noise").value }, $("p-err"), false, $("p-start"));
  });
  agentOptions($("w-a0"), "pretrained"); agentOptions($("w-a1"), "geometric");
  const syncWatch = () => { $("w-kegle-opts").hidden = $("w-game").value !== "keglebillard"; };
  $("w-game").addEventListener("change", syncWatch);
  syncWatch();
  $("w-start").addEventListener("click", () => {
    const a = [$("w-a0").value, $("w-a1").value], game = $("w-game").value;
    const body = { game, seats: a.map(x => ({ kind: "agent", agent: x })), noise: $("w-noise").value };
    if (game === "keglebillard") { const opts = withTable({}, $("w-table")); if (opts.table) body.options = opts; }
    startGame(body, $("w-err"), true, $("w-start"));
  });
  $("r-file").addEventListener("change", async ev => {
    const f = ev.target.files[0]; if (!f) return;
    let rec;
    try { rec = JSON.parse(await f.text()); } catch (e) { $("r-err").textContent = "not a JSON file: " + e.message; return; }
    openReplay({ record: rec });
  });
  // back from a game (the page kept in the browser's cache): the start buttons were left waiting
  window.addEventListener("pageshow", e => { if (e.persisted) $("p-start").disabled = $("w-start").disabled = false; });
  loadRecords();
  setStatus("lobby");
}

// The page: a game (?game=ID, from the lobby or a reload) or the lobby. Run by play.js.
async function main() {
  S.info = await api("GET", "/api/info");
  const q = new URLSearchParams(location.search);
  if (q.get("game")) initTable(q.get("game"), q.get("watch") === "1");
  else initLobby();
}
