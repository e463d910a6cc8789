#!/usr/bin/env node
// Structure figures of issue 44, for the before/after table of its closing note:
//
//   node scripts/structure-metrics.mjs [repoRoot] [--json] [--duplicates] [--details]
//
// - files and lines per package: non-test .ts under packages/*/src (a test is *.test.ts,
//   *.spec.ts, or a file under a test/, tests/ or __tests__/ folder);
// - the names @cumem/memory/internal exports (packages/memory/src/internal.ts, following
//   `export * from` into the files it names);
// - the type cycle: the largest strongly connected component of the import graph of the non-test
//   files of packages/memory/src, files as nodes, an edge for every `import`, `import type`,
//   `export ... from`, `export * from` and `import('..')` of a relative path; also the same for
//   value imports only (the run-time cycle), and which components span more than one concept
//   folder (the first path segment under src/; a file directly in src/ is in "(src)");
// - comment lines (//, /* */ and the * lines of a block comment, found by a lexer that knows
//   strings, template literals and regular expressions) quoting a figure (ns/µs/us/ms/GB/s/GiB/s),
//   mentioning TurboFan or V8, naming an H100/H200, or quoting a commit hash (7-40 lowercase hex
//   characters with a digit and a letter), over the same non-test .ts files under packages/*/src;
//   a second row counts every source file under packages/ (tests, native C/C++, scripts);
// - with --duplicates, the `duplicates` command (when it is on PATH) over packages/ as git lists
//   it, and over a copy of its non-test source only.
//
// Only Node's standard library; imports are read with regular expressions after comments are
// blanked out, which is enough for the code in this repository, not for every TypeScript program.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';

const args = process.argv.slice(2);
const flags = new Set(args.filter((a) => a.startsWith('--')));
const positional = args.filter((a) => !a.startsWith('--'));
if (flags.has('--help') || flags.has('-h')) {
  console.log('usage: node scripts/structure-metrics.mjs [repoRoot] [--json] [--duplicates] [--details]');
  process.exit(0);
}
const root = resolve(positional[0] ?? process.cwd());
const packagesDir = join(root, 'packages');
if (!existsSync(packagesDir)) {
  console.error(`no packages/ folder under ${root}`);
  process.exit(2);
}

// ---------------------------------------------------------------------------------------------
// Files

const SKIP_DIRS = new Set(['node_modules', 'dist', 'build', 'prebuilds', 'coverage', '.turbo', 'temp']);
const TEST_DIRS = new Set(['test', 'tests', '__tests__']);

function walk(dir, out = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue;
    const full = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(full, out);
    } else if (entry.isFile()) {
      out.push(full);
    }
  }
  return out;
}

function isTestPath(file) {
  const parts = file.split(sep);
  if (parts.some((p) => TEST_DIRS.has(p))) return true;
  return /\.(test|spec|fuzz\.test|test-d)\.[cm]?[jt]sx?$/.test(file) || /vitest\.config\./.test(file);
}

function isSourceTs(file) {
  return /\.[cm]?tsx?$/.test(file) && !file.endsWith('.d.ts') && !isTestPath(file);
}

const packageNames = readdirSync(packagesDir, { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(packagesDir, e.name, 'src')))
  .map((e) => e.name)
  .sort();

const sourceCache = new Map();
function read(file) {
  let text = sourceCache.get(file);
  if (text === undefined) {
    text = readFileSync(file, 'utf8');
    sourceCache.set(file, text);
  }
  return text;
}

