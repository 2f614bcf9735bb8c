// The sgs table's page: plain JavaScript, no build step.
// It shows only what the server sends for this browser's seat (sgs_web/frames.py), and answers the
// request it is asked one step at a time: the server tells the next step of a play (its cards, then
// its targets ...) until the answer is complete.
"use strict";

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
};

const state = {
  tableId: null, token: null, seat: null, ws: null, table: null, frame: null,
  request: null, requestId: null, data: {}, picked: [], refused: null, retry: 0,
  replay: null, replayStep: 0,
};

function status(text) { $("status").textContent = text; }

function show(view) {
  for (const v of ["lobby", "table", "replay"]) $(v).hidden = v !== view;
}

async function api(path, body) {
  const opts = body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"},
                                            body: JSON.stringify(body)};
  const res = await fetch(path, opts);
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

// ------------------------------------------------------------------ the lobby

const tokenKey = (tid) => `sgs-seat-${tid}`;

async function refreshLobby() {
  let info;
  try { info = await api("/api/tables"); } catch (e) { status(e.message); return; }
  const sel = $("new-players");
  if (!sel.options.length) {
    for (let n = info.players_min; n <= info.players_max; n++) sel.append(el("option", {value: n, text: n}));
    sel.value = info.players;
  }
  const box = $("tables");
  box.replaceChildren();
  for (const t of info.tables) box.append(tableRow(t));
  const mine = info.tables.find((t) => localStorage.getItem(tokenKey(t.id)));
  $("nav-table").hidden = !mine;
}

function tableRow(t) {
  const mine = localStorage.getItem(tokenKey(t.id));
  const row = el("div", {class: "table-row", "data-table": t.id},
    el("b", {text: `${t.rules_name.zh} ${t.rules_name.en}`}), ` — ${t.players} players — ${t.state} `);
  const seats = el("div");
  for (const s of t.seats) {
    const slot = el("span", {class: "seat-slot" + (s.bot ? "" : " taken")},
      `seat ${s.seat}: ${s.bot ? "bot" : s.name}${s.bot || s.connected ? "" : " (away)"} `);
    if (s.bot && t.state === "waiting" && !mine) {
      slot.append(el("button", {type: "button", class: "take", "data-seat": s.seat, text: "take",
                                onclick: () => takeSeat(t.id, s.seat)}));
    }
    seats.append(slot);
  }
  row.append(seats);
  if (mine && t.state === "waiting") {
    row.append(el("button", {type: "button", class: "start primary", text: "Start the game",
                             onclick: () => startGame(t.id)}));
  }
  if (mine) row.append(" ", el("button", {type: "button", class: "open", text: "Open my seat",
                                          onclick: () => openTable(t.id)}));
  return row;
}

async function takeSeat(tid, seat) {
  const name = $("name").value.trim();
  if (!name) { status("type your name first"); $("name").focus(); return; }
  localStorage.setItem("sgs-name", name);
  try {
    const got = await api(`/api/tables/${tid}/join`, {name, seat});
    localStorage.setItem(tokenKey(tid), got.token);
    openTable(tid);
  } catch (e) { status(e.message); refreshLobby(); }
}

async function startGame(tid) {
  try { await api(`/api/tables/${tid}/start`, {token: localStorage.getItem(tokenKey(tid))}); }
  catch (e) { status(e.message); }
  openTable(tid);
}

async function newTable() {
  try { await api("/api/tables", {players: Number($("new-players").value)}); } catch (e) { status(e.message); }
  refreshLobby();
}

async function readSaved(file) {
  try { return JSON.parse(await file.text()); } catch (e) { status(`${file.name} is not a saved game (not JSON)`); return null; }
}

async function resumeTable(file) {
  const record = await readSaved(file);
  if (record === null) return;
  try { await api("/api/tables", {resume: record}); } catch (e) { status(e.message); }
  refreshLobby();
}

// ------------------------------------------------------------------ the table

