// What the page must show, from outside the page: the real wasm engine loaded in Node, the CLI
// (target/debug/zeropoint) run on the same files, and independent re-derivations of the
// quantization parameters; the malformed-model corpus with the CLI's message for each file.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { npyBytes } from './data.mjs';
import { ROOT, assert, log } from './harness.mjs';

export const INT8_MODEL = join(ROOT, 'tests/golden/example_cnn/model_int8.tflite');
/** The golden case of the quantize / compare steps: a float model and TF's calibration samples. */
export const GOLDEN = join(ROOT, 'tests/golden/mobilenet_block');
export const CLI = join(ROOT, 'target', 'debug', 'zeropoint');
/** Written by crate/tests/malformed.rs: the malformed models and the CLI's error for each. */
export const CORPUS = join(ROOT, 'target', 'malformed-corpus');

/** The engine in Node: the page must show what it says. */
export async function loadNodeEngine() {
  const js = join(ROOT, 'www/pkg/simd/zeropoint.js');
  const wasm = join(ROOT, 'www/pkg/simd/zeropoint_bg.wasm');
  if (!existsSync(js) || !existsSync(wasm)) {
    throw new Error('www/pkg/simd is missing: run `bash scripts/build-wasm.sh` (then `npx vite build`)');
  }
  const api = await import(pathToFileURL(js).href);
  api.initSync({ module: readFileSync(wasm) });
  return api;
}

