/**
 * The `clearsim` command. Exit codes: 0 success; 1 what a command checks failed (properties, a regression, a
 * changed trace hash, a conservation violation) or an unexpected error; 2 a usage error (`cli/userErrors.ts`).
 */
// The two modules by their paths: the package's index loads every module it has (its redis client among them).
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import { Console, Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { ConservationViolation } from "../service/hub/errors.ts"
import { InputLineError } from "../service/hub/inputs.ts"
import { replayFile } from "../service/hub/replay.ts"
import { checkCommand, compareCommand } from "./cli/check.ts"
import { runCommand } from "./cli/run.ts"
import { upCommand } from "./cli/up.ts"
import { renderScenarioJsonSchema } from "./scenario/jsonSchema.ts"
import { writeFileSync } from "node:fs"
import { describeCommandError, inputFileError, outputFileError, UsageError, withUsageExitCode } from "./cli/userErrors.ts"
import { CLEARSIM_VERSION } from "./version.ts"

/** Buffered stdout writer: millions of event lines without a syscall each. */
const stdoutLines = () => {
  let buffer: string[] = []
  let size = 0
  const flush = () => {
    if (buffer.length > 0) process.stdout.write(buffer.join(""))
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
      const out = stdoutLines()
      const result = yield* Effect.tryPromise({
        try: () => replayFile(trace, { onLine: out.write, checkEveryInput }),
        // A bad line is named as file:line, as compilers do.
        catch: (error) => (error instanceof InputLineError ? new UsageError(`${trace}:${error.line}: ${error.detail}`) : inputFileError("the trace", trace, error, "a trace.jsonl file")),
      }).pipe(Effect.ensuring(Effect.sync(out.flush)))
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
    "Deterministic multi-chain simulation and load-test harness for a cross-chain intent clearing service. Exit codes: 0 success; 1 failing properties, a regression, a changed trace hash, a conservation violation or an unexpected error; 2 a usage error (a bad flag, argument, input file or output path)",
  ),
  Command.withSubcommands([runCommand, checkCommand, compareCommand, upCommand, hub, replayCommand("replay"), schemaCommand]),
)

clearsim.pipe(Command.run({ version: CLEARSIM_VERSION }), withUsageExitCode, Effect.provide(NodeServices.layer), NodeRuntime.runMain)
