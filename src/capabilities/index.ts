/**
 * The capabilities every door offers, each declared once (declare.ts): the CLI's verbs and the MCP server's
 * tools are generated from this list. Faces import it as an entry point, like src/internal.ts.
 */
import { agent } from "./agent.js";
import type { Capability } from "./declare.js";
import { DEVTOOLS_CAPABILITIES } from "./devtools.js";
import { DIALOG_CAPABILITIES } from "./dialog.js";
import { ELEMENT_CAPABILITIES } from "./element.js";
import { EMULATION_CAPABILITIES } from "./emulation.js";
import { EVALUATE_CAPABILITIES } from "./evaluate.js";
import { find } from "./find.js";
import { HISTORY_CAPABILITIES } from "./history.js";
import { MODEL_CAPABILITIES } from "./model.js";
import { navigate } from "./navigate.js";
import { NETWORK_CAPABILITIES } from "./network.js";
import { PDF_CAPABILITIES } from "./pdf.js";
import { ROUTE_CAPABILITIES } from "./routes.js";
import { PAGE_CAPABILITIES } from "./page.js";
import { tabs } from "./tabs.js";
import { TRACE_CAPABILITIES } from "./trace.js";
import { WAIT_CAPABILITIES } from "./wait.js";
import { WEB_CAPABILITIES } from "./web.js";

export const CAPABILITIES: readonly Capability[] = [navigate, ...ELEMENT_CAPABILITIES, find, ...HISTORY_CAPABILITIES, ...PAGE_CAPABILITIES, ...PDF_CAPABILITIES, ...WAIT_CAPABILITIES, ...EVALUATE_CAPABILITIES, ...DIALOG_CAPABILITIES, ...EMULATION_CAPABILITIES, ...DEVTOOLS_CAPABILITIES, ...NETWORK_CAPABILITIES, ...ROUTE_CAPABILITIES, ...TRACE_CAPABILITIES, tabs, ...WEB_CAPABILITIES, ...MODEL_CAPABILITIES, agent];

export { type AgentWatch, type Annotations, CAPS, type Cap, type Capability, type CapabilityContext, type CliDoor, type DialogAnswered, type DialogChoice, type Door, type DoorModel, type EmulationDoor, type Moved, type Navigated, type NetworkView, type Noted, type Outcome, type PageLogView, type Report, type RoutesDoor, type Scrolled, type SnapshotView, type Spell, type TabList, type TabRow, type TakenSnapshot, type TraceDoor, acts, capability, moves, outcomeText, readOnly, shapeFor } from "./declare.js";
export { type CliFlag, type CliVerb, argNames, cliFiles, cliFlags, cliInput, cliKind, cliSpell, cliVerbs, longFlag, positionalNames, propertyHelp } from "./cli-door.js";