function openTable(tid) {
  if (state.tableId !== tid) {  // another table: nothing of the last one's page stays
    Object.assign(state, {frame: null, table: null, request: null, requestId: null, data: {}, picked: [], refused: null});
  }
  state.tableId = tid;
  state.token = localStorage.getItem(tokenKey(tid));
  show("table");
  $("nav-table").hidden = false;
  $("save").href = `/api/tables/${tid}/transcript`;
  connect();
}

function connect() {
  if (state.ws) { state.ws.onclose = null; state.ws.close(); }
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws/tables/${state.tableId}?token=${encodeURIComponent(state.token)}`);
  state.ws = ws;
  ws.onopen = () => { status("connected"); state.retry = 0; };
  ws.onmessage = (ev) => receive(JSON.parse(ev.data));
  ws.onclose = () => {
    if (state.ws !== ws) return;
    status("connection lost: reconnecting…");
    state.retry = Math.min(state.retry + 1, 10);
    setTimeout(connect, 300 * state.retry);  // the seat is kept for us: its token is in localStorage
  };
}

function receive(msg) {
  if (msg.type === "error") {
    status(msg.message);
    if (state.ws) { state.ws.onclose = null; }
    localStorage.removeItem(tokenKey(state.tableId));
    show("lobby"); refreshLobby();
    return;
  }
  if (msg.type === "notice") { status(msg.message); return; }
  if (msg.type === "table") { state.table = msg.table; if (state.frame) renderTable(); else renderWaiting(); return; }
  if (msg.type === "state") {
    state.frame = msg;
    const changed = msg.request_id !== state.requestId;
    if (changed) {  // a new request: its answer starts empty
      state.requestId = msg.request_id; state.data = {}; state.picked = []; state.refused = null;
    }
    if (changed || !msg.request || !state.request) state.request = msg.request;  // (keep a step half-way)
    renderTable();
    return;
  }
  if (msg.type === "request" && msg.request_id === state.requestId) {
    state.request = msg.request; state.data = msg.request.data; state.picked = []; renderRequest();
    return;
  }
  if (msg.type === "refused" && msg.request_id === state.requestId) {
    state.refused = msg.message; state.request = msg.request; state.data = {}; state.picked = [];
    renderRequest();
  }
}

function renderWaiting() {
  const t = state.table;
  $("banner").replaceChildren(el("span", {text: t.state === "waiting"
    ? "Waiting for the game to start: take the other seats from the lobby, then press Start." : t.state}));
  if (t.state === "waiting") {
    $("banner").append(" ", el("button", {type: "button", class: "start primary", text: "Start the game",
                                          onclick: () => startGame(state.tableId)}));
  }
}

function text2(t) { return t ? `${t.zh} ${t.en}`.trim() : ""; }

function cardEl(c, small = false, tag = "div") {
  if (c.hidden) return el(tag, {class: "card hidden" + (small ? " small" : ""), text: small ? "?" : "hidden card"});
  const red = c.color === "red";
  const e = el(tag, {class: `card${red ? " red" : ""}${small ? " small" : ""}`,
                     title: c.text ? `${c.text.zh}\n${c.text.en}` : c.label, "data-card": c.id},
    el("span", {class: "mark", text: `${c.suit_sign || ""}${c.rank_text || ""}`}),
    el("span", {class: "zh", text: c.name ? c.name.zh : c.label}),
    small ? null : el("span", {class: "en", text: c.name ? c.name.en : ""}));
  return e;
}

function hpEl(s) {
  const e = el("span", {class: "hp", title: `${s.hp}/${s.max_hp} HP`});
  const max = Math.max(s.max_hp, 0);
  for (let i = 0; i < max; i++) e.append(el("span", {class: i < s.hp ? "" : "lost", text: "♥"}));
  e.append(` ${s.hp}/${s.max_hp}`);
  return e;
}

function seatEl(s, names, asking, choosing) {
  const who = names && names[s.seat];
  if (choosing) {  // before the first turn the seats' heroes are stand-ins: not shown
    return el("div", {class: "seat" + (s.me ? " me" : "") + (asking === s.seat ? " asking" : ""), "data-seat": s.seat},
      el("div", {class: "who", text: `seat ${s.seat} · ${s.me ? "you" : who ? (who.bot ? "bot" : who.name) : ""}`}),
      el("div", {class: "hero", text: "choosing a hero…"}),
      s.role ? el("div", {class: "role", text: text2(s.role.name)}) : null);
  }
  const classes = ["seat", s.me ? "me" : "", s.current ? "current" : "", s.alive ? "" : "dead",
                   asking === s.seat ? "asking" : ""].join(" ");
  const box = el("div", {class: classes, "data-seat": s.seat},
    el("div", {class: "who", text: `seat ${s.seat} · ${s.me ? "you" : who ? (who.bot ? "bot" : who.name
      + (who.stand_in ? " (away: a bot plays)" : who.connected ? "" : " (away)")) : ""}`}),
    el("div", {class: "hero"}, el("span", {class: `kingdom ${s.kingdom}`, text: s.kingdom}), " ",
      s.hero.name.zh, " ", el("small", {text: s.hero.name.en})),
    el("div", {}, hpEl(s), s.role ? el("span", {class: "role", text: `  ${text2(s.role.name)}`}) : null));
  box.append(el("div", {class: "line", text: `hand: ${s.hand_count}` + (s.me ? "" :
    s.distance === null || s.distance === undefined ? "" : ` · distance ${s.distance}`)},
    s.me || s.distance === null || s.distance === undefined ? null :
      el("span", {class: s.in_range ? "reach" : "far", text: s.in_range ? " · in your range" : " · out of range"})));
  if (s.equipment.length) {
    const eq = el("div", {class: "line"}, "equipment: ");
    for (const c of s.equipment) eq.append(cardEl(c, true, "span"), " ");
    box.append(eq);
  }
  if (s.judge.length) {
    const j = el("div", {class: "line"}, "judge area: ");
    for (const c of s.judge) j.append(cardEl(c, true, "span"), " ");
    box.append(j);
  }
  if (s.marks.length) box.append(el("div", {class: "line", text: "marks: " + s.marks.map((m) => `${m.name} ×${m.count}`).join(", ")}));
  for (const p of s.piles) {
    const line = el("div", {class: "line"}, `${text2(p.text)}: ${p.count} `);
    for (const c of p.cards) line.append(cardEl(c, true, "span"), " ");
    box.append(line);
  }
  if (s.chained) box.append(el("div", {class: "line", text: "chained 连环"}));
  if (s.face_down) box.append(el("div", {class: "line", text: "turned over 翻面"}));
  const skills = el("div", {class: "line skills"});
  for (const k of s.skills) skills.append(el("span", {title: `${k.text.zh}\n${k.text.en}`, text: k.name.zh + " " + k.name.en}));
  box.append(skills);
  return box;
}

function renderSeats(box, table, names, asking) {
  // no turn has begun yet: the heroes are being chosen
  const choosing = table.current === null && table.phase === null && table.draw_pile === 0;
  box.replaceChildren(...table.seats.map((s) => seatEl(s, names, asking, choosing)));
}

function renderTable() {
  const f = state.frame;
  if (!f) return;
  const t = f.table;
  const names = state.table ? state.table.seats : null;
  const banner = $("banner");
  banner.replaceChildren(`You are seat ${f.seat}`,
    t.role ? el("span", {class: "role", text: ` — your role: ${text2(t.role.name)}`}) : "",
    ` · ${text2(t.rules.name)}` + (t.phase ? ` · ${text2(t.phase.name)}` : "") + ` · draw pile ${t.draw_pile}`);
  if (f.result) {
    banner.append(el("div", {id: "result", text: `${f.result.reason}: ${f.result.winner_roles.join(", ") || "nobody"} won — you ${f.result.you_won ? "won" : "lost"}.`}));
  }
  if (f.error) banner.append(el("div", {class: "refused", text: f.error}));
  renderSeats($("seats"), t, names, f.asking);
  $("hand").replaceChildren(...t.hand.map((c) => cardEl(c)));
  $("hand-count").textContent = `(${t.hand.length})`;
  const log = $("log");
  log.replaceChildren(...f.log.map((l) => el("li", {text: l})));
  log.parentElement.scrollTop = log.parentElement.scrollHeight;
  $("why").replaceChildren(...(f.why || []).map((l) => el("li", {text: l})));
  renderRequest();
}

function send(data) {
  if (!state.ws || state.ws.readyState !== WebSocket.OPEN) { status("not connected: reconnecting…"); return; }
  state.ws.send(JSON.stringify({type: "answer", request_id: state.requestId, answer: data}));
  for (const b of document.querySelectorAll("#request button")) b.disabled = true;  // until the server answers
}

function give(step, value) {
  const data = Object.assign({}, state.data);
  if (step.field === "secondary") data.secondary = [...(data.secondary || []), value];
  else data[step.field] = value;
  state.data = data;
  send(data);
}

function undo() {
  const data = Object.assign({}, state.data);
  const keys = Object.keys(data);
  if (!keys.length) return;
  const last = keys[keys.length - 1];
  if (last === "secondary" && data.secondary.length > 1) data.secondary = data.secondary.slice(0, -1);
  else delete data[last];
  state.data = data;
  send(data);
}

function choiceEl(step, ch) {
  const picked = state.picked.includes(ch.value);
  let b;
  if (ch.card) {
    b = cardEl(ch.card, false, "button");
    b.classList.add("choice");
  } else if (ch.hero) {
    b = el("button", {class: "choice hero-choice"}, el("div", {class: "hero"},
      el("span", {class: `kingdom ${ch.hero.kingdom}`, text: ch.hero.kingdom}), ` ${ch.hero.name.zh} ${ch.hero.name.en} · ${ch.hero.hp} HP`));
    for (const k of ch.hero.skills) b.append(el("div", {class: "skill", text: `${k.name.zh} ${k.name.en}: ${k.text.en || k.text.zh}`}));
  } else {
    b = el("button", {class: "choice", text: ch.label});
  }
  b.type = "button";
  b.dataset.value = JSON.stringify(ch.value);
  b.title = ch.label + (ch.skill ? `\n${ch.skill.text.zh}\n${ch.skill.text.en}` : "");
  if (picked) b.classList.add("selected");
  b.addEventListener("click", () => {
    if (!step.multi) { give(step, ch.value); return; }
    const i = state.picked.indexOf(ch.value);
    if (i >= 0) state.picked.splice(i, 1);
    else if (state.picked.length < step.max) state.picked.push(ch.value);
    renderRequest();
  });
  return b;
}

function renderRequest() {
  const box = $("request");
  const f = state.frame;
  const r = state.request;
  box.replaceChildren();
  if (f && f.result) { box.append(el("div", {class: "waiting", text: "The game is over."})); return; }
  if (!r) {
    const who = f && f.asking !== null && f.asking !== undefined ? `seat ${f.asking}` : "the game";
    box.append(el("div", {class: "waiting", text: `Waiting for ${who}…`}));
    return;
  }
  box.append(el("div", {class: "prompt", text: r.prompt}));
  if (r.skill) box.append(el("div", {class: "hint", text: `${r.skill.name.zh} ${r.skill.name.en}: ${r.skill.text.en || r.skill.text.zh}`}));
  if (state.refused) box.append(el("div", {class: "refused", text: state.refused}));
  const step = r.step;
  if (!step) return;
  if (step.prompt !== r.prompt) box.append(el("div", {class: "step", text: step.prompt}));
  const choices = el("div", {class: "choices"});
  for (const ch of step.choices) choices.append(choiceEl(step, ch));
  box.append(choices);
  const row = el("div", {class: "actions"});
  if (step.multi) {
    const n = state.picked.length;
    row.append(el("button", {type: "button", id: "btn-ok", class: "primary", text: `OK (${n} chosen; ${step.min}–${step.max})`,
                             disabled: n < step.min || n > step.max, onclick: () => give(step, state.picked.slice())}));
  }
  if (step.none_label) {
    row.append(el("button", {type: "button", id: "btn-none", text: step.none_label, onclick: () => give(step, null)}));
  }
  if (step.default !== null && step.default !== undefined && step.default_text) {
    row.append(el("button", {type: "button", id: "btn-default", text: `default: ${step.default_text}`,
                             onclick: () => give(step, step.default)}));
  }
  if (r.can_undo) row.append(el("button", {type: "button", id: "btn-back", text: "back", onclick: undo}));
  box.append(row);
}

// ------------------------------------------------------------------ the replay viewer

async function openReplay(file) {
  const record = await readSaved(file);
  if (record === null) return;
  try { state.replay = await api("/api/replays", record); } catch (e) { status(e.message); return; }
  const sel = $("replay-seat");
  sel.replaceChildren(...Array.from({length: state.replay.players}, (_, i) => el("option", {value: i, text: `seat ${i}`})));
  $("replay-slider").max = state.replay.steps - 1;
  $("replay-controls").hidden = false;
  for (const n of state.replay.notes) status(n);
  replayGo(0);
}

async function replayGo(n) {
  const rep = state.replay;
  if (!rep) return;
  n = Math.max(0, Math.min(rep.steps - 1, n));
  let s;
  try { s = await api(`/api/replays/${rep.id}/${n}?seat=${$("replay-seat").value}`); } catch (e) { status(e.message); return; }
  state.replayStep = n;
  $("replay-pos").textContent = `step ${n} of ${rep.steps - 1}`;
  $("replay-slider").value = n;
  const d = s.decision;
  $("replay-decision").textContent = d ? `decision ${n}: seat ${d.player} answers a ${d.kind} request` : "the start";
  if (s.result) $("replay-decision").textContent += ` — ${s.result.reason}: ${s.result.winner_roles.join(", ") || "nobody"} won`;
  renderSeats($("replay-seats"), s.table, null, null);
  $("replay-hand").replaceChildren(...s.table.hand.map((c) => cardEl(c)));
  const log = $("replay-log");
  log.replaceChildren(...s.log.map((l) => el("li", {text: l})));
  log.parentElement.scrollTop = log.parentElement.scrollHeight;
}

// ------------------------------------------------------------------ start

$("nav-lobby").onclick = () => { show("lobby"); refreshLobby(); };
$("nav-table").onclick = () => {
  if (state.tableId) { show("table"); return; }
  refreshLobby().then(() => {
    const row = document.querySelector(".table-row .open");
    if (row) row.click();
  });
};
$("nav-replay").onclick = () => show("replay");
$("new-table").onclick = newTable;
$("name").value = localStorage.getItem("sgs-name") || "";
$("replay-file").onchange = (ev) => { if (ev.target.files.length) openReplay(ev.target.files[0]); };
$("resume-file").onchange = (ev) => { if (ev.target.files.length) resumeTable(ev.target.files[0]); };
$("replay-seat").onchange = () => replayGo(state.replayStep);
$("replay-first").onclick = () => replayGo(0);
$("replay-back").onclick = () => replayGo(state.replayStep - 1);
$("replay-forward").onclick = () => replayGo(state.replayStep + 1);
$("replay-last").onclick = () => replayGo(state.replay ? state.replay.steps - 1 : 0);
$("replay-slider").oninput = (ev) => replayGo(Number(ev.target.value));
document.addEventListener("keydown", (ev) => {
  if ($("replay").hidden || ev.target.tagName === "INPUT") return;
  if (ev.key === "ArrowLeft") replayGo(state.replayStep - 1);
  if (ev.key === "ArrowRight") replayGo(state.replayStep + 1);
});
show("lobby");
// a browser that holds a seat (its token is kept in localStorage) goes back to it: a reload, a lost network
refreshLobby().then(async () => {
  const info = await api("/api/tables").catch(() => ({tables: []}));
  const mine = info.tables.find((t) => localStorage.getItem(tokenKey(t.id)) && ["waiting", "playing"].includes(t.state));
  if (mine && !state.tableId) openTable(mine.id);
});
setInterval(() => { if (!$("lobby").hidden) refreshLobby(); }, 2000);
