/// The page's script: keeps the state the stream describes (devices with track tails,
/// regions with per-device state, recent events, motion, service health), draws it in
/// Web Mercator so optional tiles line up, and records what it shows in `data-*`
/// attributes so tools (and tests) can read the page without looking at pixels.
enum MapPageScript {
    static let text = #"""
"use strict";
(function () {
  const TILE = 256;
  const MAX_LAT = 85.05112878;
  const TRACK_LENGTH = 120;
  const EVENT_LIST_LENGTH = 200;
  const SVG = "http://www.w3.org/2000/svg";
  const TIERS = {
    high: "high accuracy ≤ 10 m",
    medium: "medium accuracy ≤ 50 m",
    low: "low accuracy ≤ 100 m",
    insufficient: "insufficient accuracy > 100 m",
  };

  const state = {
    config: { clientAccuracy: "full" },
    devices: new Map(),
    regions: new Map(),
    events: [],
    health: new Map(),
    view: { lat: 0, lon: 0, zoom: 2 },
    mode: "fit",
    selected: null,
    messages: 0,
  };

  const $ = (id) => document.getElementById(id);
  const map = $("map");

  // MARK: projection (Web Mercator, as slippy-map tiles use)

  function project(lat, lon, zoom) {
    const scale = TILE * Math.pow(2, zoom);
    const s = Math.sin(Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI / 180);
    return { x: (lon + 180) / 360 * scale, y: (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * scale };
  }

  function unproject(x, y, zoom) {
    const scale = TILE * Math.pow(2, zoom);
    const n = Math.PI - 2 * Math.PI * y / scale;
    return { lat: 180 / Math.PI * Math.atan(Math.sinh(n)), lon: x / scale * 360 - 180 };
  }

  function metersPerPixel(lat, zoom) {
    return 156543.03392 * Math.cos(lat * Math.PI / 180) / Math.pow(2, zoom);
  }

  function size() {
    const box = map.getBoundingClientRect();
    return { width: box.width || 800, height: box.height || 600 };
  }

  function toScreen(lat, lon) {
    const { width, height } = size();
    const c = project(state.view.lat, state.view.lon, state.view.zoom);
    const p = project(lat, lon, state.view.zoom);
    return { x: p.x - c.x + width / 2, y: p.y - c.y + height / 2 };
  }

  // MARK: state from the stream

  function tierOf(body) {
    if (body.tier && TIERS[body.tier]) return body.tier;
    const h = body.hacc;
    return h <= 10 ? "high" : h <= 50 ? "medium" : h <= 100 ? "low" : "insufficient";
  }

  function device(name) {
    let d = state.devices.get(name);
    if (!d) {
      d = { name, track: [], updates: 0, activity: null, confidence: null };
      state.devices.set(name, d);
    }
    return d;
  }

  function onLocation(m) {
    const d = device(m.device);
    Object.assign(d, { lat: m.lat, lon: m.lon, hacc: m.hacc, source: m.source, mode: m.mode || null, t: m.t, tier: tierOf(m) });
    d.degraded = ["dr", "cache"].includes(m.mode) || ["dr", "cache"].includes(m.source);
    d.track.push([m.lat, m.lon, m.t]);
    if (d.track.length > TRACK_LENGTH) d.track.shift();
    d.updates += 1;
    if (state.selected === null) state.selected = m.device;
  }

  // A late fix is history: it joins the track at its time; the marker stays on the newest fix.
  function onLate(m) {
    const d = device(m.device);
    let at = d.track.length;
    while (at > 0 && d.track[at - 1][2] > m.t) at -= 1;
    if (at === 0 && d.track.length >= TRACK_LENGTH) return;
    d.track.splice(at, 0, [m.lat, m.lon, m.t]);
    if (d.track.length > TRACK_LENGTH) d.track.shift();
    if (d.lat === undefined) Object.assign(d, { lat: m.lat, lon: m.lon, hacc: m.hacc, source: m.source, t: m.t, tier: tierOf(m) });
  }

  function onMotion(m) {
    const d = device(m.device);
    d.activity = m.activity;
    d.confidence = m.confidence;
  }

  function onHealth(m) {
    state.health.set(m.service, { state: m.state, t: m.t, src: m.src, sender: m.sender });
  }

  function regionKey(owner, id) { return owner + "\u0000" + id; }

  function addRegion(owner, region, effectiveRadius) {
    const key = regionKey(owner, region.id);
    const old = state.regions.get(key);
    state.regions.set(key, { owner, id: region.id, shape: region.shape, effectiveRadius, states: old ? old.states : new Map() });
  }

  function onRegion(m) {
    if (m.type === "region.added") {
      addRegion(m.owner, m.region, m.effectiveRadius);
    } else if (m.type === "region.removed") {
      state.regions.delete(regionKey(m.owner, m.regionId));
    } else if (m.type === "region.list") {
      const keep = new Set(m.regions.map((r) => regionKey(m.owner, r.id)));
      for (const [key, r] of state.regions) if (r.owner === m.owner && !keep.has(key)) state.regions.delete(key);
      for (const r of m.regions) addRegion(m.owner, r);
    }
  }

  function onRegionEvent(m) {
    const region = state.regions.get(regionKey(m.owner, m.regionId));
    if (region) region.states.set(m.device, m.state);
    if (m.event === "state") return;
    const where = m.location || null;
    state.events.unshift({ owner: m.owner, regionId: m.regionId, device: m.device, event: m.event, state: m.state,
      cause: m.cause, t: m.crossingTime || m.t, lat: where ? where.lat : null, lon: where ? where.lon : null,
      approximate: !!m.approximate });
    if (state.events.length > EVENT_LIST_LENGTH) state.events.pop();
  }

  // MARK: view modes

  function setMode(mode) {
    state.mode = mode;
    document.body.dataset.mode = mode;
    $("fit").classList.toggle("active", mode === "fit");
    $("follow").classList.toggle("active", mode === "follow");
    schedule();
  }

  function regionBounds(r, extend) {
    const shape = r.shape;
    if (shape.type === "Circle") {
      const radius = r.effectiveRadius || shape.radius;
      const dLat = radius / 111320;
      const dLon = radius / (111320 * Math.max(0.01, Math.cos(shape.center[1] * Math.PI / 180)));
      extend(shape.center[1] - dLat, shape.center[0] - dLon);
      extend(shape.center[1] + dLat, shape.center[0] + dLon);
    } else if (shape.type === "LineString") {
      for (const p of shape.coordinates) extend(p[1], p[0]);
    } else {
      for (const polygon of shape.type === "Polygon" ? [shape.coordinates] : shape.coordinates) {
        for (const p of polygon[0] || []) extend(p[1], p[0]);
      }
    }
  }

  function fitAll() {
    let south = Infinity, north = -Infinity, west = Infinity, east = -Infinity;
    const extend = (lat, lon) => {
      south = Math.min(south, lat); north = Math.max(north, lat);
      west = Math.min(west, lon); east = Math.max(east, lon);
    };
    for (const d of state.devices.values()) {
      if (d.lat === undefined) continue;
      const dLat = d.hacc / 111320;
      extend(d.lat - dLat, d.lon); extend(d.lat + dLat, d.lon);
      for (const [lat, lon] of d.track) extend(lat, lon);
    }
    for (const r of state.regions.values()) regionBounds(r, extend);
    for (const e of state.events) if (e.lat !== null) extend(e.lat, e.lon);
    if (!isFinite(south)) return;
    const { width, height } = size();
    const a = project(north, west, 0), b = project(south, east, 0);
    const spanX = Math.max(b.x - a.x, 1e-9), spanY = Math.max(b.y - a.y, 1e-9);
    const zoom = Math.floor(Math.log2(Math.min((width - 60) / spanX, (height - 60) / spanY)));
    state.view.zoom = Math.max(1, Math.min(19, zoom));
    const centre = unproject((a.x + b.x) / 2, (a.y + b.y) / 2, 0);
    state.view.lat = centre.lat;
    state.view.lon = centre.lon;
  }

  function follow() {
    const d = state.devices.get(state.selected);
    if (!d || d.lat === undefined) return;
    if (state.view.zoom < 14) state.view.zoom = 17;
    state.view.lat = d.lat;
    state.view.lon = d.lon;
  }

  // MARK: drawing

  function el(name, attributes, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attributes)) node.setAttribute(k, String(v));
    if (parent) parent.appendChild(node);
    return node;
  }

  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  function drawTiles() {
    const group = $("tiles");
    clear(group);
    const template = state.config.tileURLTemplate;
    if (!template) return;
    const z = Math.max(0, Math.min(19, Math.round(state.view.zoom)));
    const { width, height } = size();
    const c = project(state.view.lat, state.view.lon, z);
    const left = c.x - width / 2, top = c.y - height / 2;
    const count = Math.pow(2, z);
    for (let ty = Math.floor(top / TILE); ty <= Math.floor((top + height) / TILE); ty++) {
      if (ty < 0 || ty >= count) continue;
      for (let tx = Math.floor(left / TILE); tx <= Math.floor((left + width) / TILE); tx++) {
        const wrapped = ((tx % count) + count) % count;
        const href = template.replace("{z}", z).replace("{x}", wrapped).replace("{y}", ty);
        el("image", { href, x: tx * TILE - left, y: ty * TILE - top, width: TILE, height: TILE }, group);
      }
    }
  }

  function niceStep(degreesPerPixel) {
    const target = degreesPerPixel * 110;
    const steps = [0.00001, 0.00002, 0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05,
      0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 45];
    return steps.find((s) => s >= target) || 90;
  }

  function drawGrid() {
    const group = $("grid");
    clear(group);
    const { width, height } = size();
    const c = project(state.view.lat, state.view.lon, state.view.zoom);
    const nw = unproject(c.x - width / 2, c.y - height / 2, state.view.zoom);
    const se = unproject(c.x + width / 2, c.y + height / 2, state.view.zoom);
    const step = niceStep((se.lon - nw.lon) / width);
    const digits = Math.max(0, Math.ceil(-Math.log10(step)));
    for (let lon = Math.ceil(nw.lon / step) * step; lon <= se.lon; lon += step) {
      const x = toScreen(state.view.lat, lon).x;
      el("line", { class: "grid-line", x1: x, y1: 0, x2: x, y2: height }, group);
      el("text", { class: "grid-label", x: x + 3, y: height - 4 }, group).textContent = lon.toFixed(digits) + "°";
    }
    for (let lat = Math.ceil(se.lat / step) * step; lat <= nw.lat; lat += step) {
      const y = toScreen(lat, state.view.lon).y;
      el("line", { class: "grid-line", x1: 0, y1: y, x2: width, y2: y }, group);
      el("text", { class: "grid-label", x: 3, y: y - 3 }, group).textContent = lat.toFixed(digits) + "°";
    }
    const mpp = metersPerPixel(state.view.lat, state.view.zoom);
    const stepMeters = step * 111320 * Math.cos(state.view.lat * Math.PI / 180);
    $("scale").textContent = "grid " + step + "° ≈ " + (stepMeters >= 1000 ? (stepMeters / 1000).toFixed(1) + " km" : Math.round(stepMeters) + " m") +
      " · " + mpp.toFixed(2) + " m/px · zoom " + state.view.zoom;
  }

  function regionState(r) {
    const states = [...r.states.values()];
    if (states.includes("inside")) return "inside";
    if (states.includes("outside")) return "outside";
    return "unknown";
  }

  function ringPath(ring) {
    return ring.map((p, i) => {
      const s = toScreen(p[1], p[0]);
      return (i === 0 ? "M" : "L") + s.x.toFixed(1) + " " + s.y.toFixed(1);
    }).join(" ") + " Z";
  }

  function drawRegions() {
    const group = $("regions");
    clear(group);
    for (const r of state.regions.values()) {
      const st = regionState(r);
      const attributes = { class: "region state-" + st, "data-region": r.id, "data-owner": r.owner, "data-state": st };
      let labelAt;
      if (r.shape.type === "Circle") {
        const [lon, lat] = r.shape.center;
        const s = toScreen(lat, lon);
        const radius = (r.effectiveRadius || r.shape.radius) / metersPerPixel(lat, state.view.zoom);
        el("circle", Object.assign(attributes, { cx: s.x, cy: s.y, r: Math.max(radius, 1) }), group);
        labelAt = s;
      } else if (r.shape.type === "LineString") {
        // A corridor: its route, drawn as wide as the corridor (both sides).
        const [lon, lat] = r.shape.coordinates[0];
        const d = ringPath(r.shape.coordinates).replace(/ Z$/, "");
        const width = Math.max(2 * r.shape.width / metersPerPixel(lat, state.view.zoom), 1);
        el("path", Object.assign(attributes, { d: d, fill: "none", "stroke-width": width.toFixed(1), "stroke-linejoin": "round" }), group);
        labelAt = toScreen(lat, lon);
      } else {
        const polygons = r.shape.type === "Polygon" ? [r.shape.coordinates] : r.shape.coordinates;
        el("path", Object.assign(attributes, { d: polygons.map((rings) => rings.map(ringPath).join(" ")).join(" ") }), group);
        const first = polygons[0] && polygons[0][0] && polygons[0][0][0];
        labelAt = first ? toScreen(first[1], first[0]) : null;
      }
      if (labelAt) el("text", { class: "region-label", x: labelAt.x + 4, y: labelAt.y - 4 }, group).textContent = r.id;
    }
  }

  function drawDevices() {
    const tracks = $("tracks"), markers = $("devices");
    clear(tracks);
    clear(markers);
    for (const d of state.devices.values()) {
      if (d.lat === undefined) continue;
      const points = d.track.map(([lat, lon]) => { const s = toScreen(lat, lon); return s.x.toFixed(1) + "," + s.y.toFixed(1); });
      el("polyline", { class: "track", id: "track-" + d.name, points: points.join(" "), "data-points": d.track.length }, tracks);
      const s = toScreen(d.lat, d.lon);
      const g = el("g", {
        class: "device" + (d.degraded ? " degraded" : ""), id: "device-" + d.name, "data-device": d.name,
        "data-lat": d.lat.toFixed(7), "data-lon": d.lon.toFixed(7), "data-hacc": d.hacc, "data-x": s.x.toFixed(1),
        "data-y": s.y.toFixed(1), "data-tier": d.tier, "data-source": d.source, "data-mode": d.mode || "",
        "data-activity": d.activity || "", "data-updates": d.updates, transform: "translate(" + s.x.toFixed(1) + " " + s.y.toFixed(1) + ")",
      }, markers);
      el("circle", { class: "accuracy", r: Math.max(d.hacc / metersPerPixel(d.lat, state.view.zoom), 2) }, g);
      el("circle", { class: "dot", r: 6 }, g);
      el("text", { class: "device-label", x: 9, y: -8 }, g).textContent = d.name + (d.activity ? " · " + d.activity : "");
      g.addEventListener("click", () => { state.selected = d.name; setMode("follow"); });
    }
  }

  function drawEventMarkers() {
    const group = $("event-markers");
    clear(group);
    for (const e of state.events.slice(0, 50)) {
      if (e.lat === null) continue;
      const s = toScreen(e.lat, e.lon);
      el("circle", { class: "event-marker event-" + e.event, cx: s.x, cy: s.y, r: 5, "data-event": e.event, "data-region": e.regionId }, group);
    }
  }

  function cell(row, text) {
    const td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
  }

  function time(t) {
    return t ? new Date(t * 1000).toLocaleTimeString([], { hour12: false }) : "";
  }

  function drawPanel() {
    const body = $("device-table").tBodies[0];
    clear(body);
    for (const d of state.devices.values()) {
      const row = document.createElement("tr");
      row.dataset.device = d.name;
      if (d.name === state.selected) row.classList.add("selected");
      if (d.degraded) row.classList.add("degraded");
      cell(row, d.name);
      cell(row, d.hacc === undefined ? "" : TIERS[d.tier] + " (" + Math.round(d.hacc) + " m)");
      cell(row, d.source === undefined ? "" : d.source + (d.mode ? " / " + d.mode : ""));
      cell(row, d.activity ? d.activity + (d.confidence ? " (" + d.confidence + ")" : "") : "");
      cell(row, time(d.t));
      row.addEventListener("click", () => { state.selected = d.name; setMode("follow"); });
      body.appendChild(row);
    }
    const list = $("event-list");
    clear(list);
    for (const e of state.events) {
      const li = document.createElement("li");
      li.className = "event event-" + e.event;
      Object.assign(li.dataset, { event: e.event, region: e.regionId, device: e.device, owner: e.owner, cause: e.cause || "" });
      const kind = document.createElement("span");
      kind.className = "kind";
      kind.textContent = e.event;
      li.appendChild(kind);
      li.appendChild(document.createTextNode(" " + e.regionId + " · " + e.device + " · " + time(e.t) + (e.approximate ? " · approximate" : "")));
      if (e.lat !== null) li.addEventListener("click", () => { state.view.lat = e.lat; state.view.lon = e.lon; setMode("free"); });
      list.appendChild(li);
    }
    const health = $("health-list");
    clear(health);
    for (const [service, h] of [...state.health.entries()].sort()) {
      const li = document.createElement("li");
      li.className = "health-" + h.state;
      li.dataset.service = service;
      li.dataset.state = h.state;
      if (h.sender) li.dataset.sender = h.sender;
      li.textContent = service + ": " + h.state + (h.sender ? " (from " + h.sender + ")" : "");
      health.appendChild(li);
    }
    const degraded = [...state.devices.values()].filter((d) => d.degraded);
    const banner = $("banner");
    banner.hidden = degraded.length === 0;
    banner.textContent = degraded.map((d) => d.name + ": " +
      (d.mode === "cache" || d.source === "cache" ? "showing a cached location" : "dead reckoning, no fresh fix")).join(" · ");
    banner.dataset.devices = degraded.map((d) => d.name).join(",");
  }

  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    setTimeout(render, 30);
  }

