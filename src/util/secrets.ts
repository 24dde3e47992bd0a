/**
 * The one masking mechanism: a session's secrets (variable values, what was typed into password fields) masked back
 * to `%name%` in everything that leaves for a model or is written down. Whole tokens only, every URL spelling,
 * structure (selectors, xpaths, refs, images) never rewritten, idempotent (rules: docs/models.md). What a caller gets
 * back is never masked: only copies on their way out.
 */

type Primitive = string | number | boolean;
/** A variable as the API takes it: the value, or `{value, description}`. */
export type SecretInput = Primitive | { value: Primitive; description?: string | undefined };

const TOKEN_CHAR = /[\p{L}\p{N}\p{M}]/u;
const DIGIT = /\p{N}/u;
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
/** Keys whose values are structure, not text: never rewritten. */
const STRUCTURAL_KEYS = new Set(["selector", "xpath", "ref", "image", "images", "screenshot"]);

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function valueOf(v: SecretInput): string {
  return String(typeof v === "object" && v !== null ? v.value : v);
}

/** The spellings a value takes in text and in URLs. */
function spellingsOf(value: string): string[] {
  const component = encodeURIComponent(value);
  let uri = value;
  try {
    uri = encodeURI(value);
  } catch {
    // a lone surrogate: no URL spelling
  }
  return [...new Set([value, component, component.replace(/%20/g, "+"), uri])];
}

export type Masker = <T>(value: T) => T;

export class Secrets {
  /** value → name; the first name a value was given keeps it. */
  private readonly values = new Map<string, string>();
  private compiled: { pattern: RegExp; names: Map<string, string> } | undefined;

  /** Remembers every value of a variables object (`{name: value | {value, description}}`). */
  remember(variables: Record<string, SecretInput> | undefined): void {
    for (const [name, v] of Object.entries(variables ?? {})) this.add(name, valueOf(v));
  }

  /** Remembers one value under `name` (masked as `%name%`). Empty and blank values are ignored. */
  add(name: string, value: string): void {
    if (!value.trim() || this.values.has(value) || !NAME.test(name)) return;
    this.values.set(value, name);
    this.compiled = undefined;
  }

  /**
   * Remembers a value typed into a password field under `base`, or `base_2`, `base_3`… when `base` already
   * names another value: each masked `%name%` then maps back to one value (valueFor).
   */
  addDistinct(base: string, value: string): void {
    if (this.values.has(value)) return;
    const taken = new Set(this.values.values());
    let name = base;
    for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
    this.add(name, value);
  }

  /** The value a `%name%` of this session's masking stands for (the latest one given that name), or undefined. */
  valueFor(name: string): string | undefined {
    let found: string | undefined;
    for (const [value, n] of this.values) if (n === name) found = value;
    return found;
  }

  /** Every remembered value with its name, oldest first (to keep them across commands: store/secrets.ts). */
  entries(): Array<{ name: string; value: string }> {
    return [...this.values].map(([value, name]) => ({ name, value }));
  }

  get size(): number {
    return this.values.size;
  }

  /** True when `text` holds a remembered value (any spelling) as a whole token. */
  has(text: string): boolean {
    return this.text(text) !== text;
  }

  /** Masks every remembered value (whole tokens, every spelling) in one string. */
  text(s: string): string {
    const c = this.compile();
    if (!c || !s) return s;
    return s.replace(c.pattern, (m) => c.names.get(m) ?? m);
  }

  /** A copy of a JSON-like value with every string masked (keys, structure and images untouched). */
  deep<T>(value: T): T {
    if (!this.compile()) return value;
    return this.walk(value, undefined, 0) as T;
  }

  /** `deep` as a function (for callers that take a masker). */
  readonly mask: Masker = (value) => this.deep(value);

  private walk(v: unknown, key: string | undefined, depth: number): unknown {
    if (key !== undefined && STRUCTURAL_KEYS.has(key)) return v;
    if (typeof v === "string") return v.startsWith("data:image/") || v.startsWith("xpath=") ? v : this.text(v);
    if (depth > 40 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => this.walk(x, undefined, depth + 1));
    if (v instanceof Date) return v;
    const o = v as Record<string, unknown>;
    if (typeof o.mediaType === "string" && typeof o.data === "string") return v;
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, this.walk(x, k, depth + 1)]));
  }

  private compile(): { pattern: RegExp; names: Map<string, string> } | undefined {
    if (this.values.size === 0) return undefined;
    if (this.compiled) return this.compiled;
    const names = new Map<string, string>();
    for (const [value, name] of this.values) for (const s of spellingsOf(value)) if (!names.has(s)) names.set(s, `%${name}%`);
    const placeholders = [...new Set(this.values.values())].map((n) => escapeRegExp(`%${n}%`));
    const alternatives = [...names.keys()]
      .sort((a, b) => b.length - a.length)
      .map((s) => {
        const chars = [...s];
        // A digit at an edge: `1` is not a token of `127.0.0.1` or `1,5` either (a number's own separators).
        const before = TOKEN_CHAR.test(chars[0]!) ? `(?<![\\p{L}\\p{N}\\p{M}])${DIGIT.test(chars[0]!) ? "(?<!\\p{N}[.,])" : ""}` : "";
        const after = TOKEN_CHAR.test(chars.at(-1)!) ? `(?![\\p{L}\\p{N}\\p{M}])${DIGIT.test(chars.at(-1)!) ? "(?![.,]\\p{N})" : ""}` : "";
        return `${before}${escapeRegExp(s)}${after}`;
      });
    // Placeholders first: an existing `%name%` is matched as itself and kept (masking twice changes nothing).
    this.compiled = { pattern: new RegExp([...placeholders, ...alternatives].join("|"), "gu"), names };
    return this.compiled;
  }
}
