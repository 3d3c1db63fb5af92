/**
 * The engine worker: all model work runs here, off the page's UI thread.
 *
 * It loads the wasm engine on `init`, then answers `inspect` / `rewrite` / `calibrate` requests
 * (see engine/protocol.ts). A calibration yields to the message loop between samples, so a
 * `cancel` (or any other request) is handled while it runs. Errors thrown by the engine become `error` responses with the
 * engine's message; a wasm trap (a Rust panic) is reported as fatal so the page restarts us.
 */
import { decodeImage } from './calibration/decode';
import { calibrate, type CalibrationEngine } from './calibration/run';
import type { CalibratorLike } from './calibration/types';
import { loadEngine, type LoadedEngine } from './engine/loader';
import { errorMessage, type WorkerRequest, type WorkerResponse } from './engine/protocol';

/** The slice of DedicatedWorkerGlobalScope we use (the page's tsconfig has the DOM lib only). */
interface WorkerScope {
  postMessage(message: WorkerResponse, transfer: Transferable[]): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<WorkerRequest>) => void): void;
}
const scope = self as unknown as WorkerScope;

let engine: Promise<LoadedEngine> | undefined;
/** Ids of calibrate requests in progress, and those asked to stop. */
const calibrating = new Set<number>();
const cancelled = new Set<number>();
/** The last finished calibration, for `calibration-stats` (replaced when the next one finishes). */
let lastCalibrator: CalibratorLike | undefined;

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
    case 'calibrate': {
      const { api } = await requireEngine();
      calibrating.add(request.id);
      try {
        const outcome = await calibrate(request.bytes, request.config, {
          engine: api satisfies CalibrationEngine,
          decodeImage,
          onProgress: (progress) => {
            scope.postMessage({ type: 'progress', id: request.id, ...progress }, []);
          },
          isCancelled: () => cancelled.has(request.id),
        });
        if (outcome.calibrator) {
          lastCalibrator?.free();
          lastCalibrator = outcome.calibrator;
        }
        const { status, samples, elapsedMs, stats } = outcome;
        return [{ type: 'calibrated', id: request.id, status, samples, elapsedMs, stats }, []];
      } finally {
        calibrating.delete(request.id);
        cancelled.delete(request.id);
      }
    }
    case 'cancel': {
      const found = calibrating.has(request.target);
      if (found) cancelled.add(request.target);
      return [{ type: 'cancel-ack', id: request.id, found }, []];
    }
    case 'calibration-stats': {
      if (!lastCalibrator) throw new Error('no finished calibration in this engine: run Calibrate again');
      return [{ type: 'calibration-stats', id: request.id, stats: lastCalibrator.stats(request.method) }, []];
    }
    case 'quant-params': {
      const { api } = await requireEngine();
      return [{ type: 'quant-params', id: request.id, steps: api.quantParams(request.min, request.max, request.dtype) }, []];
    }
    case 'requant': {
      const { api } = await requireEngine();
      const steps = api.requantMultipliers(request.inputScale, Float32Array.from(request.weightScales), request.outputScale);
      return [{ type: 'requant', id: request.id, steps }, []];
    }
    case 'weight-scales': {
      const { api } = await requireEngine();
      const scales = Array.from(api.weightScales(request.bytes, request.tensor, request.axis));
      return [{ type: 'weight-scales', id: request.id, scales }, []];
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
