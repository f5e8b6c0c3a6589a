/**
 * A `clearsim up` session's trace.jsonl that could not be written (a full disk): what the session records of it and
 * how its stop summary words it. Apart from `devnet.ts` so that the `up` command reads it without loading the devnet.
 */
import { systemErrorReason } from "../files.ts"

/** A write of trace.jsonl that failed (`reason` as the system words it: "no space left on device"). */
export interface TraceWriteError {
  readonly code: string
  readonly reason: string
  /** Bytes of the trace written before the failure: 0 when the file could not be opened or its first write failed. */
  readonly bytesWritten: number
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
  error.bytesWritten === 0
    ? `trace.jsonl could not be written (${error.reason}, ${error.code}): the session has no trace to replay`
    : `trace.jsonl is incomplete (${error.reason}, ${error.code}): it cannot replay the session`
