/**
 * The API intent status, derived from three per-domain statuses as the production read model does
 * (reference §6.4, `genstatus(origin_status, hub_status, settlement_status, has_calldata)`).
 */
import type { IntentStatusName } from "../domain/protocol.ts"
import type { ApiIntentStatus } from "./records.ts"

/** On the origin spoke: added by `newIntent`, dispatched with an intent-queue batch. */
export type OriginStatus = "NONE" | "ADDED" | "DISPATCHED"
/** On the hub: the contract status, plus `DISPATCHED` once its settlement left in a settlement batch. */
export type HubStatus = IntentStatusName | "DISPATCHED"
/** On the settlement domain: nothing yet, settled, or settled and its calldata executed by hand. */
export type SettlementStatus = "NONE" | "SETTLED" | "SETTLED_AND_MANUALLY_EXECUTED"

/**
 * 1. settled on the settlement domain → `SETTLED` when the intent carries calldata (still to execute),
 *    else `SETTLED_AND_COMPLETED`; (our extension: executed calldata → `SETTLED_AND_MANUALLY_EXECUTED`);
 * 2. origin DISPATCHED: hub none → `DISPATCHED_SPOKE`, hub DISPATCHED → `DISPATCHED_HUB`, else the hub status;
 * 3. origin ADDED: hub none → `ADDED_SPOKE`, hub ADDED → `ADDED_HUB`;
 * 4. otherwise the hub status when set, else the origin status.
 */
export const deriveStatus = (origin: OriginStatus, hub: HubStatus, settlement: SettlementStatus, hasCalldata: boolean): ApiIntentStatus => {
  if (settlement === "SETTLED_AND_MANUALLY_EXECUTED") return "SETTLED_AND_MANUALLY_EXECUTED"
  if (settlement === "SETTLED") return hasCalldata ? "SETTLED" : "SETTLED_AND_COMPLETED"
  if (origin === "DISPATCHED") {
    if (hub === "NONE") return "DISPATCHED_SPOKE"
    if (hub === "DISPATCHED") return "DISPATCHED_HUB"
    return hub
  }
  if (origin === "ADDED") {
    if (hub === "NONE") return "ADDED_SPOKE"
    if (hub === "ADDED") return "ADDED_HUB"
  }
  if (hub !== "NONE") return hub === "DISPATCHED" ? "DISPATCHED_HUB" : hub
  return origin === "NONE" ? "NONE" : "ADDED"
}
