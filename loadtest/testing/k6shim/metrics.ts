/**
 * Test-only: the module `k6/metrics` for the scripts run by the tests: `Rate` records each sample (true or false)
 * under its metric name, for the threshold evaluator.
 */
import { shimState } from "./state.ts"

export class Rate {
  readonly name: string
  constructor(name: string) {
    this.name = name
    // As k6: a metric is created in the init context (the module's top level), not in setup or an iteration.
    if (shimState().initDone) throw new Error(`Rate ${name}: metrics can be created only in the init context`)
  }

  add(value: number | boolean): void {
    shimState().rates.push({ metric: this.name, value: value !== 0 && value !== false })
  }
}

export default { Rate }
