/**
 * A function of one key, memoized in a map that is emptied when it holds `limit` entries: for values that recur
 * (a few hundred addresses over a million intents) and are cheap to make again. Results are equal either way;
 * only the sharing (one string or array per key) is lost when the map is emptied. `make` must not return
 * `undefined`.
 */
export class BoundedMemo<K, V> {
  private readonly map = new Map<K, V>()

  private readonly limit: number
  private readonly make: (key: K) => V
  constructor(limit: number, make: (key: K) => V) {
    this.limit = limit
    this.make = make
  }

  get(key: K): V {
    let value = this.map.get(key)
    if (value === undefined) {
      if (this.map.size >= this.limit) this.map.clear()
      this.map.set(key, (value = this.make(key)))
    }
    return value
  }
}
