/**
 * The capabilities every door offers, each declared once (declare.ts): the CLI's verbs and the MCP server's
 * tools are generated from this list. Faces import it as an entry point, like src/internal.ts.
 */
import type { Capability } from "./declare.js";
import { ELEMENT_CAPABILITIES } from "./element.js";
import { EVALUATE_CAPABILITIES } from "./evaluate.js";
import { HISTORY_CAPABILITIES } from "./history.js";
import { WAIT_CAPABILITIES } from "./wait.js";

export const CAPABILITIES: readonly Capability[] = [...ELEMENT_CAPABILITIES, ...HISTORY_CAPABILITIES, ...WAIT_CAPABILITIES, ...EVALUATE_CAPABILITIES];

export { type Annotations, CAPS, type Cap, type Capability, type CapabilityContext, type Door, type Moved, type Outcome, type Report, type Scrolled, type Spell, acts, capability, moves, outcomeText, readOnly, shapeFor } from "./declare.js";
export { type CliFlag, type CliVerb, argNames, cliFlags, cliSpell, cliInput, cliVerbs, positionalNames, propertyHelp } from "./cli-door.js";
