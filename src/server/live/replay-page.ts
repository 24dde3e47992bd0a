/**
 * The replay page's HTML and script: rrweb's own Replayer (its UMD bundle served beside the page) plays the
 * session's recording in `[data-svc-replay]`, and the session's log is listed beside it on the same clock
 * (navigations, console, exceptions, failed requests, downloads); a log line's button seeks the player to it.
 * The recording and log come from `<page URL>/data`.
 */
export function replayPage(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><title>replay</title>
<link rel="stylesheet" href="replay/rrweb.css">
<style nonce="${nonce}">
html,body{margin:0;height:100%;background:#1e1e1e;color:#ddd;font:13px system-ui,sans-serif}
body{display:flex}#main{flex:1;display:flex;flex-direction:column;min-width:0}
#bar{display:flex;gap:6px;align-items:center;padding:4px;background:#2b2b2b}
#bar button{background:#3a3a3a;color:#ddd;border:0;border-radius:3px;padding:3px 8px}
#time{flex:1}#stage{flex:1;overflow:auto;position:relative;background:#111}
#log{width:34%;max-width:460px;overflow:auto;border-left:1px solid #333;margin:0;padding:0;list-style:none}
#log li{padding:3px 6px;border-bottom:1px solid #2a2a2a;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#log li button{background:none;border:0;color:#8ab4f8;cursor:pointer;font:inherit;padding:0 6px 0 0}
#log li[data-kind=error]{color:#f28b82}#log li[data-kind=console]{color:#ccc}
#status{padding:8px}#stage iframe{background:#fff}
</style></head>
<body><div id="main"><div id="bar"><button id="play" type="button">Play</button><button id="pause" type="button">Pause</button><span id="time"></span></div>
<div id="stage" data-svc-replay></div><div id="status">Loading the recording…</div></div>
<ol id="log" aria-label="Session log"></ol>
<script src="replay/rrweb.js" nonce="${nonce}"></script>
<script nonce="${nonce}">${REPLAY_SCRIPT}</script>
</body></html>`;
}

const REPLAY_SCRIPT = String.raw`(async () => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const status = $("status");
  let data;
  try {
    const res = await fetch(location.pathname.replace(/\/+$/, "") + "/data", { cache: "no-store" });
    data = await res.json();
    if (!res.ok) throw new Error(data.error || data.message || ("HTTP " + res.status));
  } catch (e) {
    status.textContent = "Could not load the recording: " + e.message;
    return;
  }
  const events = data.events.map((e) => ({ type: e.type, data: e.data, timestamp: e.timestamp }));
  if (events.length < 2) { status.textContent = "This session has no recording to replay."; document.body.dataset.empty = "true"; }
  const start = events.length ? events[0].timestamp : 0;
  let replayer = null;
  if (events.length >= 2) {
    replayer = new rrweb.Replayer(events, { root: $("stage"), mouseTail: false, UNSAFE_replayCanvas: false, showWarning: false });
    replayer.pause(0);
    status.textContent = "";
    document.body.dataset.ready = "true";
    const total = events[events.length - 1].timestamp - start;
    const tick = () => { $("time").textContent = (replayer.getCurrentTime() / 1000).toFixed(1) + " s / " + (total / 1000).toFixed(1) + " s"; };
    setInterval(tick, 250);
    tick();
    $("play").addEventListener("click", () => replayer.play(replayer.getCurrentTime()));
    $("pause").addEventListener("click", () => replayer.pause());
  }
  const describe = (l) => {
    const p = (l.request && l.request.params) || {};
    const m = l.method;
    if (m === "Page.frameNavigated") return ["navigation", "navigated to " + ((p.frame && p.frame.url) || "")];
    if (m === "Runtime.consoleAPICalled") return ["console", "console." + p.type + ": " + (p.args || []).map((a) => a.value !== undefined ? String(a.value) : (a.description || a.type)).join(" ")];
    if (m === "Runtime.exceptionThrown") return ["error", "exception: " + ((p.exceptionDetails && (p.exceptionDetails.exception && p.exceptionDetails.exception.description || p.exceptionDetails.text)) || "")];
    if (m === "Network.loadingFailed") return ["error", "request failed: " + (p.errorText || "") + " " + (p.url || "")];
    if (m.startsWith("Browser.download") || m.startsWith("Page.download")) return ["download", m.split(".")[1] + " " + (p.suggestedFilename || p.url || p.state || "")];
    return ["other", m + " " + (p.url || (p.response && p.response.url) || "")];
  };
  const items = (data.logs || []).slice().sort((a, b) => (a.timestamp || 0) - (b.timestamp || 0)).map((l) => {
    const [kind, text] = describe(l);
    const li = document.createElement("li");
    li.dataset.kind = kind;
    const at = (l.timestamp || start) - start;
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = (Math.max(0, at) / 1000).toFixed(1) + " s";
    b.addEventListener("click", () => { if (replayer) replayer.pause(Math.max(0, at)); });
    li.append(b, document.createTextNode(text.slice(0, 500)));
    li.title = text.slice(0, 2000);
    return li;
  });
  $("log").replaceChildren(...items);
})();`;
