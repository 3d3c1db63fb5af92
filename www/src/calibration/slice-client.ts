/**
 * The engine worker's side of the helper workers of a split calibration: one `slice-worker.ts`
 * per slice. Each is sent the engine's compiled wasm module when there is one, so it neither
 * fetches nor compiles the wasm again and runs the code V8 has already optimized.
 *
 * Helpers are kept between calibrations (a pool): a helper whose slice is done waits, its wasm
 * instance loaded, for the next calibration's slice, and `prewarm` starts them before the first
 * one (when a model is loaded), so a calibration does not wait for workers to start. A helper
 * idle for `IDLE_MS` ends (its wasm memory with it); one that fails, or is running when a
 * calibration stops, ends at once.
 */
import type { EnginePreference } from '../engine/protocol';
import type { SliceRequest } from './parallel';
import type { SliceWorkerReply, SliceWorkerRequest } from './slice-worker';

/** An idle helper ends after this long without a slice. */
export const IDLE_MS = 60_000;

/** What the pool needs of a Worker (tests pass fakes). */
export interface HelperWorker {
  postMessage(message: SliceWorkerRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<SliceWorkerReply>) => void): void;
  addEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  removeEventListener(type: 'message', listener: (event: MessageEvent<SliceWorkerReply>) => void): void;
  removeEventListener(type: 'error', listener: (event: ErrorEvent) => void): void;
  terminate(): void;
}

function newHelper(): HelperWorker {
  return new Worker(new URL('./slice-worker.ts', import.meta.url), { type: 'module', name: 'zeropoint-calibration-slice' });
}

/** The helpers of the engine worker's calibrations. */
export class SliceWorkers {
  /** Each helper running a slice, with what ends that slice as stopped. */
  private readonly live = new Map<HelperWorker, () => void>();
  /** Helpers waiting for a slice, with their idle timers. */
  private readonly idle = new Map<HelperWorker, ReturnType<typeof setTimeout>>();

  /** `prefer`: the build the engine worker runs; `module`: that build compiled, if known. */
  constructor(
    private readonly prefer: EnginePreference,
    private readonly module?: WebAssembly.Module,
    private readonly spawn: () => HelperWorker = newHelper,
  ) {}

  /** Helpers waiting for a slice (for tests and the bench). */
  get idleCount(): number {
    return this.idle.size;
  }

  /**
   * Starts helpers (loading their wasm) until `n` are waiting, ahead of a calibration; resolves
   * once the ones it started have loaded (or failed to: their first slice reports it). `warm`:
   * a small calibration each runs first and discards, so V8 has optimized the calibration
   * kernels before the first real one (the wasm code is shared by every worker of the module).
   */
  prewarm(n: number, warm?: SliceRequest): Promise<void> {
    const loading: Promise<void>[] = [];
    while (this.idle.size < n) {
      const worker = this.spawn();
      loading.push(
        new Promise<void>((resolve) => {
          const done = (): void => {
            worker.removeEventListener('message', onMessage);
            worker.removeEventListener('error', done);
            resolve();
          };
          const onMessage = (event: MessageEvent<SliceWorkerReply>): void => {
            if (event.data.type === 'loaded') done();
          };
          worker.addEventListener('message', onMessage);
          worker.addEventListener('error', done);
        }),
      );
      worker.postMessage({ type: 'load', prefer: this.prefer, module: this.module, warm });
      this.park(worker);
    }
    return Promise.all(loading).then(() => undefined);
  }

  /** Runs `request` in a waiting helper or a new one; resolves to the slice's statistics (`undefined`: stopped). */
  run(request: SliceRequest, onProgress: (done: number) => void): Promise<Uint8Array | undefined> {
    const worker = this.take();
    return new Promise<Uint8Array | undefined>((resolve, reject) => {
      const detach = (): void => {
        worker.removeEventListener('message', onMessage);
        worker.removeEventListener('error', onError);
        this.live.delete(worker);
      };
      const onMessage = (event: MessageEvent<SliceWorkerReply>): void => {
        const reply = event.data;
        if (reply.type === 'loaded') return; // a prewarm's answer, arriving late
        if (reply.type === 'progress') {
          onProgress(reply.done);
          return;
        }
        detach();
        if (reply.type === 'state') {
          this.park(worker);
          resolve(reply.state);
        } else {
          worker.terminate();
          reject(new Error(reply.message));
        }
      };
      const onError = (event: ErrorEvent): void => {
        detach();
        worker.terminate();
        reject(new Error(`a calibration helper worker failed: ${event.message}`));
      };
      this.live.set(worker, () => {
        detach();
        worker.terminate();
        resolve(undefined);
      });
      worker.addEventListener('message', onMessage);
      worker.addEventListener('error', onError);
      worker.postMessage({ type: 'slice', ...request, prefer: this.prefer, module: this.module });
    });
  }

  /** Ends every helper running a slice (their slices resolve as stopped); waiting ones stay. */
  stop(): void {
    for (const finish of [...this.live.values()]) finish();
  }

  /** Ends every helper, waiting or running. */
  close(): void {
    this.stop();
    for (const [worker, timer] of this.idle) {
      clearTimeout(timer);
      worker.terminate();
    }
    this.idle.clear();
  }

  private take(): HelperWorker {
    for (const [worker, timer] of this.idle) {
      clearTimeout(timer);
      this.idle.delete(worker);
      return worker;
    }
    return this.spawn();
  }

  private park(worker: HelperWorker): void {
    this.idle.set(
      worker,
      setTimeout(() => {
        this.idle.delete(worker);
        worker.terminate();
      }, IDLE_MS),
    );
  }
}
