// The worker thread behind `TextSinkWorker` (textSink.ts): it takes a stream of bytes and values, in the order
// they were posted, off the posting thread, and
// - with a sponge: absorbs them into a second instance of the same WebAssembly Keccak module, started from the
//   sponge state the stream had when it handed over, and answers digest requests (an offloaded
//   `Keccak256Stream`, keccak.ts);
// - with a file descriptor: appends them to the file (an offloaded `TraceFile`, sim/report/traceFile.ts).
// Values are turned into text by the formatter (a module export, imported here before the first message is read)
// and used as UTF-8. Progress and failure are reported in the shared control words, which the posting thread
// reads while it waits for this one (it cannot receive events then). Plain JavaScript so that it runs under any
// loader (tsx, vitest, Node).
import { writeSync } from "node:fs"
import { parentPort, workerData } from "node:worker_threads"

// Control words (indices and states as in textSink.ts).
const CONTROL_STATE = 0
const CONTROL_DONE = 1
const STATE_RUNNING = 1
const STATE_FAILED = 2
const CONTROL_MESSAGE_OFFSET = 16

/**
 * @type {{
 *   control: SharedArrayBuffer,
 *   sponge: { module: WebAssembly.Module, state: Uint8Array, bits: number, padding: number, scratchBytes: number } | undefined,
 *   fd: number | undefined,
 *   formatter: { url: string, exportName: string } | undefined,
 * }}
 */
const { control: controlBuffer, sponge, fd, formatter } = workerData
const control = new Int32Array(controlBuffer, 0, 4)

/** Records the first failure where the posting thread reads it, and wakes any wait. */
const fail = (error) => {
  if (Atomics.load(control, CONTROL_STATE) === STATE_FAILED) return
  const text = new TextEncoder().encode(String(error instanceof Error ? error.message : error))
  new Uint8Array(controlBuffer, CONTROL_MESSAGE_OFFSET).set(text.subarray(0, controlBuffer.byteLength - CONTROL_MESSAGE_OFFSET - 1))
  Atomics.store(control, CONTROL_STATE, STATE_FAILED)
  Atomics.notify(control, CONTROL_STATE)
  Atomics.notify(control, CONTROL_DONE)
}

let wasm
let memory
let scratchOffset
let stateOffset
/** @type {((value: unknown) => string) | undefined} */
let format
try {
  if (sponge !== undefined) {
    wasm = new WebAssembly.Instance(sponge.module, {}).exports
    memory = new Uint8Array(wasm.memory.buffer)
    scratchOffset = wasm.Hash_GetBuffer()
    stateOffset = wasm.Hash_GetState()
    wasm.Hash_Init(sponge.bits)
    memory.set(sponge.state, stateOffset)
  }
  if (formatter !== undefined) {
    // Messages wait in the port's queue until the listener below is attached.
    const exported = (await import(formatter.url))[formatter.exportName]
    if (typeof exported !== "function") throw new Error(`${formatter.url} has no function export ${formatter.exportName}`)
    format = exported
  }
  Atomics.store(control, CONTROL_STATE, STATE_RUNNING)
} catch (error) {
  fail(error)
}

const encoder = new TextEncoder()
/** Text up to this many UTF-16 units is gathered before it is used. */
const TEXT_UNITS = 1 << 16

const absorbBytes = (data) => {
  for (let read = 0; read < data.length; read += sponge.scratchBytes) {
    const chunk = data.subarray(read, read + sponge.scratchBytes)
    memory.set(chunk, scratchOffset)
    wasm.Hash_Update(chunk.length)
  }
}

/** Absorbs the UTF-8 bytes of `text`, encoded straight into the module's input buffer. */
const absorbText = (text) => {
  const scratch = memory.subarray(scratchOffset, scratchOffset + sponge.scratchBytes)
  for (;;) {
    const { read, written } = encoder.encodeInto(text, scratch)
    wasm.Hash_Update(written)
    if (read >= text.length) return
    text = text.slice(read)
  }
}

const writeBytes = (data) => {
  for (let written = 0; written < data.length; ) written += writeSync(fd, data, written, data.length - written)
}

const takeBytes = (data) => {
  if (sponge !== undefined) absorbBytes(data)
  if (fd !== undefined) writeBytes(data)
}

const takeText = (text) => {
  if (sponge !== undefined) absorbText(text)
  if (fd !== undefined) writeBytes(Buffer.from(text, "utf8"))
}

/** A message fully taken: counted where the posting thread bounds its backlog. */
const done = () => {
  Atomics.add(control, CONTROL_DONE, 1)
  Atomics.notify(control, CONTROL_DONE)
}

parentPort.on("message", (message) => {
  const running = Atomics.load(control, CONTROL_STATE) === STATE_RUNNING
  switch (message.kind) {
    case "bytes":
      if (!running) return
      try {
        takeBytes(message.bytes)
      } catch (error) {
        return fail(error)
      }
      return done()
    case "values":
      if (!running) return
      try {
        if (format === undefined) throw new Error("values were posted to a worker without a text formatter")
        let text = ""
        for (const value of message.values) {
          text += format(value)
          if (text.length >= TEXT_UNITS) {
            takeText(text)
            text = ""
          }
        }
        if (text.length > 0) takeText(text)
      } catch (error) {
        return fail(error)
      }
      return done()
    case "digest": {
      // The hash so far and `tail`, after a status word (1 = written); the sponge continues from where it was,
      // without the tail (a pending half surrogate pair, as U+FFFD, counts in this digest only).
      const flag = new Int32Array(message.reply, 0, 1)
      if (running) {
        try {
          const saved = memory.slice(stateOffset, stateOffset + sponge.state.length)
          const tail = message.tail
          if (tail.length > 0) {
            memory.set(tail, scratchOffset)
            wasm.Hash_Update(tail.length)
          }
          wasm.Hash_Final(sponge.padding)
          new Uint8Array(message.reply, 4, 32).set(memory.subarray(scratchOffset, scratchOffset + 32))
          memory.set(saved, stateOffset)
          Atomics.store(flag, 0, 1)
        } catch (error) {
          fail(error)
        }
      }
      // On failure the flag stays 0: the posting thread sees the failed state in the control words.
      Atomics.notify(flag, 0)
      return
    }
    case "sync": {
      // Everything posted before has been taken (messages are handled in order).
      const flag = new Int32Array(message.reply, 0, 1)
      if (running) Atomics.store(flag, 0, 1)
      Atomics.notify(flag, 0)
      return
    }
    default:
      fail(new Error(`unknown message kind ${String(message.kind)}`))
  }
})
