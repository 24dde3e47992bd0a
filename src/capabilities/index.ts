/**
 * The capabilities every door offers, each declared once (declare.ts): the CLI's verbs and the MCP server's
 * tools are generated from this list. Faces import it as an entry point, like src/internal.ts.
 */
import type { Capability } from "./declare.js";
import { ELEMENT_CAPABILITIES } from "./element.js";
import { HISTORY_CAPABILITIES } from "./history.js";
import { WEB_CAPABILITIES } from "./web.js";

export const CAPABILITIES: readonly Capability[] = [...ELEMENT_CAPABILITIES, ...HISTORY_CAPABILITIES, ...WEB_CAPABILITIES];

export { type Annotations, CAPS, type Cap, type Capability, type CapabilityContext, type Door, type Moved, type Noted, type Outcome, type Report, type Scrolled, acts, capability, moves, outcomeText, readOnly, shapeFor } from "./declare.js";
export { type CliFlag, type CliVerb, argNames, cliFlags, longFlag, cliInput, cliVerbs, positionalNames, propertyHelp } from "./cli-door.js";
