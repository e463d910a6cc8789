// Tensors, not bytes: a strided float32 view goes to Python as a CuPy array or a PyTorch
// tensor over the same memory (Python doubles it in place; Node sees the doubled values and
// the untouched gaps), and a PyTorch tensor comes back as a StridedMemoryView. Python's
// writes reach Node only because no copy was made.
import { DeviceMemoryResource } from '@cumem/memory';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';
import { expect, it } from 'vitest';
import { describeHandOff } from './adapters.js';
import { builtPackagesPresent, nodeImporter, startScenario } from './python.js';

const rows = 64;
const cols = 48;
// The view: every other element of each row of a [rows, 2 * cols + 1] float32 array, from
// element 1 on, so dtype, shape, strides and offset all matter.
const rowPitch = 2 * cols + 1;
const layout = new StridedLayout([rows, cols], [rowPitch, 2], 4, { offset: 1 });

function baseArray(): Float32Array {
  const values = new Float32Array(rows * rowPitch).fill(-1);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) values[i * rowPitch + 1 + 2 * j] = i * 1000 + j;
  return values;
}

describeHandOff('tensor hand-off', (entry) => {
  for (const kind of ['cupy', 'torch'] as const) {
    it(`Node -> Python: a strided float32 view arrives as a ${kind === 'cupy' ? 'CuPy array' : 'PyTorch tensor'} over the same memory`, async () => {
      const mr = new DeviceMemoryResource(0, { ipcEnabled: true });
      const buffer = mr.allocate(rows * rowPitch * 4);
      buffer.copyFrom(baseArray());
      const view = StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'float32' });
      const child = await startScenario(
        { scenario: 'import-tensor', fd: 3, kind, descriptor: view.ipcDescriptor },
        [mr.getAllocationHandle().fileDescriptor],
      );
      try {
        const result = await child.result<{ matches: boolean; shape: number[]; library: string }>();
        expect(result).toMatchObject({ matches: true, shape: [rows, cols] });
        process.stderr.write(`tensor hand-off: ${result.library}\n`);
      } finally {
        child.kill();
      }
      const back = new Float32Array(rows * rowPitch);
      buffer.copyTo(back);
      const expected = baseArray().map((value) => (value === -1 ? -1 : value * 2));
      expect(back).toEqual(expected);
      buffer.close();
      mr.close();
    });
  }

  it('Python -> Node: a PyTorch tensor arrives as a StridedMemoryView, ordered by an interprocess event', async () => {
    builtPackagesPresent();
    const child = await startScenario({
      scenario: 'export-tensor',
      shape: [rows, cols],
      node: process.execPath,
      nodeScript: nodeImporter,
      driver: entry.name,
    });
    try {
      const result = await child.result<{
        node: { matches: boolean; shape: number[]; dtype: string; eventDoneBeforeWait: boolean | null };
        sawNodeWrite: boolean;
        inFlightWhenSent: boolean;
      }>();
      process.stderr.write(`python -> node tensor: ${JSON.stringify(result)}\n`);
      expect(result.node).toMatchObject({ matches: true, shape: [rows, cols], dtype: 'float32' });
      expect(typeof result.node.eventDoneBeforeWait).toBe('boolean');
      expect(result.sawNodeWrite).toBe(true);
    } finally {
      child.kill();
    }
  });
});
