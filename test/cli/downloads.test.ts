/**
 * Downloads and dialogs of a CLI session through the built `svc`: a click on an attachment saves it under its
 * suggested name in the session's folder (never overwriting: "report (1).txt"), `svc downloads` lists it also after
 * its command exited; `--dialog accept` and `svc dialog accept "Ada"` decide what confirm() and prompt() return.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DOWNLOAD_BODY } from "../support/server.js";
import { json, svc, useCliWorld, waitFor } from "./helpers.js";

interface DownloadJson {
  name: string;
  path: string;
  size: number;
  state: string;
  url?: string;
}
interface DownloadsDoc {
  ok: boolean;
  folder: string;
  session?: string;
  downloads: DownloadJson[];
}

const world = useCliWorld({ session: true });
const run = (...args: string[]) => svc(args, world.sb.env);

async function ok(...args: string[]): Promise<string> {
  const r = await run(...args);
  expect(r.stderr, args.join(" ")).toBe("");
  expect(r.code, args.join(" ")).toBe(0);
  return r.stdout.trim();
}

/** Polls `check` until it returns a value. */
async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function listed(): Promise<DownloadsDoc> {
  return json<DownloadsDoc>(await ok("--json", "downloads"));
}

describe("svc downloads", () => {
  it("keeps a clicked download under its own name in the session's folder, a second one beside it, and lists both", async () => {
    await ok("goto", world.server.url("downloads.html"));
    await ok("click", "#report");
    const session = (await listed()).session!;
    const folder = join(world.sb.state, "downloads", session);
    const first = join(folder, "report.txt");
    await waitFor(() => existsSync(first) && statSync(first).size === DOWNLOAD_BODY.length);
    expect(readFileSync(first, "utf8")).toBe(DOWNLOAD_BODY);

    await ok("click", "#report");
    const second = join(folder, "report (1).txt");
    await waitFor(() => existsSync(second) && statSync(second).size === DOWNLOAD_BODY.length);
    expect(readFileSync(first, "utf8")).toBe(DOWNLOAD_BODY);

    const doc = await until(async () => {
      const d = await listed();
      // the records may say "in progress" for a moment after the file is complete
      return d.downloads.filter((x) => x.state === "completed").length === 2 ? d : undefined;
    });
    expect(doc.folder).toBe(folder);
    const url = world.server.url("/download?name=report.txt");
    expect(doc.downloads).toEqual([
      expect.objectContaining({ name: "report.txt", path: first, size: DOWNLOAD_BODY.length, state: "completed", url }),
      expect.objectContaining({ name: "report (1).txt", path: second, size: DOWNLOAD_BODY.length, state: "completed", url }),
    ]);

    const text = await ok("downloads");
    expect(text).toMatch(/^report\.txt\s+47 B\s+completed\s+\S+\s+http:\/\/localhost:\d+\/download\?name=report\.txt$/m);
    expect(text).toContain(`folder: ${folder}`);
  });

  it("lists a download that finished after the command that started it exited", async () => {
    await ok("goto", world.server.url("downloads.html"));
    const href = "/download?name=late.bin&bytes=300000&gate=late";
    await ok("eval", `(() => { const a = document.createElement('a'); a.href = '${href}'; a.id = 'late'; a.textContent = 'late'; document.body.append(a); return true; })()`);
    await ok("click", "#late");
    // The click's command has exited; the file is still arriving.
    const early = (await listed()).downloads.find((d) => d.url === world.server.url(href));
    expect(early?.state).toBe("inProgress");
    // Now the rest of the file comes, with no svc command running.
    expect((await fetch(world.server.url("/download-release?gate=late"))).status).toBe(200);
    const late = await until(async () => (await listed()).downloads.find((d) => d.name === "late.bin" && d.state === "completed"), 15_000);
    expect(late).toMatchObject({ size: 300_000, url: world.server.url(href) });
    expect(statSync(late.path).size).toBe(300_000);
  });
});

