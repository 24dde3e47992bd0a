/**
 * `svc agent --record DIR`: a PNG after every step (taken in `onStepEnd`, which the run awaits, so it is the page as
 * that step left it) and `report.html`, self-contained with no script and nothing fetched. Built from the RunEvent
 * stream, already masked by the library, so no secret reaches its text; the screenshots show what the page showed,
 * and the report says so. Atomic writes, HTML-escaped text.
 */
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import type { AgentAction, AgentResultData, RunEvent } from "../../src/index.js";
import { ServiceInvalidArgumentError } from "../../src/base.js";
import { errorMessage } from "../../src/base.js";
import { writeOutputFile } from "../core/output-file.js";

export interface RecordedStep {
  step: number;
  tool: string;
  args: unknown;
  reasoning: string;
  cached: boolean;
  ok?: boolean;
  summary?: string;
  timeMs?: number;
  url?: string;
  screenshot?: { file: string; base64: string };
  screenshotError?: string;
}

export interface Recorder {
  readonly dir: string;
  onEvent(event: RunEvent): void;
  /** The agent's onStepEnd: takes the step's screenshot; the run waits for it before the next step. */
  stepEnd(step: { step: number }): Promise<void>;
  /** Waits for pending screenshots and writes report.html; returns its path. */
  finish(): Promise<string>;
}

// Below the agent's STEP_HOOK_TIMEOUT_MS, so a slow capture is reported here, in the report, by its own words.
const SCREENSHOT_TIMEOUT_MS = 8_000;

