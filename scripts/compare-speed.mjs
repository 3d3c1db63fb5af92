// `npm run compare-speed -- [DIR|FILE.tflite …]`: is the int8 model faster than the float one, on
// the bundled example and on real models (issue 20)? For each float model: quantize it to int8
// with the release CLI (`target/release/zeropoint quantize MODEL --data X.npy`, default int8 I/O
// as the page's Quantize tab; X = seeded synthetic images in the model's input range), then in
// Node load www/pkg/<variant> (scripts/build-wasm.sh) and time `invoke()` of the float model and of
// the int8 model in LiteRT's reference arithmetic and in its XNNPACK arithmetic, each a
// `BenchSession` with the fast kernels (the page's Compare view times `invoke()` of the same
// kernels in its worker). Each configuration first runs for at least --warmup-ms (V8 tiers the
// wasm up), then the three run interleaved batch by batch; a configuration's figure is the median
// of its batch means. Writes a Markdown table to bench/compare-speed.md (or --out) and, with
// --readme, into README.md between the `compare-speed` markers of "## Performance".
//
//   node scripts/compare-speed.mjs [--variant simd] [--batches N] [--batch-ms MS] [--warmup-ms MS]
//                                  [--samples N] [--zeropoint PATH] [--out FILE] [--readme]
//                                  [DIR|FILE.tflite …]
// A directory contributes its *.tflite files (sorted), except AI Edge Quantizer's outputs
// (`*.aeq_*.tflite`: already quantized copies of models in the list). The bundled example
// (www/assets/example.tflite) always comes first. Quantized files go to target/compare-speed/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { npyBytes } from '../tests/e2e/lib/data.mjs';
import { loadGlue, randomFloats, setSeededInputs } from './lib/wasm-node.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = 'www/assets/example.tflite';
const README = join(ROOT, 'README.md');
const BEGIN = '<!-- compare-speed:begin -->';
const END = '<!-- compare-speed:end -->';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    variant: { type: 'string', default: 'simd' },
    batches: { type: 'string', default: '15' },
    'batch-ms': { type: 'string', default: '60' },
    'warmup-ms': { type: 'string', default: '400' },
    samples: { type: 'string', default: '8' },
    zeropoint: { type: 'string', default: 'target/release/zeropoint' },
    out: { type: 'string', default: 'bench/compare-speed.md' },
    readme: { type: 'boolean', default: false },
  },
});
const BATCHES = Number(opts.batches);
const BATCH_MS = Number(opts['batch-ms']);
const WARMUP_MS = Number(opts['warmup-ms']);
const SAMPLES = Number(opts.samples);
const zeropoint = resolve(opts.zeropoint);
const work = join(ROOT, 'target', 'compare-speed');

/**
 * Input value range of a model's float input, [lo, hi): [0, 1) for MediaPipe's selfie
 * segmentation (as tests/tools/compare_mediapipe.py feeds it), [-1, 1) otherwise. Speed hardly
 * depends on it; it only sets the calibrated input scale.
 */
const inputRange = (name) => (/selfie_segmentation/.test(name) ? [0, 1] : [-1, 1]);

/** The model files: the example, then each argument (a directory's *.tflite, or a file). */
function modelFiles() {
  const files = [join(ROOT, EXAMPLE)];
  for (const arg of positionals) {
    const path = resolve(arg);
    if (statSync(path).isDirectory()) {
      for (const f of readdirSync(path).sort()) {
        if (f.endsWith('.tflite') && !f.includes('.aeq_')) files.push(join(path, f));
      }
    } else {
      files.push(path);
    }
  }
  return files;
}

/**
 * Seeded synthetic samples of one input: for an image-like input ([1, H, W, C]), 16×16 blocks of
 * one value per channel plus ±5 % noise, clipped to [lo, hi] (as compare_mediapipe.py's
 * `images`); otherwise uniform values. Shape [n, ...shape] (first axis = samples).
 */
