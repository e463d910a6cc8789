// Pool IPC with cuda.core, both ways, device and pinned pools. Node -> Python: the pool's fd
// is the child's fd 3, the buffer a cumem.tensor/1 descriptor on stdin. Python -> Node: only a
// parent can pass an fd through stdio, so the Python child starts a Node importer itself
// (fixtures/node-import.mjs, the built packages). Lifetime: the exporter keeps its buffer
// open until the importer has closed its mapping and said so (its reply, or its exit).
import { DeviceMemoryResource, PinnedMemoryResource, type PoolMemoryResource } from '@cumem/memory';
import { StridedLayout, StridedMemoryView } from '@cumem/utils';
import { describe, expect, it } from 'vitest';
import { describeHandOff } from './adapters.js';
import { builtPackagesPresent, nodeImporter, startScenario } from './python.js';

const size = 1 << 20;

describeHandOff('pool hand-off with cuda.core', (entry) => {
  async function nodeToPython(mr: PoolMemoryResource, memory: 'device' | 'pinned'): Promise<void> {
    const buffer = mr.allocate(size);
    buffer.fill(0x11);
    const view = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([size], 1), { dtype: 'uint8' });
    const descriptor = view.ipcDescriptor;
    expect(descriptor.memory).toBe(memory);
    const child = await startScenario(
      { scenario: 'import-pool', fd: 3, descriptor, expect: 0x11, write: 0x22 },
      [mr.getAllocationHandle().fileDescriptor],
    );
    try {
      const result = await child.result<{ sawExpected: boolean; size: number }>();
      expect(result).toMatchObject({ sawExpected: true, size });
    } finally {
      child.kill();
    }
    // The child has closed its mapping (it replied and exited): only now may the buffer go.
    const back = new Uint8Array(size);
    buffer.copyTo(back);
    expect(back.every((byte) => byte === 0x22)).toBe(true);
    buffer.close();
    mr.close();
  }

  async function pythonToNode(memory: 'device' | 'pinned'): Promise<void> {
    builtPackagesPresent();
    const child = await startScenario({
      scenario: 'export-pool',
      memory,
      size,
      fill: 0x33,
      write: 0x44,
      node: process.execPath,
      nodeScript: nodeImporter,
      driver: entry.name,
    });
    try {
      const result = await child.result<{
        node: { sawExpected: boolean; size: number };
        sawNodeWrite: boolean;
      }>();
      expect(result).toEqual({ node: { sawExpected: true, size }, sawNodeWrite: true });
    } finally {
      child.kill();
    }
  }

  describe('device pool', () => {
    it('Node -> Python: cuda.core imports the pool and buffer, reads and writes the bytes', () =>
      nodeToPython(new DeviceMemoryResource(0, { ipcEnabled: true }), 'device'));
    it('Python -> Node: @cumem/memory imports a cuda.core pool buffer, reads and writes it', () =>
      pythonToNode('device'));
  });

  describe('pinned pool', () => {
    it('Node -> Python: cuda.core imports the pool and buffer, reads and writes the bytes', () =>
      nodeToPython(new PinnedMemoryResource({ ipcEnabled: true }), 'pinned'));
    it('Python -> Node: @cumem/memory imports a cuda.core pool buffer, reads and writes it', () =>
      pythonToNode('pinned'));
  });
});
