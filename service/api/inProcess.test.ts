/**
 * The in-process form of POST /intents gives the same transaction request as the HTTP operation, plus the typed
 * spoke call that the request's calldata encodes (decoding the calldata gives back exactly that call).
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { Address, Hex } from "../domain/hex.ts"
import { decodeSpokeCall } from "../spoke/spoke.ts"
import { Deployment, DOMAIN_A, DOMAIN_B } from "./deployment.ts"

describe("createIntentsWithCall", () => {
  it("returns createIntents' transaction and the call its calldata decodes to, for one intent, a fast one and an order", async () => {
    const d = Deployment.memory()
    const a = d.accounts
    const usdc = d.token(DOMAIN_A, "USDC")
    const body = { origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: usdc, amount: "1000000000" }
    for (const payload of [body, { ...body, isFastPath: true }, [body, { ...body, amount: "2000000" }]]) {
      const tx = await Effect.runPromise(d.service.createIntents(payload))
      const built = await Effect.runPromise(d.service.createIntentsWithCall(payload))
      expect(built.tx).toEqual(tx)
      const addresses = d.spokes.chain(DOMAIN_A).addresses
      expect(decodeSpokeCall(addresses, tx.to as Address, tx.data as Hex)).toEqual(built.call)
    }
  })
})
