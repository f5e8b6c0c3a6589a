/**
 * The only wall-clock reader of the service: for a live deployment (`clearsim up`). Simulations inject a
 * virtual `ServiceClock` instead.
 */
import type { ServiceClock } from "./config.ts"

export const realtimeClock: ServiceClock = {
  nowSeconds: () => Math.floor(Date.now() / 1000),
}
