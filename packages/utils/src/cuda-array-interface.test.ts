import { DeviceMemoryResource, useDriver } from '@cumem/memory';
import { createReferenceDriver } from '@cumem/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { StridedLayout } from './strided-layout.js';
import { StridedMemoryView } from './strided-memory-view.js';

describe('CUDA Array Interface', () => {
  let device: DeviceMemoryResource;

  beforeAll(() => {
    useDriver(createReferenceDriver());
    device = new DeviceMemoryResource(0);
  });

  it('exports a view and imports it back', () => {
    const buffer = device.allocate(8 * 6 * 4);
    const layout = StridedLayout.dense([8, 6], 4).sliced([2, 6], [null, null, 2]);
    const view = StridedMemoryView.fromBuffer(buffer, layout, { dtype: 'float32', isReadonly: true });
    const cai = view.cudaArrayInterface;
    expect(cai).toEqual({
      shape: [4, 3],
      typestr: '<f4',
      data: [buffer.handle + 48n, true],
      strides: [24, 8],
      version: 3,
    });
    const imported = StridedMemoryView.from({ cudaArrayInterface: cai });
    expect(imported.ptr).toBe(view.ptr);
    expect(imported.shape).toEqual([4, 3]);
    expect(imported.strides).toEqual([6, 2]);
    expect(imported.dtype).toBe('float32');
    expect(imported.readonly).toBe(true);
    expect(imported.deviceId).toBe(0);
    expect(
      StridedMemoryView.fromBuffer(buffer, StridedLayout.dense([48], 4)).cudaArrayInterface.strides,
    ).toBeNull();
    buffer.close();
  });

  it('imports negative strides by moving the layout offset', () => {
    const buffer = device.allocate(16);
    const imported = StridedMemoryView.from({
      cudaArrayInterface: {
        shape: [4],
        typestr: '<i4',
        data: [buffer.handle + 12n, false],
        strides: [-4],
        version: 3,
      },
    });
    expect(imported.ptr).toBe(buffer.handle + 12n);
    expect(imported.layout.offset).toBe(3);
    expect(imported.strides).toEqual([-1]);
    buffer.close();
  });

  it('refuses malformed interfaces', () => {
    const good = { shape: [4], typestr: '<f4', data: [4096n, false], strides: null, version: 3 };
    expect(() => StridedMemoryView.from({})).toThrow(TypeError);
    expect(() => StridedMemoryView.from(42)).toThrow(TypeError);
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, version: 2 } })).toThrow(RangeError);
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, typestr: '>f4' } })).toThrow(
      RangeError,
    );
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, typestr: 4 } })).toThrow(TypeError);
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, strides: [6] } })).toThrow(
      RangeError,
    );
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, data: [4096n] } })).toThrow(
      TypeError,
    );
    expect(() => StridedMemoryView.from({ cudaArrayInterface: { ...good, stream: 0 } })).toThrow(RangeError);
  });
});
