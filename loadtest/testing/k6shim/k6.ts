/**
 * Test-only: the module `k6` for the scripts run by the tests, implementing what they use with k6's semantics:
 * `check` runs every predicate, records each result (tagged with the group) and returns whether all passed;
 * `group` runs its function inside a named group; `sleep` blocks the VU; `fail` throws.
 */
import { shimState } from "./state.ts"

export const check = <T>(value: T, sets: Record<string, (value: T) => boolean>, _tags?: object): boolean => {
  const state = shimState()
  let all = true
  for (const name of Object.keys(sets)) {
    const pass = sets[name]!(value) === true
    state.checks.push({ name, pass, group: state.group })
    if (!pass) all = false
  }
  return all
}

export const group = <T>(name: string, fn: () => T): T => {
  const state = shimState()
  const outer = state.group
  state.group = `${outer}::${name}`
  try {
    return fn()
  } finally {
    state.group = outer
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4))

export const sleep = (seconds: number): void => {
  shimState().sleeps.push(seconds)
  Atomics.wait(sleeper, 0, 0, seconds * 1000)
}

export const fail = (message?: string): never => {
  throw new Error(message)
}

export default { check, group, sleep, fail }
