/** Page → compact text outline for a model, with refs back to the elements (see ARCHITECTURE.md). */
export { captureSnapshot, type Snapshot, type SnapshotOptions, type SnapshotSource } from "./capture.js";
export { RefMap, type RefLookup, type RefTarget } from "./refs.js";
export { PageRefs, type RefState } from "./registry.js";
export { documentOf, resolveRef } from "./resolve-ref.js";
export { render, estimateTokens, type RenderOptions, type Rendered } from "./render.js";
export { buildTree, displayRole, type AXNodeLike, type AXPropertyLike, type AXValueLike, type BuildOptions, type BuiltTree, type FrameAXTree, type SnapNode } from "./tree.js";
export { DERIVED_NAME_GUIDE } from "./icon-name.js";
export { OutlinesSchema, deltaBase, keepOutline, type Outline, type OutlineLine } from "./delta.js";
