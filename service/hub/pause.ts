/**
 * Pausing and access on the hub (reference §3.14, §3.2): `pause`/`unpause` by the owner or the watchtower; while
 * paused, messages from the hub gateway (Hyperlane deliveries) are refused and the `whenNotPaused` calls
 * (`processSettlementQueue`, `handleExpiredIntents`, `returnUnsupportedIntent`) revert. `processDepositsAndInvoices`
 * and `withdrawFees` are not gated, and the owner or an ADMIN may still call `receiveMessage` directly.
 *
 * Error names: the reference gives none for the hub's pause or access checks, so these are the engine's own,
 * in the style of `Hub_InvalidBlock`: `Hub_Paused` for a call refused because the hub is paused (on chain, a
 * gateway delivery while paused fails `onlyAuthorized`; it is named `Hub_Paused` here because that is why it
 * fails), and `Hub_Unauthorized` for a caller without the role.
 */
import type { Bytes32 } from "../domain/hex.ts"
import { HubRevert } from "./errors.ts"
import type { HubState } from "./state.ts"

/** The error of a call refused because the hub is paused (not a production name, see above). */
export const HUB_PAUSED = "Hub_Paused"
/** The error of a caller without the role the call needs (not a production name, see above). */
export const HUB_UNAUTHORIZED = "Hub_Unauthorized"

const isOwnerOrWatchtower = (hub: HubState, caller: Bytes32): boolean => caller === hub.config.owner || caller === hub.config.watchtower

const requireOwnerOrWatchtower = (hub: HubState, caller: Bytes32, call: string): void => {
  if (isOwnerOrWatchtower(hub, caller)) return
  const holders = [hub.config.owner === undefined ? "no owner" : `owner ${hub.config.owner}`, hub.config.watchtower === undefined ? "no watchtower" : `watchtower ${hub.config.watchtower}`]
  throw new HubRevert(HUB_UNAUTHORIZED, `${call} needs the owner or the watchtower; ${caller} is neither (the hub has ${holders.join(" and ")})`)
}

/**
 * `pause()` by `caller` (owner or watchtower). Pausing a paused hub is not an error (the reference does not say
 * it reverts): the flag stays set and `Paused` is emitted again.
 */
export const pause = (hub: HubState, caller: Bytes32): void => {
  requireOwnerOrWatchtower(hub, caller, "pause")
  hub.paused = true
  hub.emit({ kind: "Paused", caller })
}

/** `unpause()` by `caller` (owner or watchtower); unpausing a running hub only emits `Unpaused`. */
export const unpause = (hub: HubState, caller: Bytes32): void => {
  requireOwnerOrWatchtower(hub, caller, "unpause")
  hub.paused = false
  hub.emit({ kind: "Unpaused", caller })
}

/** `whenNotPaused`: checked before anything else of the call, as the modifier runs before the body. */
export const requireNotPaused = (hub: HubState, call: string): void => {
  if (hub.paused) throw new HubRevert(HUB_PAUSED, `the hub is paused: ${call} reverts until the owner or the watchtower unpauses it`)
}

/**
 * `onlyAuthorized` of `receiveMessage`: `caller` undefined is the hub gateway (a Hyperlane delivery), accepted only
 * while not paused (the relayer retries the delivery later); the owner and ADMIN accounts may call it directly,
 * paused or not; anyone else is refused.
 */
export const authorizeReceiveMessage = (hub: HubState, caller: Bytes32 | undefined, message: string): void => {
  if (caller === undefined) {
    if (hub.paused) throw new HubRevert(HUB_PAUSED, `the hub is paused: the gateway's ${message} message is refused (the delivery can be retried after unpause)`)
    return
  }
  if (caller === hub.config.owner || hub.config.admins.includes(caller)) return
  throw new HubRevert(HUB_UNAUTHORIZED, `receiveMessage (${message}) needs the hub gateway, the owner or an ADMIN; ${caller} is none of them`)
}
