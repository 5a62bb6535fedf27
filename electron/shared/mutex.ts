/**
 * Runs async sections one after another: a check-then-write (a shift opened twice, two
 * sign-ins counting wrong PINs) must not interleave. A failed section does not stop the next.
 */
export class Mutex {
  #tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(fn);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