/** Creates DIR now (so a bad path fails before any browser starts). */
export function createRecorder(dirArg: string, screenshot: () => Promise<Buffer>): Recorder {
  const dir = resolve(dirArg);
  try {
    mkdirSync(dir, { recursive: true });
    // Screenshots of an earlier run into the same directory would pass for this run's.
    for (const name of readdirSync(dir)) if (/^step-\d{3,}\.png$/.test(name)) rmSync(join(dir, name), { force: true });
  } catch (e) {
    throw new ServiceInvalidArgumentError(`cannot create --record directory ${dir}: ${errorMessage(e)}`);
  }
  const steps: RecordedStep[] = [];
  const pending: Promise<void>[] = [];
  let start: Extract<RunEvent, { type: "run_start" }> | undefined;
  let result: AgentResultData | undefined;
  let elapsedMs = 0;
  let lastUrl: string | undefined;
  let call: RecordedStep | undefined;

  const shoot = (s: RecordedStep): Promise<void> => {
    const file = `step-${String(s.step).padStart(3, "0")}.png`;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no screenshot within ${SCREENSHOT_TIMEOUT_MS} ms`)), SCREENSHOT_TIMEOUT_MS)));
    const shot = Promise.race([screenshot(), timeout])
      .then((png) => {
        writeOutputFile(join(dir, file), png);
        s.screenshot = { file, base64: png.toString("base64") };
      })
      .catch((e: unknown) => void (s.screenshotError = errorMessage(e)))
      .finally(() => clearTimeout(timer));
    pending.push(shot);
    return shot;
  };

  return {
    dir,
    onEvent(e) {
      elapsedMs = Math.max(elapsedMs, e.elapsedMs);
      if (e.type === "run_start") {
        start = e;
        lastUrl = e.url;
      } else if (e.type === "tool_call") {
        call = { step: e.step, tool: e.tool, args: e.args, reasoning: e.reasoning, cached: Boolean(e.cached) };
      } else if (e.type === "tool_result") {
        const s: RecordedStep = call?.step === e.step ? call : { step: e.step, tool: e.tool, args: undefined, reasoning: "", cached: false };
        Object.assign(s, { ok: e.ok, summary: e.summary, timeMs: e.timeMs, ...(lastUrl !== undefined ? { url: lastUrl } : {}) });
        steps.push(s);
        call = undefined;
      } else if (e.type === "page") {
        lastUrl = e.url;
        const last = steps.at(-1);
        if (last && last.step === e.step) last.url = e.url;
      } else if (e.type === "run_end") {
        result = e.result;
      }
    },
    async stepEnd({ step }) {
      const s = steps.findLast((x) => x.step === step);
      if (s) await shoot(s);
    },
    async finish() {
      await Promise.all(pending);
      const path = join(dir, "report.html");
      writeOutputFile(path, renderReport({ start, steps, result, elapsedMs }));
      return path;
    },
  };
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (text: unknown): string => String(text ?? "").replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const json = (v: unknown): string => (v === undefined ? "" : JSON.stringify(v, null, 2));
const ms = (n: number | undefined): string => (n === undefined ? "" : n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(1)} s`);

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;background:#f6f7f9;color:#1d232b}
main{max-width:1100px;margin:0 auto;padding:24px}
h1{font-size:20px;margin:0 0 12px} h2{font-size:16px;margin:0}
.card{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:16px;margin:0 0 16px}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-weight:600;font-size:12px}
.good{background:#dcf5e3;color:#11612d} .bad{background:#fde2e1;color:#9c1c16} .warn{background:#fff1cc;color:#7a5500}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:12px 0 0} dt{color:#5b6673} dd{margin:0;overflow-wrap:anywhere}
pre{background:#f1f3f5;border-radius:6px;padding:8px;margin:0;white-space:pre-wrap;overflow-wrap:anywhere;font:12px/1.4 ui-monospace,Menlo,monospace}
.step h2 .n{color:#5b6673;margin-right:6px} .step.error{border-left:4px solid #d93a33} .step.ok{border-left:4px solid #2f9e55}
.body{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);gap:16px;align-items:start}
@media (max-width:800px){.body{grid-template-columns:minmax(0,1fr)}}
img{max-width:100%;border:1px solid #dde1e6;border-radius:4px}
.muted{color:#5b6673}
`;

function field(name: string, value: string, raw = false): string {
  return value ? `<dt>${escapeHtml(name)}</dt><dd>${raw ? value : escapeHtml(value)}</dd>` : "";
}

function stepCard(s: RecordedStep, action: AgentAction | undefined): string {
  const status = s.ok ? '<span class="badge good">✓ ok</span>' : '<span class="badge bad">✗ error</span>';
  const img = s.screenshot
    ? `<img alt="page after step ${s.step}" src="data:image/png;base64,${s.screenshot.base64}"><div class="muted"><a href="${escapeHtml(s.screenshot.file)}">${escapeHtml(s.screenshot.file)}</a></div>`
    : `<div class="muted">no screenshot${s.screenshotError ? `: ${escapeHtml(s.screenshotError)}` : ""}</div>`;
  return `<section class="card step ${s.ok ? "ok" : "error"}" id="step-${s.step}">
<h2><span class="n">${s.step}.</span>${escapeHtml(s.tool)} ${status}${s.cached ? ' <span class="badge warn">cached</span>' : ""}</h2>
<div class="body"><dl>${field("action", typeof action?.action === "string" ? action.action : "")}${field("arguments", s.args === undefined ? "" : `<pre>${escapeHtml(json(s.args))}</pre>`, true)}${field("reasoning", s.reasoning)}${field("result", s.summary ?? "")}${field("duration", ms(s.timeMs))}${field("URL", action?.pageUrl ?? s.url ?? "")}</dl>
<div>${img}</div></div>
</section>`;
}

export function renderReport(r: { start: Extract<RunEvent, { type: "run_start" }> | undefined; steps: readonly RecordedStep[]; result: AgentResultData | undefined; elapsedMs: number }): string {
  const res = r.result;
  const byStep = new Map<number, AgentAction>();
  for (const a of res?.actions ?? []) if (typeof a.step === "number") byStep.set(a.step, a);
  const badge = !res ? '<span class="badge bad">no result</span>' : res.success ? '<span class="badge good">success</span>' : res.completed ? '<span class="badge warn">finished without success</span>' : '<span class="badge bad">not completed</span>';
  const u = res?.usage;
  const usage = u
    ? `${u.input_tokens} input, ${u.output_tokens} output, ${u.reasoning_tokens ?? 0} reasoning, ${u.cached_input_tokens ?? 0} cached tokens; ${u.inference_time_ms} ms inference`
    : "";
  const meta = res?.metadata ?? {};
  const output = meta.output !== undefined ? `<pre>${escapeHtml(json(meta.output))}</pre>` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>svc agent: ${escapeHtml(r.start?.instruction ?? "run")}</title><style>${CSS}</style></head>
<body><main>
<h1>svc agent run ${badge}</h1>
<div class="card"><dl>
${field("task", r.start?.instruction ?? "")}${field("mode", r.start?.mode ?? "")}${field("model", r.start?.model ?? "")}${field("start URL", r.start?.url ?? "")}${field("steps", `${r.steps.length}${r.start ? ` (max ${r.start.maxSteps})` : ""}`)}${field("elapsed", ms(r.elapsedMs))}
${field("stop reason", typeof meta.stopReason === "string" ? meta.stopReason : "")}${field("message", res?.message ?? "")}${field("output", output, true)}${field("usage", usage)}
</dl></div>
${r.steps.map((s) => stepCard(s, byStep.get(s.step))).join("\n")}
<p class="muted">Recorded by svc. In this report's text, variable values and what was typed into password fields are masked as %name%; the screenshots show the page as it was, values included.</p>
</main></body></html>
`;
}
