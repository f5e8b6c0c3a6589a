#!/usr/bin/env node
// The `clearsim` command: runs the TypeScript CLI through tsx's loader (no build step).
//
// Million-intent runs keep every intent's state (hub, spokes, read model) in memory, well past V8's default
// heap limit: the command re-executes itself once with a heap limit of 3/4 of the machine's memory (at most
// 16 GiB) unless NODE_OPTIONS or the command line already sets one. Not for `up` (a live devnet): it must get
// the signals (Ctrl-C, SIGTERM) itself to shut down cleanly, and a waiting parent would not forward them.
import { spawnSync } from "node:child_process"
import { totalmem } from "node:os"
import { getHeapStatistics } from "node:v8"

const wantedMb = Math.min(16_384, Math.floor((totalmem() / 2 ** 20) * 0.75))
const limited = `${process.env.NODE_OPTIONS ?? ""} ${process.execArgv.join(" ")}`.includes("max-old-space-size")
if (!limited && process.argv[2] !== "up" && process.env.CLEARSIM_CHILD !== "1" && getHeapStatistics().heap_size_limit / 2 ** 20 < wantedMb * 0.9) {
  const result = spawnSync(process.execPath, [`--max-old-space-size=${wantedMb}`, ...process.execArgv, process.argv[1], ...process.argv.slice(2)], {
    stdio: "inherit",
    env: { ...process.env, CLEARSIM_CHILD: "1" },
  })
  process.exit(result.status ?? (result.signal === null ? 1 : 128))
}

const { register } = await import("tsx/esm/api")
register()
await import("../sim/cli.ts")
