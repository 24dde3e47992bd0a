/**
 * `svc init`'s probe of local model servers (commands/model/local-models.ts): a server answering `/models` with
 * an OpenAI model list gives its ids; one that is down, slow, or answers something else counts as not answering.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LOCAL_SERVERS, probeLocalServers, probeModels } from "../../commands/model/local-models.js";

let server: Server;
let origin = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/v1/models") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data: [{ id: "llama3.1:8b" }, { id: "qwen2.5:7b" }] }));
    if (req.url === "/slow/v1/models") return void setTimeout(() => res.writeHead(200).end("{}"), 2000);
    res.writeHead(404).end("no");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe("local model server probe", () => {
  it("lists the model ids of a server that answers; undefined for 404, a slow one and a closed port", async () => {
    expect(await probeModels(`${origin}/v1`)).toEqual(["llama3.1:8b", "qwen2.5:7b"]);
    expect(await probeModels(`${origin}/v1/`)).toEqual(["llama3.1:8b", "qwen2.5:7b"]);
    expect(await probeModels(`${origin}/other/v1`)).toBeUndefined();
    expect(await probeModels(`${origin}/slow/v1`, 200)).toBeUndefined();
    expect(await probeModels("http://127.0.0.1:9/v1", 500)).toBeUndefined();
  });

  it("covers the four presets at their default URLs and probes them together", async () => {
    expect(LOCAL_SERVERS.map((s) => [s.preset, s.baseURL])).toEqual([
      ["ollama", "http://localhost:11434/v1"],
      ["lmstudio", "http://localhost:1234/v1"],
      ["vllm", "http://localhost:8000/v1"],
      ["llamacpp", "http://localhost:8080/v1"],
    ]);
    const probes = await probeLocalServers([{ preset: "ollama", label: "Ollama", baseURL: `${origin}/v1` }, { preset: "vllm", label: "vLLM", baseURL: "http://127.0.0.1:9/v1" }], 500);
    expect(probes.map((p) => p.models)).toEqual([["llama3.1:8b", "qwen2.5:7b"], undefined]);
  });
});
