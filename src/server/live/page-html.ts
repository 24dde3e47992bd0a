/**
 * The live view page's HTML and headers, for `svc serve` and a CLI session's host: self-contained (inline script and
 * style by nonce), embeddable (`frame-ancestors *`), and no referrer, since its URL holds the token. The `#ask`
 * banner shows what a CLI agent asks the person watching.
 */
import { LIVE_SCRIPT } from "./page-script.js";

/** The page's response headers: its CSP allows only its own inline script and style, blob: frames and its own origin's socket. */
export function livePageHeaders(nonce: string): Record<string, string> {
  return {
    "content-security-policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors *`,
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  };
}

/** The page (its script and style inline under `nonce`). */
export function livePage(nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>live view</title>
<style nonce="${nonce}">
html,body{margin:0;height:100%;background:#1e1e1e;color:#ddd;font:13px system-ui,sans-serif;overflow:hidden}
body{display:flex;flex-direction:column}
#bar{display:flex;gap:4px;align-items:center;padding:4px;background:#2b2b2b}
#bar button{background:#3a3a3a;color:#ddd;border:0;border-radius:3px;padding:3px 8px;cursor:pointer}
#nav{flex:1;display:flex}#url{flex:1;background:#111;color:#eee;border:1px solid #444;border-radius:3px;padding:3px 6px}
#tabs{display:flex;gap:2px;padding:2px 4px;background:#252525;overflow-x:auto}
#tabs button{max-width:200px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;background:#333;color:#bbb;border:0;padding:3px 8px;border-radius:3px 3px 0 0}
#tabs button[aria-current]{background:#555;color:#fff}
#title{padding:0 6px;max-width:30%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
#box{flex:1;position:relative;outline:none;min-height:0}
#screen{position:absolute;inset:0;width:100%;height:100%;object-fit:contain;cursor:default;user-select:none}
#status{position:absolute;left:50%;top:12px;transform:translateX(-50%);background:#000c;padding:6px 12px;border-radius:4px}
#ask{display:flex;gap:8px;align-items:center;padding:6px 8px;background:#4a3b00;color:#fff}
#ask[hidden]{display:none}#ask-message{flex:1;white-space:pre-wrap}
#ask input{width:30%;background:#111;color:#eee;border:1px solid #777;border-radius:3px;padding:3px 6px}
#ask button{background:#f0c000;color:#000;border:0;border-radius:3px;padding:4px 12px;font-weight:600;cursor:pointer}
body[data-interactive=false] #bar button,body[data-interactive=false] #url{display:none}
</style></head>
<body>
<div id="bar"><button id="back" type="button" title="Back" data-input>&#8592;</button><button id="forward" type="button" title="Forward" data-input>&#8594;</button><button id="reload" type="button" title="Reload" data-input>&#8635;</button>
<form id="nav"><input id="url" type="text" spellcheck="false" autocomplete="off" aria-label="Address" data-input></form><span id="title"></span></div>
<div id="tabs" role="tablist"></div>
<form id="ask" role="alert" hidden><span id="ask-message"></span><input id="ask-reply" type="text" maxlength="1000" autocomplete="off" placeholder="reply (optional)" aria-label="Reply" data-input><button id="ask-continue" type="submit" data-svc-continue data-input>Continue</button></form>
<div id="box" tabindex="0"><img id="screen" data-svc-live alt="the session's screen"><div id="status">Connecting…</div></div>
<script nonce="${nonce}">${LIVE_SCRIPT}</script>
</body></html>`;
}
