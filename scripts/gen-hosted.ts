// Writes commands/registry/hosted.ts from the command registry (see commands/registry/hosted-source.ts).
import { writeFileSync } from "node:fs";
import { hostedSource } from "../commands/registry/hosted-source.js";

writeFileSync(new URL("../commands/registry/hosted.ts", import.meta.url), hostedSource());
