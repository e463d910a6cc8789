// The tensor IPC descriptor's wire format and its refusals. Opening one needs another process:
// testing/python-handoff does that (Node -> Python and back) on the GPU.
import { DeviceMemoryResource, useDriver } from '@cumem/memory';
import { poolSharingDrivers } from '@cumem/test-support';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters, strictTypeError } from '../../test/support.js';
import { StridedLayout } from '../strided/strided-layout.js';
import { StridedMemoryView } from '../strided/strided-memory-view.js';
import { TENSOR_DESCRIPTOR_FORMAT } from './tensor-descriptor.js';

describeEachDriver(adapters, 'tensor IPC descriptor', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('is refused for views of host memory and of buffers of pools without IPC', () => {
    const host = StridedMemoryView.fromHost(new Float32Array(8));
    expect(() => host.ipcDescriptor).toThrow(strictTypeError);
    const mr = new DeviceMemoryResource(0);
    const buffer = mr.allocate(64);
    const view = StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([4, 4], 4), { dtype: 'float32' });
    expect(() => view.ipcDescriptor).toThrow(strictTypeError);
    expect(() => view.toIpcDescriptor({ event: 'not an event' as never })).toThrow(strictTypeError);
    buffer.close();
  });

  it('fromIpcDescriptor refuses malformed descriptors with a TypeError before opening anything', () => {
    const mr = new DeviceMemoryResource(0);
    const good = {
      format: TENSOR_DESCRIPTOR_FORMAT,
      buffer: { data: Buffer.from(new Uint8Array(64)).toString('base64'), size: 64, uuid: null },
      memory: 'device',
      deviceId: 0,
      dtype: 'float32',
      typestr: '<f4',
      itemsize: 4,
      shape: [4, 4],
      strides: [4, 1],
      offset: 0,
      event: null,
    } as const;
    const bad: unknown[] = [
      null,
      'descriptor',
      { ...good, format: 'cumem.tensor/2' },
      { ...good, dtype: 'complex64' },
      { ...good, itemsize: 8 },
      { ...good, shape: [4, 'x'] },
      { ...good, strides: null },
      { ...good, offset: 0.5 },
      { ...good, buffer: null },
    ];
    for (const descriptor of bad) {
      expect(() => StridedMemoryView.fromIpcDescriptor(mr, descriptor as never)).toThrow(strictTypeError);
    }
    // A well-formed descriptor reaches the resource, which (not imported) refuses it.
    expect(() => StridedMemoryView.fromIpcDescriptor(mr, good)).toThrow(strictTypeError);
  });
});

describeEachDriver(
  adapters,
  'tensor IPC descriptor of an IPC pool buffer',
  (entry) => {
    beforeAll(() => useDriver(entry.driver));

    it('carries dtype, shape, strides (elements), offset and the buffer descriptor as JSON', () => {
      const mr = new DeviceMemoryResource(0, { ipcEnabled: true });
      const buffer = mr.allocate(4 * 6 * 4);
      const layout = new StridedLayout([3, 2], [8, 2], 4, { offset: 1 });
      const view = StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'int32' });
      const descriptor = JSON.parse(JSON.stringify(view.ipcDescriptor));
      expect(descriptor).toEqual({
        format: TENSOR_DESCRIPTOR_FORMAT,
        buffer: JSON.parse(JSON.stringify(buffer.ipcDescriptor)),
        memory: 'device',
        deviceId: 0,
        dtype: 'int32',
        typestr: '<i4',
        itemsize: 4,
        shape: [3, 2],
        strides: [8, 2],
        offset: 1,
        event: null,
      });
      buffer.close();
      mr.close();
    });
  },
  poolSharingDrivers,
);