  function render() {
    pending = false;
    if (state.mode === "fit") fitAll();
    else if (state.mode === "follow") follow();
    drawTiles();
    drawGrid();
    drawRegions();
    drawDevices();
    drawEventMarkers();
    drawPanel();
    document.body.dataset.messages = state.messages;
    document.body.dataset.zoom = state.view.zoom;
  }

  // MARK: input

  function zoomBy(delta) {
    state.view.zoom = Math.max(1, Math.min(19, state.view.zoom + delta));
    if (state.mode === "fit") setMode("free"); else schedule();
  }

  let drag = null;
  map.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY }; map.setPointerCapture(e.pointerId); });
  map.addEventListener("pointermove", (e) => {
    if (!drag) return;
    const c = project(state.view.lat, state.view.lon, state.view.zoom);
    const moved = unproject(c.x - (e.clientX - drag.x), c.y - (e.clientY - drag.y), state.view.zoom);
    drag = { x: e.clientX, y: e.clientY };
    state.view.lat = moved.lat;
    state.view.lon = moved.lon;
    if (state.mode !== "free") setMode("free"); else schedule();
  });
  map.addEventListener("pointerup", () => { drag = null; });
  map.addEventListener("wheel", (e) => { e.preventDefault(); zoomBy(e.deltaY < 0 ? 1 : -1); }, { passive: false });
  $("fit").addEventListener("click", () => setMode("fit"));
  $("follow").addEventListener("click", () => setMode("follow"));
  $("zoom-in").addEventListener("click", () => zoomBy(1));
  $("zoom-out").addEventListener("click", () => zoomBy(-1));
  window.addEventListener("resize", schedule);

  // MARK: stream

  function connect() {
    const source = new EventSource("/events");
    const handlers = { location: onLocation, late: onLate, motion: onMotion, health: onHealth, region: onRegion, regionEvent: onRegionEvent };
    for (const [kind, handler] of Object.entries(handlers)) {
      source.addEventListener(kind, (e) => {
        let body;
        try { body = JSON.parse(e.data); } catch (_) { return; }
        state.messages += 1;
        handler(body);
        schedule();
      });
    }
    source.addEventListener("open", () => {
      // The server replays its picture on every (re)connection: start from it, not on top of it.
      state.devices.clear(); state.regions.clear(); state.events = []; state.health.clear();
      document.body.dataset.connected = "true";
      $("connection").textContent = "live";
      $("connection").className = "badge online";
      schedule();
    });
    source.addEventListener("error", () => {
      document.body.dataset.connected = "false";
      $("connection").textContent = "reconnecting…";
      $("connection").className = "badge offline";
    });
  }

  fetch("/config.json").then((r) => r.json()).catch(() => ({})).then((config) => {
    Object.assign(state.config, config);
    document.body.dataset.accuracy = state.config.clientAccuracy;
    $("accuracy-badge").textContent = state.config.clientAccuracy === "reduced" ? "approximate locations" : "full accuracy";
    setMode("fit");
    connect();
  });
})();

"""#
}
