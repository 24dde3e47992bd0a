/**
 * The required fields of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), checked one by one: what a HAR
 * viewer (Chrome DevTools' import among them) needs to read a file. Returns the problems found (empty: valid).
 */
type Json = Record<string, unknown>;

const isObj = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

export function harProblems(har: unknown): string[] {
  const out: string[] = [];
  const need = (ok: boolean, what: string) => {
    if (!ok) out.push(what);
  };
  const str = (o: Json, k: string, where: string) => need(typeof o[k] === "string", `${where}.${k}: string`);
  const num = (o: Json, k: string, where: string) => need(typeof o[k] === "number" && Number.isFinite(o[k]), `${where}.${k}: number`);
  const nameValues = (v: unknown, where: string) => {
    need(Array.isArray(v), `${where}: array`);
    for (const [i, x] of (Array.isArray(v) ? v : []).entries()) {
      need(isObj(x) && typeof x.name === "string" && typeof x.value === "string", `${where}[${i}]: {name, value} strings`);
    }
  };
  if (!isObj(har) || !isObj(har.log)) return ["log: object"];
  const log = har.log;
  need(log.version === "1.2", "log.version: 1.2");
  need(isObj(log.creator) && typeof log.creator.name === "string" && typeof log.creator.version === "string", "log.creator: {name, version}");
  need(Array.isArray(log.entries), "log.entries: array");
  const pageIds = new Set<string>();
  if (log.pages !== undefined) {
    need(Array.isArray(log.pages), "log.pages: array");
    for (const [i, p] of (Array.isArray(log.pages) ? log.pages : []).entries()) {
      const w = `log.pages[${i}]`;
      if (!isObj(p)) {
        out.push(`${w}: object`);
        continue;
      }
      need(typeof p.startedDateTime === "string" && ISO.test(p.startedDateTime), `${w}.startedDateTime: ISO 8601`);
      str(p, "id", w);
      str(p, "title", w);
      need(isObj(p.pageTimings), `${w}.pageTimings: object`);
      for (const k of ["onContentLoad", "onLoad"]) if (isObj(p.pageTimings) && p.pageTimings[k] !== undefined) num(p.pageTimings, k, `${w}.pageTimings`);
      if (typeof p.id === "string") pageIds.add(p.id);
    }
  }
  for (const [i, e] of (Array.isArray(log.entries) ? log.entries : []).entries()) {
    const w = `log.entries[${i}]`;
    if (!isObj(e)) {
      out.push(`${w}: object`);
      continue;
    }
    if (e.pageref !== undefined) need(typeof e.pageref === "string" && pageIds.has(e.pageref), `${w}.pageref: a page's id`);
    need(typeof e.startedDateTime === "string" && ISO.test(e.startedDateTime), `${w}.startedDateTime: ISO 8601`);
    num(e, "time", w);
    need(isObj(e.cache), `${w}.cache: object`);
    const req = e.request;
    if (!isObj(req)) out.push(`${w}.request: object`);
    else {
      for (const k of ["method", "url", "httpVersion"]) str(req, k, `${w}.request`);
      nameValues(req.cookies, `${w}.request.cookies`);
      nameValues(req.headers, `${w}.request.headers`);
      nameValues(req.queryString, `${w}.request.queryString`);
      num(req, "headersSize", `${w}.request`);
      num(req, "bodySize", `${w}.request`);
      if (req.postData !== undefined) need(isObj(req.postData) && typeof req.postData.mimeType === "string" && (typeof req.postData.text === "string" || Array.isArray(req.postData.params)), `${w}.request.postData: {mimeType, text|params}`);
    }
    const res = e.response;
    if (!isObj(res)) out.push(`${w}.response: object`);
    else {
      num(res, "status", `${w}.response`);
      for (const k of ["statusText", "httpVersion", "redirectURL"]) str(res, k, `${w}.response`);
      nameValues(res.cookies, `${w}.response.cookies`);
      nameValues(res.headers, `${w}.response.headers`);
      num(res, "headersSize", `${w}.response`);
      num(res, "bodySize", `${w}.response`);
      const c = res.content;
      need(isObj(c) && typeof c.size === "number" && typeof c.mimeType === "string", `${w}.response.content: {size, mimeType}`);
      if (isObj(c) && c.text !== undefined) need(typeof c.text === "string", `${w}.response.content.text: string`);
    }
    const t = e.timings;
    if (!isObj(t)) out.push(`${w}.timings: object`);
    else {
      for (const k of ["send", "wait", "receive"]) need(typeof t[k] === "number" && (t[k] as number) >= 0, `${w}.timings.${k}: number ≥ 0`);
      for (const k of ["blocked", "dns", "connect", "ssl"]) if (t[k] !== undefined) need(typeof t[k] === "number" && ((t[k] as number) >= 0 || t[k] === -1), `${w}.timings.${k}: number ≥ 0 or -1`);
      if (typeof e.time === "number") {
        const sum = ["blocked", "dns", "connect", "send", "wait", "receive"].reduce((s, k) => s + Math.max(0, Number(t[k] ?? 0)), 0);
        need(Math.abs(sum - e.time) < 0.01, `${w}.time: the sum of its timings (${sum}), got ${e.time}`);
      }
    }
  }
  return out;
}
