/**
 * A `clearsim up` session's files that could not be written (a full disk): trace.jsonl as the session runs, the
 * report and session.json at its stop. What the session records of them and how its stop summary words them. Apart
 * from `devnet.ts` so that the `up` command reads it without loading the devnet.
 */
import { systemErrorReason } from "../files.ts"

/** A write of trace.jsonl that failed (`reason` as the system words it: "no space left on device"). */
export interface TraceWriteError {
  readonly code: string
  readonly reason: string
  /** Bytes of the trace written before the failure: 0 when the file could not be opened or its first write failed. */
  readonly bytesWritten: number
  /** The trace was written, but its file was removed or replaced during the session (its directory deleted, say). */
  readonly removed?: true
}

/**
 * The code and the system's words of a failed open or write of the trace (ENOSPC: "no space left on device";
 * EISDIR: "illegal operation on a directory"), after `bytesWritten` bytes of it were written.
 */
export const traceWriteError = (error: NodeJS.ErrnoException, bytesWritten: number): TraceWriteError => ({
  code: error.code ?? "unknown",
  // The system's words, as every command gives a file error's (`systemErrorReason`): not the message, which adds
  // the call and the path ("..., open '/tmp/u/trace.jsonl'").
  reason: systemErrorReason(error),
  bytesWritten,
})

/** What a failed trace left, and why: nothing (it could not be written), or a beginning that cannot replay the session. */
export const traceFailureText = (error: TraceWriteError): string =>
  error.removed === true
    ? "trace.jsonl was removed or replaced during the session: the session has no trace to replay"
    : error.bytesWritten === 0
    ? `trace.jsonl could not be written (${error.reason}, ${error.code}): the session has no trace to replay`
    : `trace.jsonl is incomplete (${error.reason}, ${error.code}): it cannot replay the session`

/** A file the stop could not write (report.*, session.json), and why in the system's words. */
export interface UnwrittenFile {
  readonly file: string
  readonly code: string
  readonly reason: string
}

/** The error of a failed write of `file`, as an `UnwrittenFile`; `undefined` when it is not a system error (a defect). */
export const unwrittenFile = (file: string, error: unknown): UnwrittenFile | undefined => {
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined
  return typeof code === "string" ? { file, code, reason: systemErrorReason(error as NodeJS.ErrnoException) } : undefined
}

/** "report.html (no space left on device, ENOSPC), session.json (...)": the files the stop could not write. */
export const unwrittenFilesText = (files: readonly UnwrittenFile[]): string => `not written: ${files.map((f) => `${f.file} (${f.reason}, ${f.code})`).join(", ")}`
