// troupe's dashboard: polls the /v1 API and listens to group transitions
// on /v1/ws ({"type":"watch"}) to redraw the moment a rebalance happens.
// The broker buttons are admin routes: they send the token
// (troupe.http.admin.token) as a bearer token, taken from the URL fragment
// (#token=...) or asked for once.
"use strict";

const $ = (sel) => document.querySelector(sel);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else if (k === "onclick") e.onclick = v;
    else e[k] = v;
  }
  for (const c of children) e.append(c instanceof Node ? c : String(c));
  return e;
};

// -- the admin token ---------------------------------------------------------------

const TOKEN_KEY = "troupe.admin.token";

function tokenFromFragment() {
  const m = /(?:^|&)token=([^&]*)/.exec(location.hash.slice(1));
  if (!m) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
  history.replaceState(null, "", location.pathname + location.search);
}

function notice(text) {
  const n = $("#notice");
  n.textContent = text || "";
  n.hidden = !text;
}

/// POSTs an admin route with the token; asks for one on 401.
async function adminPost(path) {
  for (let attempt = 0; attempt < 2; ++attempt) {
    const token = sessionStorage.getItem(TOKEN_KEY);
    const headers = token ? { Authorization: "Bearer " + token } : {};
    const res = await fetch(path, { method: "POST", headers });
    if (res.status === 401) {
      sessionStorage.removeItem(TOKEN_KEY);
      const entered = window.prompt("Admin token (troupe.http.admin.token):");
      if (!entered) break;
      sessionStorage.setItem(TOKEN_KEY, entered);
      continue;
    }
    if (res.status === 403) {
      notice("Admin routes are off: start troupe with troupe.http.admin.token " +
             "(or troupe.http.admin.enable=true).");
      return;
    }
    notice(res.ok ? "" : `${path}: ${res.status}`);
    return;
  }
  notice("Not allowed without the admin token.");
}

async function getJson(path) {
  const res = await fetch(path);
  if (!res.ok) throw new Error(path + ": " + res.status);
  return res.json();
}

function tps(list) {
  const out = [];
  for (const t of list || [])
    for (const p of t.partitions || []) out.push(el("span", { class: "tp" }, `${t.topic}-${p}`));
  return out.length ? out : [el("span", { class: "empty" }, "nothing assigned")];
}

// -- brokers ------------------------------------------------------------------------

async function drawBrokers() {
  const { brokers = [] } = await getJson("/v1/brokers");
  const box = $("#brokers");
  box.replaceChildren(...brokers.map((b) => {
    const action = b.alive ? "stop" : "start";
    return el("div", { class: "card broker" + (b.alive ? "" : " dead"), "data-broker": b.id },
      el("h3", {}, `broker ${b.id} `, el("span", { class: "pill " + (b.alive ? "ok" : "off") }, b.alive ? "alive" : "stopped")),
      el("div", { class: "kv" },
        "address", el("b", {}, `${b.host}:${b.port}`),
        "leaders", el("b", {}, b.leaders || 0),
        "replicas", el("b", {}, b.replicas || 0)),
      el("button", { onclick: async () => {
        await adminPost(`/v1/brokers/${b.id}/${action}`);
        refresh();
      } }, action));
  }));
}

// -- partitions ---------------------------------------------------------------------

async function drawPartitions() {
  const { partitions = [] } = await getJson("/v1/partitions");
  const internal = $("#show-internal").checked;
  const rows = partitions
    .filter((p) => internal || !p.topic.startsWith("__"))
    .map((p) => {
      // The full assignment, in the controller's order; a replica on a
      // stopped broker is marked offline.
      const replicas = (p.replicas || []).map((r) =>
        el("span", {
          class: "replica" + (r.offline ? " offline" : "") + (r.broker === p.leader ? " leads" : ""),
          "data-broker": r.broker, "data-offline": r.offline ? "true" : "false",
          title: r.offline ? "offline: broker stopped" : r.role },
        r.broker));
      const isr = p.isr || [];
      return el("tr", { "data-tp": `${p.topic}-${p.partition}` },
        el("td", {}, p.topic), el("td", { class: "num" }, p.partition),
        el("td", { class: "num" }, p.leader),
        el("td", {}, ...replicas),
        el("td", { class: isr.length < replicas.length ? "isr-short" : "" }, isr.join(", ")),
        el("td", { class: "num" }, p.log_end_offset), el("td", { class: "num" }, p.high_watermark));
    });
  $("#partitions tbody").replaceChildren(...rows);
}

// -- topics and their configs ---------------------------------------------------------

// The topics whose configs the user opened: kept open across redraws.
const openTopics = new Set();

