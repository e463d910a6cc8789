// Classes users get from factories: the published types declare their constructors private (or
// protected), and calling one anyway (from JavaScript) throws a TypeError naming the factory.
import { describe, expect, it } from 'vitest';
import { AccessedByView } from './accessed-by-view.js';
import { AllocationTracker } from './allocation-tracker.js';
import { Buffer } from './buffer.js';
import { Event } from './event.js';
import { HostRegistration } from './host-registration.js';
import { IpcAllocationHandle } from './ipc-allocation-handle.js';
import { ManagedBuffer } from './managed-buffer.js';
import { PeerAccessView } from './peer-access-view.js';
import { Stream } from './stream.js';

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
