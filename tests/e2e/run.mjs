// Browser end-to-end test of the built page (dist/, from `vite build`).
//
// Starts `vite preview` on a free 127.0.0.1 port, drives Debian's Chromium through playwright-core,
// prints one line per check, "ok   [case] check" or "FAIL [case] check: why", and finishes with
// "N passed, M failed". Screenshots go to artifacts/e2e/ (and those of the model graph and the
// Ranges view also to target/e2e/). Expected values come from the real wasm package loaded here in
// Node, so the page is compared with the engine, not with hard-coded numbers; the quantize /
// compare steps are compared with the CLI (target/debug/zeropoint) run on the same golden files.
//
// The checks are grouped in cases, one flow each (steps/*.mjs), run in the order below; a case
// that starts from the page another leaves `needs` it.
//
//   node tests/e2e/run.mjs                  every case (CHROMIUM_PATH overrides /usr/bin/chromium)
//   node tests/e2e/run.mjs --only compare   one case (a name, or a part of names; a,b for several)
//                                           and the cases it needs; ZP_E2E_ONLY=compare does the same
//   node tests/e2e/run.mjs --list           the cases, with what each needs
//   ZEROPOINT_DOCS_SCREENSHOTS=1 node tests/e2e/run.mjs   also rewrites docs/screenshots/*.png
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadNodeEngine } from './lib/expected.mjs';
import { ARTIFACTS, ROOT, TARGET_SHOTS, assert, finish, installWatchdog, log, parseArgs, runCases, selectCases } from './lib/harness.mjs';
import { isLocal, watch } from './lib/page.mjs';
import { launchBrowser, startServer } from './lib/servers.mjs';
import { cases as arithmeticCases } from './steps/arithmetic.mjs';
import { cases as bigGraphCases } from './steps/biggraph.mjs';
import { cases as buildCases } from './steps/builds.mjs';
import { cases as calibrateCases } from './steps/calibrate.mjs';
import { cases as compareCases } from './steps/compare.mjs';
import { cases as kindsCases } from './steps/kinds.mjs';
import { cases as loadCases } from './steps/load.mjs';
import { cases as malformedCases } from './steps/malformed.mjs';
import { cases as narrowCases } from './steps/narrow.mjs';
import { cases as newUserCases } from './steps/newuser.mjs';
import { cases as quantizeCases } from './steps/quantize.mjs';
import { cases as rangesCases } from './steps/ranges.mjs';
import { cases as realCases } from './steps/real.mjs';
import { cases as resilienceCases } from './steps/resilience.mjs';
import { cases as shapesCases } from './steps/shapes.mjs';
import { cases as signaturesCases } from './steps/signatures.mjs';
import { cases as startCases } from './steps/start.mjs';
import { cases as streamCases } from './steps/stream.mjs';

/** Every case, in the order a full run takes them. */
function allCases() {
  const byName = (list) => new Map(list.map((c) => [c.name, c]));
  const calibrate = byName(calibrateCases);
  const builds = byName(buildCases);
  const quantize = byName(quantizeCases);
  const resilience = byName(resilienceCases);
  return [
    ...loadCases,
    ...malformedCases,
    calibrate.get('calibrate'),
    ...rangesCases,
    calibrate.get('calibrate-errors'),
    ...builds.values(),
    quantize.get('quantize'),
    ...compareCases,
    ...arithmeticCases,
    ...kindsCases,
    ...realCases,
    quantize.get('quantize-ops'),
    quantize.get('quantize-beyond'),
    ...shapesCases,
    ...resilience.values(),
    ...newUserCases,
    ...bigGraphCases,
    ...narrowCases,
    ...startCases,
    ...streamCases,
    ...signaturesCases,
  ];
}

/** What the cases share: the engine in Node, the example model, the server, the browser and the main page. */
async function setup() {
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(TARGET_SHOTS, { recursive: true });
  if (!existsSync(join(ROOT, 'dist', 'index.html'))) {
    throw new Error('dist/index.html is missing: run `npx vite build` first');
  }
  const exampleFile = join(ROOT, 'www/assets/example.tflite');
  if (!existsSync(exampleFile)) throw new Error('www/assets/example.tflite is missing');
  const api = await loadNodeEngine();
  const example = new Uint8Array(readFileSync(exampleFile));
  const expected = api.inspectModel(example);
  const mainGraph = expected.subgraphs[0];
  assert(mainGraph, 'example model has no subgraph');
  const inputTensor = mainGraph.tensors.find((t) => t.index === mainGraph.inputs[0]);
  assert(inputTensor, 'example model has no input tensor');

  const base = await startServer();
  log(`# serving dist/ at ${base}`);
  const browser = await launchBrowser();
  const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1200, height: 900 } });
  const foreignRequests = [];
  context.on('request', (request) => {
    if (!isLocal(request.url())) foreignRequests.push(request.url());
  });
  // The main page: the load, malformed, limits, calibrate, ranges and build cases share it.
  const page = await context.newPage();
  const record = watch(page);
  return { api, example, exampleFile, expected, mainGraph, inputTensor, base, browser, context, foreignRequests, page, record };
}

async function main() {
  const cases = allCases();
  let selection;
  try {
    const { only, list } = parseArgs(process.argv.slice(2), process.env);
    if (list) {
      for (const c of cases) log(`${c.name}${c.needs.length > 0 ? ` (needs ${c.needs.join(', ')})` : ''}`);
      process.exit(0);
    }
    selection = { only, ...selectCases(cases, only) };
  } catch (error) {
    // A filter that matches nothing fails the run: it must never pass with 0 checks.
    await finish(`arguments: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  const { only, run, needed } = selection;
  if (only !== undefined) {
    log(`# --only ${only}: ${run.map((c) => (needed.has(c.name) ? `${c.name} (needed)` : c.name)).join(', ')}`);
  }
  const stopWatchdog = installWatchdog();
  try {
    await runCases(run, await setup());
  } finally {
    stopWatchdog();
  }
}

main().then(
  () => finish(),
  (error) => finish(`setup: ${error instanceof Error ? error.message : String(error)}`),
);
