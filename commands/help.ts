/**
 * What `svc <command> --help` shows besides commander's own lines: the global flags every command inherits
 * (commander's showGlobalOptions) and one or two examples per command, kept here in one table so that the
 * registration code in main.ts stays about flags. A command missing from the table shows no examples; the
 * CLI help test fails for it, so a new command cannot ship without them.
 */
import type { Command } from "commander";

export const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  "sessions start": ["svc sessions start --name shop", "svc sessions start --state login.state --headed", "svc sessions start --downloads ./dl --dialog accept"],
  "sessions list": ["svc sessions list", "svc --json sessions list"],
  "sessions show": ["svc sessions show 3f2a9c1e"],
  "sessions end": ["svc sessions end", "svc sessions end --all"],
  "state save": ["svc state save login.state", "svc state save login.state --encrypt"],
  "state load": ["svc state load login.state"],
  open: ["svc open https://example.com", "svc open localhost:3000 && svc snapshot -i"],
  goto: ["svc goto https://example.com", "svc goto localhost:3000/login --wait-until networkidle"],
  back: ["svc back"],
  forward: ["svc forward"],
  reload: ["svc reload"],
  wait: ["svc wait e4", 'svc wait --text "Order placed" --timeout 10000'],
  eval: ['svc eval "document.title"'],
  tabs: ["svc tabs", "svc tabs new https://example.com"],
  downloads: ["svc downloads", "svc --json downloads"],
  dialog: ['svc dialog accept "Ada"', "svc dialog dismiss"],
  snapshot: ["svc snapshot -i", "svc snapshot https://example.com -i", "svc --json snapshot --max-tokens 2000"],
  click: ["svc click e3", 'svc click "#submit"'],
  dblclick: ["svc dblclick e7"],
  hover: ["svc hover e4"],
  focus: ["svc focus e2"],
  fill: ['svc fill e1 "Ada Lovelace"'],
  type: ['svc type e1 " Lovelace"'],
  press: ["svc press Enter", "svc press e1 Tab"],
  select: ["svc select e6 Norway"],
  check: ["svc check e5"],
  uncheck: ["svc uncheck e5"],
  scroll: ["svc scroll down", "svc scroll e9 bottom"],
  drag: ["svc drag e3 e8"],
  upload: ["svc upload e5 ./cv.pdf"],
  get: ["svc get title", "svc get value e1"],
  act: ['svc act "click the sign in button"', 'svc act "type %pass% into the password field" --variables pass=s3cret'],
  observe: ['svc observe "find the search box"'],
  extract: ["svc extract https://example.com", 'svc extract "the article titles" --schema schema.json'],
  screenshot: ["svc screenshot -o page.png", "svc screenshot https://example.com -o page.png --full-page"],
  fetch: ["svc fetch https://example.com", "svc fetch https://example.com/data.json --format json"],
  search: ['svc search "chromium release notes" -n 5'],
  agent: ['svc agent "find the cheapest flight to Oslo" --url https://example.com --max-steps 20'],
  batch: ["svc batch tasks.jsonl --concurrency 4 -o results.jsonl", "svc batch tasks.jsonl --queue redis://10.0.0.5:6379 --detach"],
  worker: ["svc worker --queue redis://10.0.0.5:6379 --concurrency 2"],
  history: ["svc history --limit 10"],
  metrics: ["svc metrics", "svc --json metrics"],
  "config get": ["svc config get model"],
  "config set": ["svc config set model openai/gpt-4.1-mini"],
  "config unset": ["svc config unset model"],
  "config list": ["svc config list"],
  "config path": ["svc config path"],
  serve: ["svc serve --port 3000", "svc serve --api-key key-a --api-key key-b"],
  init: ["svc init"],
  mcp: ["svc mcp", "svc mcp --http --port 3100"],
};

/** `sessions start` for a subcommand, `goto` for a top-level one. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Every command that runs something (has no subcommands), depth first. */
export function leafCommands(root: Command): Command[] {
  return root.commands.flatMap((c) => (c.commands.length ? leafCommands(c) : [c]));
}

/** Called once, after every command is registered. */
export function addHelp(program: Command): void {
  const all = (c: Command): Command[] => [c, ...c.commands.flatMap(all)];
  for (const cmd of all(program)) cmd.configureHelp({ ...cmd.configureHelp(), showGlobalOptions: true });
  for (const cmd of leafCommands(program)) {
    const examples = EXAMPLES[commandPath(cmd)];
    if (examples?.length) cmd.addHelpText("after", `\nExamples:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n`);
  }
}

/** commander's "unknown command 'gotoo'\n(Did you mean goto?)" as one line: `unknown command 'gotoo' (did you mean goto?)`. */
export function usageMessage(message: string): string {
  return message
    .replace(/^error:\s*/, "")
    .replace(/\s*\n\s*\(Did you mean (.+?)\?\)/, " (did you mean $1?)")
    .replace(/\s*\n\s*/g, " ");
}
