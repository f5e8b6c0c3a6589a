/**
 * Reverts of hub calls. A reverted call changes nothing: every operation validates the whole call before its
 * first state change. `errorName` is the contract-style error name; `message` says what was wrong and why.
 */
export class HubRevert extends Error {
  override readonly name = "HubRevert"
  constructor(
    /** Contract-style error name, e.g. `Handler_HandleExpiredIntents_NotExpired`. */
    readonly errorName: string,
    message: string,
  ) {
    super(message)
  }
}

/** A violated conservation identity: the engine is wrong, not the input. Carries the first bad quantity. */
export class ConservationViolation extends Error {
  override readonly name = "ConservationViolation"
  constructor(
    readonly ticker: string,
    readonly quantity: string,
    readonly expected: bigint,
    readonly actual: bigint,
  ) {
    super(`conservation violated for ${ticker}: ${quantity} is ${actual}, expected ${expected}`)
  }
}