export function engineError(api, bytes) {
  try {
    api.inspectModel(bytes);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  throw new Error('the engine accepted bytes that were meant to be malformed');
}

/** The seed of calibration sample i, input k: the same mixing as www/src/calibration/sources.ts. */
export function sampleSeed(seed, sample, input) {
  return (seed + Math.imul(sample, 0x9e3779b1) + Math.imul(input + 1, 0x85ebca77)) >>> 0;
}

/**
 * Calibrate in Node with the page's random source: what the page must show. `shapes` (an
 * InputShapes object, e.g. `{ shapes: [], batch: 2 }`) resizes dynamic dims as the page's
 * dims control does.
 */
export function nodeCalibration(api, model, { count, lo, hi, seed }, method, shapes = undefined) {
  const calibrator = new api.Calibrator(model, undefined, shapes);
  try {
    const inputs = calibrator.inputs();
    for (let i = 0; i < count; i++) {
      inputs.forEach((input, k) => {
        const n = input.shape.reduce((a, b) => a * b, 1);
        calibrator.setInput(k, api.randomData(n, lo, hi, sampleSeed(seed, i, k)));
      });
      calibrator.addSample();
    }
    return calibrator.stats(method);
  } finally {
    calibrator.free();
  }
}

/** TF's rounding of a zero point: half away from zero. */
function roundHalfAway(x) {
  return Math.sign(x) * Math.round(Math.abs(x));
}

/**
 * The int8 scale and zero point derived here from a range, independently of the engine: widen
 * to include 0, scale = (f32(rmax) − f32(rmin)) / 255 in float32, zero point from the min side
 * rounded half away from zero and clamped, so that q = zero point stands for 0.0.
 */
export function expectedInt8(min, max) {
  const rmin = Math.min(min, 0);
  const rmax = Math.max(max, 0);
  const scale = Math.fround(Math.fround(Math.fround(rmax) - Math.fround(rmin)) / 255);
  const zpReal = Math.fround(-128 - rmin / scale);
  const zeroPoint = Math.min(127, Math.max(-128, roundHalfAway(zpReal)));
  return { rmin, rmax, scale, zeroPoint };
}

/**
 * `zeropoint calibrate` (the CLI, built by scripts/test.sh before this runs) on the same samples
 * the page's seeded random source makes, written to a .npy: its statistics JSON.
 */
export function cliCalibration(api, modelPath, input, { count, lo, hi, seed }, method) {
  const cli = join(ROOT, 'target', 'debug', 'zeropoint');
  assert(existsSync(cli), `${cli} is missing: run \`cargo build -p zeropoint --bin zeropoint\``);
  const n = input.shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count * n);
  for (let i = 0; i < count; i++) data.set(api.randomData(n, lo, hi, sampleSeed(seed, i, 0)), i * n);
  const dir = mkdtempSync(join(tmpdir(), 'zeropoint-e2e-'));
  try {
    const npy = join(dir, 'samples.npy');
    const out = join(dir, 'stats.json');
    writeFileSync(npy, npyBytes([count, ...input.shape], data));
    execFileSync(cli, ['calibrate', modelPath, '--data', npy, '--method', method, '-o', out], { timeout: 60_000, stdio: ['ignore', 'ignore', 'pipe'] });
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Checks the Ranges view against the independent derivation and against the engine in Node. */
export function checkRanges(api, shown, wantStats) {
  const want = wantStats.tensors.find((t) => t.index === shown.tensor);
  assert(want, `the engine has no statistics for tensor ${String(shown.tensor)}`);
  assert(shown.observedMin === want.min && shown.observedMax === want.max, `observed [${String(shown.observedMin)}, ${String(shown.observedMax)}], engine [${String(want.min)}, ${String(want.max)}]`);
  assert(shown.chosenMin === want.chosen_min && shown.chosenMax === want.chosen_max, `chosen [${String(shown.chosenMin)}, ${String(shown.chosenMax)}], engine [${String(want.chosen_min)}, ${String(want.chosen_max)}]`);
  const mine = expectedInt8(shown.chosenMin, shown.chosenMax);
  assert(shown.scale === mine.scale, `scale ${String(shown.scale)}, (max − min)/255 in float32 gives ${String(mine.scale)}`);
  assert(shown.zeroPoint === mine.zeroPoint, `zero point ${String(shown.zeroPoint)}, derived ${String(mine.zeroPoint)}`);
  assert(Number.isInteger(shown.zeroPoint) && shown.zeroPoint >= -128 && shown.zeroPoint <= 127, `zero point ${String(shown.zeroPoint)} is not an int8`);
  // 0.0 is exact: the grid scale · (q − zp) has q = zp at 0, and it lies inside the represented range.
  assert(shown.nudgedMin <= 0 && shown.nudgedMax >= 0, `represented range [${String(shown.nudgedMin)}, ${String(shown.nudgedMax)}] lacks 0`);
  assert(Math.abs(shown.nudgedMin - shown.scale * (-128 - shown.zeroPoint)) <= 1e-12 * Math.max(1, Math.abs(shown.nudgedMin)), 'represented min is not scale · (−128 − zp)');
  // The represented range covers the widened range to within half a step at each end.
  assert(shown.nudgedMin <= mine.rmin + shown.scale / 2 + 1e-12 && shown.nudgedMax >= mine.rmax - shown.scale / 2 - 1e-12, 'represented range is not the nudged widened range');
  const engine = api.quantParams(shown.chosenMin, shown.chosenMax, 'int8');
  assert(engine.scale === shown.scale && engine.zero_point === shown.zeroPoint, `engine in Node: scale ${String(engine.scale)} zp ${String(engine.zero_point)}`);
}

/** Runs the CLI (built by scripts/test.sh before this runs); throws with its stderr on failure. */
export function cli(args) {
  assert(existsSync(CLI), `${CLI} is missing: run \`cargo build -p zeropoint --bin zeropoint\``);
  try {
    return execFileSync(CLI, args, { timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    throw new Error(`zeropoint ${args.join(' ')}: ${String(error.stderr ?? error.message)}`, { cause: error });
  }
}

/** Runs the CLI expecting it to fail; returns its one error line (as printed). */
export function cliError(args) {
  assert(existsSync(CLI), `${CLI} is missing: run \`cargo build -p zeropoint --bin zeropoint\``);
  try {
    execFileSync(CLI, args, { timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    const lines = String(error.stderr ?? '').trimEnd().split('\n');
    assert(lines.length === 1 && lines[0].startsWith('error: '), `zeropoint ${args.join(' ')}: not one error line: ${String(error.stderr)}`);
    return lines[0];
  }
  throw new Error(`zeropoint ${args.join(' ')} succeeded`);
}

/** The CLI's message without "error: " and without the path it was given (the page has a file name). */
export function withoutPath(line, path) {
  return line.replace(/^error: /, '').replace(`${path}: `, '').replace(` (in ${path})`, '');
}

/**
 * The malformed-model corpus and its manifest (file, stage, cli_path, cli_error), built by the
 * Rust test if it is not there yet.
 */
export function malformedCorpus() {
  const manifest = join(CORPUS, 'manifest.json');
  if (!existsSync(manifest)) {
    log('# building the malformed corpus: cargo test -p zeropoint --test malformed');
    execFileSync('cargo', ['test', '-p', 'zeropoint', '--test', 'malformed'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  }
  const entries = JSON.parse(readFileSync(manifest, 'utf8'));
  assert(Array.isArray(entries) && entries.length > 0, `${manifest} lists no files`);
  return entries;
}
