/**
 * A helper Web Worker of a split calibration (parallel.ts): loads its own wasm instance once (the
 * build the engine worker runs, from the compiled module it is sent when there is one), then
 * records each slice of the samples it is sent and posts back its statistics as bytes for the
 * engine worker's `mergeState`. Progress is posted as it goes; the engine worker keeps it for
 * the next calibration, or ends it with `terminate()` on cancel or error.
 */
import { loadEngine } from '../engine/loader';
import { errorMessage, type EnginePreference } from '../engine/protocol';
import { decodeImage } from './decode';
import { calibrateSlice, type SliceEngine, type SliceEnv, type SliceRequest } from './parallel';

/**
 * What the engine worker sends: a slice, with the wasm build to load and, if known, it
 * compiled; or `load`, the build loaded ahead of the first slice (a pool's prewarm).
 */
export type SliceWorkerRequest =
  | ({ type: 'slice'; prefer: EnginePreference; module: WebAssembly.Module | undefined } & SliceRequest)
  | { type: 'load'; prefer: EnginePreference; module: WebAssembly.Module | undefined; warm?: SliceRequest | undefined };

/** What this worker answers. */
export type SliceWorkerReply =
  | { type: 'loaded' }
  | { type: 'progress'; done: number }
  | { type: 'state'; state: Uint8Array | undefined }
  | { type: 'error'; message: string };

/** The slice of DedicatedWorkerGlobalScope used here (the page's tsconfig has the DOM lib only). */
interface SliceScope {
  postMessage(message: SliceWorkerReply, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<SliceWorkerRequest>) => void): void;
}
const scope = self as unknown as SliceScope;

/** A slice's environment in this helper, but for progress. */
function sliceEnv(api: SliceEngine): Omit<SliceEnv, 'onProgress'> {
  return {
    engine: api,
    decodeImage,
    isCancelled: () => false,
    yieldToEventLoop: () => Promise.resolve(),
    now: () => performance.now(),
  };
}

/** The engine, loaded once: this helper serves slice after slice (slice-client.ts keeps it). */
let engine: ReturnType<typeof loadEngine> | undefined;

async function run(request: Extract<SliceWorkerRequest, { type: 'slice' }>): Promise<void> {
  try {
    engine ??= loadEngine(request.prefer, request.module);
    const { api } = await engine;
    const state = await calibrateSlice(request, {
      ...sliceEnv(api),
      onProgress: (done) => {
        scope.postMessage({ type: 'progress', done }, []);
      },
    });
    scope.postMessage({ type: 'state', state }, state ? [state.buffer] : []);
  } catch (error) {
    scope.postMessage({ type: 'error', message: errorMessage(error) }, []);
  }
}

scope.addEventListener('message', (event) => {
  const request = event.data;
  if (request.type === 'load') {
    // A failed load is reported by the first slice (loadEngine is tried again then).
    engine ??= loadEngine(request.prefer, request.module);
    const loading = engine;
    void (async () => {
      try {
        const { api } = await loading;
        // A few samples of the loaded model through the calibration kernels: V8 optimizes the
        // hot functions of the module now (its code is shared with every worker holding it),
        // not during the user's first calibration. What fails here fails again, reported, then.
        if (request.warm) await calibrateSlice(request.warm, { ...sliceEnv(api), onProgress: () => undefined }).catch(() => undefined);
        scope.postMessage({ type: 'loaded' }, []);
      } catch {
        engine = undefined;
      }
    })();
    return;
  }
  void run(request);
});
