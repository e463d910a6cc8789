import { createRequire } from 'node:module';
import { createDriver } from '@cumem/driver-ffi';
const lib = '/work/wt/i26-alloc/testing/fake-libcuda/build/default/libcuda.so.1';
const driver = createDriver({ libraryPath: lib });
driver.init?.(0);
const ctx = driver.primaryContextRetain(0); driver.contextSetCurrent?.(ctx);
const ptr = driver.memAllocManaged(2 << 20, 1);
const require = createRequire(createRequire(import.meta.url).resolve('@cumem/driver-ffi'));
const koffi = require('koffi');
const l = koffi.load(lib);
const bare = l.func('cuMemAdvise_v2', 'int', ['uint64_t', 'size_t', 'int', 'uint64_t']);
const loc = Object.freeze({ type: 1, id: 0 });
const p = Number(ptr); const N = 200000;
const b = { adapter: (n) => { for (let i = 0; i < n; i++) driver.memAdvise(ptr, 2 << 20, (i & 1) ? 2 : 1, loc); },
  bare: (n) => { for (let i = 0; i < n; i++) { if (bare(p, 2 << 20, (i & 1) ? 2 : 1, 1) !== 0) throw new Error('x'); } } };
const s = { adapter: [], bare: [] };
for (let r = 0; r < 9; r++) for (const k of (r & 1 ? ['adapter', 'bare'] : ['bare', 'adapter'])) { const t = process.hrtime.bigint(); b[k](N); s[k].push(Number(process.hrtime.bigint() - t) / N); }
const med = (v) => v.sort((a, b) => a - b)[v.length >> 1];
console.log(JSON.stringify({ adapter: med(s.adapter).toFixed(1), bare: med(s.bare).toFixed(1) }));
