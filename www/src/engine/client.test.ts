import { describe, expect, it } from 'vitest';
import { EngineClient, EngineError, InterruptedError, WorkerCrashedError } from './client';
import { DEFAULT_LIMITS, workerLimits } from '../limits';
import type { EngineInfo, WorkerRequest, WorkerResponse } from './protocol';
import type { ModelSummary } from './types';

const INFO: EngineInfo = { version: '0.0.0-test', simd: true, build: 'simd', simdSupported: true, dotScheme: 'none' };
const SUMMARY: ModelSummary = {
  version: 3,
  description: undefined,
  subgraphs: [],
  operator_counts: [],
  signatures: [],
  metadata: [],
  buffers: 0,
  constant_bytes: 0,
  warnings: [],
};

/** A stand-in Worker: answers requests with `respond`, and can be made to "crash". */
class FakeWorker extends EventTarget {
  terminated = false;
  readonly received: WorkerRequest[] = [];
  constructor(private readonly respond: (req: WorkerRequest) => WorkerResponse | undefined) {
    super();
  }
  postMessage(req: WorkerRequest): void {
    this.received.push(req);
    const res = this.respond(req);
    if (res) queueMicrotask(() => this.dispatchEvent(new MessageEvent('message', { data: res })));
  }
  terminate(): void {
    this.terminated = true;
  }
  crash(message: string): void {
    const event = new Event('error', { cancelable: true });
    Object.assign(event, { message });
    this.dispatchEvent(event);
  }
}

function healthy(req: WorkerRequest): WorkerResponse | undefined {
  switch (req.type) {
    case 'init':
      return { type: 'ready', id: req.id, engine: INFO };
    case 'inspect':
      return req.bytes.length < 8
        ? { type: 'error', id: req.id, message: 'truncated file', fatal: false }
        : {
            type: 'summary',
            id: req.id,
            name: req.name,
            size: req.bytes.length,
            summary: SUMMARY,
            cannotRun: req.bytes.length > req.limits.engine.max_tensor_bytes ? 'too large for the fake' : undefined,
            cannotRunOps: [],
            stateful: false,
          };
    case 'check-size':
      return req.size > req.limits.maxModelBytes
        ? { type: 'error', id: req.id, message: `${req.name} is too large`, fatal: false }
        : { type: 'size-ok', id: req.id };
    case 'rewrite':
      return { type: 'rewritten', id: req.id, bytes: req.bytes };
    case 'requant':
      return {
        type: 'requant',
        id: req.id,
        steps: req.weightScales.map((w) => ({ multiplier: (req.inputScale * w) / req.outputScale, m0: 1 << 30, shift: 0, represented: 0.5 })),
      };
    case 'quantize':
      return {
        type: 'quantized',
        id: req.id,
        bytes: new Uint8Array([1, 2, 3]),
        summary: SUMMARY,
        report: { mode: req.settings.mode, io: req.settings.io, tensors: [], ops: [], warnings: [] },
        reportJson: '{}\n',
        statsJson: req.stats ? '{"samples":1,"tensors":[]}\n' : undefined,
        warnings: [],
        elapsedMs: 1,
      };
    case 'rank-layers':
      return { type: 'ranked', id: req.id, ranking: { baseSqnrDb: 30, samples: 2, layers: [{ index: 1, label: 'ADD #1 (y)', fix: 'int16', sqnrDb: 41 }], refused: [] } };
    case 'debug-panic':
      return { type: 'error', id: req.id, message: `the engine panicked: ${req.message}`, fatal: true };
    case 'calibrate':
    case 'cancel':
    case 'calibration-stats':
    case 'quant-params':
    case 'weight-scales':
    case 'stats-json':
    case 'run':
    case 'stream':
    case 'compare':
      return { type: 'error', id: req.id, message: 'not in this fake', fatal: false };
    case 'crash':
      return undefined;
  }
}

function setup(respond: (req: WorkerRequest) => WorkerResponse | undefined = healthy) {
  const workers: FakeWorker[] = [];
  const restarts: string[] = [];
  const client = new EngineClient({
    prefer: 'auto',
    onRestart: (reason) => restarts.push(reason),
    createWorker: () => {
      const w = new FakeWorker(respond);
      workers.push(w);
      return w as unknown as Worker;
    },
  });
  return { client, workers, restarts };
}

