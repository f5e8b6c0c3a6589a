/**
 * The `clearsim` command. Exit codes: 0 success; 1 what a command checks failed (properties, a regression, a
 * changed trace hash, a conservation violation) or an unexpected error; 2 a usage error (`cli/userErrors.ts`) or
 * a standard output that cannot be written (a full disk); 130 when interrupted (Ctrl-C, SIGTERM); 141 when standard
 * output's reader went away (EPIPE: `clearsim hub replay trace.jsonl | head -1`), silently, as a Unix tool that SIGPIPE
 * stops.
 */
// The two modules by their paths: the package's index loads every module it has (its redis client among them).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as Runtime from "effect/Runtime"
import { Argument, Command, Flag } from "effect/cli"
import { ConservationViolation } from "../service/hub/errors.ts"
import { InputLineError } from "../service/hub/inputs.ts"
import { replayFile } from "../service/hub/replay.ts"
import { checkCommand, compareCommand } from "./cli/check.ts"
import { runCommand } from "./cli/run.ts"
import { upCommand } from "./cli/up.ts"
import { renderScenarioJsonSchema } from "./scenario/jsonSchema.ts"
import { writeFileSync } from "node:fs"
import { systemErrorText } from "./files.ts"
import { describeCommandError, inputFileError, outputFileError, USAGE_EXIT_CODE, UsageError, withUsageExitCode } from "./cli/userErrors.ts"
import { CLEARSIM_VERSION } from "./version.ts"

/** The exit code when standard output's reader went away: 128 + SIGPIPE, what a shell reports for `yes | head -1`'s `yes`. */
export const BROKEN_PIPE_EXIT_CODE = 141

/** Which output stream failed first, and why; the command is stopped then. */
let outputFailure: { readonly stream: "stdout" | "stderr"; readonly error: NodeJS.ErrnoException } | undefined
/** The command's fiber, interrupted when standard output or standard error fails. */
let commandFiber: Fiber.Fiber<unknown, unknown> | undefined

const outputExitCode = (error: NodeJS.ErrnoException): number => (error.code === "EPIPE" ? BROKEN_PIPE_EXIT_CODE : USAGE_EXIT_CODE)

/**
 * Every write to standard output (the replay's events, the run's summaries, `console.log`) and to standard error
 * (a run's progress lines, `console.error`) fails here, not as an unhandled stream error with its stack (exit 1,
 * a run's staging directory left behind): a reader gone (EPIPE) stops the command silently, any other failure
 * (ENOSPC on /dev/full) after one line on stderr when stdout failed, silently when stderr did (there is nowhere to
 * tell it). The command is interrupted as a Ctrl-C does (chains stopped, a run's unfinished files removed), then
 * exits with `outputExitCode`.
 */
const onOutputError = (stream: "stdout" | "stderr") => (error: NodeJS.ErrnoException) => {
  if (outputFailure !== undefined) return
  outputFailure = { stream, error }
  if (stream === "stdout" && error.code !== "EPIPE") process.stderr.write(`clearsim: cannot write standard output: ${systemErrorText(error)}\n`)
  // The exit code when the command has finished already (the failed write was its last).
  process.exitCode = outputExitCode(error)
  commandFiber?.interruptUnsafe(commandFiber.id)
}
process.stdout.on("error", onOutputError("stdout"))
process.stderr.on("error", onOutputError("stderr"))

/** Buffered stdout writer: millions of event lines without a syscall each (nothing once an output failed: the command is stopping). */
const stdoutLines = () => {
  let buffer: string[] = []
  let size = 0
  const flush = () => {
    if (buffer.length > 0 && outputFailure === undefined) process.stdout.write(buffer.join(""))
    buffer = []
    size = 0
  }
  return {
    write: (line: string) => {
      buffer.push(`${line}\n`)
      size += line.length
      if (size > 1 << 16) flush()
    },
    flush,
  }
}

