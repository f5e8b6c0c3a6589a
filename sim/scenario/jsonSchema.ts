/**
 * The JSON Schema of scenario files, generated from the Effect Schema (so editors validate and complete YAML
 * with yaml-language-server's `# yaml-language-server: $schema=./scenario.schema.json`). `npx clearsim schema`
 * rewrites `scenarios/scenario.schema.json`; a test fails when the committed file is stale.
 */
import { Schema } from "effect"
import { ScenarioSpec } from "./schema.ts"

export const scenarioJsonSchema = (): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(ScenarioSpec)
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://clearsim.dev/scenario.schema.json",
    title: "clearsim scenario",
    ...document.schema,
    ...(Object.keys(document.definitions).length > 0 ? { $defs: document.definitions } : {}),
  }
}

export const renderScenarioJsonSchema = (): string => `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`
