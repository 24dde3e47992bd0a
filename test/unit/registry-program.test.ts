/**
 * The commander program generated from the registry, parsed for real with no command run: the global flags
 * (--env parsed by its zod schema), a flag's choices, a repeatable flag, `--no-x`, defaults, and an unknown
 * flag, each as commander reports it to main.ts; number flags read by the one number schema (issue 42).
 */
import { describe, expect, it } from "vitest";
import { buildProgram, toOption } from "../../commands/registry/program.js";
import { CAPABILITIES, cliInput, cliVerbs } from "../../src/capabilities/index.js";
import { flagsSchema } from "../../commands/registry/schema.js";
import { type CommandDecl, type Globals, choice, defaulted, flag, int, list, negated, value } from "../../commands/registry/types.js";

async function parse(argv: string[], words?: ReadonlySet<string>): Promise<{ decl?: CommandDecl; flags?: unknown; globals: Globals }> {
  let globals: Globals = { json: false, verbose: 0, session: undefined };
  const seen: { decl?: CommandDecl; flags?: unknown } = {};
  const program = buildProgram(
    {
      version: "0.0.0",
      setGlobals: (g) => (globals = g),
      globals: () => globals,
      dispatch: async (decl, _invoke, flags) => {
        seen.decl = decl;
        seen.flags = flags;
      },
    },
    "test",
    words,
  );
  await program.parseAsync(argv, { from: "user" });
  return { ...seen, globals };
}

const failure = async (argv: string[]) => {
  try {
    await parse(argv);
  } catch (e) {
    return e as { code: string; message: string };
  }
  throw new Error(`${argv.join(" ")} parsed`);
};

