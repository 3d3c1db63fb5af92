/**
 * The engine worker's side of the helper workers of a split calibration: one `slice-worker.ts`
 * per slice, started on demand and ended when its slice is done or the run stops. Each is sent
 * the engine's compiled wasm module when there is one, so it neither fetches nor compiles the
 * wasm again and runs the code V8 has already optimized.
 */
import type { EnginePreference } from '../engine/protocol';
import type { SliceRequest } from './parallel';
import type { SliceWorkerReply, SliceWorkerRequest } from './slice-worker';

/** The helpers of one calibration run. */
export class SliceWorkers {
  /** Each live helper, with what ends its pending slice as stopped. */
  private readonly live = new Map<Worker, () => void>();

  /** `prefer`: the build the engine worker runs; `module`: that build compiled, if known. */
  constructor(
    private readonly prefer: EnginePreference,
    private readonly module?: WebAssembly.Module,
  ) {}

  /** Runs `request` in a new helper; resolves to the slice's statistics (`undefined`: stopped). */
  run(request: SliceRequest, onProgress: (done: number) => void): Promise<Uint8Array | undefined> {
    const worker = new Worker(new URL('./slice-worker.ts', import.meta.url), { type: 'module', name: 'zeropoint-calibration-slice' });
    return new Promise<Uint8Array | undefined>((resolve, reject) => {
      const end = (): void => {
        worker.terminate();
        this.live.delete(worker);
      };
      this.live.set(worker, () => {
        end();
        resolve(undefined);
      });
      worker.addEventListener('message', (event: MessageEvent<SliceWorkerReply>) => {
        const reply = event.data;
        if (reply.type === 'progress') {
          onProgress(reply.done);
          return;
        }
        end();
        if (reply.type === 'state') resolve(reply.state);
        else reject(new Error(reply.message));
      });
      worker.addEventListener('error', (event) => {
        end();
        reject(new Error(`a calibration helper worker failed: ${event.message}`));
      });
      const message: SliceWorkerRequest = { ...request, prefer: this.prefer, module: this.module };
      worker.postMessage(message);
    });
  }

  /** Ends every helper still running (their slices resolve as stopped). */
  stop(): void {
    for (const finish of [...this.live.values()]) finish();
  }
}
