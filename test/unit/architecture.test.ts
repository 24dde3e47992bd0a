/**
 * ARCHITECTURE.md's rules, enforced on every import of src/ and commands/ read with the TypeScript parser
 * (test/support/imports.ts): vendor packages confined to their folders, imports pointing only down the layers with no
 * cycles, faces reaching the library only through its entry points, exit codes only in commands/main.ts, and
 * src/server/'s areas in their declared order (server-rules.ts).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FILES, IMPORTS, type Import, ROOT, isDynamic, packageName, rel } from "../support/imports.js";
import { COMMAND_GROUPS, COMMAND_PARTS, commandPart, commandViolation } from "../support/command-rules.js";
import { SERVER_AREA_DEPS, areaCycles, choosesStatuses, httpErrorConstructions, orderViolations, serverAreaGraph, serverPart, serverViolation } from "../support/server-rules.js";

// --- layers ----------------------------------------------------------------------------------------
const BASE = "base"; // util/, errors.ts, events.ts, records.ts (records every layer may produce)
const SIDE = ["model", "cache", "platform", "store"] as const;
const CHAIN = ["browser", "snapshot", "operations", "agent", "service", "capabilities", "server", "mcp"] as const;

/** Folders of src/ that compose the layers below them (ranked with service.ts): fetch/ (svc fetch), local/ and remote/ (the two backends), types/ (declarations of untyped packages). */
const COMPOSITION = ["fetch", "local", "remote", "types"] as const;

type Module = { kind: "base" } | { kind: "side"; name: string } | { kind: "chain"; name: string; rank: number } | { kind: "commands" } | { kind: "unknown"; folder: string };

