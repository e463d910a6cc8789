// The `{ stream }` option of every allocate and close (stream-options.ts): only an open Stream
// made by this package is taken. Imitations, objects inheriting from a Stream and Proxies of one
// are refused as not Streams (TypeError naming the option), a closed Stream as closed
// (CudaStateError); neither leaves anything allocated or closed.
import { CudaStateError } from '@cumem/core-types';
import { describeEachDriver } from '@cumem/testing/vitest';
import { beforeAll, expect, it } from 'vitest';
import { adapters } from '../../test/adapters.js';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Stream } from './stream.js';

describeEachDriver(adapters, 'the { stream } option', (entry) => {
  beforeAll(() => useDriver(entry.driver));

  it('takes an open Stream and refuses imitations, heirs and Proxies of one', () => {
    const resource = new DeviceMemoryResource(0);
    using stream = Stream.create(0);
    const buffer = resource.allocate(64, { stream });
    const notStreams: unknown[] = [{}, Object.create(stream), new Proxy(stream, {}), 5, 'stream', [stream]];
    for (const value of notStreams) {
      expect(() => resource.allocate(64, { stream: value as Stream })).toThrow(/stream must be a Stream/);
      expect(() => buffer.close({ stream: value as Stream })).toThrow(/stream must be a Stream/);
    }
    expect(buffer.isClosed).toBe(false);
    const closed = Stream.create(0);
    closed.close();
    expect(() => resource.allocate(64, { stream: closed })).toThrow(CudaStateError);
    expect(() => buffer.close({ stream: closed })).toThrow(CudaStateError);
    expect(buffer.isClosed).toBe(false);
    buffer.close({ stream });
    stream.sync();
    resource.close();
  });
});
