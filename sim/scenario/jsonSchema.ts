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
 * by name, whose `additionalProperties` is a schema, are left as they are.) Numbers without a maximum get the
 * largest double as one: an infinity is refused, as the loader refuses it. A field's description is on the field.
 */
const closeObjects = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(closeObjects)
  if (typeof node !== "object" || node === null) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) out[key] = closeObjects(value)
  // Only object schemas (`type: "object"`), not the map of a schema's properties (a scenario has a field named `properties`).
  if (out["type"] === "object" && "properties" in out && (out["additionalProperties"] === undefined || out["additionalProperties"] === true)) out["additionalProperties"] = false
  // A description the generator left on a check it could not inline (in `allOf`) goes on the field, where editors show it.
  if (out["description"] === undefined && Array.isArray(out["allOf"])) {
    const described = (out["allOf"] as Record<string, unknown>[]).find((check) => typeof check["description"] === "string")
    if (described !== undefined) {
      out["description"] = described["description"]
      delete described["description"]
    }
  }
  // Every number of a scenario is finite (Schema.Finite, or an integer): the loader refuses YAML's `.inf`, which JSON
  // Schema's `type: "number"` takes. JSON has no infinity to exclude, but the largest double as a maximum refuses it.
  if (out["type"] === "number" && out["maximum"] === undefined && out["exclusiveMaximum"] === undefined) out["maximum"] = Number.MAX_VALUE
  return out
}

export const renderScenarioJsonSchema = (): string => `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`
