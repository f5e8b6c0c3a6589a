/**
 * The hub's public interface as a contract ABI, so that a viem wallet drives the hub like any chain through the
 * JSON-RPC endpoint (`hubRpc.ts`). Functions and argument order follow the reference (§3.6 to §3.11, gitbook
 * names); views are a small read surface of the hub's storage. A reverted call carries
 * `Hub_Reverted(name, reason)` (the engine's error name and sentence) in `eth_call` errors.
 */
export const HubAbi = [
  {
    type: "function",
    name: "processDepositsAndInvoices",
    stateMutability: "nonpayable",
    inputs: [
      { name: "_tickerHash", type: "bytes32" },
      { name: "_maxEpochs", type: "uint32" },
      { name: "_maxDeposits", type: "uint32" },
      { name: "_maxInvoices", type: "uint32" },
    ],
    outputs: [],
  },
  {
    type: "function",
    name: "processSettlementQueue",
    stateMutability: "payable",
    inputs: [
      { name: "_domain", type: "uint32" },
      { name: "_amount", type: "uint32" },
    ],
    outputs: [],
  },
  { type: "function", name: "returnUnsupportedIntent", stateMutability: "payable", inputs: [{ name: "_intentId", type: "bytes32" }], outputs: [] },
  { type: "function", name: "setUpdateVirtualBalance", stateMutability: "nonpayable", inputs: [{ name: "_status", type: "bool" }], outputs: [] },
  {
    type: "function",
    name: "setUserSupportedDomains",
    stateMutability: "nonpayable",
    inputs: [{ name: "_supportedDomains", type: "uint32[]" }],
    outputs: [],
  },
  {
    type: "function",
    name: "handleExpiredIntents",
    stateMutability: "nonpayable",
    inputs: [{ name: "_expiredIntentIds", type: "bytes32[]" }],
    outputs: [],
  },
  {
    type: "function",
    name: "withdrawFees",
    stateMutability: "nonpayable",
    inputs: [
      { name: "_feeRecipient", type: "bytes32" },
      { name: "_tickerHash", type: "bytes32" },
      { name: "_amount", type: "uint256" },
      { name: "_destinations", type: "uint32[]" },
    ],
    outputs: [],
  },
  { type: "function", name: "pause", stateMutability: "nonpayable", inputs: [], outputs: [] },
  { type: "function", name: "unpause", stateMutability: "nonpayable", inputs: [], outputs: [] },
  // Views
  { type: "function", name: "paused", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "bool" }] },
  { type: "function", name: "getCurrentEpoch", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "uint48" }] },
  { type: "function", name: "epochLength", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "uint48" }] },
  {
    type: "function",
    name: "contexts",
    stateMutability: "view",
    inputs: [{ name: "_intentId", type: "bytes32" }],
    outputs: [
      { name: "solver", type: "bytes32" },
      { name: "fee", type: "uint24" },
      { name: "totalProtocolFee", type: "uint24" },
      { name: "fillTimestamp", type: "uint48" },
      { name: "amountAfterFees", type: "uint256" },
      { name: "pendingRewards", type: "uint256" },
      { name: "status", type: "uint8" },
    ],
  },
  { type: "function", name: "custodiedAssets", stateMutability: "view", inputs: [{ name: "_assetHash", type: "bytes32" }], outputs: [{ name: "", type: "uint256" }] },
  {
    type: "function",
    name: "feeVault",
    stateMutability: "view",
    inputs: [
      { name: "_tickerHash", type: "bytes32" },
      { name: "_recipient", type: "bytes32" },
    ],
    outputs: [{ name: "", type: "uint256" }],
  },
  {
    type: "function",
    name: "lastClosedEpochsProcessed",
    stateMutability: "view",
    inputs: [{ name: "_tickerHash", type: "bytes32" }],
    outputs: [{ name: "", type: "uint48" }],
  },
  {
    type: "function",
    name: "invoicesLength",
    stateMutability: "view",
    inputs: [{ name: "_tickerHash", type: "bytes32" }],
    outputs: [{ name: "", type: "uint256" }],
  },
  {
    type: "function",
    name: "settlementQueueLength",
    stateMutability: "view",
    inputs: [{ name: "_domain", type: "uint32" }],
    outputs: [{ name: "", type: "uint256" }],
  },
  { type: "function", name: "updateVirtualBalance", stateMutability: "view", inputs: [{ name: "_user", type: "bytes32" }], outputs: [{ name: "", type: "bool" }] },
  {
    type: "error",
    name: "Hub_Reverted",
    inputs: [
      { name: "name", type: "string" },
      { name: "reason", type: "string" },
    ],
  },
] as const

export type HubAbi = typeof HubAbi