describe('EngineClient', () => {
  it('sends requant requests and returns one multiplier per weight scale', async () => {
    const { client } = setup();
    const steps = await client.requant(0.5, [0.25, 0.125], 0.25);
    expect(steps.map((m) => m.multiplier)).toEqual([0.5, 0.25]);
    await expect(client.quantParams(0, 1, 'int8')).rejects.toThrow('not in this fake');
  });

  it('initialises once and answers requests by id', async () => {
    const { client, workers } = setup();
    await expect(client.init()).resolves.toEqual(INFO);
    const [a, b] = await Promise.all([
      client.inspect('a.tflite', new Uint8Array(16)),
      client.inspect('b.tflite', new Uint8Array(32)),
    ]);
    expect(a.size).toBe(16);
    expect(b.size).toBe(32);
    const sent = workers[0]?.received ?? [];
    expect(sent.filter((r) => r.type === 'init')).toHaveLength(1);
    expect(new Set(sent.map((r) => r.id)).size).toBe(sent.length);
  });

  it('turns engine errors into EngineError and keeps working', async () => {
    const { client, restarts } = setup();
    await expect(client.inspect('bad.tflite', new Uint8Array(3))).rejects.toThrow(EngineError);
    await expect(client.inspect('bad.tflite', new Uint8Array(3))).rejects.toThrow('truncated file');
    await expect(client.rewrite(new Uint8Array(12), false)).resolves.toHaveLength(12);
    expect(restarts).toEqual([]);
  });

  it('restarts a crashed worker and rejects what was pending', async () => {
    const { client, workers, restarts } = setup((req) => (req.type === 'inspect' ? undefined : healthy(req)));
    await client.init();
    const pending = client.inspect('slow.tflite', new Uint8Array(16));
    await Promise.resolve();
    workers[0]?.crash('boom');
    await expect(pending).rejects.toThrow(WorkerCrashedError);
    expect(workers[0]?.terminated).toBe(true);
    expect(workers).toHaveLength(2);
    expect(restarts).toEqual(['engine worker crashed: boom']);
    expect(client.restartCount).toBe(1);
    // The new worker is initialised again on the next request.
    await expect(client.rewrite(new Uint8Array(9), false)).resolves.toHaveLength(9);
    expect(workers[1]?.received.map((r) => r.type)).toEqual(['init', 'rewrite']);
  });

  it('restarts after a fatal engine error (wasm trap)', async () => {
    const { client, workers, restarts } = setup((req) =>
      req.type === 'inspect'
        ? { type: 'error', id: req.id, message: 'unreachable', fatal: true }
        : healthy(req),
    );
    await expect(client.inspect('x.tflite', new Uint8Array(16))).rejects.toThrow('unreachable');
    expect(workers).toHaveLength(2);
    expect(restarts).toEqual(['engine failed: unreachable']);
  });

  it('sends the model, the statistics and the settings with every quantize request', async () => {
    const { client, workers } = setup();
    const stats = { samples: 1, tensors: [] };
    const settings = { mode: 'int8', io: 'uint8', per_tensor: true, float_ops: ['2'] };
    const result = await client.quantize(new Uint8Array(40), stats, settings);
    expect(result.report.io).toBe('uint8');
    expect(result.statsJson).toBe('{"samples":1,"tensors":[]}\n');
    const sent = workers[0]?.received.find((r) => r.type === 'quantize');
    expect(sent).toMatchObject({ type: 'quantize', stats, settings });
    expect(sent?.type === 'quantize' ? sent.bytes.byteLength : 0).toBe(40);
    expect((await client.quantize(new Uint8Array(8), undefined, { ...settings, mode: 'dynamic' })).statsJson).toBeUndefined();
  });

  it('--auto travels with the quantize request with the client\'s limits; a ranking comes back whole', async () => {
    const { client, workers } = setup();
    const settings = { mode: 'int8', io: 'int8', per_tensor: false, float_ops: [], int16_ops: [] };
    const config = { source: { kind: 'random' as const, count: 4, lo: 0, hi: 1, seed: 1 }, method: { kind: 'minmax' as const } };
    await client.quantize(new Uint8Array(40), undefined, settings, undefined, { config, targetSqnrDb: 40, budget: 10 });
    const sent = workers[0]?.received.find((r) => r.type === 'quantize');
    expect(sent).toMatchObject({ type: 'quantize', auto: { config, targetSqnrDb: 40, budget: 10, limits: workerLimits(DEFAULT_LIMITS) } });
    const ranking = await client.rankLayers(new Uint8Array(40), { samples: 1, tensors: [] }, settings);
    expect(ranking.layers.map((l) => l.label)).toEqual(['ADD #1 (y)']);
    expect(workers[0]?.received.find((r) => r.type === 'rank-layers')).toMatchObject({ type: 'rank-layers', settings });
  });

  it('interrupt stops a request that never ends: it rejects as stopped, a fresh worker serves the next one, no restart is reported', async () => {
    let hang = true;
    const { client, workers, restarts } = setup((req) => (req.type === 'quantize' && hang ? undefined : healthy(req)));
    const settings = { mode: 'int8', io: 'int8', per_tensor: false, float_ops: [] };
    const running = client.quantize(new Uint8Array(40), undefined, settings);
    await client.init();
    client.interrupt();
    await expect(running).rejects.toBeInstanceOf(InterruptedError);
    expect(workers).toHaveLength(2);
    expect(workers[0]?.terminated).toBe(true);
    expect(client.restartCount).toBe(0);
    expect(restarts).toEqual([]);
    hang = false;
    expect((await client.quantize(new Uint8Array(8), undefined, settings)).bytes).toEqual(new Uint8Array([1, 2, 3]));
    expect(workers[1]?.received.some((r) => r.type === 'quantize')).toBe(true);
  });

  it('a panic rejects with its message, restarts the worker, and the next quantize goes to the new worker', async () => {
    const { client, workers, restarts } = setup();
    await expect(client.debugPanic('boom')).rejects.toThrow('the engine panicked: boom');
    expect(restarts).toEqual(['engine failed: the engine panicked: boom']);
    expect(workers).toHaveLength(2);
    const stats = { samples: 3, tensors: [] };
    await client.quantize(new Uint8Array(12), stats, { mode: 'int8', io: 'int8', per_tensor: false, float_ops: [] });
    const resent = workers[1]?.received.find((r) => r.type === 'quantize');
    expect(resent).toMatchObject({ stats });
  });

  it('sends the current limits with every request that reads or prepares a model', async () => {
    const { client, workers } = setup();
    expect((await client.inspect('a.tflite', new Uint8Array(64))).cannotRun).toBeUndefined();
    const tiny = workerLimits({ ...DEFAULT_LIMITS, maxModelMb: 16 / 1_048_576, maxTensorMb: 32 / 1_048_576 });
    client.setLimits(tiny);
    expect((await client.inspect('a.tflite', new Uint8Array(64))).cannotRun).toBe('too large for the fake');
    await expect(client.checkModelSize('big.tflite', 17)).rejects.toThrow('big.tflite is too large');
    await expect(client.checkModelSize('ok.tflite', 16)).resolves.toBeUndefined();
    await expect(client.run(new Uint8Array(8), { source: { kind: 'random', count: 1, lo: 0, hi: 1, seed: 0 }, index: 0 }, 1)).rejects.toThrow();
    const sent = workers[0]?.received ?? [];
    const withLimits = sent.filter((r) => r.type === 'inspect' || r.type === 'check-size' || r.type === 'run');
    expect(withLimits.map((r) => ('limits' in r ? r.limits.engine.max_tensor_bytes : -1))).toEqual([DEFAULT_LIMITS.maxTensorMb * 1_048_576, 32, 32, 32, 32]);
  });

  it('gives up after repeated crashes', async () => {
    const { client, workers } = setup();
    for (let i = 0; i < 4; i++) workers[workers.length - 1]?.crash(`crash ${String(i)}`);
    expect(workers).toHaveLength(4);
    await expect(client.init()).rejects.toThrow(/crashed 4 times/);
  });

  it('passes calibration progress to the caller and cancels by request id', async () => {
    let calibrateId = 0;
    const { client, workers } = setup((req) => {
      if (req.type === 'calibrate') {
        calibrateId = req.id;
        return { type: 'progress', id: req.id, done: 1, total: 4, elapsedMs: 5 };
      }
      if (req.type === 'cancel') {
        const w = workers[0];
        queueMicrotask(() =>
          w?.dispatchEvent(
            new MessageEvent('message', {
              data: { type: 'calibrated', id: req.target, status: 'cancelled', samples: 1, elapsedMs: 9, stats: undefined },
            }),
          ),
        );
        return { type: 'cancel-ack', id: req.id, found: req.target === calibrateId };
      }
      return healthy(req);
    });
    const seen: number[] = [];
    const run = client.calibrate(
      new Uint8Array(16),
      { source: { kind: 'random', count: 4, lo: 0, hi: 1, seed: 1 }, method: { kind: 'minmax' } },
      (p) => seen.push(p.done),
    );
    run.cancel(); // before the request is even sent: delivered once it is
    const result = await run.result;
    expect(result).toEqual({ status: 'cancelled', samples: 1, elapsedMs: 9, stats: undefined });
    expect(seen).toEqual([1]);
    const cancels = workers[0]?.received.filter((r) => r.type === 'cancel') ?? [];
    expect(cancels).toHaveLength(1);
    expect(cancels[0]).toMatchObject({ target: calibrateId });
  });
});
