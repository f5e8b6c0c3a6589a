/**
 * The JSON Schema of scenario files, generated from the Effect Schema (so editors validate and complete YAML
 * with yaml-language-server's `# yaml-language-server: $schema=./scenario.schema.json`). `npx clearsim schema`
 * rewrites `scenarios/scenario.schema.json`; a test fails when the committed file is stale.
 */
import * as Schema from "effect/Schema"
import { ScenarioSpec } from "./schema.ts"

export const scenarioJsonSchema = (): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(ScenarioSpec)
  return closeObjects({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://clearsim.dev/scenario.schema.json",
    title: "clearsim scenario",
    ...document.schema,
    ...(Object.keys(document.definitions).length > 0 ? { $defs: document.definitions } : {}),
  }) as Record<string, unknown>
}

/**
 * Objects with named properties take no others (`additionalProperties: false`), as the loader refuses an unknown
 * key: an editor then flags `duplicateProbabilty` as the loader would. (The generator leaves them open; maps keyed
 * by name, whose `additionalProperties` is a schema, are left as they are.)
 */
const closeObjects = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(closeObjects)
  if (typeof node !== "object" || node === null) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) out[key] = closeObjects(value)
  // Only object schemas (`type: "object"`), not the map of a schema's properties (a scenario has a field named `properties`).
  if (out["type"] === "object" && "properties" in out && (out["additionalProperties"] === undefined || out["additionalProperties"] === true)) out["additionalProperties"] = false
  return out
}

export const renderScenarioJsonSchema = (): string => `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`
