// `npm run profile-ops`: where the time goes, per operator, in the wasm build of Zeropoint's fast
// kernels, run in Node (V8, the engine of Chromium; `performance.now()` is not coarsened here).
//
// Loads www/pkg/<variant>/zeropoint_bg.wasm (build it first: scripts/build-wasm.sh), prepares each
// model with `BenchSession(bytes, kernels, arithmetic)` once per configuration (variant ×
// arithmetic), sets a seeded input, warms up, then calls `BenchSession.profile(reps)`, which runs
// the model `reps` times reading the clock between operators (`Interpreter::invoke_timed`). The
// configurations of one model run interleaved, round by round, so that a comparison between them
// (reference vs XNNPACK arithmetic, or a baseline build vs a changed one) is made within one run
// under the same load. Writes a Markdown report: a comparison table, then per configuration and
// operator type (and whether it runs a fast kernel or keeps the reference) the time and share,
// then the slowest single operators. Also times plain `invokeTimes` for comparison (the sum of
// the per-step times includes the clock reads).
//
//   node scripts/profile-ops.mjs [--variant simd|relaxed|nosimd[,…]] [--kernels fast|reference]
//                                [--arithmetic reference|xnnpack[,…]] [--reps N] [--models a,b]
//                                [--out FILE]
// A --models entry ending in .tflite is a model file's path (relative to the current directory).
// Default: variant simd, kernels fast, arithmetic reference,xnnpack → bench/profile.md. Several
// variants (e.g. `--variant simd-before,simd` with a copy of an earlier build in
// www/pkg/simd-before) compare builds. With relaxed, start Node with
// --experimental-wasm-relaxed-simd on Node 20.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { execFileSync } from 'node:child_process';
import { loadGlue, setSeededInputs } from './lib/wasm-node.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const MODELS = [
  { id: 'mnv2-035-int8', file: 'tests/golden/mobilenet_v2/model_int8.tflite' },
  { id: 'mnv2-035-int8-floatio', file: 'tests/golden/mobilenet_v2/model_int8_floatio.tflite' },
  { id: 'mnv2-100-224-int8-floatio', file: 'bench/models/mobilenet_v2_1.0_224_int8_floatio.tflite' },
];

const { values: opts } = parseArgs({
  options: {
    variant: { type: 'string', default: 'simd' },
    kernels: { type: 'string', default: 'fast' },
    arithmetic: { type: 'string', default: 'reference,xnnpack' },
    reps: { type: 'string' },
    models: { type: 'string' },
    out: { type: 'string' },
  },
});
/** Rounds per model (see profileModel). */
const ROUNDS = 10;
const ids = opts.models ? opts.models.split(',') : MODELS.map((m) => m.id);
const outFile = resolve(ROOT, opts.out ?? 'bench/profile.md');

/** One wasm instance per variant (each glue module is its own ES module with its own memory). */
const glues = new Map();
for (const variant of opts.variant.split(',')) glues.set(variant, await loadGlue(ROOT, variant));
/** The configurations each model is profiled in: variant × arithmetic. */
const configs = [...glues.keys()].flatMap((variant) =>
  opts.arithmetic.split(',').map((arithmetic) => ({ variant, arithmetic, label: glues.size > 1 ? `${variant}, ${arithmetic}` : arithmetic })),
);

const fmt = (ms) => (ms >= 10 ? ms.toFixed(1) : ms >= 0.1 ? ms.toFixed(2) : ms.toFixed(3));
/** `zeropoint::ops::fast::Fast<zeropoint::kernels::simd128::conv_int::Conv2dInt8>` → `Fast<Conv2dInt8>`. */
const shortKernel = (k) => k.replace(/\w+::/g, '');
const isFast = (k) => /::Fast/.test(k);

/** Profiles `model` in every configuration, interleaved round by round; one result per configuration. */
function profileModel(model) {
  const bytes = readFileSync(join(ROOT, model.file));
  const runs = configs.map((config) => {
    const session = new (glues.get(config.variant).BenchSession)(bytes, opts.kernels, config.arithmetic);
    setSeededInputs(session);
    // Enough repetitions for ~4 s of profiling per configuration, at least 40.
    const t0 = performance.now();
    session.invokeTimes(3);
    const once = (performance.now() - t0) / 3;
    const reps = Number(opts.reps ?? Math.max(40, Math.min(4000, Math.round(4000 / Math.max(once, 0.01)))));
    session.invokeTimes(Math.max(3, Math.round(reps / 10)));
    return { config, session, reps, plain: [], steps: undefined };
  });
  // Plain invocations, for comparison (fastest batch mean), and rounds of `reps / ROUNDS`
  // profiled invocations each; every step keeps its fastest round (on a shared machine, other
  // processes only ever add time). Configurations alternate within each round.
  for (let r = 0; r < ROUNDS; r++) {
    for (const run of runs) {
      const batch = Math.max(1, Math.round(run.reps / 20));
      for (let i = 0; i < 2; i++) {
        const a = performance.now();
        run.session.invokeTimes(batch);
        run.plain.push((performance.now() - a) / batch);
      }
      const round = run.session.profile(Math.max(1, Math.round(run.reps / ROUNDS)));
      run.steps = run.steps ? run.steps.map((s, i) => (round[i].ms < s.ms ? round[i] : s)) : round;
    }
  }
  return runs.map((run) => {
    const macs = run.session.macs();
    const arithmetic = run.session.arithmetic();
    run.session.free();
    const reps = Math.max(1, Math.round(run.reps / ROUNDS)) * ROUNDS;
    return { model, config: run.config, arithmetic, reps, macs, plainMs: Math.min(...run.plain), steps: run.steps };
  });
}

