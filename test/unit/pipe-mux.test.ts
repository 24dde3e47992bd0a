/**
 * The pipe mux's framing and routing on Chrome's exact wire shapes (the real-Chrome behaviour is in
 * test/e2e/pipe-mux.test.ts): messages split across reads, ids restored, the client's root session taken
 * out and a child session kept, whether a message is routed without parsing or parsed.
 */
import { describe, expect, it } from "vitest";
import { PipeMux } from "../../src/browser/pipe-mux.js";

function world() {
  const written: Array<Record<string, any>> = [];
  const mux = new PipeMux((text) => void written.push(JSON.parse(text)));
  const chrome = (text: string) => mux.feed(Buffer.from(`${text}\0`));
  return { written, mux, chrome };
}

async function client(w: ReturnType<typeof world>, root: string) {
  const got: string[] = [];
  const attaching = w.mux.attach({ send: (t) => void got.push(t), close: () => {} });
  const call = w.written.at(-1)!;
  expect(call.method).toBe("Target.attachToBrowserTarget");
  w.chrome(`{"id":${call.id},"result":{"sessionId":"${root}"}}`);
  return { got, c: await attaching };
}

describe("PipeMux routing", () => {
  it("splits Chrome's NUL-framed stream wherever the reads end", async () => {
    const w = world();
    const a = await client(w, "ROOTA");
    a.c.receive(JSON.stringify({ id: 7, method: "Runtime.evaluate", params: { expression: "1" } }));
    const sent = w.written.at(-1)!;
    expect(sent).toMatchObject({ method: "Runtime.evaluate", sessionId: "ROOTA" });
    expect(sent.id).not.toBe(7);
    const reply = Buffer.from(`{"id":${sent.id},"result":{"result":{"type":"number","value":1}},"sessionId":"ROOTA"}\0`);
    for (let i = 0; i < reply.length; i += 5) w.mux.feed(reply.subarray(i, i + 5));
    expect(a.got).toEqual([`{"id":7,"result":{"result":{"type":"number","value":1}}}`]);
  });

  it("keeps a child session on replies and events, drops events of sessions nobody owns", async () => {
    const w = world();
    const a = await client(w, "ROOTA");
    const b = await client(w, "ROOTB");
    a.c.receive(JSON.stringify({ id: 1, method: "Target.attachToTarget", params: { targetId: "T", flatten: true } }));
    w.chrome(`{"id":${w.written.at(-1)!.id},"result":{"sessionId":"CHILD"},"sessionId":"ROOTA"}`);
    expect(JSON.parse(a.got.at(-1)!)).toEqual({ id: 1, result: { sessionId: "CHILD" } });
    a.c.receive(JSON.stringify({ id: 2, method: "DOM.getDocument", sessionId: "CHILD" }));
    w.chrome(`{"id":${w.written.at(-1)!.id},"result":{"root":{}},"sessionId":"CHILD"}`);
    expect(a.got.at(-1)).toBe(`{"id":2,"result":{"root":{}},"sessionId":"CHILD"}`);
    w.chrome(`{"method":"Page.loadEventFired","params":{"timestamp":1},"sessionId":"CHILD"}`);
    w.chrome(`{"method":"Page.loadEventFired","params":{"timestamp":2},"sessionId":"NOBODY"}`);
    expect(a.got.at(-1)).toBe(`{"method":"Page.loadEventFired","params":{"timestamp":1},"sessionId":"CHILD"}`);
    expect(b.got).toEqual([]);
    b.c.receive(JSON.stringify({ id: 2, method: "DOM.getDocument", sessionId: "CHILD" }));
    expect(JSON.parse(b.got.at(-1)!)).toMatchObject({ id: 2, error: { message: expect.stringMatching(/not found/) } });
  });

  it("learns children from Target.attachedToTarget on its sessions, and forgets them when detached", async () => {
    const w = world();
    const a = await client(w, "ROOTA");
    w.chrome(`{"method":"Target.attachedToTarget","params":{"sessionId":"AUTO","targetInfo":{"targetId":"T2","type":"iframe"},"waitingForDebugger":false},"sessionId":"ROOTA"}`);
    expect(JSON.parse(a.got.at(-1)!)).toMatchObject({ method: "Target.attachedToTarget", params: { sessionId: "AUTO" } });
    expect(JSON.parse(a.got.at(-1)!).sessionId).toBeUndefined();
    a.c.receive(JSON.stringify({ id: 3, method: "Runtime.enable", sessionId: "AUTO" }));
    expect(w.written.at(-1)).toMatchObject({ method: "Runtime.enable", sessionId: "AUTO" });
    w.chrome(`{"method":"Target.detachedFromTarget","params":{"sessionId":"AUTO"},"sessionId":"ROOTA"}`);
    a.c.receive(JSON.stringify({ id: 4, method: "Runtime.enable", sessionId: "AUTO" }));
    expect(JSON.parse(a.got.at(-1)!)).toMatchObject({ id: 4, error: {} });
  });

  it("a client that leaves has its root session detached", async () => {
    const w = world();
    const a = await client(w, "ROOTA");
    a.c.close();
    expect(w.written.at(-1)).toMatchObject({ method: "Target.detachFromTarget", params: { sessionId: "ROOTA" } });
  });

  it("a tab with a URL is made at about:blank and sent there before the reply, which keeps the caller's id; Chrome's error comes back as it gave it", async () => {
    const w = world();
    const a = await client(w, "ROOTA");
    const tick = () => new Promise((r) => setImmediate(r));
    a.c.receive(JSON.stringify({ id: 9, method: "Target.createTarget", params: { url: "https://example.test/", background: true } }));
    const create = w.written.at(-1)!;
    expect(create).toMatchObject({ method: "Target.createTarget", params: { url: "about:blank", background: true } });
    w.chrome(`{"id":${create.id},"result":{"targetId":"NEW"}}`);
    await tick();
    const attach = w.written.at(-1)!;
    expect(attach).toMatchObject({ method: "Target.attachToTarget", params: { targetId: "NEW", flatten: true } });
    expect(a.got).toEqual([]);
    w.chrome(`{"id":${attach.id},"result":{"sessionId":"MUXS"}}`);
    await tick();
    expect(w.written.at(-1)).toMatchObject({ method: "Page.navigate", params: { url: "https://example.test/" }, sessionId: "MUXS" });
    expect(a.got).toEqual([`{"id":9,"result":{"targetId":"NEW"}}`]);
    // Its helper session leaves once the navigation answered.
    w.chrome(`{"id":${w.written.at(-1)!.id},"result":{"frameId":"F","loaderId":"L"},"sessionId":"MUXS"}`);
    await tick();
    expect(w.written.at(-1)).toMatchObject({ method: "Target.detachFromTarget", params: { sessionId: "MUXS" } });

    a.c.receive(JSON.stringify({ id: 10, method: "Target.createTarget", params: { url: "https://example.test/", browserContextId: "GONE" } }));
    w.chrome(`{"id":${w.written.at(-1)!.id},"error":{"code":-32602,"message":"Failed to find browser context with id GONE"}}`);
    await tick();
    expect(JSON.parse(a.got.at(-1)!)).toEqual({ id: 10, error: { code: -32602, message: "Failed to find browser context with id GONE" } });

    // about:blank#… is how a client marks a tab of its own (Stagehand 4's client target), which it checks at once.
    for (const url of ["about:blank", "about:blank#stagehand-client-connection", "", "not a url"]) {
      a.c.receive(JSON.stringify({ id: 11, method: "Target.createTarget", params: { url } }));
      expect(w.written.at(-1)).toMatchObject({ method: "Target.createTarget", params: { url }, sessionId: "ROOTA" });
    }
  });
});
