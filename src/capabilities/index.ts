/**
 * The capabilities every door offers, each declared once (declare.ts): the CLI's verbs and the MCP server's
 * tools are generated from this list. Faces import it as an entry point, like src/internal.ts.
 */
import type { Capability } from "./declare.js";
import { ELEMENT_CAPABILITIES } from "./element.js";
import { HISTORY_CAPABILITIES } from "./history.js";
import { navigate } from "./navigate.js";
import { resize } from "./resize.js";
import { tabs } from "./tabs.js";

export const CAPABILITIES: readonly Capability[] = [navigate, ...ELEMENT_CAPABILITIES, ...HISTORY_CAPABILITIES, tabs, resize] as readonly Capability[];

export { type Annotations, CAPS, type Cap, type Capability, type CapabilityContext, type Door, type Moved, type Navigated, type Outcome, type Report, type Scrolled, type TabList, type TabRow, acts, capability, moves, outcomeText, readOnly, shapeFor } from "./declare.js";
export { type CliFlag, type CliVerb, argNames, cliFlags, cliInput, cliKind, cliVerbs, positionalNames, propertyHelp } from "./cli-door.js";
