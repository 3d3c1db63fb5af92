/**
 * A small observable store and the stale-reply guard the page's panels share. No DOM: unit-tested
 * in Node (store.test.ts).
 *
 * `Store` holds one state object; `set` replaces some of its fields and tells the subscribers of
 * each field, in the order they subscribed. A `set` made while subscribers are being told (a panel
 * that resets its own field when the model changes) is queued and told after the current round,
 * so every subscriber of a field hears of a change in the same order, whoever made it.
 *
 * `Latest` answers "is this worker reply still wanted?": each request takes a ticket with `next()`;
 * a later `next()` or a `cancel()` makes every earlier ticket stale, and a stale reply is dropped.
 */

/** Called with a field's new value (and the whole state after the change). */
export type Listener<S, K extends keyof S> = (value: S[K], state: Readonly<S>) => void;

/** Whether the request that took this ticket is still the latest one. */
export type Ticket = () => boolean;

/** One state object whose fields can be watched one by one. */
export class Store<S extends object> {
  private state: S;
  private readonly listeners = new Map<keyof S, ((value: unknown) => void)[]>();
  /** Changes not yet told, oldest first (with the value each was set to). */
  private pending: { key: keyof S; value: unknown }[] = [];
  private notifying = false;

  constructor(initial: S) {
    this.state = { ...initial };
  }

  /** The current state (do not mutate it: use `set`). */
  get(): Readonly<S> {
    return this.state;
  }

  /**
   * Sets the given fields and tells their subscribers, field by field in the order given. Every
   * `set` is told, even with the value the field already had (setting a field is an event: a
   * panel that resets its result says so). A listener that throws stops the telling; the error
   * reaches the caller of the outermost `set` and the changes not yet told are dropped.
   */
  set(patch: Partial<S>): void {
    this.state = { ...this.state, ...patch };
    for (const key of Object.keys(patch) as (keyof S)[]) this.pending.push({ key, value: patch[key] });
    if (this.notifying) return;
    this.notifying = true;
    try {
      for (let change = this.pending.shift(); change; change = this.pending.shift()) {
        for (const listener of [...(this.listeners.get(change.key) ?? [])]) listener(change.value);
      }
    } finally {
      this.notifying = false;
      this.pending = [];
    }
  }

  /** Calls `listener` after every `set` of `key`; returns a function that unsubscribes it. */
  subscribe<K extends keyof S>(key: K, listener: Listener<S, K>): () => void {
    const wrapped = (value: unknown): void => {
      listener(value as S[K], this.state);
    };
    const list = this.listeners.get(key) ?? [];
    list.push(wrapped);
    this.listeners.set(key, list);
    return () => {
      const at = list.indexOf(wrapped);
      if (at >= 0) list.splice(at, 1);
    };
  }
}

/** A generation counter for one kind of request: only the latest request's reply is used. */
export class Latest {
  private generation = 0;

  /** Starts a request: every earlier ticket becomes stale. */
  next(): Ticket {
    const mine = ++this.generation;
    return () => mine === this.generation;
  }

  /** A ticket for the current generation, without starting a request (stale after the next one). */
  current(): Ticket {
    const mine = this.generation;
    return () => mine === this.generation;
  }

  /** Makes every ticket stale: what the requests were for is gone. */
  cancel(): void {
    this.generation++;
  }

  /**
   * Starts a request for `promise`: `onValue` or `onError` runs only if no later request started
   * (and nothing cancelled this one) before it settled; a stale reply is dropped.
   */
  run<T>(promise: Promise<T>, onValue: (value: T) => void, onError: (error: unknown) => void): void {
    const isLatest = this.next();
    promise.then(
      (value) => {
        if (isLatest()) onValue(value);
      },
      (error: unknown) => {
        if (isLatest()) onError(error);
      },
    );
  }
}

/** A new stale-reply guard (see `Latest`). */
export function latest(): Latest {
  return new Latest();
}
