/**
 * A helper Web Worker of a split calibration (parallel.ts): loads its own wasm instance (the
 * build the engine worker runs, from the compiled module it is sent when there is one), records the one slice of the samples it is sent and posts back
 * its statistics as bytes for the engine worker's `mergeState`. Progress is posted as it goes;
 * the engine worker ends it with `terminate()` on cancel or error.
 */
import { loadEngine } from '../engine/loader';
import { errorMessage, type EnginePreference } from '../engine/protocol';
import { decodeImage } from './decode';
import { calibrateSlice, type SliceEngine, type SliceRequest } from './parallel';

/** What the engine worker sends: the slice, the wasm build to load and, if known, it compiled. */
export interface SliceWorkerRequest extends SliceRequest {
  prefer: EnginePreference;
  module: WebAssembly.Module | undefined;
}

/** What this worker answers. */
export type SliceWorkerReply =
  | { type: 'progress'; done: number }
  | { type: 'state'; state: Uint8Array | undefined }
  | { type: 'error'; message: string };

/** The slice of DedicatedWorkerGlobalScope used here (the page's tsconfig has the DOM lib only). */
interface SliceScope {
  postMessage(message: SliceWorkerReply, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<SliceWorkerRequest>) => void): void;
}
const scope = self as unknown as SliceScope;

async function run(request: SliceWorkerRequest): Promise<void> {
  try {
    const { api } = await loadEngine(request.prefer, request.module);
    const state = await calibrateSlice(request, {
      engine: api satisfies SliceEngine,
      decodeImage,
      onProgress: (done) => {
        scope.postMessage({ type: 'progress', done }, []);
      },
      isCancelled: () => false,
      yieldToEventLoop: () => Promise.resolve(),
      now: () => performance.now(),
    });
    scope.postMessage({ type: 'state', state }, state ? [state.buffer] : []);
  } catch (error) {
    scope.postMessage({ type: 'error', message: errorMessage(error) }, []);
  }
}

scope.addEventListener('message', (event) => {
  void run(event.data);
});