function lineCount(text) {
  if (text.length === 0) return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

function median(values) {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

const srcFilesByPackage = new Map();
for (const name of packageNames) {
  srcFilesByPackage.set(
    name,
    walk(join(packagesDir, name, 'src'))
      .filter(isSourceTs)
      .sort(),
  );
}

const packageRows = packageNames.map((name) => {
  const files = srcFilesByPackage.get(name);
  const lines = files.map((f) => lineCount(read(f)));
  return {
    package: name,
    files: files.length,
    lines: lines.reduce((a, b) => a + b, 0),
    medianLines: median(lines),
    largest: files.length
      ? (() => {
          const i = lines.indexOf(Math.max(...lines));
          return { file: relative(root, files[i]), lines: lines[i] };
        })()
      : null,
    folders: new Set(
      files
        .map((f) => relative(join(packagesDir, name, 'src'), f).split(sep))
        .filter((p) => p.length > 1)
        .map((p) => p[0]),
    ).size,
  };
});

// ---------------------------------------------------------------------------------------------
// A small lexer: the comment text of each line, and the code with comments blanked out

const REGEX_PRECEDERS = new Set('(,=:[!&|?{};+-*%<>~^'.split(''));
const REGEX_KEYWORDS = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

/** @returns {{ comments: Map<number, string>, code: string }} line numbers are 1-based */
function lex(text, { cLike = false } = {}) {
  const comments = new Map();
  const code = text.split('');
  let line = 1;
  let i = 0;
  const n = text.length;
  let lastSignificant = ''; // last non-space code character, or a keyword
  let lastWord = '';
  const templateDepth = []; // brace depth at which each open ${ started
  let braceDepth = 0;
  const addComment = (ln, s) => comments.set(ln, (comments.get(ln) ?? '') + s);
  const blank = (from, to) => {
    for (let k = from; k < to; k++) if (code[k] !== '\n') code[k] = ' ';
  };
  while (i < n) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
      continue;
    }
    if (c === '/' && text[i + 1] === '/') {
      const end = text.indexOf('\n', i);
      const stop = end === -1 ? n : end;
      addComment(line, text.slice(i + 2, stop));
      blank(i, stop);
      i = stop;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? n : end + 2;
      const body = text.slice(i, stop);
      const bodyLines = body.split('\n');
      for (const [k, l] of bodyLines.entries()) addComment(line + k, l);
      blank(i, stop);
      line += bodyLines.length - 1;
      i = stop;
      continue;
    }
    if (c === '"' || c === "'" || (c === '`' && !cLike)) {
      if (
        c === "'" &&
        cLike &&
        /[0-9a-fA-F]/.test(text[i - 1] ?? '') &&
        /[0-9a-fA-F]/.test(text[i + 1] ?? '')
      ) {
        i++; // a C++14 digit separator
        continue;
      }
      i = skipString(c);
      lastSignificant = c;
      lastWord = '';
      continue;
    }
    if (c === '}' && templateDepth.length && templateDepth[templateDepth.length - 1] === braceDepth) {
      templateDepth.pop();
      i = skipString('`', i + 1);
      lastSignificant = '`';
      continue;
    }
    if (c === '/' && !cLike) {
      const regexAllowed =
        lastSignificant === '' || REGEX_PRECEDERS.has(lastSignificant) || REGEX_KEYWORDS.has(lastWord);
      if (regexAllowed) {
        i = skipRegex(i);
        lastSignificant = '/';
        lastWord = '';
        continue;
      }
    }
    if (c === '{') braceDepth++;
    else if (c === '}') braceDepth--;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (/[A-Za-z_$]/.test(c)) {
      let j = i;
      while (j < n && /[\w$]/.test(text[j])) j++;
      lastWord = text.slice(i, j);
      lastSignificant = 'w';
      i = j;
      continue;
    }
    lastSignificant = c;
    lastWord = '';
    i++;
  }
  return { comments, code: code.join('') };

  // From the opening quote at `start` (or just after a `}` closing a template substitution when
  // `from` is given), past the closing quote; a template's ${ hands control back to the lexer.
  function skipString(quote, from) {
    let j = from ?? i + 1;
    while (j < n) {
      const ch = text[j];
      if (ch === '\\') {
        if (text[j + 1] === '\n') line++;
        j += 2;
        continue;
      }
      if (ch === '\n') {
        line++;
        if (quote !== '`') return j; // an unterminated string ends at the line
      }
      if (ch === quote) return j + 1;
      if (quote === '`' && ch === '$' && text[j + 1] === '{') {
        braceDepth++;
        templateDepth.push(braceDepth);
        return j + 2;
      }
      j++;
    }
    return n;
  }

  function skipRegex(start) {
    let j = start + 1;
    let inClass = false;
    while (j < n) {
      const ch = text[j];
      if (ch === '\n') return j; // not a regex after all; give up at the line
      if (ch === '\\') {
        j += 2;
        continue;
      }
      if (inClass) {
        if (ch === ']') inClass = false;
      } else if (ch === '[') inClass = true;
      else if (ch === '/') {
        j++;
        while (j < n && /[a-z]/i.test(text[j])) j++;
        return j;
      }
      j++;
    }
    return n;
  }
}

