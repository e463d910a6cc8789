// Classes users get from factories: the published types declare their constructors private, and
// calling one anyway (from JavaScript) throws a TypeError naming the factory.
import { describe, expect, it } from 'vitest';
import { CudaBuffer } from './buffer/cuda-buffer.js';
import { IpcMemHandle } from './buffer/ipc-mem-handle.js';
import { HostBuffer } from './host/host-buffer.js';

describe('constructors users must not call', () => {
  it('are not callable in TypeScript, and throw a TypeError naming the factory in JavaScript', () => {
    // @ts-expect-error: private
    expect(() => new CudaBuffer()).toThrow(
      new TypeError("Do not call CudaBuffer's constructor directly, use Context.deviceBuffer(size) instead"),
    );
    // @ts-expect-error: private
    expect(() => new HostBuffer()).toThrow(
      new TypeError("Do not call HostBuffer's constructor directly, use newHostBuffer(size) instead"),
    );
    // @ts-expect-error: private
    expect(() => new IpcMemHandle()).toThrow(
      new TypeError(
        "Do not call IpcMemHandle's constructor directly, use CudaBuffer.exportForIpc() or IpcMemHandle.fromBuffer()",
      ),
    );
  });
});
