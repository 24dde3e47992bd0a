/**
 * Saved logins and named sessions through the built CLI, on a fixture site with a cookie session
 * (test/support/login.ts: a session-only HttpOnly cookie, plus localStorage and sessionStorage values the
 * page shows): sign in → state save → end → a new session started with --state, and `state load` into a
 * fresh one, are still signed in with the same storage. Encrypted files, wrong keys, names.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectOneLine, json, svc, useCliWorld } from "./helpers.js";

const world = useCliWorld();

async function ok(args: string[], env: NodeJS.ProcessEnv = world.sb.env) {
  const r = await svc(args, env);
  expect(r.stderr, `svc ${args.join(" ")}`).toBe("");
  expect(r.code, `svc ${args.join(" ")}`).toBe(0);
  return r.stdout;
}

const action = (selector: string, method: string, args: string[] = []) =>
  JSON.stringify({ selector, description: `${method} ${selector}`, method, arguments: args });

/** What the login page shows in `session` (the page text, no model). */
async function loginPage(session: string): Promise<string> {
  await ok(["--session", session, "goto", world.server.url("/login")]);
  return ok(["--session", session, "extract"]);
}

const SIGNED_IN = ["signed in as Ada", "local theme: dark", "session draft: hello"];

describe("svc state and named sessions", () => {
  const file = () => join(world.sb.tmp, "login.json");

  it("a saved login survives into a new session (start --state) and into a fresh one (state load); with a state key the file is encrypted, no key or a wrong key is a clear error", async () => {
    await ok(["sessions", "start", "--name", "shop"]);
    await loginPage("shop");
    await ok(["--session", "shop", "act", "--action", action("#user", "fill", ["Ada"])]);
    await ok(["--session", "shop", "act", "--action", action("#signin", "click")]);
    const before = await ok(["--session", "shop", "extract"]);
    for (const s of SIGNED_IN) expect(before).toContain(s);

    const saved = json<{ file: string; encrypted: boolean; cookies: number }>(await ok(["--json", "--session", "shop", "state", "save", file()]));
    expect(saved.encrypted).toBe(false);
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    const state = JSON.parse(readFileSync(file(), "utf8")) as { cookies: { name: string; expires: number; httpOnly: boolean }[]; origins: unknown[] };
    expect(state.cookies).toContainEqual(expect.objectContaining({ name: "sid", expires: -1, httpOnly: true }));
    await ok(["sessions", "end", "shop"]);

    // A new browser with the state: still signed in, with the page's local and session storage.
    await ok(["sessions", "start", "--name", "shop2", "--state", file()]);
    const after = await loginPage("shop2");
    for (const s of SIGNED_IN) expect(after).toContain(s);
    await ok(["sessions", "end", "shop2"]);

    // A fresh session is signed out until the state is loaded into it.
    await ok(["sessions", "start", "--name", "fresh"]);
    expect(await loginPage("fresh")).toContain("signed out");
    await ok(["--session", "fresh", "state", "load", file()]);
    // The tab is back on the page it showed, reloaded with the state.
    const reloaded = await ok(["--session", "fresh", "extract"]);
    for (const s of SIGNED_IN) expect(reloaded).toContain(s);
    const loaded = await loginPage("fresh");
    for (const s of SIGNED_IN) expect(loaded).toContain(s);

    // With a state key the file is encrypted; no key or a wrong key is a clear error (on the same session, signed
    // in: the sealed file holds a real session cookie, which must not show).
    const noKey = await svc(["--session", "fresh", "state", "save", "--encrypt", join(world.sb.tmp, "x.json")], world.sb.env);
    expect(noKey.code).toBe(2);
    expect(expectOneLine(noKey.stderr)).toMatch(/--encrypt needs a state key/);

    const keyed = { ...world.sb.env, SVC_STATE_KEY: "correct horse battery staple" };
    const sealed = join(world.sb.tmp, "sealed.state");
    expect(json<{ encrypted: boolean }>(await ok(["--json", "--session", "fresh", "state", "save", file().replace("login", "plain-src"), "--encrypt"], keyed)).encrypted).toBe(true);
    await ok(["--session", "fresh", "state", "save", sealed], keyed);
    const text = readFileSync(sealed, "utf8");
    expect(statSync(sealed).mode & 0o777).toBe(0o600);
    expect(() => JSON.parse(text) as unknown).toThrow();
    expect(text).not.toContain("sid");
    expect(text.split("\n")[0]).toBe("svc-state v1 aes-256-gcm scrypt");

    const wrong = await svc(["--session", "fresh", "state", "load", sealed], { ...world.sb.env, SVC_STATE_KEY: "not the key at all" });
    expect(wrong.code).toBe(8);
    expect(expectOneLine(wrong.stderr)).toMatch(/wrong state key/);
    const missing = await svc(["--session", "fresh", "state", "load", sealed], world.sb.env);
    expect(missing.code).toBe(8);
    expect(expectOneLine(missing.stderr)).toMatch(/is encrypted and no state key is configured/);
    await ok(["--session", "fresh", "state", "load", sealed], keyed);
    await ok(["sessions", "end", "fresh"]);

    // start --state reads the file before launching: a wrong key leaves no session behind.
    const refused = await svc(["sessions", "start", "--name", "vault2", "--state", sealed], { ...world.sb.env, SVC_STATE_KEY: "not the key at all" });
    expect(refused.code).toBe(8);
    expect(expectOneLine(refused.stderr)).toMatch(/wrong state key/);
    expect(json<{ sessions: unknown[] }>(await ok(["--json", "sessions", "list"])).sessions).toEqual([]);
  });

  it("names: listed, used by --session, unique among live sessions, validated, ended by name", async () => {
    const { session } = json<{ session: { id: string; name: string } }>(await ok(["--json", "sessions", "start", "--name", "docs"]));
    expect(session.name).toBe("docs");
    const listed = json<{ sessions: { id: string; name?: string }[] }>(await ok(["--json", "sessions", "list"]));
    expect(listed.sessions).toContainEqual(expect.objectContaining({ id: session.id, name: "docs" }));
    expect(await ok(["sessions", "list"])).toMatch(/docs/);

    const dup = await svc(["sessions", "start", "--name", "docs"], world.sb.env);
    expect(dup.code).toBe(2);
    expect(expectOneLine(dup.stderr)).toMatch(/--name "docs" is taken by live session/);
    const bad = await svc(["sessions", "start", "--name", "no spaces"], world.sb.env);
    expect(bad.code).toBe(2);
    expect(expectOneLine(bad.stderr)).toMatch(/invalid --name/);

    await ok(["--session", "docs", "goto", world.server.url("/login")]);
    expect(await ok(["sessions", "show", "docs"])).toContain(`session ${session.id}: alive`);
    const history = json<{ entries: { method: string }[] }>(await ok(["--json", "--session", "docs", "history"]));
    expect(history.entries.map((e) => e.method)).toContain("navigate");
    expect(await ok(["sessions", "end", "docs"])).toContain(`ended session ${session.id}`);
    const gone = await svc(["--session", "docs", "goto", world.server.url("/login")], world.sb.env);
    expect(gone.code).toBe(4);
  });
});
