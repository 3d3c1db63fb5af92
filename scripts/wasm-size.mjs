// What takes the space in a .wasm: section sizes, then code bytes grouped by module path and the
// largest functions. Function names come from the name section: cargo's output has it, the
// shipped file does not (wasm-opt drops it). So for the breakdown, after scripts/build-wasm.sh:
//   node scripts/wasm-size.mjs target/wasm-simd/wasm32-unknown-unknown/wasm-release/zeropoint.wasm [--depth 2] [--top 40]
// These are LLVM's function sizes, before wasm-bindgen and wasm-opt (whose inlining merges
// functions and shrinks the code ~8%); on a shipped file it prints the section sizes only.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opts, positionals } = parseArgs({
  allowPositionals: true,
  options: { depth: { type: 'string', default: '2' }, top: { type: 'string', default: '40' } },
});
if (positionals.length !== 1) {
  console.error('usage: node scripts/wasm-size.mjs FILE.wasm [--depth N] [--top N]');
  process.exit(2);
}
const buf = readFileSync(positionals[0]);
const SECTIONS = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount'];
let p = 8;
const leb = () => {
  let r = 0, shift = 0, b;
  do { b = buf[p++]; r += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
  return r;
};
const str = () => { const n = leb(); const s = buf.toString('utf8', p, p + n); p += n; return s; };
const limits = () => { const flags = leb(); leb(); if (flags & 1) leb(); };

const sections = [];
const bodies = [];
const names = new Map();
let importedFuncs = 0;
while (p < buf.length) {
  const id = buf[p++];
  const size = leb();
  const end = p + size;
  let name = SECTIONS[id] ?? `section ${id}`;
  if (id === 0) name = `custom "${str()}"`;
  if (id === 2) {
    for (let i = 0, n = leb(); i < n; i++) {
      str(); str();
      const kind = buf[p++];
      if (kind === 0) { leb(); importedFuncs++; } else if (kind === 1) { p++; limits(); } else if (kind === 2) limits();
      else if (kind === 3) p += 2; else if (kind === 4) { p++; leb(); }
    }
  }
  if (id === 10) for (let i = 0, n = leb(); i < n; i++) { const sz = leb(); bodies.push(sz); p += sz; }
  if (name === 'custom "name"') {
    while (p < end) {
      const sub = buf[p++];
      const subEnd = leb() + p;
      if (sub === 1) for (let i = 0, n = leb(); i < n; i++) { const idx = leb(); names.set(idx, str()); }
      p = subEnd;
    }
  }
  sections.push([name, size]);
  p = end;
}

const kb = (n) => `${(n / 1000).toFixed(1).padStart(7)} KB`;
console.log(`${positionals[0]}: ${buf.length} bytes`);
for (const [name, size] of sections.sort((a, b) => b[1] - a[1])) console.log(`${kb(size)}  ${name}`);
if (names.size === 0) {
  console.log('\nno name section: run this on cargo\'s output for the per-function breakdown (see the header of this script)');
  process.exit(0);
}

// "<A as B>::f" counts under A's path, or under the trait for serde / fmt / the flatbuffers verifier;
// hashes and crate disambiguators are dropped.
const depth = Number(opts.depth);
// rustc ≥ 1.9x writes mangled names into the name section: legacy `_ZN…E` symbols (our crates and
// their dependencies) are demangled here; v0 `_R…` symbols (the precompiled std) are reduced to
// their identifiers (`core::num::flt2dec::…`), enough to group them by path.
const LEGACY = { SP: '@', BP: '*', RF: '&', LT: '<', GT: '>', LP: '(', RP: ')', C: ',' };
function demangle(sym) {
  if (sym.startsWith('_ZN')) {
    const parts = [];
    let i = 3;
    while (i < sym.length && sym[i] !== 'E') {
      const len = /^\d+/.exec(sym.slice(i));
      if (!len) return sym;
      i += len[0].length;
      parts.push(sym.slice(i, i + Number(len[0])));
      i += Number(len[0]);
    }
    if (/^h[0-9a-f]{16}$/.test(parts.at(-1) ?? '')) parts.pop();
    return parts.map((part) => part.replace(/^_\$/, '$')
      .replace(/\$(SP|BP|RF|LT|GT|LP|RP|C|u[0-9a-f]+)\$/g, (_, c) => LEGACY[c] ?? String.fromCodePoint(parseInt(c.slice(1), 16)))
      .replace(/\.\./g, '::')).join('::');
  }
  if (sym.startsWith('_R')) {
    const ids = [];
    const rest = sym.slice(2).replace(/C?s[0-9A-Za-z]*_(?=\d)/g, ' ');
    for (let i = 0; i < rest.length;) {
      const len = /^\d+/.exec(rest.slice(i));
      if (!len) { i++; continue; }
      i += len[0].length;
      ids.push(rest.slice(i, i + Number(len[0])).replace(/^_/, ''));
      i += Number(len[0]);
    }
    return ids.length ? ids.join('::') : sym;
  }
  return sym;
}
const funcs = bodies.map((size, i) => ({ size, name: demangle(names.get(i + importedFuncs) ?? `func ${i + importedFuncs}`).replace(/::h[0-9a-f]{16}$/, '').replace(/\[[0-9a-f]+\]/g, '') }));
const groups = new Map();
for (const f of funcs) {
  const m = f.name.match(/^<(.+?) as (.+?)>/);
  const trait = m?.[2].replace(/<.*$/, '');
  const path = (m && /serde|fmt::|flatbuffers::verifier/.test(trait) ? `impl ${trait}` : (m ? m[1] : f.name).replace(/^&(mut )?/, '').replace(/<.*$/, ''));
  const key = path.split('::').slice(0, depth).join('::') || '(unnamed)';
  const g = groups.get(key) ?? { size: 0, count: 0 };
  g.size += f.size; g.count++;
  groups.set(key, g);
}
const top = Number(opts.top);
console.log(`\ncode by path (depth ${depth}), ${funcs.length} functions:`);
for (const [k, g] of [...groups].sort((a, b) => b[1].size - a[1].size).slice(0, top)) console.log(`${kb(g.size)}  ${String(g.count).padStart(4)} fn  ${k}`);
console.log(`\nlargest functions:`);
for (const f of [...funcs].sort((a, b) => b.size - a.size).slice(0, top)) console.log(`${kb(f.size)}  ${f.name.slice(0, 160)}`);