function samples(shape, n, seed, lo, hi) {
  const size = shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(n * size);
  const uniform = randomFloats(n * size, seed, lo, hi);
  if (shape.length === 4 && shape[0] === 1 && shape[1] >= 16 && shape[2] >= 16) {
    const [, h, w, c] = shape;
    const bh = Math.ceil(h / 16);
    const bw = Math.ceil(w / 16);
    const blocks = randomFloats(n * bh * bw * c, seed + 1000, lo, hi);
    const noise = randomFloats(n * size, seed + 2000, -0.05 * (hi - lo), 0.05 * (hi - lo));
    for (let s = 0; s < n; s++) {
      for (let y = 0; y < h; y++) {
        for (let x = 0; x < w; x++) {
          for (let k = 0; k < c; k++) {
            const i = s * size + (y * w + x) * c + k;
            const b = blocks[((s * bh + (y >> 4)) * bw + (x >> 4)) * c + k];
            out[i] = Math.min(hi, Math.max(lo, b + noise[i]));
          }
        }
      }
    }
    return out;
  }
  return uniform;
}

/** Quantizes `file` to int8 with the CLI; the path of the int8 model, or throws the CLI's error. */
function quantize(glue, file, name) {
  const bytes = readFileSync(file);
  const probe = new glue.BenchSession(bytes, 'fast', 'reference');
  const inputs = probe.inputs();
  probe.free();
  const [lo, hi] = inputRange(name);
  const data = inputs.flatMap((t, i) => {
    if (t.dtype !== 'FLOAT32') throw new Error(`input ${t.name} is ${t.dtype}, not a float model`);
    const path = join(work, `${name}.in${i}.npy`);
    writeFileSync(path, npyBytes([SAMPLES, ...t.shape], samples(t.shape, SAMPLES, 7 + i, lo, hi)));
    return ['--data', path];
  });
  const out = join(work, `${name}.int8.tflite`);
  try {
    execFileSync(zeropoint, ['quantize', file, ...data, '--mode', 'int8', '-o', out], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = String(error.stderr ?? error.message).trim().split('\n').pop();
    throw new Error(`zeropoint quantize failed: ${stderr}`, { cause: error });
  }
  return out;
}

/** Runs `session` for at least `ms` milliseconds; the mean ms of one invoke. */
function warmUp(session, ms) {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms || n < 3) {
    session.invoke();
    n += 1;
  }
  return (performance.now() - t0) / n;
}

/**
 * Times the configurations of one model: each warmed up, then `BATCHES` rounds in which each runs
 * one batch of invokes (as many as take about `BATCH_MS`), in turn. Median batch mean per config.
 */
function timeModel(configs) {
  const live = configs.filter((c) => c.session);
  for (const c of live) {
    const once = warmUp(c.session, WARMUP_MS);
    c.batch = Math.max(1, Math.round(BATCH_MS / Math.max(once, 0.001)));
    c.times = [];
  }
  for (let r = 0; r < BATCHES; r++) {
    for (const c of live) {
      const t0 = performance.now();
      for (let i = 0; i < c.batch; i++) c.session.invoke();
      c.times.push((performance.now() - t0) / c.batch);
    }
  }
  for (const c of live) {
    const sorted = [...c.times].sort((a, b) => a - b);
    const m = sorted.length >> 1;
    c.ms = sorted.length % 2 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2;
    c.session.free();
  }
}