async function drawTopics() {
  const internal = $("#show-internal").checked;
  const names = (await getJson("/topics")).filter((t) => internal || !t.startsWith("__"));
  // REST Proxy v2's GET /topics/{t}: the topic's configs (its overrides and
  // the broker's settings for the rest) and partitions.
  const topics = await Promise.all(names.map((t) =>
    getJson("/topics/" + encodeURIComponent(t)).catch(() => null)));
  const box = $("#topics");
  const cards = topics.filter(Boolean).map((t) => {
    const configs = Object.entries(t.configs || {}).sort(([a], [b]) => a.localeCompare(b));
    const details = el("details", { class: "configs" },
      el("summary", {}, `configs (${configs.length})`),
      el("div", { class: "kv" }, ...configs.flatMap(([k, v]) =>
        [el("span", {}, k), el("b", { "data-config": k }, v)])));
    details.open = openTopics.has(t.name);
    details.ontoggle = () => {
      if (details.open) openTopics.add(t.name);
      else openTopics.delete(t.name);
    };
    return el("div", { class: "card topic", "data-topic": t.name },
      el("h3", {}, t.name + " ",
        el("span", { class: "pill" + (String(t.configs?.["cleanup.policy"]).includes("compact") ? " ok" : "") },
          t.configs?.["cleanup.policy"] || "")),
      el("div", { class: "kv" },
        "partitions", el("b", {}, (t.partitions || []).length),
        "retention.ms", el("b", {}, t.configs?.["retention.ms"] ?? "—")),
      details);
  });
  box.replaceChildren(...(cards.length ? cards : [el("p", { class: "empty" }, "No topics yet.")]));
}

// -- groups -------------------------------------------------------------------------

const rebalancing = new Set();

async function drawGroups() {
  const { groups = [] } = await getJson("/v1/groups");
  const box = $("#groups");
  if (!groups.length) {
    box.replaceChildren(el("p", { class: "empty" }, "No groups yet."));
    return;
  }
  const described = await Promise.all(groups.map((g) =>
    getJson("/v1/groups/" + encodeURIComponent(g.group_id)).catch(() => null)));
  const cards = described.filter(Boolean).map((g) => {
    const busy = g.state === "PreparingRebalance" || g.state === "CompletingRebalance";
    // Kafka's tool prints "-" where nothing is committed: the gateway leaves
    // those partitions' lag out, and a group with no lag at all shows "-".
    const known = (g.lag || []).filter((l) => l.lag !== undefined && l.lag !== null);
    const lag = known.length ? known.reduce((n, l) => n + Math.max(0, Number(l.lag) || 0), 0) : "-";
    const members = (g.members || []).map((m) =>
      el("li", {},
        el("div", { class: m.member_id === g.leader ? "leader" : "" }, m.client_id || "member"),
        el("div", { class: "id" }, m.member_id),
        el("div", {}, ...tps(m.assignment))));
    return el("div", {
      class: "card group" + (busy || rebalancing.has(g.group_id) ? " rebalancing" : ""),
      "data-group": g.group_id, "data-generation": g.generation, "data-state": g.state },
      el("h3", {}, g.group_id + " ", el("span", { class: "pill " + g.state }, g.state)),
      el("div", { class: "kv" },
        "generation", el("b", { class: "generation", id: "gen-" + g.group_id }, g.generation),
        "protocol", el("b", {}, g.protocol || "—"),
        "members", el("b", {}, (g.members || []).length),
        "lag", el("b", {}, lag)),
      el("ul", { class: "members" }, ...members));
  });
  box.replaceChildren(...cards);
}

// -- live events --------------------------------------------------------------------

function logEvent(ev) {
  const li = el("li", { class: "to-" + ev.to },
    el("time", {}, new Date(Number(ev.at_ms) || Date.now()).toLocaleTimeString()),
    el("b", {}, ev.group), ` ${ev.from} → ${ev.to}`,
    ev.generation ? ` · generation ${ev.generation}` : "",
    ev.reason ? el("div", { class: "sub" }, ev.reason) : "");
  $("#events").prepend(li);
  while ($("#events").children.length > 200) $("#events").lastChild.remove();
}

function connect() {
  // wss under HTTPS (a page served over TLS may not open a plain socket).
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/v1/ws`);
  ws.onopen = () => {
    ws.send(JSON.stringify({ type: "watch" }));
    $("#conn").textContent = "live";
    $("#conn").className = "pill ok";
  };
  ws.onmessage = (msg) => {
    const ev = JSON.parse(msg.data);
    if (ev.type !== "group") return;
    if (ev.to === "PreparingRebalance" || ev.to === "CompletingRebalance") rebalancing.add(ev.group);
    else rebalancing.delete(ev.group);
    logEvent(ev);
    scheduleRefresh();
  };
  ws.onclose = () => {
    $("#conn").textContent = "reconnecting…";
    $("#conn").className = "pill off";
    setTimeout(connect, 1000);
  };
}

let pending = null;
function scheduleRefresh() {
  if (pending) return;
  pending = setTimeout(() => { pending = null; refresh(); }, 100);
}

async function refresh() {
  await Promise.all([drawBrokers(), drawGroups(), drawTopics(), drawPartitions()].map((p) => p.catch((e) => console.warn(e))));
}

$("#show-internal").onchange = refresh;
tokenFromFragment();
connect();
refresh();
setInterval(refresh, 2000);
