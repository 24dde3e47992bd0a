/**
 * The live view page's script (browser JavaScript, inline under the CSP nonce): opens the page's socket, paints each
 * frame and acknowledges it once painted, and forwards the person's mouse (moves throttled), wheel, keys and
 * navigation in the page's CSS pixels. A view-only page sends only acks and its size (the server ignores input there
 * anyway). Continue answers a question.
 */
export const LIVE_SCRIPT = String.raw`(() => {
  "use strict";
  const q = new URLSearchParams(location.search);
  const interactive = q.get("interactive") !== "false";
  const $ = (id) => document.getElementById(id);
  const screen = $("screen"), box = $("box"), status = $("status"), urlBox = $("url"), tabsEl = $("tabs"), titleEl = $("title");
  document.body.dataset.interactive = String(interactive);
  if (!interactive) for (const el of document.querySelectorAll("[data-input]")) el.disabled = true;
  const wsUrl = location.origin.replace(/^http/, "ws") + location.pathname.replace(/\/+$/, "") + "/socket" + location.search;
  const ws = new WebSocket(wsUrl);
  ws.binaryType = "blob";
  // meta: the painted frame's page size; shown: its image's pixel size. Both are kept from its load: while the
  // next frame loads, the image's natural size reads 0, and a press or release then would be lost.
  let meta = null, nextMeta = null, frames = 0, objectUrl = null, selected = null, shown = null;
  const send = (m) => { if (ws.readyState === 1) ws.send(JSON.stringify(m)); };
  const input = (m) => { if (interactive) send(m); };
  const show = (text) => { status.textContent = text; status.hidden = !text; };

  const sendSize = () => {
    const r = box.getBoundingClientRect(), dpr = Math.min(window.devicePixelRatio || 1, 2);
    send({ type: "size", width: Math.max(1, Math.round(r.width * dpr)), height: Math.max(1, Math.round(r.height * dpr)) });
  };
  let resizeTimer = 0;
  window.addEventListener("resize", () => { clearTimeout(resizeTimer); resizeTimer = setTimeout(sendSize, 200); });

  ws.addEventListener("open", () => { show("Waiting for the first frame…"); sendSize(); });
  ws.addEventListener("close", (e) => { if (!document.body.dataset.ended) show("Disconnected" + (e.reason ? ": " + e.reason : "")); });
  ws.addEventListener("message", (e) => {
    if (typeof e.data !== "string") return paint(e.data);
    let m;
    try { m = JSON.parse(e.data); } catch { return; }
    if (m.type === "frame") nextMeta = m;
    else if (m.type === "tabs") renderTabs(m.tabs, m.selected);
    else if (m.type === "error") show(m.message);
    else if (m.type === "ask") { asks.set(m.id, m.message); renderAsk(); }
    else if (m.type === "asked") { asks.delete(m.id); renderAsk(); }
    else if (m.type === "ended") {
      document.body.dataset.ended = m.status;
      show("The session ended (" + m.status + "). ");
      const a = document.createElement("a");
      a.href = location.pathname.replace(/\/+$/, "") + "/replay";
      a.target = "_top";
      a.id = "replay";
      a.textContent = "Watch its replay";
      status.append(a);
    }
  });

  function paint(blob) {
    const m = nextMeta;
    nextMeta = null;
    const previous = objectUrl;
    objectUrl = URL.createObjectURL(blob);
    screen.onload = () => {
      if (previous) URL.revokeObjectURL(previous);
      meta = m;
      shown = { w: screen.naturalWidth, h: screen.naturalHeight };
      screen.dataset.frameWidth = String(shown.w);
      screen.dataset.frameHeight = String(shown.h);
      if (m) { screen.dataset.pageWidth = String(m.width); screen.dataset.pageHeight = String(m.height); }
      screen.dataset.frames = String(++frames);
      if (frames === 1) show("");
      send({ type: "ack" });
    };
    screen.onerror = () => send({ type: "ack" });
    screen.src = objectUrl;
  }

  /** The oldest open question, in the banner; Continue answers it (the reply field is optional). */
  const asks = new Map(), askEl = $("ask"), askReply = $("ask-reply");
  function renderAsk() {
    const first = asks.entries().next().value;
    askEl.hidden = !first;
    askEl.dataset.ask = first ? first[0] : "";
    $("ask-message").textContent = first ? "The agent asks you: " + first[1] : "";
    document.body.dataset.asking = first ? "true" : "";
  }
  askEl.addEventListener("submit", (e) => {
    e.preventDefault();
    const id = askEl.dataset.ask;
    if (!id) return;
    const reply = askReply.value.trim();
    input({ type: "answer", id, ...(reply ? { reply: reply.slice(0, 1000) } : {}) });
    askReply.value = "";
    box.focus();
  });

  function renderTabs(tabs, sel) {
    selected = sel;
    tabsEl.replaceChildren(...tabs.map((t) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = t.title || t.url || "(untitled)";
      b.title = t.url;
      b.dataset.tab = t.id;
      if (t.id === sel) b.setAttribute("aria-current", "page");
      b.disabled = !interactive;
      b.addEventListener("click", () => input({ type: "tab", id: t.id }));
      return b;
    }));
    const current = tabs.find((t) => t.id === sel);
    titleEl.textContent = current ? current.title : "";
    document.title = (current && current.title ? current.title + " – " : "") + "live view";
    if (current && document.activeElement !== urlBox) urlBox.value = current.url;
  }

  /**
   * The page's CSS pixel under a client point: the image is shown scaled to fit (object-fit: contain). Outside
   * the picture: null, or with edge set, the nearest point on its edge (a release must reach the page).
   */
  function pagePoint(e, edge) {
    if (!meta || !shown || !shown.w || !shown.h) return null;
    const r = screen.getBoundingClientRect();
    const scale = Math.min(r.width / shown.w, r.height / shown.h);
    const w = shown.w * scale, h = shown.h * scale;
    let x = (e.clientX - r.left - (r.width - w) / 2) / w, y = (e.clientY - r.top - (r.height - h) / 2) / h;
    if (x < 0 || y < 0 || x > 1 || y > 1) {
      if (!edge) return null;
      x = Math.min(1, Math.max(0, x));
      y = Math.min(1, Math.max(0, y));
    }
    return { x: Math.round(x * meta.width * 100) / 100, y: Math.round(y * meta.height * 100) / 100 };
  }
  const mods = (e) => (e.altKey ? 1 : 0) | (e.ctrlKey ? 2 : 0) | (e.metaKey ? 4 : 0) | (e.shiftKey ? 8 : 0);
  const BUTTONS = ["left", "middle", "right"];
  let lastMove = 0;
  screen.addEventListener("mousemove", (e) => {
    const now = performance.now();
    if (now - lastMove < 40) return;
    lastMove = now;
    const p = pagePoint(e);
    if (p) input({ type: "mouse", action: "move", x: p.x, y: p.y, button: e.buttons & 1 ? "left" : "none", modifiers: mods(e) });
  });
  // Buttons pressed on the picture: each one's release is sent wherever it happens (on the edge when off it).
  const pressed = new Set();
  const button = (e, action, p) => input({ type: "mouse", action, x: p.x, y: p.y, button: BUTTONS[e.button] || "left", clickCount: Math.min(3, Math.max(1, e.detail || 1)), modifiers: mods(e) });
  screen.addEventListener("mousedown", (e) => {
    e.preventDefault();
    box.focus();
    const p = pagePoint(e, false);
    if (!p) return;
    pressed.add(e.button);
    button(e, "down", p);
  });
  window.addEventListener("mouseup", (e) => {
    if (!pressed.delete(e.button)) return;
    const p = pagePoint(e, true);
    if (p) button(e, "up", p);
  });
  screen.addEventListener("wheel", (e) => {
    e.preventDefault();
    const p = pagePoint(e);
    if (p) input({ type: "mouse", action: "wheel", x: p.x, y: p.y, deltaX: e.deltaX, deltaY: e.deltaY, modifiers: mods(e) });
  }, { passive: false });
  screen.addEventListener("contextmenu", (e) => e.preventDefault());
  screen.addEventListener("dragstart", (e) => e.preventDefault());

  for (const [ev, action] of [["keydown", "down"], ["keyup", "up"]]) {
    box.addEventListener(ev, (e) => {
      if (!interactive || e.key.length > 32) return;
      e.preventDefault();
      const printable = e.key.length === 1 && !e.ctrlKey && !e.metaKey;
      const text = action === "down" ? (printable ? e.key : e.key === "Enter" ? "\r" : undefined) : undefined;
      input({ type: "key", action, key: e.key, code: e.code.slice(0, 32), keyCode: e.keyCode & 255, modifiers: mods(e), ...(text ? { text } : {}) });
    });
  }

  $("nav").addEventListener("submit", (e) => {
    e.preventDefault();
    if (urlBox.value.trim()) input({ type: "navigate", url: urlBox.value.trim() });
    box.focus();
  });
  for (const action of ["back", "forward", "reload"]) $(action).addEventListener("click", () => input({ type: "history", action }));
})();`;