const fmt = (ms) => (ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
/** float / int8: above 1 when int8 is faster. */
const ratio = (f, q) => (f && q ? `\u00d7${(f / q).toFixed(2)}${f / q < 1 ? ' (slower)' : ''}` : '\u2014');

async function main() {
  if (!existsSync(zeropoint)) throw new Error(`${zeropoint} not found: cargo build --release -p zeropoint --bin zeropoint`);
  mkdirSync(work, { recursive: true });
  const glue = await loadGlue(ROOT, opts.variant);
  const rows = [];
  const notes = [];
  for (const file of modelFiles()) {
    const rel = relative(ROOT, file);
    const name = basename(file, '.tflite');
    process.stdout.write(`${rel} ...\n`);
    let int8File;
    try {
      int8File = quantize(glue, file, name);
    } catch (error) {
      notes.push(`\`${name}\`: not timed, ${error.message}`);
      continue;
    }
    const [lo, hi] = inputRange(name);
    const open = (bytes, arithmetic, label) => {
      try {
        const session = new glue.BenchSession(bytes, 'fast', arithmetic);
        setSeededInputs(session, lo, hi);
        return { label, session };
      } catch (error) {
        notes.push(`\`${name}\` ${label}: ${error instanceof Error ? error.message : String(error)}`);
        return { label, session: undefined };
      }
    };
    const int8 = readFileSync(int8File);
    const configs = [open(readFileSync(file), 'reference', 'float'), open(int8, 'reference', 'int8 reference'), open(int8, 'xnnpack', 'int8 xnnpack')];
    timeModel(configs);
    const [f, r, x] = configs.map((c) => c.ms);
    const row = { name, file: rel, float: f, reference: r, xnnpack: x, load: loadavg()[0] };
    rows.push(row);
    const ms = (v) => (v ? `${fmt(v)} ms` : '\u2014');
    process.stdout.write(`  float ${ms(f)}, int8 reference ${ms(r)} (${ratio(f, r)}), int8 xnnpack ${ms(x)} (${ratio(f, x)}), load ${row.load.toFixed(1)}\n`);
  }
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
  } catch {
    /* not a checkout */
  }
  const table = [
    `Made by \`${['node scripts/compare-speed.mjs', ...process.argv.slice(2).map((a) => (isAbsolute(a) ? relative(ROOT, a) : a))].join(' ')}\` at ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, commit \`${commit}\`, \`www/pkg/${opts.variant}\` in Node ${process.version} (V8), ${String(cpus().length)} \u00d7 ${cpus()[0]?.model ?? 'CPU'}. ` +
      `\`invoke()\` with the fast kernels; each configuration warmed up \u2265 ${String(WARMUP_MS)} ms, then ${String(BATCHES)} batches of ~${String(BATCH_MS)} ms interleaved float / int8 reference / int8 xnnpack; median batch mean. ` +
      'int8: `zeropoint quantize --mode int8` (int8 inputs and outputs) calibrated on ' +
      `${String(SAMPLES)} seeded synthetic images. Ratio = float ms / int8 ms (above 1: int8 faster). Load: 1-minute load average after the row (a shared machine: compare ratios, not absolute times).`,
    '',
    '| model | float ms | int8 reference ms | ratio | int8 xnnpack ms | ratio | load |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.float ? fmt(r.float) : '\u2014'} | ${r.reference ? fmt(r.reference) : '\u2014'} | ${ratio(r.float, r.reference)} | ${r.xnnpack ? fmt(r.xnnpack) : '\u2014'} | ${ratio(r.float, r.xnnpack)} | ${r.load.toFixed(1)} |`,
    ),
    ...(notes.length ? ['', ...notes.map((n) => `- ${n}`)] : []),
  ].join('\n');
  const outFile = resolve(ROOT, opts.out);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(outFile, `# int8 vs float speed (issue 20)\n\n${table}\n`);
  process.stdout.write(`${table}\nwrote ${relative(ROOT, outFile)}\n`);
  if (opts.readme) {
    const readme = readFileSync(README, 'utf8');
    const a = readme.indexOf(BEGIN);
    const b = readme.indexOf(END);
    if (a < 0 || b < a) throw new Error(`README.md lacks the ${BEGIN} / ${END} markers`);
    writeFileSync(README, `${readme.slice(0, a + BEGIN.length)}\n${table}\n${readme.slice(b)}`);
    process.stdout.write('updated README.md\n');
  }
}

await main();
