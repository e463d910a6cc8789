// Issue 45: ordering must not depend on a stream object still being open. A consumer ordered
// after a buffer's producer stream (toDLPack({ stream })) waits on the GPU for the producer's
// queued work even when the producer was closed first: through the event its close recorded.
import { createReferenceDriver } from '@cumem/testing/vitest';
import { afterEach, describe, expect, it } from 'vitest';
import { DeviceMemoryResource } from '../resources/device-memory-resource.js';
import { useDriver } from '../runtime/driver-selection.js';
import { Stream } from './stream.js';

// A reference driver whose streams and events stay busy (nothing queued ever completes), with
// a log of the waits it is asked for: [consumer stream, event].
function busyDriver() {
  const driver = createReferenceDriver();
  const waits: [bigint, bigint][] = [];
  const recorded = new Map<bigint, bigint>();
  let busy = true;
  const record = driver.eventRecord.bind(driver);
  const wait = driver.streamWaitEvent.bind(driver);
  const eventQuery = driver.eventQuery.bind(driver);
  const streamQuery = driver.streamQuery.bind(driver);
  driver.eventRecord = (event, stream) => {
    recorded.set(event, stream);
    record(event, stream);
  };
  driver.streamWaitEvent = (stream, event) => {
    waits.push([stream, event]);
    wait(stream, event);
  };
  driver.eventQuery = (event) => (busy ? false : eventQuery(event));
  driver.streamQuery = (stream) => (busy ? false : streamQuery(stream));
  return {
    driver,
    waits,
    recorded,
    finish: () => {
      busy = false;
    },
  };
}

describe('ordering after a closed producer stream', () => {
  afterEach(() => useDriver(createReferenceDriver()));

  it("toDLPack({ stream }) waits on the event the producer's close recorded", () => {
    const { driver, waits, recorded } = busyDriver();
    useDriver(driver);
    const producer = Stream.create(0);
    using consumer = Stream.create(0);
    const producerHandle = producer.handle;
    const buffer = new DeviceMemoryResource(0).allocate(4096, { stream: producer });
    buffer.fill(1, { stream: producer });
    producer.close();
    const tail = [...recorded].find(([, stream]) => stream === producerHandle)?.[0];
    expect(tail).toBeDefined();
    waits.length = 0;
    const capsule = buffer.toDLPack({ stream: consumer });
    expect(waits).toEqual([[consumer.handle, tail]]);
    capsule.close();
    buffer.close({ stream: consumer });
  });

  it('an open producer is waited on through a new marker; a finished one needs no wait', () => {
    const { driver, waits, finish } = busyDriver();
    useDriver(driver);
    using producer = Stream.create(0);
    using consumer = Stream.create(0);
    const buffer = new DeviceMemoryResource(0).allocate(4096, { stream: producer });
    waits.length = 0;
    buffer.toDLPack({ stream: consumer }).close();
    expect(waits.map(([stream]) => stream)).toEqual([consumer.handle]);
    const closedProducer = Stream.create(0);
    const second = new DeviceMemoryResource(0).allocate(4096, { stream: closedProducer });
    closedProducer.close();
    finish();
    waits.length = 0;
    second.toDLPack({ stream: consumer }).close();
    expect(waits).toEqual([]);
    buffer.close({ stream: consumer });
    second.close({ stream: consumer });
  });

  it('stream.wait(closedStream) waits on the event the close recorded; a closed consumer is refused', () => {
    const { driver, waits, recorded } = busyDriver();
    useDriver(driver);
    const producer = Stream.create(0);
    using consumer = Stream.create(0);
    const producerHandle = producer.handle;
    producer.close();
    const tail = [...recorded].find(([, stream]) => stream === producerHandle)?.[0];
    expect(tail).toBeDefined();
    waits.length = 0;
    consumer.wait(producer);
    expect(waits).toEqual([[consumer.handle, tail]]);
    // The stream itself: nothing to wait for.
    waits.length = 0;
    consumer.wait(consumer);
    expect(waits).toEqual([]);
    expect(() => producer.wait(consumer)).toThrow(/closed/);
  });
});
