// The worker thread behind `TextSinkWorker` (textSink.ts): it takes a stream of bytes and values, in the order
// they were posted, off the posting thread, and
// - with `hash`: hashes them with SHA-256 and answers digest requests (an offloaded `Sha256Stream`,
//   sha256Stream.ts);
// - with a file descriptor: appends them to the file (an offloaded `TraceFile`, sim/report/traceFile.ts).
// Values are turned into text by the formatter (a module export, imported here before the first message is read)
// and used as UTF-8. Progress and failure are reported in the shared control words, which the posting thread
// reads while it waits for this one (it cannot receive events then). Plain JavaScript so that it runs under any
// loader (tsx, vitest, Node).
import { createHash } from "node:crypto"
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
 *   hash: boolean,
 *   fd: number | undefined,
 *   formatter: { url: string, exportName: string } | undefined,
 * }}
 */
const { control: controlBuffer, hash: hashing, fd, formatter } = workerData
const control = new Int32Array(controlBuffer, 0, 4)

/**
 * Records the first failure where the posting thread reads it, and wakes any wait: its message, then, for a system
 * error (a full disk), a NUL and its code and errno, so that the posting thread throws it as one (`TextSinkWorker`).
 */
const fail = (error) => {
  if (Atomics.load(control, CONTROL_STATE) === STATE_FAILED) return
  const encoder = new TextEncoder()
  const system = encoder.encode(typeof error?.code === "string" && typeof error?.errno === "number" ? `\0${error.code}\0${error.errno}` : "")
  const room = controlBuffer.byteLength - CONTROL_MESSAGE_OFFSET - 1 - system.length
  const message = encoder.encode(String(error instanceof Error ? error.message : error).replaceAll("\0", " ")).subarray(0, room)
  const target = new Uint8Array(controlBuffer, CONTROL_MESSAGE_OFFSET)
  target.set(message)
  target.set(system, message.length)
  Atomics.store(control, CONTROL_STATE, STATE_FAILED)
  Atomics.notify(control, CONTROL_STATE)
  Atomics.notify(control, CONTROL_DONE)
}

/** The SHA-256 of everything taken (when hashing). */
const hash = hashing ? createHash("sha256") : undefined
/** @type {((value: unknown) => string) | undefined} */
let format
try {
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

/** Text up to this many UTF-16 units is gathered before it is used. */
const TEXT_UNITS = 1 << 16

const writeBytes = (data) => {
  for (let written = 0; written < data.length; ) written += writeSync(fd, data, written, data.length - written)
}

const takeBytes = (data) => {
  hash?.update(data)
  if (fd !== undefined) writeBytes(data)
}

const takeText = (text) => {
  if (fd === undefined) return hash?.update(text, "utf8")
  const bytes = Buffer.from(text, "utf8")
  hash?.update(bytes)
  writeBytes(bytes)
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
      // The hash so far and `tail`, after a status word (1 = written); the hash continues from where it was,
      // without the tail (a pending half surrogate pair, as U+FFFD, counts in this digest only).
      const flag = new Int32Array(message.reply, 0, 1)
      if (running) {
        try {
          if (hash === undefined) throw new Error("a digest was asked of a worker that does not hash")
          new Uint8Array(message.reply, 4, 32).set(hash.copy().update(message.tail).digest())
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
