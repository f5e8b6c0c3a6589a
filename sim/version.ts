/** clearsim's version, recorded in every report (a run is a function of scenario, seed and version). */
import pkg from "../package.json" with { type: "json" }

export const CLEARSIM_VERSION: string = pkg.version
