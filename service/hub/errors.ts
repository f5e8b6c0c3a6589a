/**
 * Reverts of hub calls. A reverted call changes nothing: every operation validates the whole call before its
 * first state change. `errorName` is the contract-style error name; `message` says what was wrong and why.
 */
export class HubRevert extends Error {
  override readonly name = "HubRevert"
  /** Contract-style error name, e.g. `Handler_HandleExpiredIntents_NotExpired`. */
  readonly errorName: string
  constructor(errorName: string, message: string) {
    super(message)
    this.errorName = errorName
  }
}

/** A violated conservation identity: the engine is wrong, not the input. Carries the first bad quantity. */
export class ConservationViolation extends Error {
  override readonly name = "ConservationViolation"
  readonly ticker: string
  readonly quantity: string
  readonly expected: bigint
  readonly actual: bigint
  constructor(ticker: string, quantity: string, expected: bigint, actual: bigint) {
    super(`conservation violated for ${ticker}: ${quantity} is ${actual}, expected ${expected}`)
    this.ticker = ticker
    this.quantity = quantity
    this.expected = expected
    this.actual = actual
  }
}
