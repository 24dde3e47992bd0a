/**
 * Descriptions an MCP tool's property and the CLI flag of the same capability share (tools.ts, and the
 * command registry in commands/): kept with the capabilities (capabilities/descriptions.ts), re-exported here.
 */
export { SHARED_DESCRIPTIONS } from "../capabilities/descriptions.js";
export { CAPS, type Cap } from "../capabilities/declare.js";
