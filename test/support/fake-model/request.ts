/**
 * Requests of the three wire formats, reduced to one shape: who is asking (system text, messages), for
 * what (the schema or forced tool, its name) and how the JSON must come back (response format or tool).
 */

export type WireFormat = "responses" | "chat" | "anthropic";

/** How the client asked for JSON: a response format (the text is the JSON) or a forced tool call. */
export type JsonVia = "text" | "tool";

export interface NormalizedRequest {
  model: string | undefined;
  stream: boolean;
  /** chat only: `stream_options.include_usage`. */
  includeUsage: boolean;
  /** The schema / tool name; guessed from the schema or system prompt when the request names none. */
  operation: string;
  schema: Record<string, unknown> | undefined;
  jsonVia: JsonVia;
  systemText: string;
  messages: Array<{ role: string; text: string }>;
  /** All user messages' text, joined by a blank line. */
  userText: string;
  /** The user message that carries the prompt layout (the last one with an `Instruction:` line). */
  promptText: string;
}

type Obj = Record<string, any>;

/** Which wire format a path speaks (any prefix before the endpoint is accepted), or undefined. */
export function detectFormat(pathname: string): WireFormat | undefined {
  const p = pathname.replace(/\/+$/, "");
  if (p.endsWith("/chat/completions")) return "chat";
  if (p.endsWith("/responses")) return "responses";
  // Anthropic on Vertex (`…/models/{m}:rawPredict`, `:streamRawPredict`) and Bedrock InvokeModel (`/model/{m}/invoke`, JSON only).
  if (p.endsWith("/messages") || /:(stream)?rawPredict$/i.test(p) || /\/model\/[^/]+\/invoke$/.test(p)) return "anthropic";
  return undefined;
}

/** Text of a message content: a string, or the text of its text parts (text, input_text, output_text). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: Obj) => {
      if (typeof part === "string") return part;
      if (typeof part?.text === "string") return part.text;
      if (part?.type === "tool_result") return contentText(part.content);
      return "";
    })
    .filter(Boolean)
    .join("\n");
}

function modelFromPath(pathname: string): string | undefined {
  const m = /\/deployments\/([^/]+)\//.exec(pathname) ?? /\/models\/([^/:]+):/.exec(pathname) ?? /\/model\/([^/]+)\/invoke/.exec(pathname);
  return m ? decodeURIComponent(m[1]!) : undefined;
}

/** When the request names no schema/tool (json_object, Anthropic output_config): act, observe or extract by the schema's shape or the system prompt. */
function guessOperation(schema: Obj | undefined, system: string): string {
  const props = (schema?.properties ?? {}) as Obj;
  if ("twoStep" in props || ("ref" in props && "method" in props)) return "act";
  if ("elements" in props) return "observe";
  if (schema) return "extract";
  return /list the elements/i.test(system) ? "observe" : /extract information/i.test(system) ? "extract" : "act";
}

/** The schema a client wrote into the system prompt (src/model/capabilities.ts schemaInstructions), as a model reads it. */
const PROMPT_SCHEMA = /JSON object \(no prose, no code fence\) for "([^"]+)" that follows this JSON Schema:\n(.+)$/m;

function schemaFromPrompt(system: string): { operation: string; schema: Obj } | undefined {
  const m = PROMPT_SCHEMA.exec(system);
  if (!m) return undefined;
  try {
    return { operation: m[1]!, schema: JSON.parse(m[2]!) as Obj };
  } catch {
    return undefined;
  }
}

function finish(given: Omit<NormalizedRequest, "userText" | "promptText" | "operation"> & { operation: string | undefined }): NormalizedRequest {
  // No schema in the request (json_object, prompt-only JSON): the one in the prompt names the reply.
  const inPrompt = given.schema ? undefined : schemaFromPrompt(given.systemText);
  const base = inPrompt ? { ...given, operation: given.operation || inPrompt.operation, schema: inPrompt.schema } : given;
  const users = base.messages.filter((m) => m.role === "user");
  const withLayout = [...users].reverse().find((m) => /^Instruction: /m.test(m.text));
  return {
    ...base,
    operation: base.operation || guessOperation(base.schema, base.systemText),
    userText: users.map((m) => m.text).join("\n\n"),
    promptText: (withLayout ?? users[users.length - 1])?.text ?? "",
  };
}

const SYSTEM_ROLES = new Set(["system", "developer"]);

