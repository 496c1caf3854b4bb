// onlooker's live viewer: reads the JSON API, follows /events (server-sent events), and acts
// through the API with the page's token. Text is only ever set as text; the charts are SVG drawn
// and escaped by the server.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const token = document.querySelector('meta[name="onlooker-token"]').content;
  const readOnly = document.querySelector('meta[name="onlooker-mode"]').content === "read-only";
  const state = { project: "", host: "", session: null, sessions: new Map(), lanes: [""], offset: 0 };
  const el = (tag, props = {}, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const c of children) if (c !== null && c !== undefined) node.append(c);
    return node;
  };
  const clock = (at) => (at ? new Date(at).toLocaleTimeString() : "");
  const query = (params) => new URLSearchParams(Object.entries(params).filter(([, v]) => v !== "" && v !== null && v !== undefined)).toString();
  async function get(path, params = {}) {
    const answer = await fetch(`${path}?${query(params)}`, { headers: { accept: "application/json" } });
    const data = await answer.json();
    if (!answer.ok) throw new Error(data.error || answer.statusText);
    return data;
  }
  async function post(path, body = {}) {
    const answer = await fetch(path, {
      method: "POST", headers: { "content-type": "application/json", "x-onlooker-token": token },
      body: JSON.stringify(body), credentials: "same-origin",
    });
    const data = await answer.json();
    if (!answer.ok) throw new Error(data.error || answer.statusText);
    return data;
  }
  // Filters change faster than answers come: only the newest request of each kind may draw.
  const asked = {};
  const ask = (kind) => { const n = (asked[kind] || 0) + 1; asked[kind] = n; return () => asked[kind] === n; };
  const askedSince = (kind) => { const n = asked[kind]; return () => asked[kind] === n; };
  // A list drawn again (a live change, a filter) keeps the keyboard where it was: the same
  // control of the same session or memory gets the focus back.
  function keepingFocus(box, draw) {
    const focused = document.activeElement;
    const item = focused && box.contains(focused) ? focused.closest("[data-memory],[data-session]") : null;
    draw();
    if (!item) return;
    const which = item.dataset.memory !== undefined ? `[data-memory="${CSS.escape(item.dataset.memory)}"]` : `[data-session="${CSS.escape(item.dataset.session)}"]`;
    const again = box.querySelector(`${which} ${focused.dataset.action ? `[data-action="${focused.dataset.action}"]` : "button"}`);
    if (again) again.focus();
  }
  const later = (fn, ms = 150) => { let t = null; return () => { clearTimeout(t); t = setTimeout(fn, ms); }; };
  const say = (where, error) => where.replaceChildren(el("p", { class: "error", role: "alert", text: String(error.message || error) }));

  // -- sessions --------------------------------------------------------------------------------
  function sessionKey(project, session) { return `${project}/${session}`; }
  function sessionButton(row) {
    const key = sessionKey(row.project, row.session);
    const counts = `${row.tool_calls} calls · ${row.failed_calls} failed · ${row.warnings} warnings`;
    return el("li", { "data-session": key },
      el("button", { type: "button", "aria-current": String(state.session === key), onclick: () => openSession(row) },
        el("b", { text: row.session_id || row.session }), " ", el("span", { class: "muted", text: row.project_name }),
        el("span", { class: "counts", text: `${counts} · ${clock(row.active)}${row.agent ? " · " + row.agent : ""}` }),
        el("span", { class: "host", "data-host": row.host || "unknown", text: row.host || "unknown" })));
  }
  function drawSessions() {
    const wanted = $("f-session").value.trim();
    const rows = [...state.sessions.values()]
      .filter((r) => (!state.project || r.project === state.project) && (!wanted || (r.session_id || r.session).includes(wanted)))
      .sort((a, b) => (a.active < b.active ? 1 : -1));
    keepingFocus($("sessions"), () => $("sessions").replaceChildren(...rows.map(sessionButton)));
    $("sessions-count").textContent = `(${rows.length})`;
  }
  async function loadSessions(more = false) {
    const newest = more ? askedSince("sessions") : ask("sessions"); // a reload outranks "more"
    const data = await get("/api/sessions", { project: state.project, host: state.host, offset: more ? state.offset : 0 });
    if (!newest()) return;
    if (!more) state.sessions.clear();
    for (const row of data.sessions) state.sessions.set(sessionKey(row.project, row.session), row);
    state.offset = data.next || 0;
    $("more-sessions").hidden = data.next === null;
    const select = $("f-project");
    const chosen = select.value;
    select.replaceChildren(el("option", { value: "", text: "all" }),
      ...data.projects.map((p) => el("option", { value: p.key, text: p.name })));
    select.value = chosen;
    const hosts = $("f-host");
    if (hosts.options.length === 1) hosts.append(...data.hosts.map((h) => el("option", { value: h, text: h })));
    drawSessions();
  }

  // -- timeline --------------------------------------------------------------------------------
  function itemLabel(item) {
    switch (item.kind) {
      case "tool_call": return `call ${item.call} · ${item.tool}${item.ok ? "" : " failed"}`;
      case "assessment": return `${item.observer} · ${item.severity} · observed at call ${item.call}`;
      case "told": return `told the agent${item.blocked ? " · blocked the stop" : ""}`;
      case "observer_failure": return `${item.observer} failed · call ${item.call}`;
      case "reviewer_run": {
        const cost = item.cost_usd === null || item.cost_usd === undefined ? "" : ` · $${Number(item.cost_usd).toFixed(4)}`;
        return `${item.observer} · reviewer ${item.status} · ${item.model || "no model"} · ${item.input_tokens} in / ${item.output_tokens} out${cost} · ${item.seconds}s`;
      }
      case "finding_created": return `finding ${item.finding.slice(0, 8)} · ${item.observer} · ${item.severity}`;
      default: return item.kind.replace(/_/g, " ") + (item.finding ? ` ${item.finding.slice(0, 8)}` : "") + (item.agent ? ` · ${item.agent}` : "");
    }
  }
  function itemNode(item) {
    const failed = item.kind === "tool_call" ? !item.ok : item.kind === "observer_failure";
    const node = el("article", {
      class: `item ${item.kind}${failed ? " failed" : ""}`, "data-kind": item.kind,
      "data-observer": item.observer || "", "data-severity": item.severity || "",
    }, el("div", { class: "head" }, el("time", { datetime: item.at, text: clock(item.at) }),
      item.severity ? el("span", { class: `sev-${item.severity}`, text: "■" }) : null,
      el("span", { text: itemLabel(item) })));
    if (item.text) node.append(el("pre", { text: item.text }));
    const lane = Math.max(state.lanes.indexOf(item.lane || ""), 0);
    node.style.gridColumn = String(lane + 1);
    return node;
  }
  function shown(item) {
    const observer = $("f-observer").value.trim(), severity = $("f-severity").value;
    if (observer && item.observer !== undefined && !String(item.observer).includes(observer)) return false;
    if (severity && item.severity && item.severity !== severity) return false;
    return true;
  }
  function laneHeads() {
    $("timeline").style.gridTemplateColumns = `repeat(${state.lanes.length}, minmax(200px, 1fr))`;
    return state.lanes.map((lane, i) => el("div", { class: "lane-head", style: `grid-column:${i + 1}`, text: lane ? `subagent ${lane}` : "main agent" }));
  }
  async function openSession(row) {
    state.session = sessionKey(row.project, row.session);
    history.replaceState(null, "", `#session=${encodeURIComponent(state.session)}`); // survives a reload
    state.items = [];
    $("timeline-title").textContent = `— ${row.session_id || row.session} (${row.project_name})`;
    drawSessions();
    const newest = ask("timeline");
    try {
      const data = await get("/api/timeline", { project: row.project, session: row.session });
      if (!newest()) return;
      state.items = data.items; state.lanes = data.lanes;
      drawTimeline();
      loadImprovements(row.project);
    } catch (e) { say($("timeline"), e); }
  }
  function drawTimeline() {
    $("timeline").replaceChildren(...laneHeads(), ...(state.items || []).filter(shown).map(itemNode));
  }
  function addToTimeline(item) {
    if (sessionKey(item.project, item.session) !== state.session) return;
    state.items.push(item);
    if (item.lane && !state.lanes.includes(item.lane)) { state.lanes.push(item.lane); drawTimeline(); return; }
    if (!shown(item)) return;
    const box = $("timeline");
    const following = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
    box.append(itemNode(item));
    if (following) box.scrollTop = box.scrollHeight; // keep up with the session, unless scrolled back
  }

  // -- findings --------------------------------------------------------------------------------
  async function loadFindings() {
    const [project, session] = state.session ? state.session.split("/") : [state.project, ""];
    const params = new URLSearchParams();
    if (state.project || project) params.set("project", state.project || project);
    if (state.host) params.set("host", state.host);
    const observer = $("f-observer").value.trim();
    if (observer) params.append("observer", observer);
    if ($("f-severity").value) params.append("severity", $("f-severity").value);
    const sessionFilter = $("f-session").value.trim();
    if (sessionFilter) params.set("session_id", sessionFilter);
    for (const s of $("f-resolved").checked ? ["open", "acknowledged", "resolved"] : ["open", "acknowledged"]) params.append("status", s);
    const newest = ask("findings");
    try {
      const answer = await fetch(`/api/findings?${params}`);
      const data = await answer.json();
      if (!newest()) return;
      if (!answer.ok) throw new Error(data.error);
      $("findings-count").textContent = `(${data.count})`;
      $("findings").replaceChildren(findingsTable(data.findings));
    } catch (e) { say($("findings"), e); }
    void session;
  }
  function findingActions(f) {
    if (readOnly || f.status === "resolved") return el("span", { class: "muted", text: f.resolution_note || "" });
    const note = el("input", { type: "text", placeholder: "note", "aria-label": `resolution note for ${f.id.slice(0, 8)}`, size: "12" });
    const act = (what) => async () => {
      try { await post(`/api/findings/${f.id}/${what}`, what === "resolve" ? { note: note.value } : {}); await loadFindings(); }
      catch (e) { say($("findings"), e); }
    };
    return el("div", { class: "actions" },
      f.status === "open" ? el("button", { type: "button", "data-action": "acknowledge", onclick: act("acknowledge"), text: "Acknowledge" }) : null,
      note, el("button", { type: "button", "data-action": "resolve", onclick: act("resolve"), text: "Resolve" }));
  }
  function findingsTable(rows) {
    const head = el("tr", {}, ...["severity", "observer", "finding", "status", "id", ""].map((h) => el("th", { scope: "col", text: h })));
    return el("table", { class: "findings" }, el("thead", {}, head), el("tbody", {}, ...rows.map((f) =>
      el("tr", { "data-finding": f.id, "data-status": f.status },
        el("td", {}, el("span", { class: `sev-${f.severity}`, text: f.severity })),
        el("td", { text: f.observer }),
        el("td", {}, el("span", { text: f.content }), el("span", { class: "muted", text: ` ×${f.occurrences} · ${f.project_name}` })),
        el("td", { text: f.status }), el("td", {}, el("code", { title: `${f.id} (the id the CLI and MCP tools take)`, text: f.id.slice(0, 8) })),
        el("td", {}, findingActions(f))))));
  }

  // -- overview, memories, improvements --------------------------------------------------------
  const CHARTS = { severity: "Findings by severity", observer: "Findings by observer", scores: "Scores per agent", cost: "Reviewer tokens and cost per day" };
  async function loadOverview() {
    const newest = ask("overview");
    try {
      const data = await get("/api/overview", { project: state.project });
      if (!newest()) return;
      const figures = Object.entries(CHARTS).filter(([k]) => data[k]).map(([k, label]) => {
        const figure = el("figure", { "data-chart": k }, el("figcaption", { text: label }));
        const holder = el("div");
        holder.innerHTML = data[k]; // SVG drawn and escaped by onlooker.report.charts
        figure.append(holder);
        return figure;
      });
      $("charts").replaceChildren(...(figures.length ? figures : [el("p", { class: "muted", text: "Nothing to chart yet." })]));
    } catch (e) { say($("charts"), e); }
  }
  async function loadBudget() {
    const money = (v) => (v === null || v === undefined ? "–" : `$${Number(v).toFixed(4)}`);
    const newest = ask("budget");
    try {
      const data = await get("/api/budget", { project: state.project });
      if (!newest()) return;
      const budget = data.daily_tokens;
      const head = el("tr", {}, ...["day", "memory tokens", `of ${budget ? budget.toLocaleString() : "no"} budget`, "memory cost", "reviewer tokens (in / out)", "reviewer cost"]
        .map((h) => el("th", { scope: "col", text: h })));
      const rows = data.days.map((d) => el("tr", { "data-day": d.day, class: d.over_budget ? "over" : "" },
        el("td", { text: d.day }), el("td", { text: d.memory_tokens.toLocaleString() }),
        el("td", {}, budget ? el("meter", { min: "0", max: String(budget), high: String(budget * 0.8), value: String(d.memory_tokens),
          "aria-label": `${d.day}: memory tokens against the daily budget` }) : null,
          el("span", { text: d.budget_share === null ? "" : ` ${(d.budget_share * 100).toFixed(1)}%${d.over_budget ? " over" : ""}` })),
        el("td", { text: money(d.memory_cost_usd) }),
        el("td", { text: `${d.reviewer_input.toLocaleString()} / ${d.reviewer_output.toLocaleString()}` }),
        el("td", { text: money(d.reviewer_cost_usd) })));
      $("budget").replaceChildren(rows.length
        ? el("table", { class: "budget", "aria-labelledby": "budget-h" }, el("thead", {}, head), el("tbody", {}, ...rows))
        : el("p", { class: "muted", text: `No model use yet (memory budget: ${budget.toLocaleString()} tokens a day).` }));
    } catch (e) { say($("budget"), e); }
  }
  async function loadHealth() {
    try {
      const h = await get("/api/health");
      const lines = [
        h.service_pid ? `hook service running (pid ${h.service_pid})` : "hook service not running (it starts with the next hook)",
        h.latency.hooks ? `hook answers: p50 ${h.latency.p50_ms} ms · p95 ${h.latency.p95_ms} ms over the last ${h.latency.hooks} (${h.latency.failed} unanswered)` : "no hook answered yet",
        `${h.spooled.length} hook input(s) spooled, ${h.refused.length} refused`,
        `${h.run_errors} reviewer run(s) ended in an error`,
        ...h.latest_run_errors.map((e) => `${e.observer}: ${e.error}`),
        ...h.log_errors.map((line) => line),
      ];
      $("health").replaceChildren(...lines.map((text) => el("li", { text })));
    } catch (e) { say($("health"), e); }
  }
  async function loadMemories() {
    const newest = ask("memories");
    try {
      const data = await get("/api/memories", { q: $("m-query").value, project: state.project });
      if (!newest()) return;
      keepingFocus($("memories"), () => $("memories").replaceChildren(...data.memories.map(memoryNode)));
    } catch (e) { say($("memories"), e); }
  }
  function memoryNode(m) {
    const act = (path, body) => async () => {
      try { await post(`/api/memories/${m.id}/${path}`, body); await loadMemories(); } catch (e) { say($("memories"), e); }
    };
    return el("li", { "data-memory": String(m.id), "data-pinned": String(m.pinned) },
      el("b", { text: `${m.pinned ? "pinned · " : ""}#${m.id} ${m.title}` }), el("span", { class: "muted", text: ` · ${m.project_name}` }),
      el("div", { class: "memory-content", text: m.content }),
      readOnly ? null : el("span", { class: "actions" },
        el("button", { type: "button", "data-action": "edit", text: "Edit", "aria-label": `Edit memory ${m.id}`, onclick: (e) => editMemory(m, e.currentTarget) }),
        el("button", { type: "button", "data-action": "pin", text: m.pinned ? "Unpin" : "Pin", "aria-pressed": String(m.pinned),
          "aria-label": `${m.pinned ? "Unpin" : "Pin"} memory ${m.id}`, onclick: act("pin", { pinned: !m.pinned }) }),
        el("button", { type: "button", "data-action": "forget", text: "Forget", "aria-label": `Forget memory ${m.id}`, onclick: act("forget", {}) })));
  }
  // The edit dialog: a native modal <dialog> (focus kept inside, Escape closes it), focus given
  // back to the button that opened it.
  let editing = null;
  function editMemory(m, opener) {
    editing = { memory: m, opener };
    $("memory-dialog-id").textContent = `#${m.id}`;
    $("memory-title").value = m.title; $("memory-content").value = m.content;
    $("memory-error").textContent = "";
    $("memory-dialog").showModal();
    $("memory-title").focus();
  }
  async function saveMemory(e) {
    e.preventDefault();
    if (!editing) return;
    try {
      await post(`/api/memories/${editing.memory.id}/edit`, { title: $("memory-title").value, content: $("memory-content").value });
      await loadMemories();
      $("memory-dialog").close();
    } catch (error) { $("memory-error").textContent = String(error.message || error); }
  }
  function closedDialog() {
    if ($("memory-dialog").open) return; // a late close event of an earlier opening
    const opener = editing && editing.opener;
    const id = editing && editing.memory.id;
    editing = null;
    const again = id && document.querySelector(`#memories li[data-memory="${id}"] button[data-action=edit]`);
    (again || opener || $("memories")).focus();
  }

  async function loadImprovements(project) {
    if (!project) return;
    state.improvementsProject = project;
    $("improvements-project").textContent = `— ${project}`;
    try {
      const data = await get("/api/improvements", { project });
      const act = (action, body) => async () => {
        try { await post(`/api/improvements/${action}`, { project, ...body }); await loadImprovements(project); }
        catch (e) { say($("improvements"), e); }
      };
      const steer = el("input", { type: "text", "aria-label": "guidance for the judge", value: data.guidance || "" });
      const rows = data.improvements.map((i) => el("li", { "data-improvement": i.id },
        el("b", { text: i.number ? `${i.number}. ` : "" }), el("span", { text: `[${i.status}] ${i.text}` }),
        el("span", { class: "muted", text: ` ${i.reason}${i.delta === null ? "" : ` Δ ${(i.delta * 100).toFixed(1)}%`}` }),
        readOnly || !i.number ? null : el("span", { class: "actions" },
          el("button", { type: "button", onclick: act("accept", { number: i.number }), text: "Accept" }),
          el("button", { type: "button", onclick: act("reject", { which: String(i.number) }), text: "Reject" }))));
      $("improvements").replaceChildren(el("ul", { class: "plain" }, ...rows),
        readOnly ? el("p", { class: "muted", text: `Guidance: ${data.guidance || "(none)"}` }) : el("div", { class: "actions" },
          el("label", {}, "Steer ", steer), el("button", { type: "button", onclick: () => act("steer", { text: steer.value || "reset" })(), text: "Steer" }),
          el("button", { type: "button", onclick: act("rollback", {}), text: "Roll back AGENTS.md" })));
    } catch (e) { say($("improvements"), e); }
  }

  // -- the live feed ---------------------------------------------------------------------------
  const refreshFindings = later(loadFindings), refreshOverview = later(loadOverview, 1000), refreshMemories = later(loadMemories, 500), refreshHealth = later(loadHealth, 1000), redrawSessions = later(drawSessions, 250), refreshBudget = later(loadBudget, 1000);
  function onItem(item) {
    const key = sessionKey(item.project, item.session);
    let row = state.sessions.get(key);
    const host = item.kind === "session_started" ? item.host || "unknown" : "";
    if (!row && !item.session.startsWith("_") && (!state.host || host === state.host)) {
      row = { host, project: item.project, project_name: item.project.replace(/-[0-9a-f]{8}$/, ""), session: item.session,
        session_id: "", agent: "", tool_calls: 0, failed_calls: 0, warnings: 0, active: item.at };
      state.sessions.set(key, row);
    }
    if (row) {
      if (host && !row.host) row.host = host;
      if (item.kind === "tool_call") { row.tool_calls += 1; row.failed_calls += item.ok ? 0 : 1; }
      if (item.kind === "assessment" && ["medium", "high", "critical"].includes(item.severity)) row.warnings += 1;
      if (item.at > (row.active || "")) row.active = item.at;
      redrawSessions(); // at most a few times a second, however fast events come
    }
    addToTimeline(item);
    if (item.kind.startsWith("finding")) { refreshFindings(); refreshOverview(); }
    if (item.kind === "reviewer_run") { refreshOverview(); refreshHealth(); refreshBudget(); }
    if (item.kind.startsWith("memor")) { refreshMemories(); refreshBudget(); }
  }
  // One tab of this viewer holds the event stream and shares it with the others: a browser
  // opens at most 6 connections to one host, so a stream per tab would starve the 7th tab.
  // The tab holding the Web Lock streams; the others hear it on a BroadcastChannel, and the
  // next one takes over (from the last id it heard) when that tab closes.
  const feed = new EventTarget();
  window.onlookerFeed = feed;
  const channel = "BroadcastChannel" in window ? new BroadcastChannel("onlooker-feed") : null;
  let lastId = "", leading = false, liveNow = false;
  function status(on, text) { liveNow = on; $("live").textContent = text; $("live").classList.toggle("on", on); }
  function deliver(id, item) {
    lastId = id || lastId;
    onItem(item);
    feed.dispatchEvent(new MessageEvent("message", { data: JSON.stringify(item), lastEventId: id }));
  }
  function stream() {
    const source = new EventSource(`/events${lastId ? "?" + query({ last: lastId }) : ""}`);
    const tell = (message) => { if (channel) channel.postMessage(message); };
    source.onopen = () => { status(true, "live"); tell({ status: true }); };
    source.onerror = () => { status(false, "reconnecting…"); tell({ status: false }); };
    source.onmessage = (m) => { const item = JSON.parse(m.data); deliver(m.lastEventId, item); tell({ id: m.lastEventId, item }); };
    source.addEventListener("reset", (m) => { lastId = m.lastEventId || lastId; reloadAll(); tell({ reset: true, id: lastId }); });
  }
  function follow() {
    if (channel) {
      channel.onmessage = ({ data }) => {
        if (leading) { if (data.ask) channel.postMessage({ status: liveNow }); return; }
        if (data.item) deliver(data.id, data.item);
        else if (data.reset) { lastId = data.id || lastId; reloadAll(); }
        else if ("status" in data) status(data.status, data.status ? "live (shared)" : "reconnecting…");
      };
    }
    if (!channel || !navigator.locks) { leading = true; stream(); return; }
    status(false, "waiting for the stream…");
    channel.postMessage({ ask: true });
    navigator.locks.request(`onlooker-feed-${location.port}`, () => {
      leading = true;
      stream();
      return new Promise(() => {}); // held while this tab lives
    });
  }
  async function reloadAll() {
    await loadSessions();
    await Promise.all([loadFindings(), loadOverview(), loadMemories(), loadHealth()]);
    loadBudget(); // after the first paint
    if (state.session) {
      const row = state.sessions.get(state.session);
      if (row) await openSession(row);
    }
  }

  // -- wiring ----------------------------------------------------------------------------------
  function theme() {
    const chosen = $("f-theme").value;
    if (chosen) document.documentElement.dataset.theme = chosen; else delete document.documentElement.dataset.theme;
    try { localStorage.setItem("onlooker-theme", chosen); } catch (e) { void e; }
  }
  $("mode").textContent = readOnly ? "read-only" : "read-write";
  try { $("f-theme").value = localStorage.getItem("onlooker-theme") || ""; } catch (e) { void e; }
  theme();
  $("f-theme").addEventListener("change", theme);
  $("f-project").addEventListener("change", () => { state.project = $("f-project").value; reloadAll(); });
  $("f-host").addEventListener("change", () => { state.host = $("f-host").value; reloadAll(); });
  const refilter = later(() => { drawSessions(); drawTimeline(); loadFindings(); }, 200);
  for (const id of ["f-session", "f-observer", "f-severity"]) $(id).addEventListener("input", refilter);
  $("f-resolved").addEventListener("change", loadFindings);
  $("filters").addEventListener("submit", (e) => e.preventDefault());
  $("memory-search").addEventListener("submit", (e) => { e.preventDefault(); loadMemories(); });
  $("memory-form").addEventListener("submit", saveMemory);
  $("memory-cancel").addEventListener("click", () => $("memory-dialog").close());
  $("memory-dialog").addEventListener("close", closedDialog);
  $("more-sessions").addEventListener("click", () => loadSessions(true));
  const named = new URLSearchParams(location.hash.slice(1)).get("session");
  if (named) state.session = named; // the session a reload was showing
  window.onlookerReady = reloadAll().then(follow).then(() => true);
})();
