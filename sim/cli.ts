/**
 * The `clearsim` command.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
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
        catch: (error) => error,
      }).pipe(Effect.ensuring(Effect.sync(out.flush)))
      return result
    }, Effect.catch((error) => fail(describeReplayError(error)))),
  ).pipe(Command.withDescription("Replay a hub input trace and print the hub events, then the trace hash"))

const describeReplayError = (error: unknown): string => {
  if (error instanceof InputLineError || error instanceof ConservationViolation) return error.message
  if (error instanceof Error && "code" in error && error.code === "ENOENT") return `cannot read the trace: ${error.message}`
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}

const fail = (message: string) =>
  Effect.gen(function* () {
    yield* Console.error(`clearsim: ${message}`)
    process.exitCode = 1
  })

const schemaCommand = Command.make(
  "schema",
  { out: Flag.String("out").pipe(Flag.withDescription("Where to write the JSON Schema"), Flag.withDefault("scenarios/scenario.schema.json")) },
  Effect.fn(function* ({ out }) {
    writeFileSync(out, renderScenarioJsonSchema())
    yield* Console.log(`wrote ${out}`)
  }),
).pipe(Command.withDescription("Write the JSON Schema of scenario files (for editors)"))

const hub = Command.make("hub").pipe(Command.withDescription("Hub engine tools"), Command.withSubcommands([replayCommand("replay")]))

const clearsim = Command.make("clearsim").pipe(
  Command.withDescription("Deterministic multi-chain simulation and load-test harness for a cross-chain intent clearing service"),
  Command.withSubcommands([runCommand, checkCommand, compareCommand, upCommand, hub, replayCommand("replay"), schemaCommand]),
)

clearsim.pipe(Command.run({ version: CLEARSIM_VERSION }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
