// The worker thread behind an offloaded `Keccak256Stream` (keccak.ts): it owns a second instance of the same
// WebAssembly Keccak module, starts from the sponge state the stream had when it handed over, absorbs the byte
// chunks it is posted in order, and answers digest requests through shared memory (the stream waits for them
// synchronously). Progress and failure are reported in the shared control words, which the stream reads while it
// waits (it cannot receive events then). Plain JavaScript so that it runs under any loader (tsx, vitest, Node).
// With a text formatter (a module export, imported here before the first message is read), it is also posted
// values, which it formats into text and absorbs as UTF-8.
import { parentPort, workerData } from "node:worker_threads"

// Control words (indices and states as in keccak.ts).
const CONTROL_STATE = 0
const CONTROL_ABSORBED = 1
const STATE_RUNNING = 1
const STATE_FAILED = 2
const CONTROL_MESSAGE_OFFSET = 16

/** @type {{ module: WebAssembly.Module, state: Uint8Array, bits: number, padding: number, scratchBytes: number, control: SharedArrayBuffer, formatter: { url: string, exportName: string } | undefined }} */
const { module, state, bits, padding, scratchBytes, control: controlBuffer, formatter } = workerData
const control = new Int32Array(controlBuffer, 0, 4)

/** Records the first failure where the stream reads it, and wakes any wait. */
const fail = (error) => {
  if (Atomics.load(control, CONTROL_STATE) === STATE_FAILED) return
  const text = new TextEncoder().encode(String(error instanceof Error ? error.message : error))
  new Uint8Array(controlBuffer, CONTROL_MESSAGE_OFFSET).set(text.subarray(0, controlBuffer.byteLength - CONTROL_MESSAGE_OFFSET - 1))
  Atomics.store(control, CONTROL_STATE, STATE_FAILED)
  Atomics.notify(control, CONTROL_STATE)
  Atomics.notify(control, CONTROL_ABSORBED)
}

let wasm
let memory
let scratchOffset
let stateOffset
try {
  wasm = new WebAssembly.Instance(module, {}).exports
  memory = new Uint8Array(wasm.memory.buffer)
  scratchOffset = wasm.Hash_GetBuffer()
  stateOffset = wasm.Hash_GetState()
  wasm.Hash_Init(bits)
  memory.set(state, stateOffset)
  Atomics.store(control, CONTROL_STATE, STATE_RUNNING)
} catch (error) {
  fail(error)
}

/** @type {((value: unknown) => string) | undefined} */
let format
if (formatter !== undefined) {
  try {
    // Messages wait in the port's queue until the listener below is attached.
    const exported = (await import(formatter.url))[formatter.exportName]
    if (typeof exported !== "function") throw new Error(`${formatter.url} has no function export ${formatter.exportName}`)
    format = exported
  } catch (error) {
    fail(error)
  }
}

const encoder = new TextEncoder()
/** Text up to this many UTF-16 units is gathered before it is encoded into the module's input buffer. */
const TEXT_UNITS = 1 << 16

/** Absorbs the UTF-8 bytes of `text`, encoded straight into the module's input buffer. */
const absorbText = (text) => {
  const scratch = memory.subarray(scratchOffset, scratchOffset + scratchBytes)
  for (;;) {
    const { read, written } = encoder.encodeInto(text, scratch)
    wasm.Hash_Update(written)
    if (read >= text.length) return
    text = text.slice(read)
  }
}

parentPort.on("message", (message) => {
  if (message.kind === "values") {
    if (Atomics.load(control, CONTROL_STATE) !== STATE_RUNNING) return
    try {
      if (format === undefined) throw new Error("values were posted to a hashing worker without a text formatter")
      let text = ""
      for (const value of message.values) {
        text += format(value)
        if (text.length >= TEXT_UNITS) {
          absorbText(text)
          text = ""
        }
      }
      if (text.length > 0) absorbText(text)
    } catch (error) {
      fail(error)
      return
    }
    Atomics.add(control, CONTROL_ABSORBED, 1)
    Atomics.notify(control, CONTROL_ABSORBED)
    return
  }
  if (message.kind === "bytes") {
    if (Atomics.load(control, CONTROL_STATE) !== STATE_RUNNING) return
    try {
      const data = message.bytes
      for (let read = 0; read < data.length; read += scratchBytes) {
        const chunk = data.subarray(read, read + scratchBytes)
        memory.set(chunk, scratchOffset)
        wasm.Hash_Update(chunk.length)
      }
    } catch (error) {
      fail(error)
      return
    }
    Atomics.add(control, CONTROL_ABSORBED, 1)
    Atomics.notify(control, CONTROL_ABSORBED)
    return
  }
  // kind "digest": the hash so far and `tail`, after a status word (1 = written); the sponge continues from where
  // it was, without the tail.
  const flag = new Int32Array(message.reply, 0, 1)
  if (Atomics.load(control, CONTROL_STATE) === STATE_RUNNING) {
    try {
      const saved = memory.slice(stateOffset, stateOffset + state.length)
      // The tail (a pending half surrogate pair, as U+FFFD) counts in this digest only.
      const tail = message.tail
      if (tail.length > 0) {
        memory.set(tail, scratchOffset)
        wasm.Hash_Update(tail.length)
      }
      wasm.Hash_Final(padding)
      new Uint8Array(message.reply, 4, 32).set(memory.subarray(scratchOffset, scratchOffset + 32))
      memory.set(saved, stateOffset)
      Atomics.store(flag, 0, 1)
    } catch (error) {
      fail(error)
    }
  }
  // On failure the flag stays 0: the stream sees the failed state in the control words.
  Atomics.notify(flag, 0)
})