const replayCommand = (name: string) =>
  Command.make(
    name,
    {
      trace: Argument.String("trace.jsonl").pipe(Argument.withDescription("Hub input trace: a config line, then one input per line")),
      checkEveryInput: Flag.Boolean("check-every-input").pipe(
        Flag.withDescription("Run the conservation check after every input (slower; default: after the last input)"),
        Flag.withDefault(false),
      ),
    },
    Effect.fn(function* ({ trace, checkEveryInput }) {
      if (trace === "") return yield* Effect.fail(new UsageError("trace.jsonl: expected the path of a trace file, got an empty one"))
      const out = stdoutLines()
      const result = yield* Effect.tryPromise({
        try: () => replayFile(trace, { onLine: out.write, checkEveryInput }),
        // A bad line is named as file:line, as compilers do.
        catch: (error) => (error instanceof InputLineError ? new UsageError(`${trace}:${error.line}: ${error.detail}`) : inputFileError("the trace", trace, error, "a trace.jsonl file")),
      }).pipe(Effect.ensuring(Effect.sync(out.flush)))
      // A trace cut at a line boundary has no bad line: only its missing end line tells.
      if (result.end === undefined) yield* Console.error(`clearsim: note: ${trace} has no end line ({"kind":"end",...}), which clearsim run writes when a run completes and clearsim up when its session stops: if either wrote this trace, it may be cut short`)
      return result
    }, Effect.catch((error) => fail(error))),
  ).pipe(
    Command.withDescription(
      "Replay a hub input trace and print the hub events, then the trace hash; exit 1 on a conservation violation, 2 on an unreadable or malformed trace",
    ),
  )

/** A conservation violation is what replay checks (exit 1); an unreadable trace or a bad line is a usage error (2). */
const fail = (error: unknown) =>
  Effect.gen(function* () {
    if (error instanceof ConservationViolation) {
      yield* Console.error(`clearsim: ${error.message}`)
      process.exitCode = 1
      return
    }
    const { message, exitCode } = describeCommandError(error)
    yield* Console.error(`clearsim: ${message}`)
    process.exitCode = exitCode
  })

const schemaCommand = Command.make(
  "schema",
  { out: Flag.String("out").pipe(Flag.withDescription("Where to write the JSON Schema (default scenarios/scenario.schema.json)"), Flag.withDefault("scenarios/scenario.schema.json")) },
  Effect.fn(function* ({ out }) {
    yield* Effect.try({ try: () => writeFileSync(out, renderScenarioJsonSchema()), catch: (error) => outputFileError("--out", out, error) })
    yield* Console.log(`wrote ${out}`)
  }, Effect.catch((error) => fail(error))),
).pipe(Command.withDescription("Write the JSON Schema of scenario files (for editors)"))

const hub = Command.make("hub").pipe(Command.withDescription("Hub engine tools"), Command.withSubcommands([replayCommand("replay")]))

const clearsim = Command.make("clearsim").pipe(
  Command.withDescription(
    "Deterministic multi-chain simulation and load-test harness for a cross-chain intent clearing service. Exit codes: 0 success; 1 failing properties, a regression, a changed trace hash, a conservation violation or an unexpected error; 2 a usage error (a bad flag, argument, input file or output path) or a standard output or error that cannot be written; 130 when interrupted (Ctrl-C, SIGTERM); 141 when the reader of either went away (as SIGPIPE)",
  ),
  Command.withSubcommands([runCommand, checkCommand, compareCommand, upCommand, hub, replayCommand("replay"), schemaCommand]),
)

clearsim.pipe(
  Command.run({ version: CLEARSIM_VERSION }),
  withUsageExitCode,
  Effect.provide(NodeServices.layer),
  (command) =>
    Effect.withFiber((fiber) => {
      commandFiber = fiber
      return command
    }),
  NodeRuntime.runMain({
    // A command stopped because standard output or error failed exits with that failure's code, not as interrupted (130).
    teardown: (exit, onExit) => (outputFailure === undefined ? Runtime.defaultTeardown(exit, onExit) : onExit(outputExitCode(outputFailure.error))),
  }),
)
