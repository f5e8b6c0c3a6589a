/** The part of autocannon 9's API that `api.bench.ts` uses (the package ships no types). */
declare module "autocannon" {
  interface AutocannonRequest {
    method?: string
    path?: string
    body?: string
    headers?: Record<string, string>
    setupRequest?: (request: { path: string }) => { path: string }
  }
  interface AutocannonOptions {
    url: string
    connections?: number
    duration?: number
    pipelining?: number
    requests?: AutocannonRequest[]
  }
  interface Histogram {
    average: number
    mean: number
    p50: number
    p99: number
    total: number
  }
  interface AutocannonResult {
    requests: Histogram
    latency: Histogram
    errors: number
    non2xx: number
  }
  function autocannon(options: AutocannonOptions): Promise<AutocannonResult>
  export default autocannon
}