// ---------------------------------------------------------------------------------------------
// Comment lines

const PATTERNS = {
  figures: /\b\d[\d,.]*\s*(?:ns|µs|μs|us|ms|GB\/s|GiB\/s)(?![\w])/,
  v8: /\bturbofan\b|\bv8\b/i,
  h100: /\bG?H[12]00(?:s\b|\b)/i,
  hash: /(?<![\w]|0x)(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}(?![\w])/,
};
const PATTERN_LABELS = {
  figures: 'comment lines quoting a figure (ns/µs/us/ms/GB/s/GiB/s)',
  v8: 'comment lines mentioning TurboFan or V8',
  h100: 'comment lines naming an H100/H200',
  hash: 'comment lines quoting a commit hash',
};

function commentCounts(files) {
  const counts = { commentLines: 0, figures: 0, figuresNsUs: 0, v8: 0, h100: 0, hash: 0 };
  const hits = { figures: [], v8: [], h100: [], hash: [] };
  for (const file of files) {
    const cLike = /\.(c|cc|cpp|cxx|h|hh|hpp)$/.test(file);
    const { comments } = lex(read(file), { cLike });
    for (const [ln, text] of comments) {
      if (!/\S/.test(text.replace(/^\s*\/?\*+\/?|\*\/\s*$/g, ''))) continue;
      counts.commentLines++;
      if (/\b\d[\d,.]*\s*(?:ns|µs|μs|us)(?![\w])/.test(text)) counts.figuresNsUs++;
      for (const key of Object.keys(PATTERNS)) {
        const m = PATTERNS[key].exec(text);
        if (m) {
          counts[key]++;
          hits[key].push(`${relative(root, file)}:${ln}: ${m[0]}`);
        }
      }
    }
  }
  return { counts, hits };
}

const allSrcTs = [...srcFilesByPackage.values()].flat();
const commentsSrc = commentCounts(allSrcTs);
const everySourceUnderPackages = walk(packagesDir).filter(
  (f) => /\.([cm]?[jt]sx?|c|cc|cpp|cxx|h|hh|hpp)$/.test(f) && !f.endsWith('.d.ts'),
);
const commentsAll = commentCounts(everySourceUnderPackages);

// ---------------------------------------------------------------------------------------------
// Imports and exports