describe("the generated program", () => {
  it("built for a command line's words only (the session host), it runs that command with the same flags, and knows no other", async () => {
    const argv = ["--json", "fill", "e3", "Ada", "--timeout", "5000"];
    const whole = await parse(argv);
    const part = await parse(argv, new Set(argv));
    expect(part.decl?.name).toBe("fill");
    expect(part.flags).toEqual(whole.flags);
    expect(part.globals).toEqual(whole.globals);
    const network = await parse(["network", "requests", "--filter", "api"], new Set(["network", "requests", "--filter", "api"]));
    expect(network.decl?.name).toBe("network requests");
    const program = buildProgram({ version: "0", setGlobals: () => {}, globals: () => ({ json: false, verbose: 0, session: undefined }), dispatch: async () => {} }, "test", new Set(["fill"]));
    expect(program.commands.map((c) => c.name())).toEqual(["fill"]);
  });

  it("--env is trimmed and upper-cased by its schema; a wrong one is commander's one-line invalid-argument error", async () => {
    const ok = await parse(["--env", " browserbase ", "--json", "metrics"]);
    expect(ok.decl?.name).toBe("metrics");
    expect(ok.globals).toMatchObject({ env: "BROWSERBASE", json: true });
    const bad = await failure(["--env", "moon", "metrics"]);
    expect(bad.code).toBe("commander.invalidArgument");
    expect(bad.message).toBe("error: option '--env <env>' argument 'moon' is invalid. must be one of LOCAL, BROWSERBASE");
  });

  it("flags reach the command as declared: choices, repeatable, --no-x, defaults", async () => {
    const agent = await parse(["agent", "do it", "--var", "a=1", "--variables", "b=2", "--no-loop-detection", "--mode", "hybrid"]);
    expect(agent.decl?.name).toBe("agent");
    expect(agent.globals.lines).toBe(true);
    // --variables is --var under its library name: one repeatable flag.
    expect(agent.flags).toMatchObject({ var: ["a=1", "b=2"], loopDetection: false, mode: "hybrid" });
    // A capability's defaults are its schema's, applied when the command line becomes its input (cliInput).
    expect((await parse(["fetch", "https://example.com"])).flags).toEqual({ redirects: true });
    const search = cliVerbs(CAPABILITIES).find((v) => v.verb === "search")!;
    expect(cliInput(search, ["q"], (await parse(["search", "q"])).flags as Record<string, unknown>)).toEqual({ query: "q", numResults: 10 });
    // A registry flag's choices are commander's; a capability's enum is its schema's, named by flag.
    const verbose = await failure(["--verbose", "5", "metrics"]);
    expect(verbose.code).toBe("commander.invalidArgument");
    expect(verbose.message).toMatch(/Allowed choices are 0, 1, 2/);
    const agent2 = cliVerbs(CAPABILITIES).find((v) => v.verb === "agent")!;
    const robot = (await parse(["agent", "x", "--mode", "robot"])).flags as Record<string, unknown>;
    expect(() => cliInput(agent2, ["x"], robot)).toThrow(/invalid --mode: one of dom, hybrid, cua \(got "robot"\)/);
  });

  it("a record property is read from repeated NAME:VALUE flags into one object (svc network route --header, issue 42)", async () => {
    const route = cliVerbs(CAPABILITIES).find((v) => v.verb === "network route")!;
    const parsed = await parse(["network", "route", "/x", "--header", "X-A: 1", "--header", "X-B:two:three", "--header", "X-A:again"]);
    expect(parsed.decl?.name).toBe("network route");
    expect(cliInput(route, ["/x"], parsed.flags as Record<string, unknown>)).toEqual({ pattern: "/x", headers: { "X-A": "again", "X-B": "two:three" } });
    const flags = (await parse(["network", "route", "/x", "--header", "no-colon"])).flags as Record<string, unknown>;
    expect(() => cliInput(route, ["/x"], flags)).toThrow('invalid --header: expected NAME:VALUE, got "no-colon"');
  });

  it("an unknown flag or command is commander's usage error", async () => {
    expect((await failure(["goto", "--bogus", "http://x.test/"])).code).toBe("commander.unknownOption");
    expect((await failure(["gotoo"])).code).toBe("commander.unknownCommand");
  });

  it("each kind of flag has the zod type its values must fit", () => {
    const schema = flagsSchema({ mode: choice("--mode <m>", "m", ["a", "b"]), n: value("--n <n>", "n"), on: flag("--on", "on"), v: list("--v <x>", "v"), r: negated("--no-r", "r"), d: defaulted("--d <x>", "d", "1") });
    expect(schema.safeParse({ mode: "a", n: "3", on: true, v: ["x"], r: true, d: "1" }).success).toBe(true);
    expect(schema.safeParse({ mode: "c", r: true, d: "1" }).success).toBe(false);
    expect(schema.safeParse({ n: true, r: true, d: "1" }).success).toBe(false);
    expect(schema.safeParse({ v: "x", r: true, d: "1" }).success).toBe(false);
    expect(schema.safeParse({ d: "1" }).success).toBe(false); // --no-r always gives r
  });

  it("a number flag reaches its command as a number; a bad one is one INVALID_ARGUMENT line naming the flag and its range (issue 42)", async () => {
    expect((await parse(["history", "--limit", "5"])).flags).toEqual({ limit: 5 });
    expect((await parse(["serve", "--max-cpu", "12.5", "--max-memory", "512M", "--cluster-lease", "300"])).flags).toMatchObject({ port: 3000, maxCpu: 12.5, maxMemory: 512 * 1024 ** 2, clusterLease: 300 });
    expect((await parse(["worker", "--concurrency", " 2 "])).flags).toMatchObject({ concurrency: 2 });
    const refused = async (argv: string[]) => {
      const e = await failure(argv);
      return `${e.code}: ${e.message}`;
    };
    expect(await refused(["serve", "--port", "70000"])).toBe('INVALID_ARGUMENT: --port must be a whole number from 0 to 65535, got "70000"');
    expect(await refused(["history", "--limit", "0"])).toBe('INVALID_ARGUMENT: --limit must be a whole number ≥ 1, got "0"');
    expect(await refused(["batch", "t.jsonl", "--task-timeout", "1.5"])).toBe('INVALID_ARGUMENT: --task-timeout must be a whole number of milliseconds ≥ 1, got "1.5"');
    expect(await refused(["mcp", "--http", "--idle-timeout", "soon"])).toBe('INVALID_ARGUMENT: --idle-timeout must be a whole number from 1 to 86400, got "soon"');
    expect(await refused(["serve", "--max-cpu", ""])).toBe('INVALID_ARGUMENT: --max-cpu must be a number above 0 and at most 100, got ""');
    // The help says the range the parser holds it to.
    expect(toOption(int("--n <n>", "how many", { min: 1, max: 9 })).description).toBe("how many; a whole number from 1 to 9");
  });

  it("a number flag's environment variable goes through the same parser (svc worker's SVC_WORKER_LOCK_MS)", async () => {
    const before = process.env.SVC_WORKER_LOCK_MS;
    try {
      process.env.SVC_WORKER_LOCK_MS = "45000";
      expect((await parse(["worker"])).flags).toMatchObject({ lockDuration: 45000 });
      expect((await parse(["worker", "--lock-duration", "100"])).flags).toMatchObject({ lockDuration: 100 });
      process.env.SVC_WORKER_LOCK_MS = "-1";
      const e = await failure(["worker"]);
      expect(`${e.code}: ${e.message}`).toBe('INVALID_ARGUMENT: --lock-duration must be a whole number of milliseconds ≥ 1, got "-1"');
    } finally {
      if (before === undefined) delete process.env.SVC_WORKER_LOCK_MS;
      else process.env.SVC_WORKER_LOCK_MS = before;
    }
  });
});
