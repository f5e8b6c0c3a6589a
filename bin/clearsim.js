#!/usr/bin/env node
// The `clearsim` command: runs the TypeScript CLI with no build step. Node 22.18 and later (the project's own Node
// is 22.23) strip the types themselves: the sources are written in erasable syntax only (tsconfig's
// `erasableSyntaxOnly`), so the code that runs is the code as written, at the same lines, with no loader in between.
// That is about 5-8 % faster on a long run than tsx's loader, whose esbuild transform (`keepNames`) wraps every
// named function expression in `__name` and whose source maps cost at start-up. tsx stays the fallback where Node
// cannot strip types: an older Node, or the project installed under a node_modules folder (Node strips no types
// there).
//
// It re-executes itself once, in a child process, when
// - the Node running it is older than 22 (prool and effect's platform need 22): the child runs the Node 22
//   that `npm ci` installed with the project (`node_modules/node`), as `npm run` and `npx` would pick it;
// - V8's heap limit is below 3/4 of the machine's memory (at most 16 GiB) and neither NODE_OPTIONS nor the
//   command line sets one: million-intent runs keep every intent's state in memory. The child also gets the
//   flags of `v8-flags.json` (a 128 MB semi-space, unless one is set): per-intent objects that die young are
//   then collected in the young generation instead of being promoted, which cuts the garbage collector's time
//   on such runs by about a third (V8 settings: results do not depend on them). `npm run bench` uses the same.
// The parent forwards SIGINT, SIGTERM and SIGHUP to the child (which shuts down cleanly: chains stopped,
// files written) and exits with its status (128 + the signal's number when the child died of a signal).
// Forwarded signals go over an IPC channel, as messages, not as signals: a Ctrl-C on a terminal sends SIGINT to
// the whole foreground process group, so the child receives it directly *and* through the parent, and `up`
// takes a second signal as "force the exit now". `up` counts the two kinds apart (sim/cli/up.ts: the n-th stop
// request is when either count reaches n), so a Ctrl-C is one request, a `kill -INT <parent pid>` or a
// supervisor's SIGTERM to the parent alone is one too, and so is a signal to the whole group. Other commands
// get a forwarded message re-raised as the signal itself (a repeated SIGINT only interrupts them again).
// `up` (a live devnet) keeps its heap limit and runs in this process when the Node is recent enough: it is
// long-lived and handles its signals itself.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import * as nodeModule from "node:module"
import { constants as osConstants, totalmem } from "node:os"
import { fileURLToPath } from "node:url"
import { getHeapStatistics } from "node:v8"
import v8Flags from "./v8-flags.json" with { type: "json" }

const FORWARDED = ["SIGINT", "SIGTERM", "SIGHUP"]
/** The process event on which the child emits a forwarded signal's name (sim/cli/up.ts listens to it). */
const FORWARDED_SIGNAL_EVENT = "clearsim:forwarded-signal"
const SIGNAL = "clearsimForwardedSignal"
const READY = "clearsimListening"
const projectNode = fileURLToPath(new URL("../node_modules/node/bin/node", import.meta.url))
const oldNode = Number(process.versions.node.split(".")[0]) < 22 && existsSync(projectNode)
const wantedMb = Math.min(v8Flags.heapCapMb, Math.floor((totalmem() / 2 ** 20) * v8Flags.heapShareOfMemory))
const limited = `${process.env.NODE_OPTIONS ?? ""} ${process.execArgv.join(" ")}`.includes("max-old-space-size")
const smallHeap = !limited && process.argv[2] !== "up" && getHeapStatistics().heap_size_limit / 2 ** 20 < wantedMb * 0.9
const semiSpaceSet = `${process.env.NODE_OPTIONS ?? ""} ${process.execArgv.join(" ")}`.includes("max-semi-space-size")
if (process.env.CLEARSIM_CHILD !== "1" && (oldNode || smallHeap)) {
  const child = spawn(
    oldNode ? projectNode : process.execPath,
    [
      ...(smallHeap ? [`--max-old-space-size=${wantedMb}`, ...(semiSpaceSet ? [] : v8Flags.largeRun)] : []),
      ...process.execArgv,
      process.argv[1],
      ...process.argv.slice(2),
    ],
    { stdio: ["inherit", "inherit", "inherit", "ipc"], env: { ...process.env, CLEARSIM_CHILD: "1" } },
  )
  // Until the child listens on the channel (a message sent earlier would be lost), signals are sent as signals.
  let listening = false
  child.on("message", (message) => {
    if (message?.[READY] === true) listening = true
  })
  for (const signal of FORWARDED) {
    process.on(signal, () => {
      if (listening && child.connected) child.send({ [SIGNAL]: signal }, (error) => error && child.kill(signal))
      else child.kill(signal)
    })
  }
  child.on("exit", (code, signal) => process.exit(code ?? (signal === null ? 1 : 128 + (osConstants.signals[signal] ?? 0))))
} else {
  if (process.env.CLEARSIM_CHILD === "1" && process.channel !== undefined) {
    // Signals forwarded by the parent: to `up`'s listener when there is one, else re-raised as signals.
    process.on("message", (message) => {
      const signal = message?.[SIGNAL]
      if (!FORWARDED.includes(signal)) return
      if (process.listenerCount(FORWARDED_SIGNAL_EVENT) > 0) process.emit(FORWARDED_SIGNAL_EVENT, signal)
      else process.kill(process.pid, signal)
    })
    // The parent gone without forwarding anything (killed outright, `timeout -k`'s SIGKILL say): stop as on a
    // forwarded SIGTERM (chains stopped, `up`'s files written) rather than run on as an orphan. The channel only
    // closes before the child exits when the parent died: the parent exits after the child.
    process.on("disconnect", () => {
      if (process.listenerCount(FORWARDED_SIGNAL_EVENT) > 0) process.emit(FORWARDED_SIGNAL_EVENT, "SIGTERM")
      else process.kill(process.pid, "SIGTERM")
    })
    process.channel.unref() // the channel must not keep the child alive once the command is done
    process.send({ [READY]: true })
  }
  // V8's compiled code of the modules a command loads (effect, viem, the CLI's own) is kept on disk between
  // commands: about 0.2 s less start-up each (of about 1.5 s). Node checks each entry against its module's source
  // and recompiles what changed; a NODE_COMPILE_CACHE of the user's own takes precedence, and
  // NODE_DISABLE_COMPILE_CACHE=1 turns it off. A cache that cannot be written (a read-only install) changes
  // nothing but the start-up.
  nodeModule.enableCompileCache?.(fileURLToPath(new URL("../node_modules/.cache/clearsim-compile", import.meta.url)))
  const cli = new URL("../sim/cli.ts", import.meta.url)
  if (!process.features.typescript || cli.pathname.includes("/node_modules/")) {
    const { register } = await import("tsx/esm/api")
    register()
  }
  await import(cli.href)
}
