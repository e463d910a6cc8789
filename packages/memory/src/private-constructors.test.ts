// Classes users get from factories: the published types declare their constructors private (or
// protected), and calling one anyway (from JavaScript) throws a TypeError naming the factory.
import { describe, expect, it } from 'vitest';
import { Buffer } from './buffer/buffer.js';
import { HostRegistration } from './copy/host-registration.js';
import { AllocationTracker } from './diagnostics/allocation-tracker.js';
import { IpcAllocationHandle } from './interop/ipc/ipc-allocation-handle.js';
import { AccessedByView } from './resources/managed/accessed-by-view.js';
import { ManagedBuffer } from './resources/managed/managed-buffer.js';
import { PeerAccessView } from './resources/peer-access-view.js';
import { Event } from './stream/event.js';
import { Stream } from './stream/stream.js';

describe('constructors users must not call', () => {
  it('are not callable in TypeScript, and throw a TypeError naming the factory in JavaScript', () => {
    // @ts-expect-error: protected
    expect(() => new Buffer()).toThrow(
      new TypeError(
        "Buffer has no public constructor: use a memory resource's allocate(), Buffer.fromHandle() or slice() to get one",
      ),
    );
    // @ts-expect-error: protected
    expect(() => new ManagedBuffer()).toThrow(
      /^ManagedBuffer has no public constructor: use a memory resource's allocate\(\)/,
    );
    // @ts-expect-error: private
    expect(() => new Stream()).toThrow(
      /^Stream has no public constructor: use Stream\.create\(\) or defaultStream\(\)/,
    );
    // @ts-expect-error: private
    expect(() => new Event()).toThrow(
      /^Event has no public constructor: use Event\.create\(\) or stream\.record\(\)/,
    );
    // @ts-expect-error: private
    expect(() => new IpcAllocationHandle()).toThrow(
      /use mr\.getAllocationHandle\(\) or IpcAllocationHandle\.fromFileDescriptor\(\)/,
    );
    // @ts-expect-error: private
    expect(() => new HostRegistration()).toThrow(
      /^HostRegistration has no public constructor: use registerHostMemory\(\)/,
    );
    // @ts-expect-error: private
    expect(() => new AllocationTracker()).toThrow(
      /^AllocationTracker has no public constructor: use trackAllocations\(\)/,
    );
    // @ts-expect-error: private
    expect(() => new AccessedByView()).toThrow(
      /^AccessedByView has no public constructor: use a ManagedBuffer's accessedBy/,
    );
    // @ts-expect-error: private
    expect(() => new PeerAccessView()).toThrow(
      /^PeerAccessView has no public constructor: use a DeviceMemoryResource's peerAccessibleBy/,
    );
    // A forged token is no token.
    const forged = [Symbol('cumem.buffer')] as unknown[];
    expect(() => Reflect.construct(Buffer, forged)).toThrow(TypeError);
    expect(() => Reflect.construct(Stream, [Symbol('cumem.stream')])).toThrow(TypeError);
  });
});
