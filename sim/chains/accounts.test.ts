import { mnemonicToAccount } from "viem/accounts"
import { bytesToHex } from "viem/utils"
import { describe, expect, it } from "vitest"
import { deriveDevAccounts, TEST_MNEMONIC } from "./accounts.ts"

describe("deriveDevAccounts", () => {
  it("gives viem's accounts of m/44'/60'/0'/0/i: keys, addresses and signatures", async () => {
    const accounts = deriveDevAccounts(TEST_MNEMONIC, 40)
    expect(accounts).toHaveLength(40)
    // anvil's and hardhat's first account, a published constant.
    expect(accounts[0]!.address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
    expect(accounts[0]!.privateKey).toBe("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
    for (const account of [...accounts.slice(0, 8), accounts[39]!]) {
      const viem = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: account.index })
      expect(account.address, `account ${account.index}`).toBe(viem.address)
      expect(account.publicKey, `account ${account.index}`).toBe(viem.publicKey)
    }
    const message = "clearsim"
    expect(await accounts[7]!.signMessage({ message })).toBe(await mnemonicToAccount(TEST_MNEMONIC, { addressIndex: 7 }).signMessage({ message }))
  })

  it("derives from another mnemonic, and past the accounts made before, as viem does", () => {
    const mnemonic = "legal winner thank year wave sausage worth useful legal winner thank yellow"
    const accounts = deriveDevAccounts(mnemonic, 3)
    const seedAccount = mnemonicToAccount(mnemonic, { addressIndex: 2 })
    expect(accounts[2]!.address).toBe(seedAccount.address)
    // Growing the cache keeps the accounts already made and adds the next ones.
    const more = deriveDevAccounts(mnemonic, 301)
    expect(more[0]).toBe(accounts[0])
    expect(more[300]!.privateKey).toBe(bytesToHex(mnemonicToAccount(mnemonic, { addressIndex: 300 }).getHdKey().privateKey!))
  })

  it("returns the same objects on every call (derived once per process)", () => {
    expect(deriveDevAccounts(TEST_MNEMONIC, 5)[4]).toBe(deriveDevAccounts(TEST_MNEMONIC, 10)[4])
  })
})
