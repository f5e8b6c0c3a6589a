// The worker thread behind an offloaded `Keccak256Stream` (keccak.ts): it owns a second instance of the same
// WebAssembly Keccak module, starts from the sponge state the stream had when it handed over, absorbs the byte
// chunks it is posted in order, and answers digest requests through shared memory (the stream waits for them
// synchronously). Plain JavaScript so that it runs under any loader (tsx, vitest, plain Node).
import { parentPort, workerData } from "node:worker_threads"

/** @type {{ module: WebAssembly.Module, state: Uint8Array, bits: number, padding: number, scratchBytes: number }} */
const { module, state, bits, padding, scratchBytes } = workerData
const wasm = new WebAssembly.Instance(module, {}).exports
const memory = new Uint8Array(wasm.memory.buffer)
const scratchOffset = wasm.Hash_GetBuffer()
const stateOffset = wasm.Hash_GetState()
wasm.Hash_Init(bits)
memory.set(state, stateOffset)
/** The first error, reported with the next digest request (the stream is waiting on shared memory, not events). */
let failure

parentPort.on("message", (message) => {
  if (message.kind === "bytes") {
    if (failure !== undefined) return
    try {
      const data = message.bytes
      for (let read = 0; read < data.length; read += scratchBytes) {
        const chunk = data.subarray(read, read + scratchBytes)
        memory.set(chunk, scratchOffset)
        wasm.Hash_Update(chunk.length)
      }
    } catch (error) {
      failure = String(error instanceof Error ? error.message : error)
    }
    return
  }
  // kind "digest": the hash so far, written after a status word; the sponge continues from where it was.
  const flag = new Int32Array(message.reply, 0, 1)
  const out = new Uint8Array(message.reply, 4, 32)
  if (failure === undefined) {
    const saved = memory.slice(stateOffset, stateOffset + state.length)
    wasm.Hash_Final(padding)
    out.set(memory.subarray(scratchOffset, scratchOffset + 32))
    memory.set(saved, stateOffset)
    Atomics.store(flag, 0, 1)
  } else {
    new Uint8Array(message.reply, 36).set(new TextEncoder().encode(failure).subarray(0, message.reply.byteLength - 36))
    Atomics.store(flag, 0, 2)
  }
  Atomics.notify(flag, 0)
})
