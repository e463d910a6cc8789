// Objects keep the driver they were made with, and objects of two drivers do not mix: a
// buffer, stream or event of another driver is refused (CudaStateError) before its pointer or
// handle reaches this one. Another driver may be another libcuda (the fake beside the real one),
// whose pointers and handles mean nothing to this one; copies, waits and closes between two
// drivers' objects were let through.
import { CudaStateError } from '@cumem/core-types';
import { createReferenceDriver } from '@cumem/testing/vitest';
import { afterAll, expect, it } from 'vitest';
import * as memory from '../index.js';

const first = createReferenceDriver({ deviceCount: 2 });
const second = createReferenceDriver({ deviceCount: 2 });

afterAll(() => memory.useDriver(first));

it('buffers, streams and events of another driver are refused, and nothing is closed', () => {
  memory.useDriver(first);
  const theirs = new memory.DeviceMemoryResource(0).allocate(256);
  const theirStream = memory.Stream.create(0);
  const theirEvent = memory.Event.create(0);
  memory.useDriver(second);
  const mine = new memory.DeviceMemoryResource(0).allocate(256);
  const myStream = memory.Stream.create(0);
  const refusals: [string, () => unknown, RegExp][] = [
    ['copyFrom', () => mine.copyFrom(theirs), /src belongs to driver/],
    ['copyTo', () => mine.copyTo(theirs), /dst belongs to driver/],
    ['wait(stream)', () => myStream.wait(theirStream), /the stream belongs to driver/],
    ['wait(event)', () => myStream.wait(theirEvent), /the event belongs to driver/],
    ['record(event)', () => myStream.record(theirEvent), /the event belongs to driver/],
    ['close({ stream })', () => mine.close({ stream: theirStream }), /the stream belongs to driver/],
  ];
  for (const [what, call, message] of refusals) {
    expect(call, what).toThrow(CudaStateError);
    expect(call, what).toThrow(message);
  }
  expect(mine.isClosed).toBe(false);
  mine.close({ stream: myStream });
  myStream.sync();
  memory.useDriver(first);
  theirs.close();
});

it("a Buffer's DLPack export is made and freed through the Buffer's own driver, whichever is current", () => {
  memory.useDriver(first);
  const buffer = new memory.DeviceMemoryResource(0).allocate(256);
  memory.useDriver(second);
  const capsule = buffer.toDLPack();
  // The struct lives in the first driver's host memory: that driver reads it, the second does not.
  expect(first.hostView(capsule.pointer, 8).byteLength).toBe(8);
  expect(() => second.hostView(capsule.pointer, 8)).toThrow();
  capsule.close();
  memory.useDriver(first);
  buffer.close();
});
