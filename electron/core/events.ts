/** A typed publish/subscribe hub: the core's push events, forwarded by both shells. */
export class EventHub<E extends object> {
  readonly #listeners = new Map<keyof E, Set<(payload: never) => void>>();

  on<K extends keyof E>(event: K, listener: (payload: E[K]) => void): () => void {
    let set = this.#listeners.get(event);
    if (!set) this.#listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  emit<K extends keyof E>(event: K, payload: E[K]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      // A failing subscriber (a closed window, a dropped socket) must not stop the others.
      try {
        (listener as (p: E[K]) => void)(payload);
      } catch {
        /* the shell that registered it reports its own transport errors */
      }
    }
  }
}
