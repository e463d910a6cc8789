import koffi from 'koffi';
const libc = koffi.load('libc.so.6');
const Loc = koffi.struct({ type: 'int', id: 'int' });
const g4 = libc.func('getpid', 'int', ['uint64_t', 'size_t', 'uint64_t', 'uint64_t']);
const g4n = libc.func('getpid', 'int', ['uintptr_t', 'size_t', 'uint64_t', 'uint64_t']);
const fstruct = libc.func('getpid', 'int', ['uint64_t', 'size_t', 'int', Loc]);
const fpacked = libc.func('getpid', 'int', ['uint64_t', 'size_t', 'int', 'uint64_t']);
const fout = libc.func('getpid', 'int', ['uint64_t *', 'size_t', 'uint64_t', 'uint64_t']);
const fext = libc.func('getpid', 'int', ['void *', 'size_t', 'uint64_t', 'uint64_t']);
const f0 = libc.func('getpid', 'int', []);
const f1o = libc.func('getpid', 'int', ['int *']);
const f1n = libc.func('getpid', 'int', ['uintptr_t']);
function bench(name, fn, n = 3e6) {
  for (let i = 0; i < 2e5; i++) fn();
  let best = 1e9;
  for (let r = 0; r < 3; r++) { const t = process.hrtime.bigint(); for (let i = 0; i < n; i++) fn(); best = Math.min(best, Number(process.hrtime.bigint() - t) / n); }
  console.log(name.padEnd(40), best.toFixed(1), 'ns');
}
const out = new BigUint64Array(1); const loc = { type: 1, id: 0 };
const ext = koffi.alloc('uint64_t', 1); const extView = new BigUint64Array(koffi.view(ext, 8));
const extAddr = Number(koffi.address(ext));
const i32 = new Int32Array(1);
bench('getpid()', () => f0());
bench('1 arg int* Int32Array', () => f1o(i32));
bench('1 arg uintptr number', () => f1n(extAddr));
bench('4 args bigint', () => g4(0x7f0000001000n, 4096, 0x7f0000002000n, 0n));
bench('4 args first uintptr number', () => g4n(extAddr, 4096, 0x7f0000002000n, 0n));
bench('struct by value', () => fstruct(0x7f0000001000n, 4096, 3, loc));
bench('struct packed as uint64 (number)', () => fpacked(0x7f0000001000n, 4096, 3, 1));
bench('out typed array', () => fout(out, 4096, 0x7f0000001000n, 0n));
bench('out external', () => fext(ext, 4096, 0x7f0000001000n, 0n));