const IMPORT_RES = [
  // import ... from 'x' / import type ... from 'x' / export ... from 'x' (incl. export * [as n])
  /\b(import|export)\s+(type\s+)?((?:[\w$*{}\s,]|\bas\b)*?)\s*\bfrom\s*(['"])([^'"\n]+)\4/g,
  // import 'x'
  /\bimport\s*(['"])([^'"\n]+)\1/g,
  // import('x') and import type x = import('x')
  /\bimport\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
];

/** @returns {{ spec: string, typeOnly: boolean, kind: string }[]} */
function importsOf(file) {
  const { code } = lex(read(file));
  const out = [];
  for (const m of code.matchAll(IMPORT_RES[0])) {
    const clause = m[3].trim();
    let typeOnly = Boolean(m[2]);
    if (!typeOnly && clause.startsWith('{')) {
      const names = clause
        .replace(/[{}]/g, '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      typeOnly = names.length > 0 && names.every((s) => s.startsWith('type '));
    }
    out.push({ spec: m[5], typeOnly, kind: m[1] });
  }
  for (const m of code.matchAll(IMPORT_RES[1]))
    out.push({ spec: m[2], typeOnly: false, kind: 'side-effect' });
  for (const m of code.matchAll(IMPORT_RES[2])) {
    const before = code.slice(Math.max(0, m.index - 40), m.index);
    // `typeof import('x')` and `import type X = import('x')` and types in annotations: type-only
    const typeOnly = /(typeof|:|<|\|)\s*$/.test(before) || (/=\s*$/.test(before) && /\btype\b/.test(before));
    out.push({ spec: m[2], typeOnly, kind: 'dynamic' });
  }
  return out;
}

function resolveRelative(fromFile, spec) {
  if (!spec.startsWith('.')) return null;
  const base = resolve(dirname(fromFile), spec);
  const stem = base.replace(/\.(m|c)?js$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.mts`,
    `${stem}.cts`,
    `${stem}.tsx`,
    join(base, 'index.ts'),
    join(stem, 'index.ts'),
  ];
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return c;
  return null;
}

/** Names a module exports, following `export * from` (relative paths only). */
function exportedNames(file, seen = new Set()) {
  const names = new Map(); // name -> { type: boolean, from: string }
  if (seen.has(file)) return names;
  seen.add(file);
  const { code } = lex(read(file));
  const rel = relative(root, file);
  const add = (name, type, from = rel) => {
    if (name && !names.has(name)) names.set(name, { type, from });
  };
  for (const m of code.matchAll(/\bexport\s+(type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[2].split(',')) {
      const s = part.trim();
      if (!s) continue;
      const isType = Boolean(m[1]) || s.startsWith('type ');
      const spec = s.replace(/^type\s+/, '');
      const as = spec.split(/\s+as\s+/);
      add(as[as.length - 1].trim(), isType);
    }
  }
  for (const m of code.matchAll(/\bexport\s+\*\s+as\s+([\w$]+)\s+from/g)) add(m[1], false);
  for (const m of code.matchAll(/\bexport\s+(type\s+)?\*\s+from\s*['"]([^'"]+)['"]/g)) {
    const target = resolveRelative(file, m[2]);
    if (!target) {
      add(`* from ${m[2]}`, Boolean(m[1]));
      continue;
    }
    for (const [name, info] of exportedNames(target, seen)) {
      if (name !== 'default') add(name, Boolean(m[1]) || info.type, info.from);
    }
  }
  for (const m of code.matchAll(
    /\bexport\s+(?:declare\s+)?(?:default\s+)?(?:abstract\s+)?(async\s+)?(function\*?|class|const|let|var|interface|type|enum|namespace)\s+([\w$]+)/g,
  )) {
    add(m[3], m[2] === 'interface' || m[2] === 'type');
  }
  for (const m of code.matchAll(/\bexport\s+(?:const|let|var)\s+\{([^}]*)\}/g)) {
    for (const part of m[1].split(',')) add(part.split(':').pop().trim(), false);
  }
  if (/\bexport\s+default\b/.test(code)) add('default', false);
  return names;
}

const memorySrc = join(packagesDir, 'memory', 'src');
const internalFile = join(memorySrc, 'internal.ts');
let internal = null;
if (existsSync(internalFile)) {
  const names = exportedNames(internalFile);
  const typeNames = [...names.values()].filter((v) => v.type).length;
  // Who imports it: files outside packages/memory that name '@cumem/memory/internal'.
  const importers = { source: [], test: [] };
  for (const f of everySourceUnderPackages) {
    if (f.startsWith(join(packagesDir, 'memory') + sep)) continue;
    if (!/\.[cm]?[jt]sx?$/.test(f)) continue;
    if (/['"]@cumem\/memory\/internal['"]/.test(read(f))) {
      (isTestPath(f) ? importers.test : importers.source).push(relative(root, f));
    }
  }
  internal = {
    names: names.size,
    valueNames: names.size - typeNames,
    typeNames,
    list: [...names.keys()].sort(),
    importers: {
      source: importers.source.length,
      test: importers.test.length,
      sourceByPackage: Object.fromEntries(
        packageNames
          .map((p) => [p, importers.source.filter((f) => f.startsWith(`packages/${p}/`)).length])
          .filter(([, n]) => n > 0),
      ),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The import graph of packages/memory/src and its strongly connected components

function conceptFolder(file) {
  const parts = relative(memorySrc, file).split(sep);
  return parts.length > 1 ? parts[0] : '(src)';
}

function sccs(nodes, edges) {
  // Tarjan, iterative.
  let index = 0;
  const idx = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const out = [];
  for (const start of nodes) {
    if (idx.has(start)) continue;
    const work = [[start, 0]];
    idx.set(start, index);
    low.set(start, index);
    index++;
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1];
      const [v, k] = frame;
      const succ = [...(edges.get(v) ?? [])];
      if (k < succ.length) {
        frame[1]++;
        const w = succ[k];
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index);
          index++;
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) {
          low.set(v, Math.min(low.get(v), idx.get(w)));
        }
      } else {
        work.pop();
        if (work.length) {
          const u = work[work.length - 1][0];
          low.set(u, Math.min(low.get(u), low.get(v)));
        }
        if (low.get(v) === idx.get(v)) {
          const comp = [];
          let w;
          do {
            w = stack.pop();
            onStack.delete(w);
            comp.push(w);
          } while (w !== v);
          out.push(comp);
        }
      }
    }
  }
  return out;
}

function cycleReport(nodes, edges) {
  const comps = sccs(nodes, edges).filter((c) => c.length > 1 || (edges.get(c[0]) ?? new Set()).has(c[0]));
  comps.sort((a, b) => b.length - a.length);
  const crossing = comps
    .map((c) => ({ size: c.length, folders: [...new Set(c.map(conceptFolder))].sort() }))
    .filter((c) => c.folders.length > 1);
  // Edges inside a component that join two folders: the imports a restructure would have to cut.
  let crossingEdges = 0;
  for (const c of comps) {
    const inC = new Set(c);
    for (const v of c)
      for (const w of edges.get(v) ?? [])
        if (inC.has(w) && conceptFolder(v) !== conceptFolder(w)) crossingEdges++;
  }
  // Floors: the longest chain of imports once each cycle is folded into one node.
  const compOf = new Map();
  sccs(nodes, edges).forEach((comp, k) => {
    for (const v of comp) compOf.set(v, k);
  });
  const floorMemo = new Map();
  const compMembers = new Map();
  for (const [v, k] of compOf) compMembers.set(k, [...(compMembers.get(k) ?? []), v]);
  const floorOf = (k) => {
    if (floorMemo.has(k)) return floorMemo.get(k);
    let best = 0;
    for (const v of compMembers.get(k)) {
      for (const w of edges.get(v) ?? []) {
        const kw = compOf.get(w);
        if (kw !== k) best = Math.max(best, floorOf(kw));
      }
    }
    floorMemo.set(k, best + 1);
    return best + 1;
  };
  let floors = 0;
  for (const k of compMembers.keys()) floors = Math.max(floors, floorOf(k));
  return {
    floors,
    largest: comps[0]?.length ?? 0,
    cyclicComponents: comps.length,
    filesInCycles: comps.reduce((a, c) => a + c.length, 0),
    crossesFolders: crossing.length > 0,
    crossingComponents: crossing,
    crossingEdges,
    largestFiles: (comps[0] ?? []).map((f) => relative(memorySrc, f)).sort(),
  };
}

let graph = null;
if (existsSync(memorySrc)) {
  const nodes = walk(memorySrc).filter(isSourceTs).sort();
  const all = new Map();
  const runtime = new Map();
  let edgeCount = 0;
  const external = new Set();
  for (const f of nodes) {
    all.set(f, new Set());
    runtime.set(f, new Set());
    for (const imp of importsOf(f)) {
      const target = resolveRelative(f, imp.spec);
      if (!target) {
        if (imp.spec.startsWith('.')) external.add(`${relative(root, f)} -> ${imp.spec} (unresolved)`);
        continue;
      }
      if (!nodes.includes(target)) continue;
      if (!all.get(f).has(target)) edgeCount++;
      all.get(f).add(target);
      if (!imp.typeOnly) runtime.get(f).add(target);
    }
  }
  const folders = new Set(nodes.map(conceptFolder));
  graph = {
    files: nodes.length,
    edges: edgeCount,
    conceptFolders: [...folders].sort(),
    all: cycleReport(nodes, all),
    runtime: cycleReport(nodes, runtime),
    unresolved: [...external],
  };
}

// ---------------------------------------------------------------------------------------------
// duplicates (optional, when asked for and on PATH)

function runDuplicates(repo) {
  const r = spawnSync('duplicates', ['--repo', repo, '--most', '200', '--seconds', '120'], {
    encoding: 'utf8',
    cwd: repo,
  });
  if (r.error) return { error: String(r.error.message) };
  const text = r.stdout + r.stderr;
  const head = text.split('\n')[0];
  const m =
    /^(\d+) pairs? of places \((\d+) files read\)(?:.*?\((\d+) by shape alone(?:, (\d+) of those marked boilerplate)?\))?/.exec(
      head,
    );
  const none = /^no duplicates/.test(head);
  const rows = text.split('\n').filter((l) => /^D\d+ /.test(l));
  const more = /\(\+(\d+) more pairs\)/.exec(text);
  return {
    pairs: m ? Number(m[1]) : none ? 0 : null,
    filesRead: m ? Number(m[2]) : Number(/(\d+) files/.exec(head)?.[1] ?? NaN),
    shapeOnly: m?.[3] ? Number(m[3]) : 0,
    boilerplate: m?.[4] ? Number(m[4]) : 0,
    rowsShown: rows.length + (more ? Number(more[1]) : 0),
    head,
    output: text.trimEnd(),
  };
}

let duplicates = null;
if (flags.has('--duplicates')) {
  // 1. packages/ as git lists it (tracked files and untracked ones it does not ignore; dist,
  //    build, prebuilds and node_modules are ignored), tests included: the tool has no exclude.
  const whole = runDuplicates(packagesDir);
  // 2. a copy of the same files less the tests (outside git the tool reads every file).
  let listed;
  const git = spawnSync('git', ['-C', root, 'ls-files', '-co', '--exclude-standard', '--', 'packages'], {
    encoding: 'utf8',
  });
  if (git.status === 0)
    listed = git.stdout
      .split('\n')
      .filter(Boolean)
      .map((f) => join(root, f));
  else listed = walk(packagesDir);
  const tmp = mkdtempSync(join(tmpdir(), 'structure-metrics-'));
  let noTests;
  try {
    const tmpPackages = join(tmp, 'packages');
    for (const f of listed) {
      if (!existsSync(f) || isTestPath(relative(packagesDir, f))) continue;
      cpSync(f, join(tmpPackages, relative(packagesDir, f)));
    }
    noTests = runDuplicates(tmpPackages);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  duplicates = {
    how: "duplicates --repo packages --most 200 --seconds 120 (git's file list: dist/, build/, prebuilds/, node_modules/ are ignored; the tool has no option to leave tests out); 'no tests' runs the same on a copy of those files less *.test.*, *.spec.*, test/, tests/, __tests__/ and vitest.config.*",
    whole,
    noTests,
  };
}

// ---------------------------------------------------------------------------------------------
// Output

const head = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
const dirty = spawnSync('git', ['-C', root, 'status', '--porcelain', '--', 'packages'], { encoding: 'utf8' });
const result = {
  root,
  commit: head.status === 0 ? head.stdout.trim() : null,
  packagesDirty: dirty.status === 0 ? dirty.stdout.trim().length > 0 : null,
  packages: packageRows,
  totals: {
    files: packageRows.reduce((a, r) => a + r.files, 0),
    lines: packageRows.reduce((a, r) => a + r.lines, 0),
    medianLines: median(allSrcTs.map((f) => lineCount(read(f)))),
  },
  internal,
  graph,
  comments: {
    scope: 'non-test .ts under packages/*/src',
    ...commentsSrc.counts,
    allSourceUnderPackages: commentsAll.counts,
  },
  duplicates: duplicates
    ? {
        how: duplicates.how,
        whole: { ...duplicates.whole, output: undefined },
        noTests: { ...duplicates.noTests, output: undefined },
      }
    : null,
};

if (flags.has('--json')) {
  if (flags.has('--details')) {
    result.comments.hits = commentsSrc.hits;
    if (duplicates) {
      result.duplicates.whole.output = duplicates.whole.output;
      result.duplicates.noTests.output = duplicates.noTests.output;
    }
  }
  console.log(JSON.stringify(result, null, 2));
  process.exit(0);
}

const md = [];
const where = `${result.commit ?? '(no git)'}${result.packagesDirty ? ' + uncommitted changes under packages/' : ''}`;
md.push(`# Structure metrics: ${root} (${where})`, '');
md.push('## Files and lines per package (non-test .ts under packages/*/src)', '');
md.push('| package | files | lines | median lines | concept folders | largest file |');
md.push('| --- | ---: | ---: | ---: | ---: | --- |');
for (const r of packageRows) {
  md.push(
    `| ${r.package} | ${r.files} | ${r.lines} | ${r.medianLines} | ${r.folders} | ${r.largest ? `${r.largest.file.replace(/^packages\/[^/]+\/src\//, '')} (${r.largest.lines})` : ''} |`,
  );
}
md.push(
  `| **all** | ${result.totals.files} | ${result.totals.lines} | ${result.totals.medianLines} | | |`,
  '',
);

md.push('## Summary', '');
md.push('| figure | value |', '| --- | ---: |');
const row = (k, v) => md.push(`| ${k} | ${v} |`);
const mem = packageRows.find((r) => r.package === 'memory');
if (mem) row('@cumem/memory: files / median lines', `${mem.files} / ${mem.medianLines}`);
if (internal) {
  row(
    '`@cumem/memory/internal` exported names (values + types)',
    `${internal.names} (${internal.valueNames} + ${internal.typeNames})`,
  );
  row(
    'non-test files of other packages importing it',
    `${internal.importers.source} (${Object.entries(internal.importers.sourceByPackage)
      .map(([p, n]) => `${p} ${n}`)
      .join(', ')})`,
  );
  row('test files of other packages importing it', internal.importers.test);
}
if (graph) {
  row('memory/src import graph: files / edges', `${graph.files} / ${graph.edges}`);
  row('type cycle: largest strongly connected component (all imports, files)', graph.all.largest);
  row(
    'files in any cycle (all imports) / cyclic components',
    `${graph.all.filesInCycles} / ${graph.all.cyclicComponents}`,
  );
  row(
    'a cycle crosses concept folders (all imports)',
    graph.all.crossesFolders
      ? `yes: ${graph.all.crossingComponents.map((c) => `${c.size} files over ${c.folders.join(', ')}`).join('; ')}; ${graph.all.crossingEdges} cross-folder edges inside cycles`
      : 'no',
  );
  row(
    'floors: longest import chain, cycles folded (all imports / value imports only)',
    `${graph.all.floors} / ${graph.runtime.floors}`,
  );
  row('run-time cycle: largest component (value imports only)', graph.runtime.largest);
  row(
    'a run-time cycle crosses concept folders',
    graph.runtime.crossesFolders
      ? `yes: ${graph.runtime.crossingComponents.map((c) => `${c.size} files over ${c.folders.join(', ')}`).join('; ')}`
      : 'no',
  );
  row('concept folders under memory/src', graph.conceptFolders.join(', '));
}
const c = result.comments;
const ca = c.allSourceUnderPackages;
row(
  'comment lines, non-test .ts under packages/*/src (every source file under packages/)',
  `${c.commentLines} (${ca.commentLines})`,
);
for (const key of Object.keys(PATTERNS)) {
  row(PATTERN_LABELS[key], `${c[key]} (${ca[key]})`);
  if (key === 'figures') row('&nbsp;&nbsp;of which ns/µs/us figures', `${c.figuresNsUs} (${ca.figuresNsUs})`);
}
if (duplicates) {
  const d = (x) =>
    x.error
      ? `error: ${x.error}`
      : `${x.pairs} (${x.pairs - x.shapeOnly} identical, ${x.shapeOnly} by shape of which ${x.boilerplate} boilerplate; ${x.filesRead} files read)`;
  row('`duplicates` pairs over packages/', d(duplicates.whole));
  row('`duplicates` pairs over packages/, tests left out', d(duplicates.noTests));
}
md.push('');
md.push(
  'Medians of an even count are the mean of the middle two. Figures in parentheses in the comment rows count every source file under packages/ (tests, native C/C++, scripts), not only non-test .ts under src/.',
);
if (duplicates) md.push('', `duplicates: ${duplicates.how}.`);
if (flags.has('--details')) {
  if (graph) {
    md.push('', `### Largest cycle (${graph.all.largest} files)`, '', graph.all.largestFiles.join(', '));
    md.push(
      '',
      `### Largest run-time cycle (${graph.runtime.largest} files)`,
      '',
      graph.runtime.largestFiles.join(', '),
    );
  }
  if (internal) md.push('', '### `@cumem/memory/internal` names', '', internal.list.join(', '));
  for (const key of Object.keys(PATTERNS)) {
    md.push(
      '',
      `### ${PATTERN_LABELS[key]} (${commentsSrc.hits[key].length})`,
      '',
      '```',
      ...commentsSrc.hits[key],
      '```',
    );
  }
  if (duplicates) {
    md.push('', '### duplicates over packages/', '', '```', duplicates.whole.output ?? '', '```');
    md.push(
      '',
      '### duplicates over packages/, tests left out',
      '',
      '```',
      duplicates.noTests.output ?? '',
      '```',
    );
  }
}
console.log(md.join('\n'));