function splitSystem(items: Array<{ role: string; text: string }>, extraSystem: string[]): Pick<NormalizedRequest, "systemText" | "messages"> {
  const system = [...extraSystem];
  const messages: Array<{ role: string; text: string }> = [];
  for (const m of items) (SYSTEM_ROLES.has(m.role) ? system.push(m.text) : messages.push(m));
  return { systemText: system.filter(Boolean).join("\n\n"), messages };
}

/** A request that carries a provider computer-use tool (OpenAI computer_use_preview, Anthropic computer_2025…). */
export function isComputerUse(body: Obj): boolean {
  return (Array.isArray(body.tools) ? body.tools : []).some((t: Obj) => t?.type === "computer_use_preview" || /^computer_\d+$/.test(String(t?.type ?? "")));
}

export function normalizeRequest(format: WireFormat, body: Obj, pathname: string): NormalizedRequest {
  const norm = normalizeWire(format, body, pathname);
  return isComputerUse(body) ? { ...norm, operation: "computer_use", schema: undefined } : norm;
}

function normalizeWire(format: WireFormat, body: Obj, pathname: string): NormalizedRequest {
  const model = typeof body.model === "string" ? body.model : modelFromPath(pathname);
  const stream = body.stream === true || /:streamRawPredict$/i.test(pathname);
  if (format === "responses") {
    const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : Array.isArray(body.input) ? body.input : [];
    const items = input.filter((i: Obj) => typeof i?.role === "string").map((i: Obj) => ({ role: i.role as string, text: contentText(i.content) }));
    const fmt = body.text?.format;
    const forced = body.tool_choice?.type === "function" ? body.tool_choice.name : undefined;
    const tool = (body.tools ?? []).find((t: Obj) => t?.type === "function" && (forced ? t.name === forced : true));
    const viaText = fmt?.type === "json_schema" || fmt?.type === "json_object" || !tool;
    return finish({
      model,
      stream,
      includeUsage: true,
      operation: viaText ? fmt?.name : tool.name,
      schema: viaText ? fmt?.schema : tool.parameters,
      jsonVia: viaText ? "text" : "tool",
      ...splitSystem(items, [typeof body.instructions === "string" ? body.instructions : ""]),
    });
  }
  if (format === "chat") {
    const items = (body.messages ?? []).map((m: Obj) => ({ role: String(m.role), text: contentText(m.content) }));
    const rf = body.response_format;
    const forced = body.tool_choice?.type === "function" ? body.tool_choice.function?.name : undefined;
    const tools = (body.tools ?? []).filter((t: Obj) => t?.type === "function");
    const tool = forced ? tools.find((t: Obj) => t.function?.name === forced) : body.tool_choice === "required" ? tools[0] : undefined;
    const viaText = rf?.type === "json_schema" || rf?.type === "json_object" || !tool;
    return finish({
      model,
      stream,
      includeUsage: body.stream_options?.include_usage === true,
      operation: viaText ? rf?.json_schema?.name : tool.function.name,
      schema: viaText ? rf?.json_schema?.schema : tool.function.parameters,
      jsonVia: viaText ? "text" : "tool",
      ...splitSystem(items, []),
    });
  }
  const items = (body.messages ?? []).map((m: Obj) => ({ role: String(m.role), text: contentText(m.content) }));
  const tools: Obj[] = Array.isArray(body.tools) ? body.tools : [];
  const forced = body.tool_choice?.type === "tool" ? body.tool_choice.name : undefined;
  const tool = (forced ? tools.find((t) => t.name === forced) : undefined) ?? (body.tool_choice?.type === "none" ? undefined : tools[0]);
  const outFmt = body.output_config?.format ?? body.output_format;
  const viaText = outFmt?.type === "json_schema" || !tool;
  return finish({
    model,
    stream,
    includeUsage: true,
    operation: viaText ? outFmt?.name : tool.name,
    schema: viaText ? outFmt?.schema : tool.input_schema,
    jsonVia: viaText ? "text" : "tool",
    ...splitSystem(items, [contentText(body.system)]),
  });
}

/** Rough token count of what the model was sent: ceil(chars / 4) over system, messages and schema. */
export function inputTokens(req: NormalizedRequest): number {
  const schema = req.schema ? JSON.stringify(req.schema) : "";
  // A schema read from the system prompt is counted there already.
  const chars = req.systemText.length + req.messages.reduce((n, m) => n + m.text.length, 0) + (req.systemText.includes(schema) ? 0 : schema.length);
  return Math.ceil(chars / 4);
}
