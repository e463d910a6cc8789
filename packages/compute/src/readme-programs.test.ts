// The README's programs run as written: each `js` block that imports this package is run with
// its imports bound to the modules under test, on the reference driver and, where a GPU is,
// on each adapter. Blocks that need NVRTC run only where it loads; the `using` fragment (a
// SyntaxError before Node 24) is left out, as the README says.
import { readFileSync } from 'node:fs';
import * as memory from '@cumem/memory';
import * as testing from '@cumem/testing';
import { describeEachDriver } from '@cumem/testing/vitest';
import { expect, it, vi } from 'vitest';
import { adapters } from '../test/support.js';
import * as compute from './index.js';
import { loadNvrtc } from './program/nvrtc-library.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1] as string);
const modules: Record<string, unknown> = {
  '@cumem/compute': compute,
  '@cumem/memory': memory,
  '@cumem/testing': testing,
};

/** The block as a function of its modules: each `import { a, b } from 'x'` read from `modules`. */
function runnable(block: string): (modules: Record<string, unknown>) => Promise<void> {
  const body = block.replace(/^import \{([^}]*)\} from '([^']+)';$/gm, (_, names: string, from: string) => {
    if (!(from in modules)) throw new Error(`the README imports ${from}, which this test does not provide`);
    return `const {${names.replace(/\bas\b/g, ':')}} = modules['${from}'];`;
  });
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
    ...parameters: string[]
  ) => (modules: Record<string, unknown>) => Promise<void>;
  return new AsyncFunction('modules', body);
}

function nvrtcLoads(): boolean {
  try {
    loadNvrtc();
    return true;
  } catch {
    return false;
  }
}

const firstProgram = blocks.find((block) => block.includes('ObjectCode.fromPTX(ptx)'));
const withoutGpu = blocks.find((block) => block.includes('createReferenceDriver()'));
const compiled = blocks.find((block) => block.includes("new Program(source, 'c++')"));

it('finds the README programs', () => {
  expect(firstProgram).toBeDefined();
  expect(withoutGpu).toBeDefined();
  expect(compiled).toBeDefined();
  // The `using` fragment is the only other js block.
  expect(blocks.filter((block) => block.includes('using ')).length).toBe(1);
});

describeEachDriver(adapters, 'README programs', (entry) => {
  it('the first program fills the buffer and prints the kernel', async () => {
    memory.useDriver(entry.driver);
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await runnable(firstProgram as string)(modules);
      expect(log.mock.calls).toEqual([
        ['Kernel(name: fill_f32, codeType: ptx, closed: false): out[0] = 2.5, out[1023] = 2.5'],
      ]);
    } finally {
      log.mockRestore();
    }
  });

  it.runIf(entry.isReference)(
    entry.isReference
      ? 'the testing-without-a-GPU program prints 7'
      : 'the testing-without-a-GPU program — skipped: not applicable: it selects the reference driver itself',
    async () => {
      const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
      try {
        await runnable(withoutGpu as string)(modules);
        expect(log.mock.calls).toEqual([[7]]);
      } finally {
        log.mockRestore();
        memory.useDriver(entry.driver);
      }
    },
  );

  const canCompile = !entry.isReference && nvrtcLoads();
  it.runIf(canCompile)(
    canCompile
      ? 'the CUDA C++ program compiles and runs'
      : 'the CUDA C++ program — skipped: not applicable: it needs a GPU and NVRTC',
    async () => {
      memory.useDriver(entry.driver);
      await runnable(compiled as string)(modules);
    },
  );
});
