/**
 * The flags a child Node process needs to run a TypeScript file as `clearsim` runs its own (bin/clearsim.js):
 * none where Node strips types itself (Node 22.18 and later), tsx's loader elsewhere.
 */
export const typeScriptLoader: readonly string[] = process.features.typescript ? [] : ["--import", "tsx"]
