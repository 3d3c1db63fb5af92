// Whether node_modules holds the packages package-lock.json names, read from npm's own record of
// what it installed (node_modules/.package-lock.json): every locked package at its locked version
// (optional ones may be absent: other platforms' binaries). `scripts/setup.sh` runs `npm ci` only
// when this says no, instead of comparing file dates (a fresh checkout's lockfile is always newer
// than an install it equals). Exit 0: current; 1: not, with the first difference on stderr.
//   usage: node scripts/lib/deps-current.mjs   (from the repo root)
import { existsSync, readFileSync } from 'node:fs';

function stale(reason) {
  process.stderr.write(`node_modules is not current: ${reason}\n`);
  process.exit(1);
}

const installedPath = 'node_modules/.package-lock.json';
if (!existsSync(installedPath)) stale(`${installedPath} is missing`);
let lock;
let installed;
try {
  lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
  installed = JSON.parse(readFileSync(installedPath, 'utf8'));
} catch (error) {
  stale(error instanceof Error ? error.message : String(error));
}
const have = installed.packages ?? {};
for (const [path, want] of Object.entries(lock.packages ?? {})) {
  if (path === '') continue;
  const got = have[path];
  if (!got) {
    if (want.optional) continue;
    stale(`${path} is not installed`);
  }
  if (want.link ? got.resolved !== want.resolved : got.version !== want.version) {
    stale(`${path} is ${String(got.version ?? got.resolved)}, the lockfile has ${String(want.version ?? want.resolved)}`);
  }
}
for (const path of Object.keys(have)) {
  if (!(path in (lock.packages ?? {}))) stale(`${path} is installed but not in the lockfile`);
}
