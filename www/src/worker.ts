/**
 * The engine worker: all model work runs here, off the page's UI thread.
 *
 * It loads the wasm engine on `init`, then answers `inspect` / `rewrite` requests
 * (see engine/protocol.ts). Errors thrown by the engine become `error` responses with the
 * engine's message; a wasm trap (a Rust panic) is reported as fatal so the page restarts us.
 */
import { loadEngine, type LoadedEngine } from './engine/loader';
import { errorMessage, type WorkerRequest, type WorkerResponse } from './engine/protocol';

/** The slice of DedicatedWorkerGlobalScope we use (the page's tsconfig has the DOM lib only). */
interface WorkerScope {
  postMessage(message: WorkerResponse, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void;
}
const scope = self as unknown as WorkerScope;

let engine: Promise<LoadedEngine> | undefined;

function requireEngine(): Promise<LoadedEngine> {
  if (!engine) throw new Error('engine not initialised (no init request yet)');
  return engine;
}

async function handle(request: WorkerRequest): Promise<[WorkerResponse, Transferable[]]> {
  switch (request.type) {
    case 'init': {
      engine ??= loadEngine(request.prefer);
      const { info } = await engine;
      return [{ type: 'ready', id: request.id, engine: info }, []];
    }
    case 'inspect': {
      const { api } = await requireEngine();
      const summary = api.inspectModel(request.bytes);
      return [
        { type: 'summary', id: request.id, name: request.name, size: request.bytes.byteLength, summary },
        [],
      ];
    }
    case 'rewrite': {
      const { api } = await requireEngine();
      const bytes = api.rewriteModel(request.bytes, request.externalBuffers);
      return [{ type: 'rewritten', id: request.id, bytes }, [bytes.buffer]];
    }
    case 'crash': {
      setTimeout(() => {
        throw new Error('worker crash requested (test hook)');
      });
      return new Promise(() => undefined); // never answers: the worker dies first
    }
  }
}

scope.addEventListener('message', (event) => {
  const request = event.data;
  handle(request).then(
    ([response, transfer]) => {
      scope.postMessage(response, transfer);
    },
    (error: unknown) => {
      // A trap (RuntimeError: unreachable, out of bounds…) means Rust panicked or memory is
      // corrupt: the instance must not be reused.
      const fatal = error instanceof WebAssembly.RuntimeError;
      if (request.type === 'init') engine = undefined; // allow a retry
      scope.postMessage({ type: 'error', id: request.id, message: errorMessage(error), fatal }, []);
    },
  );
});