function report(results) {
  const lines = [];
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
  } catch {
    /* not a checkout */
  }
  lines.push('# Per-operator profile of Zeropoint\u2019s wasm build');
  lines.push('');
  lines.push(
    `Generated by \`node scripts/profile-ops.mjs\` at ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ` +
      `commit \`${commit}\` (plus uncommitted changes if any), build${glues.size > 1 ? 's' : ''} ${[...glues.keys()].map((v) => `\`www/pkg/${v}\``).join(', ')}, kernel set \`${opts.kernels}\`, arithmetic ${opts.arithmetic.split(',').map((a) => `\`${a}\``).join(', ')}, ` +
      `Node ${process.version} (V8), ${cpus().length} \u00d7 ${cpus()[0]?.model ?? 'CPU'}, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}. Do not edit by hand: rerun.`,
  );
  lines.push('');
  lines.push(
    'Each model runs `reps` times through `BenchSession.profile` (`Interpreter::invoke_timed`: `performance.now()` read ' +
      'between operators), in 10 rounds; each operator\u2019s time is its mean per invocation in its fastest round ' +
      '(other processes on a shared machine only add time). **plain** is the fastest batch mean of `invokeTimes` ' +
      'without the clock reads. A kernel named `Fast\u2026` is a SIMD128 kernel; any other is the scalar reference kernel (a fallback in ' +
      'the fast set). The machine is shared and noisy: compare shares rather than absolute times across runs. ' +
      'The configurations of one model (arithmetic `reference`: LiteRT\u2019s `BUILTIN_REF` bits; `xnnpack`: LiteRT\u2019s ' +
      'default XNNPACK path\u2019s bits, `f32` requantization) run interleaved round by round, so the ratios between them ' +
      'below are measured under the same load; they are relative figures, not benchmark results (`npm run bench` is).',
  );
  lines.push('');
  lines.push('## Configurations compared (same run)');
  lines.push('');
  lines.push(`| model | configuration | plain ms | GMAC/s | CONV_2D ms | DEPTHWISE_CONV_2D ms | FULLY_CONNECTED ms | plain / ${configs[0].label} |`);
  lines.push('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const base = results.find((x) => x.model.id === r.model.id && x.config === configs[0]);
    const opMs = (op) => r.steps.filter((s) => s.op === op).reduce((a, s) => a + s.ms, 0);
    lines.push(
      `| ${r.model.id} | ${r.config.label} | ${fmt(r.plainMs)} | ${((r.macs / r.plainMs) * 1e-6).toFixed(2)} | ${fmt(opMs('CONV_2D'))} | ${fmt(opMs('DEPTHWISE_CONV_2D'))} | ${fmt(opMs('FULLY_CONNECTED'))} | ${(r.plainMs / base.plainMs).toFixed(2)} |`,
    );
  }
  for (const r of results) {
    const total = r.steps.reduce((a, s) => a + s.ms, 0);
    lines.push('');
    lines.push(`## ${r.model.id}, ${r.config.label}`);
    lines.push('');
    lines.push(
      `\`${r.model.file}\`: ${(r.macs / 1e6).toFixed(1)} M MACs, ${r.steps.length} kernels, ${r.reps} reps; ` +
        `sum of steps ${fmt(total)} ms, plain invoke ${fmt(r.plainMs)} ms (${((r.macs / r.plainMs) * 1e-6).toFixed(2)} GMAC/s).`,
    );
    lines.push('');
    lines.push('| operator | kernel | fast? | count | ms | % |');
    lines.push('|---|---|---|---:|---:|---:|');
    const groups = new Map();
    for (const s of r.steps) {
      const key = `${s.op}\u0000${shortKernel(s.kernel)}`;
      const g = groups.get(key) ?? { op: s.op, kernel: s.kernel, n: 0, ms: 0 };
      g.n += 1;
      g.ms += s.ms;
      groups.set(key, g);
    }
    for (const g of [...groups.values()].sort((a, b) => b.ms - a.ms)) {
      lines.push(
        `| ${g.op} | \`${shortKernel(g.kernel)}\` | ${isFast(g.kernel) ? 'yes' : '**reference**'} | ${g.n} | ${fmt(g.ms)} | ${((100 * g.ms) / total).toFixed(1)} |`,
      );
    }
    lines.push('');
    lines.push('Slowest single operators:');
    lines.push('');
    lines.push('| # | operator | kernel | output shape | input bytes | ms | % |');
    lines.push('|---:|---|---|---|---|---:|---:|');
    for (const s of [...r.steps].sort((a, b) => b.ms - a.ms).slice(0, 12)) {
      lines.push(
        `| ${s.opIndex} | ${s.op} | \`${shortKernel(s.kernel)}\` | ${s.shape.join('\u00d7')} | ${s.inputBytes.join(', ')} | ${fmt(s.ms)} | ${((100 * s.ms) / total).toFixed(1)} |`,
      );
    }
  }
  lines.push('');
  return lines.join('\n');
}

const results = [];
for (const id of ids) {
  // A known id, or the path of a .tflite file (relative to the current directory).
  const model = MODELS.find((m) => m.id === id) ?? (id.endsWith('.tflite') ? { id: basename(id, '.tflite'), file: relative(ROOT, resolve(id)) } : undefined);
  if (!model) throw new Error(`unknown model ${id} (${MODELS.map((m) => m.id).join(', ')}, or a .tflite path)`);
  process.stdout.write(`profiling ${id} ...\n`);
  results.push(...profileModel(model));
}
const md = report(results);
writeFileSync(outFile, md);
process.stdout.write(`${md}\nwrote ${relative(ROOT, outFile)}\n`);
