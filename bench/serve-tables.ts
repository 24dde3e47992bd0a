/** The markdown of serve.ts's results, in bench/results.md's style, and its target row. */
import type { TargetSummary } from "./act-model.js";
import type { Pct, ServeResult } from "./serve.js";
import { fmtInt, fmtMs } from "./stats.js";

const mb = (kb: number | undefined) => (kb === undefined ? "–" : `${fmtInt(kb / 1024)} MB`);


export function serveTables(res: ServeResult): { md: string; targets: TargetSummary[] } {
  const lines: string[] = [];
  const row = (cells: string[]) => lines.push(`| ${cells.join(" | ")} |`);
  const head = (cells: string[]) => {
    row(cells);
    row(cells.map((_, i) => (i === 0 ? "---" : "---:")));
  };
  const p = (x: Pct | undefined) => (x ? `${fmtMs(x.p50)} / ${fmtMs(x.p95)}` : "–");
  lines.push(
    `**\`svc serve\` under load** — the server in-process (${res.warm ?? 0} warm browser${res.warm === 1 ? "" : "s"}, as \`svc serve --warm-browsers ${res.warm ?? 0}\`), N clients each looping for ${res.seconds} s over the session API as a client would (fetch + SSE): start → navigate (${res.page}) → act(Action: click #submit, no model) → extract() (page text, no model) → end. Measured ${res.date.slice(0, 10)}`,
    "",
  );
  head(["clients", "loops (failed)", "loops/s", "requests/s", "loop p50 / p95", "start", "navigate", "act", "extract", "end", "errors"]);
  for (const l of res.levels) {
    const lt = l.latency;
    row([String(l.clients), `${l.loops} (${l.failedLoops})`, l.loopsPerS.toFixed(2), l.requestsPerS.toFixed(1), p(lt.loop), p(lt.start), p(lt.navigate), p(lt.act), p(lt.extract), p(lt.end), String(l.errors.count)]);
  }
  lines.push("", "Step cells are p50 / p95 of successful requests (an operation: until its `finished` event).", "");
  head(["clients", "idle baseline RSS", "peak RSS over baseline", "Chromes at the peak", "RSS per session", "PSS over baseline", "PSS per session", "at the peak: server / Chromes / their reapers", "Chromes left after the level", "stale reapers after the level"]);
  for (const l of res.levels) {
    const m = l.memory;
    const pk = m.peak;
    const bd = pk?.breakdownKB;
    row([
      String(l.clients),
      mb(m.baselineRssKB),
      mb(pk?.rssDeltaKB),
      String(pk?.browsers ?? "–"),
      mb(pk?.perSessionRssKB),
      mb(pk?.pssDeltaKB),
      mb(pk?.perSessionPssKB),
      bd ? `${mb(bd.server)} / ${mb(bd.chrome)} / ${mb(bd.reapers)}` : "–",
      String(l.leftAfter.browsers),
      `${m.staleAfter.count} (${mb(m.staleAfter.rssKB)})`,
    ]);
  }
  lines.push("", "Where the CPU went during each level (seconds), and how long this process's event loop — the server's one thread, shared with the clients — was late:", "");
  head(["clients", "Node (server + clients)", "Chromes (all processes)", "available (cores × elapsed)", "event-loop delay p50 / p99 / max"]);
  for (const l of res.levels) {
    const d = l.loopDelayMs;
    row([String(l.clients), `${l.cpu.nodeS} s`, `${l.cpu.childrenS} s`, `${l.cpu.availableS} s`, `${fmtMs(d.p50)} / ${fmtMs(d.p99)} / ${fmtMs(d.max)}`]);
  }
  lines.push(
    "",
    `Memory: RSS (and PSS, which splits shared pages instead of counting them in every process) of this process plus all its descendants — every session's Chrome with its child processes, and the Node reaper launch.ts starts per Chrome — sampled every second, minus the same sum idle before the level; per session = that ÷ the Chrome browsers alive at the peak sample (warm ones included). Reapers whose Chrome was already closed ("stale": a reaper that outlived its Chrome) are left out of every sum and counted in the last column, cumulative over the levels. Per-request timeout ${fmtInt(res.timeoutMs / 1000)} s; warm-up loop ${fmtMs(res.warmupMs)}; server close ${fmtMs(res.closeMs)}; Chrome processes left after close: ${res.leftover.processes}; reaper processes still running after close: ${res.reapersAfterClose}.`,
  );
  if (res.errors.length) lines.push("", `Errors (first): ${res.errors.slice(0, 5).map((e) => `\`${e.replace(/`/g, "'")}\``).join("; ")}`);
  const errors = res.levels.reduce((s, l) => s + l.errors.count, 0) + res.leftover.processes + (res.levels.length ? 0 : 1);
  return {
    md: lines.join("\n"),
    targets: [
      { what: "`svc serve` errors under load (1–16 clients), Chromes left", target: "0", verdict: errors === 0 ? "met" : `missed (${errors})`, perPage: Object.fromEntries(res.levels.map((l) => [`${l.clients} clients`, l.errors.count])) },
    ],
  };
}