function moduleOf(file: string): Module {
  if (file.startsWith("commands/")) {
    const { part, what } = commandPart(file);
    return part === "unknown" ? { kind: "unknown", folder: what.replace(/\/$/, "") } : { kind: "commands" };
  }
  const p = file.replace(/^src\//, "");
  const top = p.includes("/") ? p.slice(0, p.indexOf("/")) : undefined;
  if (top === "util" || ["errors.ts", "events.ts", "records.ts"].includes(p)) return { kind: "base" };
  if (top && (SIDE as readonly string[]).includes(top)) return { kind: "side", name: top };
  if (top && (CHAIN as readonly string[]).includes(top)) return { kind: "chain", name: top, rank: CHAIN.indexOf(top as (typeof CHAIN)[number]) };
  // service.ts, index.ts, options.ts and the other top-level files, and the composition folders.
  if (top === undefined || (COMPOSITION as readonly string[]).includes(top)) return { kind: "chain", name: "service", rank: CHAIN.indexOf("service") };
  return { kind: "unknown", folder: `src/${top}` };
}

function layerViolation(from: string, to: string): string | undefined {
  const a = moduleOf(from);
  const b = moduleOf(to);
  for (const m of [a, b]) if (m.kind === "unknown") return `${m.folder}/ is not classified: give it a layer in this test and in ARCHITECTURE.md`;
  if (b.kind === "commands") return a.kind === "commands" ? undefined : "src/ must never import commands/";
  if (a.kind === "commands") return undefined;
  if (a.kind === "base") return b.kind === "base" ? undefined : `${BASE} (util/errors/events/records) may import only ${BASE}`;
  if (a.kind === "side") {
    if (b.kind === "base" || (b.kind === "side" && b.name === a.name)) return undefined;
    return `${a.name}/ may import only util/errors/events (and itself)`;
  }
  if (a.kind === "chain") {
    if (b.kind === "base") return undefined;
    if (b.kind === "side") return a.name === "browser" && b.name === "model" ? "browser/ knows nothing of models" : undefined;
    if (b.kind === "chain" && b.rank > a.rank) return `${a.name} must not depend on ${b.name} (direction: ${CHAIN.join(" ← ")})`;
  }
  return undefined;
}

// --- commands/ → src/ -------------------------------------------------------------------------------
/**
 * What commands/ may import from src/: the library's entry points (public, internal, and base: the light part,
 * errors and the state directory, that loads no browser or model code), and the entries of the faces it starts.
 */
const COMMANDS_ENTRIES = ["src/index.ts", "src/internal.ts", "src/base.ts", "src/capabilities/index.ts", "src/server/index.ts", "src/server/live/index.ts", "src/mcp/index.ts"];
/**
 * The files loaded before any command is known, which must stay cheap to load (the entry points load the whole
 * library, ~300 ms more): bin/svc.js's client of a session host, and the serve flags main.ts registers on
 * every run. Each may import only the tiny modules named here.
 */
const LIGHT_IMPORTS: Record<string, readonly string[]> = {
  "commands/host/client.ts": ["src/store/state-dir.ts"],
  // Where a host listens, which client.ts loads too: the rule is the state dir's, so ending a session finds it.
  "commands/host/socket.ts": ["src/store/state-dir.ts"],
  "commands/server/serve-limits.ts": ["src/server/limits.ts"],
  // A number flag's schema: the bounds the server's options use too.
  "commands/core/numbers.ts": ["src/util/ranged-number.ts"],
  // The registry is read on every run, before a command is chosen: plain declarations only.
  "commands/registry/server.ts": ["src/capabilities/declare.ts"],
};

function commandsImportViolation(from: string, to: string): string | undefined {
  if (!from.startsWith("commands/") || !to.startsWith("src/")) return undefined;
  if (COMMANDS_ENTRIES.includes(to) || LIGHT_IMPORTS[from]?.includes(to)) return undefined;
  return `commands/ imports src/ only through ${COMMANDS_ENTRIES.join(", ")}: export what it needs from src/internal.ts`;
}

// --- vendor confinement ----------------------------------------------------------------------------
interface VendorRule {
  pkgs: (pkg: string) => boolean;
  allowed: (imp: Import) => boolean;
  where: string;
}

const VENDOR_RULES: VendorRule[] = [
  { pkgs: (p) => p === "commander" || p === "conf" || p.startsWith("@inquirer/"), allowed: (i) => i.from.startsWith("commands/"), where: "commands/" },
  { pkgs: (p) => p === "ink" || p.startsWith("ink-") || p === "react" || p === "react-dom", allowed: (i) => i.from.startsWith("commands/ui/"), where: "commands/ui/" },
  { pkgs: (p) => p === "chrome-remote-interface", allowed: (i) => i.from.startsWith("src/browser/cdp/"), where: "src/browser/cdp/" },
  {
    pkgs: (p) => p === "devtools-protocol",
    allowed: (i) => i.from.startsWith("src/browser/cdp/") || (i.typeOnly && (i.from.startsWith("src/browser/") || i.from.startsWith("src/snapshot/"))),
    where: "src/browser/cdp/ (type-only imports also in src/browser/ and src/snapshot/)",
  },
  { pkgs: (p) => p === "chrome-launcher", allowed: (i) => i.from.startsWith("src/browser/"), where: "src/browser/" },
  { pkgs: (p) => p === "openai" || p === "@anthropic-ai/sdk", allowed: (i) => i.from.startsWith("src/model/"), where: "src/model/" },
];

const fmt = (i: Import) => `${i.from}:${i.line} imports "${i.spec}"`;

describe("architecture (ARCHITECTURE.md)", () => {
  it("finds the code it checks", () => {
    expect(FILES.some((f) => rel(f).startsWith("src/"))).toBe(true);
    expect(FILES.some((f) => rel(f).startsWith("commands/"))).toBe(true);
    expect(IMPORTS.length).toBeGreaterThan(10);
  });

  it("relative imports resolve to files (NodeNext .js suffix)", () => {
    const bad = IMPORTS.filter((i) => i.target?.startsWith("UNRESOLVED:") || (i.target !== undefined && !/\.(m?js)$/.test(i.spec)));
    expect(bad.map(fmt)).toEqual([]);
  });

  it("vendor packages stay where ARCHITECTURE.md confines them", () => {
    const bad: string[] = [];
    for (const i of IMPORTS) {
      if (!i.pkg) continue;
      for (const rule of VENDOR_RULES) if (rule.pkgs(i.pkg) && !rule.allowed(i)) bad.push(`${fmt(i)}: allowed only in ${rule.where}`);
    }
    expect(bad).toEqual([]);
  });

  it("dependencies point one way between layers", () => {
    const bad: string[] = [];
    for (const i of IMPORTS) {
      if (!i.target || i.target.startsWith("UNRESOLVED:")) continue;
      const why = layerViolation(i.from, i.target);
      if (why) bad.push(`${fmt(i)}: ${why}`);
    }
    expect(bad).toEqual([]);
  });

  it("every folder of src/ and commands/ has a layer (closed world)", () => {
    const folders = (dir: string) => readdirSync(join(ROOT, dir)).filter((n) => statSync(join(ROOT, dir, n)).isDirectory());
    const topFiles = readdirSync(join(ROOT, "commands")).filter((n) => /\.tsx?$/.test(n));
    const unknown = [...folders("src").map((f) => `src/${f}/x.ts`), ...folders("commands").map((f) => `commands/${f}/x.ts`), ...topFiles.map((f) => `commands/${f}`)]
      .map(moduleOf)
      .filter((m) => m.kind === "unknown");
    expect(unknown).toEqual([]);
  });

  it("ARCHITECTURE.md names every folder and top-level file of src/ and of commands/", () => {
    const map = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");
    const entries = (dir: string) => readdirSync(join(ROOT, dir)).filter((n) => statSync(join(ROOT, dir, n)).isDirectory() || /\.ts$/.test(n));
    const named = (dir: string, n: string) => {
      const name = statSync(join(ROOT, dir, n)).isDirectory() ? `${n}/` : n;
      return map.includes(`\`${name}\``) || map.includes(`\`${dir}/${name}\``);
    };
    const missing = [...entries("src").filter((n) => !named("src", n)).map((n) => `src/${n}`), ...entries("commands").filter((n) => !named("commands", n)).map((n) => `commands/${n}`)];
    expect(missing).toEqual([]);
    // The check sees a name that is not there.
    expect(map.includes("`no-such-folder/`")).toBe(false);
  });

  it("ARCHITECTURE.md states the parts of commands/ in the order this test enforces", () => {
    const map = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8");
    const section = map.slice(map.indexOf("**The folders of commands/**"));
    const rows = [...section.slice(0, section.indexOf("\n\n", section.indexOf("|---"))).matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((m) => m[1]);
    expect(rows).toEqual([...COMMAND_PARTS]);
    expect(section).toContain(COMMAND_GROUPS.map((g) => `\`${g}/\``).join(" ← "));
  });

  it("inside commands/: core/ at the bottom, host/ its own process reached through its doors, the groups in their declared order, the registry loading commands on demand", () => {
    const bad = IMPORTS.filter((i) => i.from.startsWith("commands/") && i.target?.startsWith("commands/"))
      .map((i) => ({ i, why: commandViolation({ ...i, dynamic: isDynamic(i) }, i.target!) }))
      .filter((x) => x.why !== undefined)
      .map((x) => `${fmt(x.i)}: ${x.why}`);
    expect(bad).toEqual([]);
  });

  it("no import cycles among src/ files", () => {
    // Type-only imports are erased at compile time (no evaluation order, no runtime coupling), so they
    // may close a loop inside one module (page ↔ locator); every value import counts.
    const graph = new Map<string, string[]>();
    for (const i of IMPORTS) {
      if (!i.from.startsWith("src/") || i.typeOnly || !i.target?.startsWith("src/")) continue;
      graph.set(i.from, [...(graph.get(i.from) ?? []), i.target]);
    }
    const cycles = areaCycles(Object.fromEntries(graph));
    expect(cycles).toEqual([]);
  });

  it("src/server/ is a client of the library's entry points: it imports src/index.ts, src/internal.ts, util/ and itself only", () => {
    const bad = IMPORTS.filter((i) => i.from.startsWith("src/server/") && i.target?.startsWith("src/"))
      .filter((i) => !(i.target === "src/index.ts" || i.target === "src/internal.ts" || i.target!.startsWith("src/util/") || i.target!.startsWith("src/server/")))
      .map(fmt);
    expect(bad).toEqual([]);
  });

  it("every folder and top-level file of src/server/ has a role (closed world)", () => {
    const dir = join(ROOT, "src/server");
    const unknown = readdirSync(dir)
      .map((n) => (statSync(join(dir, n)).isDirectory() ? `src/server/${n}/x.ts` : `src/server/${n}`))
      .filter((f) => /\.ts$/.test(f))
      .map(serverPart)
      .filter((m) => m.kind === "unknown");
    expect(unknown).toEqual([]);
  });

  it("inside src/server/: shared ← http/ and the areas, in their declared order ← index.ts/app.ts; no domain file imports http/ or a route file", () => {
    const bad = IMPORTS.filter((i) => i.from.startsWith("src/server/") && i.target?.startsWith("src/server/"))
      .map((i) => ({ i, why: serverViolation(i, i.target!) }))
      .filter((x) => x.why !== undefined)
      .map((x) => `${fmt(x.i)}: ${x.why}`);
    expect(bad).toEqual([]);
  });

  it("the server's areas form no circle: the declared order has none, and neither do the imports", () => {
    expect(orderViolations(SERVER_AREA_DEPS)).toEqual([]);
    expect(areaCycles(SERVER_AREA_DEPS)).toEqual([]);
    const graph = serverAreaGraph(IMPORTS);
    expect(areaCycles(graph)).toEqual([]);
    // The graph is the real one: areas do import each other (the rule has something to check).
    expect(Object.keys(graph).length).toBeGreaterThan(3);
  });

  it("only http/, app.ts and the route files construct HttpError (they alone choose statuses)", () => {
    const bad = FILES.map(rel)
      .filter((f) => f.startsWith("src/server/") && !choosesStatuses(f))
      .flatMap((f) => httpErrorConstructions(f).map((line) => `${f}:${line} constructs HttpError: throw a failure of failures.ts (or a library error) and let http/errors.ts choose the status`));
    expect(bad).toEqual([]);
    // The rule sees a construction where one is (and the allowed places exist).
    expect(httpErrorConstructions("src/server/platform/x.ts", `const e = new HttpError(404, "x");\nthrow new HttpError(500, "y");`)).toEqual([1, 2]);
    expect(FILES.map(rel).filter((f) => f.startsWith("src/server/") && choosesStatuses(f) && httpErrorConstructions(f).length > 0).length).toBeGreaterThan(3);
  });

  it("src/capabilities/ is a client of the library's entry points, light to load: statically only errors.ts, util/ and itself, and the entry points by type or on demand", () => {
    const bad = IMPORTS.filter((i) => i.from.startsWith("src/capabilities/") && i.target?.startsWith("src/"))
      .filter((i) => {
        if (i.target === "src/errors.ts" || i.target!.startsWith("src/util/") || i.target!.startsWith("src/capabilities/")) return false;
        return !((i.target === "src/index.ts" || i.target === "src/internal.ts") && (i.typeOnly || isDynamic(i)));
      })
      .map(fmt);
    expect(bad).toEqual([]);
    expect(IMPORTS.some((i) => i.from.startsWith("src/capabilities/") && isDynamic(i))).toBe(true);
  });

  it("src/mcp/ is a client of the library's entry points: it imports src/index.ts, src/internal.ts, src/capabilities/, util/ and itself only", () => {
    const bad = IMPORTS.filter((i) => i.from.startsWith("src/mcp/") && i.target?.startsWith("src/"))
      .filter((i) => !(i.target === "src/index.ts" || i.target === "src/internal.ts" || i.target!.startsWith("src/util/") || i.target!.startsWith("src/mcp/") || i.target!.startsWith("src/capabilities/")))
      .map(fmt);
    expect(bad).toEqual([]);
    expect(IMPORTS.some((i) => i.from.startsWith("src/mcp/"))).toBe(true);
  });

  it("commands/ is a client of the entry points: src/index.ts, src/internal.ts, src/base.ts and the other faces' entries only", () => {
    const bad = IMPORTS.filter((i) => i.from.startsWith("commands/") && i.target?.startsWith("src/"))
      .map((i) => ({ i, why: commandsImportViolation(i.from, i.target!) }))
      .filter((x) => x.why !== undefined)
      .map((x) => `${fmt(x.i)}: ${x.why}`);
    expect(bad).toEqual([]);
  });

  it("nothing in src/ but src/mcp/ imports the MCP SDK or src/mcp/", () => {
    const bad = IMPORTS.filter((i) => i.from.startsWith("src/") && !i.from.startsWith("src/mcp/") && (i.pkg === "@modelcontextprotocol/sdk" || i.target?.startsWith("src/mcp/"))).map(fmt);
    expect(bad).toEqual([]);
  });

  it("exit codes are decided only in commands/main.ts", () => {
    const bad = FILES.map(rel)
      .filter((f) => f.startsWith("commands/") && f !== "commands/main.ts")
      .filter((f) => /process\.exit\s*\(|process\.exitCode\s*=/.test(readFileSync(join(ROOT, f), "utf8")));
    expect(bad).toEqual([]);
  });

  it("`svc --version` loads no dependency: main.ts statically imports only builtins and tiny local modules", () => {
    const light = new Set(["commands/core/cleanup.ts", "commands/core/output.ts", "commands/core/help.ts", "commands/registry/globals.ts", "commands/registry/types.ts", "commands/core/number-range.ts"]);
    const staticValue = (file: string) =>
      IMPORTS.filter((i) => i.from === file && !i.typeOnly && !i.spec.startsWith("node:") && !isDynamic(i));
    const bad = [
      ...staticValue("commands/main.ts").filter((i) => !light.has(i.target ?? "")),
      ...[...light].flatMap((f) => staticValue(f).filter((i) => !light.has(i.target ?? ""))),
    ];
    expect(bad.map(fmt)).toEqual([]);
  });

  it("src/index.ts uses explicit named exports", () => {
    const index = join(ROOT, "src/index.ts");
    if (!existsSync(index)) return;
    expect(readFileSync(index, "utf8")).not.toMatch(/^\s*export\s*\*\s*from/m);
  });

  // The checker itself, on known inputs: a rule that can never fail is no rule.
  it("the layer and vendor rules reject what they should", () => {
    expect(layerViolation("src/browser/page.ts", "src/operations/act.ts")).toMatch(/must not depend/);
    expect(layerViolation("src/snapshot/tree.ts", "src/browser/page.ts")).toBeUndefined();
    expect(layerViolation("src/store/session-records.ts", "src/browser/launch.ts")).toMatch(/store/);
    expect(layerViolation("src/store/session-records.ts", "src/errors.ts")).toBeUndefined();
    expect(layerViolation("src/errors.ts", "src/store/files.ts")).toMatch(/base/);
    expect(layerViolation("src/service.ts", "commands/main.ts")).toMatch(/never import commands/);
    expect(layerViolation("src/browser/page.ts", "src/model/openai.ts")).toMatch(/models/);
    expect(layerViolation("commands/page/goto.ts", "src/service.ts")).toBeUndefined();
    // A folder nobody classified fails, whatever it imports or is imported by.
    expect(layerViolation("src/zzprobe/x.ts", "src/errors.ts")).toMatch(/not classified/);
    expect(layerViolation("src/service.ts", "src/zzprobe/x.ts")).toMatch(/not classified/);
    expect(layerViolation("commands/zzprobe/x.ts", "commands/main.ts")).toMatch(/not classified/);
    expect(layerViolation("src/fetch/index.ts", "src/browser/page.ts")).toBeUndefined();
    // commands/ reaching past the entry points into a library folder is refused; through them it is not.
    expect(commandsImportViolation("commands/page/goto.ts", "src/browser/cdp/connection.ts")).toMatch(/only through/);
    expect(commandsImportViolation("commands/page/goto.ts", "src/store/files.ts")).toMatch(/only through/);
    expect(commandsImportViolation("commands/server/serve-limits.ts", "src/store/files.ts")).toMatch(/only through/);
    expect(commandsImportViolation("commands/page/goto.ts", "src/internal.ts")).toBeUndefined();
    expect(commandsImportViolation("commands/page/goto.ts", "src/index.ts")).toBeUndefined();
    const imp = (from: string, spec: string, typeOnly = false): Import => ({ from, spec, target: undefined, pkg: packageName(spec), typeOnly, line: 1 });
    const rejected = (i: Import) => VENDOR_RULES.some((r) => r.pkgs(i.pkg!) && !r.allowed(i));
    expect(rejected(imp("src/service.ts", "commander"))).toBe(true);
    expect(rejected(imp("commands/main.ts", "commander"))).toBe(false);
    expect(rejected(imp("commands/main.ts", "ink"))).toBe(true);
    expect(rejected(imp("commands/ui/app.tsx", "react"))).toBe(false);
    expect(rejected(imp("src/browser/page.ts", "chrome-remote-interface"))).toBe(true);
    expect(rejected(imp("src/snapshot/capture.ts", "devtools-protocol", true))).toBe(false);
    expect(rejected(imp("src/snapshot/capture.ts", "devtools-protocol", false))).toBe(true);
    expect(rejected(imp("src/operations/act.ts", "devtools-protocol", true))).toBe(true);
    expect(rejected(imp("src/browser/x.ts", "@inquirer/prompts"))).toBe(true);
    // commands/'s inner rules.
    const cmd = (from: string, to: string, dynamic = false, typeOnly = false) => commandViolation({ from, typeOnly, dynamic }, to);
    expect(cmd("commands/page/snapshot.ts", "commands/model/act.ts")).toMatch(/page\/ may not import model\//);
    expect(cmd("commands/model/agent.ts", "commands/sessions/view.ts", true)).toBeUndefined();
    expect(cmd("commands/page/set.ts", "commands/host/ask.ts")).toBeUndefined();
    expect(cmd("commands/page/set.ts", "commands/host/keeper.ts")).toMatch(/only through its doors/);
    expect(cmd("commands/sessions/connect.ts", "commands/host/browser.ts", false, true)).toBeUndefined();
    expect(cmd("commands/host/keeper.ts", "commands/page/snapshot.ts")).toMatch(/its own process/);
    expect(cmd("commands/host/main.ts", "commands/main.ts", true)).toBeUndefined();
    expect(cmd("commands/host/main.ts", "commands/main.ts")).toMatch(/its own process/);
    expect(cmd("commands/core/runtime.ts", "commands/page/tabs.ts")).toMatch(/core\/ is what every command shares/);
    expect(cmd("commands/core/runtime.ts", "commands/sessions/sessions.ts", true)).toBeUndefined();
    expect(cmd("commands/registry/page.ts", "commands/page/goto.ts")).toMatch(/only when it runs/);
    expect(cmd("commands/registry/page.ts", "commands/page/goto.ts", true)).toBeUndefined();
    expect(cmd("commands/zzprobe/x.ts", "commands/core/output.ts")).toMatch(/no part in commands/);
    expect(cmd("commands/zzprobe.ts", "commands/core/output.ts")).toMatch(/no part in commands/);
    // The server's inner rules.
    const value = (from: string) => ({ from, typeOnly: false });
    expect(serverViolation(value("src/server/http/auth.ts"), "src/server/platform/chrome-sessions.ts")).toMatch(/http\/ knows no area/);
    expect(serverViolation(value("src/server/platform/chrome-sessions.ts"), "src/server/http/errors.ts")).toMatch(/domain file must not import http/);
    expect(serverViolation(value("src/server/platform/chrome-sessions.ts"), "src/server/platform/routes.ts")).toMatch(/route file/);
    expect(serverViolation(value("src/server/cdp/url.ts"), "src/server/cdp/proxy.ts")).toMatch(/route file/);
    expect(serverViolation(value("src/server/live/routes-live-socket.ts"), "src/server/cdp/proxy.ts")).toBeUndefined();
    expect(serverViolation(value("src/server/platform/routes.ts"), "src/server/cdp/proxy.ts")).toMatch(/platform\/ may not import cdp\//);
    expect(serverViolation(value("src/server/cluster/index.ts"), "src/server/cluster/forward-http.ts")).toBeUndefined();
    expect(serverViolation(value("src/server/session-api/service-sessions.ts"), "src/server/cdp/proxy.ts")).toMatch(/route file/);
    expect(serverViolation(value("src/server/features/contexts.ts"), "src/server/app.ts")).toMatch(/composition root/);
    expect(serverViolation({ from: "src/server/features/routes-contexts.ts", typeOnly: true }, "src/server/app.ts")).toBeUndefined();
    expect(serverViolation(value("src/server/zzprobe/x.ts"), "src/server/http/errors.ts")).toMatch(/no role/);
    expect(serverViolation(value("src/server/app.ts"), "src/server/zzprobe.ts")).toMatch(/no role/);
    // A domain file reaching the HTTP layer is refused (its route files may); a shared file is not http/.
    expect(serverViolation(value("src/server/platform/chrome-sessions.ts"), "src/server/http/auth.ts")).toMatch(/domain file must not import http/);
    expect(serverViolation({ from: "src/server/features/feature.ts", typeOnly: true }, "src/server/http/sse.ts")).toMatch(/domain file must not import http/);
    expect(serverViolation(value("src/server/cluster/index.ts"), "src/server/http/errors.ts")).toMatch(/domain file must not import http/);
    expect(serverViolation(value("src/server/platform/routes.ts"), "src/server/http/errors.ts")).toBeUndefined();
    expect(serverViolation(value("src/server/cdp/proxy.ts"), "src/server/http/errors.ts")).toBeUndefined();
    expect(serverViolation(value("src/server/platform/chrome-sessions.ts"), "src/server/tenant.ts")).toBeUndefined();
    expect(serverViolation(value("src/server/tenant.ts"), "src/server/http/auth.ts")).toMatch(/shared files/);
    // Sideways: only to an area declared below, types included; a route file is held to its area's order too.
    expect(serverViolation(value("src/server/cdp/filter.ts"), "src/server/features/target-watch.ts")).toBeUndefined();
    expect(serverViolation({ from: "src/server/platform/chrome-sessions.ts", typeOnly: true }, "src/server/features/contexts.ts")).toMatch(/platform\/ may not import features\//);
    expect(serverViolation(value("src/server/platform/routes.ts"), "src/server/live/routes-live.ts")).toMatch(/platform\/ may not import live\//);
    expect(serverViolation(value("src/server/cluster/forward-ws.ts"), "src/server/cdp/proxy.ts")).toMatch(/cluster\/ may not import cdp\//);
    // A planted circle: two areas that import each other are found, in the code and in a declared order.
    const planted = serverAreaGraph([
      { from: "src/server/platform/chrome-sessions.ts", target: "src/server/live/viewer.ts" },
      { from: "src/server/live/routes-live.ts", target: "src/server/platform/chrome-sessions.ts" },
      { from: "src/server/live/routes-live.ts", target: "src/server/live/page-html.ts" },
    ]);
    expect(planted).toEqual({ platform: ["live"], live: ["platform"] });
    expect(areaCycles(planted)).toEqual(["platform → live → platform"]);
    expect(areaCycles({ a: ["b"], b: ["c"], c: ["a"], d: [] })).toEqual(["a → b → c → a"]);
    expect(areaCycles({ a: ["b", "c"], b: ["c"], c: [] })).toEqual([]);
    const circular = { ...SERVER_AREA_DEPS, platform: [...SERVER_AREA_DEPS.platform!, "live"] };
    expect(orderViolations(circular)).toEqual(["platform → live: live is not declared before platform"]);
    expect(areaCycles(circular).length).toBeGreaterThan(0);
    expect(serverViolation(value("src/server/platform/routes.ts"), "src/server/live/routes-live.ts", circular)).toBeUndefined();
    expect(choosesStatuses("src/server/features/contexts.ts")).toBe(false);
    expect(choosesStatuses("src/server/features/routes-contexts.ts")).toBe(true);
  });
});