describe("dialogs", () => {
  it("--dialog accept makes confirm() return true for that command; the session's default dismisses", async () => {
    await ok("goto", world.server.url("alert-once.html?alert=none"));
    await ok("click", "#confirm-button");
    expect(await ok("get", "text", "#result")).toBe("confirm: false");
    await ok("--dialog", "accept", "click", "#confirm-button");
    expect(await ok("get", "text", "#result")).toBe("confirm: true");
  });

  it("svc dialog accept TEXT answers the session's next prompt() with TEXT, once", async () => {
    await ok("goto", world.server.url("alert-once.html?alert=none"));
    const r = await run("--json", "dialog", "accept", "Ada");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(json(r.stdout)).toMatchObject({ ok: true, answered: null, pending: true, next: { accept: true, promptText: "Ada" } });
    await ok("click", "#prompt-button");
    expect(await ok("get", "text", "#result")).toBe('prompt: "Ada"');
    // Used once: the next prompt is dismissed again.
    await ok("click", "#prompt-button");
    expect(await ok("get", "text", "#result")).toBe("prompt: null");
    expect(await ok("dialog", "dismiss")).toMatch(/^no dialog is open; session \w+ will dismiss its next dialog$/);
  });

  it("svc dialog refuses a word that is not accept or dismiss, naming it, and a text with dismiss", async () => {
    const r = await run("dialog", "maybe");
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('"maybe" is not accept or dismiss');
    const d = await run("dialog", "dismiss", "Ada");
    expect(d.code).not.toBe(0);
    expect(d.stderr).toContain("dialog: <promptText> is only for accept (what an accepted prompt() returns)");
  });
});

describe("svc sessions start --downloads DIR --dialog accept", () => {
  it("keeps both for the session: its downloads go to DIR, its dialogs are accepted without a flag", async () => {
    const dir = join(world.sb.tmp, "..", "my-downloads");
    await ok("--downloads", dir, "--dialog", "accept", "sessions", "start", "--name", "keeper", "--idle-timeout", "10");
    try {
      await ok("--session", "keeper", "goto", world.server.url("alert-once.html?alert=none"));
      await ok("--session", "keeper", "click", "#confirm-button");
      expect(await ok("--session", "keeper", "get", "text", "#result")).toBe("confirm: true");

      await ok("--session", "keeper", "goto", world.server.url("downloads.html"));
      await ok("--session", "keeper", "click", "#report");
      const doc = await until(async () => {
        const d = json<DownloadsDoc>(await ok("--json", "--session", "keeper", "downloads"));
        return d.downloads.some((x) => x.state === "completed") ? d : undefined;
      });
      expect(doc.folder).toBe(dir);
      expect(doc.downloads).toEqual([expect.objectContaining({ name: "report.txt", path: join(dir, "report.txt"), size: DOWNLOAD_BODY.length, state: "completed" })]);
    } finally {
      await run("sessions", "end", "keeper");
    }
    // The files outlive the session.
    expect(readFileSync(join(dir, "report.txt"), "utf8")).toBe(DOWNLOAD_BODY);
  });

  it("--downloads cannot move a running session's folder; a session that downloaded nothing leaves no folder", async () => {
    const moved = await run("--downloads", join(world.sb.tmp, "..", "elsewhere"), "get", "title");
    expect(moved.code).toBe(2);
    expect(moved.stderr).toMatch(/--downloads applies to a new session or a one-shot browser; session \w+ saves its downloads in \S+downloads/);

    const started = json<{ session: { id: string; downloadsDir: string } }>(await ok("--json", "sessions", "start", "--name", "empty", "--idle-timeout", "10"));
    expect(started.session.downloadsDir).toBe(join(world.sb.state, "downloads", started.session.id));
    expect(existsSync(started.session.downloadsDir)).toBe(true);
    await ok("sessions", "end", "empty");
    expect(existsSync(started.session.downloadsDir)).toBe(false);
  });
});
