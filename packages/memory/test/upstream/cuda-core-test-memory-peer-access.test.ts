// cuda.core's pool peer-access tests, translated case by case into cumem's API: upstream
// NVIDIA/cuda-python cuda_core/tests/test_memory_peer_access.py at commit
// 0a94b3624251af9d05ad438067a41c5bcdfbb2e7. They need two (test_peer_access_transitions: three)
// devices: the reference driver is made with that many, and a GPU adapter on a machine with fewer
// skips as not applicable.
//
// Deviation tested as cumem documents it: copies between buffers of different devices work
// whatever peer access was granted (API.md, Multi-GPU), so where upstream expects a copy to fail
// without access (CUDA_ERROR_INVALID_VALUE), the cumem case expects it to succeed with the right
// bytes; the access state itself is checked as upstream checks it. cumem's peerAccessibleBy is a
// live Set-like view of Devices rather than a sorted tuple of ordinals; the cases compare its
// ordinals, sorted.

import { skipWithoutPeerAccess } from '@cumem/test-support';
import { describeEachDriverWithDevices } from '@cumem/testing/vitest';
import { afterEach, beforeAll, expect, it } from 'vitest';
import {
  type Buffer,
  canAccessPeer,
  type Device,
  DeviceMemoryResource,
  deviceCount,
  ManagedMemoryResource,
  Stream,
  setCurrentDevice,
  useDriver,
} from '../../src/index.js';
import { adapters } from '../adapters.js';

const nbytes = 1024;

const ordinals = (devices: Iterable<Device>) => [...devices].map((device) => device.ordinal).sort();

/** Managed memory made while `device` is current, every byte `value` (upstream's make_scratch_buffer). */
function scratchBuffer(device: number, value: number): Buffer {
  setCurrentDevice(device);
  const buffer = new ManagedMemoryResource().allocate(nbytes);
  buffer.fill(value);
  return buffer;
}

function read(buffer: Buffer): Uint8Array {
  const bytes = new Uint8Array(buffer.size);
  buffer.copyTo(bytes);
  return bytes;
}

const everyByte = (buffer: Buffer, value: number) => read(buffer).every((byte) => byte === value);

/** Upstream's PatternGen pattern for `seed`: byte i is (seed + i) & 0xff. */
const pattern = (seed: number) => Uint8Array.from({ length: nbytes }, (_, index) => (seed + index) & 0xff);

describeEachDriverWithDevices(adapters, 2, 'cuda.core test_memory_peer_access.py, 2 devices', (entry) => {
  beforeAll(() => useDriver(entry.driver));
  afterEach(() => setCurrentDevice(0));

  it('test_peer_access_basic: access is granted and revoked; copies between the devices work in every state (cumem)', (context) => {
    skipWithoutPeerAccess(canAccessPeer(0, 1), entry.name, context);
    const zeroOnDevice0 = scratchBuffer(0, 0);
    const oneOnDevice0 = scratchBuffer(0, 1);
    using streamOnDevice0 = Stream.create(0);
    // A pool of its own: the device's current pool may keep access a previous case granted.
    const poolOnDevice1 = new DeviceMemoryResource(1, {});
    const bufferOnDevice1 = poolOnDevice1.allocate(nbytes);

    const copiesBothWays = (value: number) => {
      zeroOnDevice0.fill(0);
      oneOnDevice0.fill(value);
      oneOnDevice0.copyTo(bufferOnDevice1, { stream: streamOnDevice0 });
      zeroOnDevice0.copyFrom(bufferOnDevice1, { stream: streamOnDevice0 });
      streamOnDevice0.sync();
      return everyByte(zeroOnDevice0, value);
    };

    expect(poolOnDevice1.peerAccessibleBy.has(0)).toBe(false);
    expect(copiesBothWays(1)).toBe(true);

    poolOnDevice1.peerAccessibleBy = [0];
    expect(poolOnDevice1.peerAccessibleBy.has(0)).toBe(true);
    expect(copiesBothWays(2)).toBe(true);

    poolOnDevice1.peerAccessibleBy = [];
    expect(poolOnDevice1.peerAccessibleBy.has(0)).toBe(false);
    expect(copiesBothWays(3)).toBe(true);

    bufferOnDevice1.close();
    poolOnDevice1.close();
    zeroOnDevice0.close();
    oneOnDevice0.close();
  });

  it('test_peer_access_property_x2: the view leaves out the owner, folds repeats, and refuses bad ordinals', (context) => {
    skipWithoutPeerAccess(canAccessPeer(1, 0), entry.name, context);
    const mr = new DeviceMemoryResource(0, {});
    const check = (expected: number[]) => expect(ordinals(mr.peerAccessibleBy)).toEqual(expected);
    check([]);
    const steps: [Iterable<number>, number[]][] = [
      [[0], []],
      [[1], [1]],
      [[0, 1], [1]],
      [[], []],
      [[0, 1], [1]],
      [new Set<number>(), []],
      [[1, 1, 1, 1, 1], [1]],
    ];
    for (const [devices, expected] of steps) {
      mr.peerAccessibleBy = devices;
      check(expected);
    }
    expect(() => {
      mr.peerAccessibleBy = [-1];
    }).toThrow(RangeError);
    expect(() => {
      mr.peerAccessibleBy = [deviceCount()];
    }).toThrow(/does not exist/);
    // A refused assignment changes nothing.
    check([1]);
    mr.peerAccessibleBy = [];
    mr.close();
  });

  it("test_peer_access_shared_pool_queries_driver: wrappers of the device's current pool all read the driver's state", (context) => {
    skipWithoutPeerAccess(canAccessPeer(1, 0), entry.name, context);
    const first = new DeviceMemoryResource(0);
    first.peerAccessibleBy = [1];
    const second = new DeviceMemoryResource(0);
    expect(second.peerAccessibleBy.has(1)).toBe(true);

    second.peerAccessibleBy = [];
    expect(ordinals(first.peerAccessibleBy)).toEqual([]);

    // A wrapper that never read the view must still revoke what another granted.
    first.peerAccessibleBy = [1];
    const third = new DeviceMemoryResource(0);
    for (const wrapper of [first, second, third]) expect(ordinals(wrapper.peerAccessibleBy)).toEqual([1]);
    third.peerAccessibleBy = [];
    expect(ordinals(new DeviceMemoryResource(0).peerAccessibleBy)).toEqual([]);
    for (const wrapper of [first, second, third]) expect(ordinals(wrapper.peerAccessibleBy)).toEqual([]);
  });
});

describeEachDriverWithDevices(adapters, 3, 'cuda.core test_memory_peer_access.py, 3 devices', (entry) => {
  beforeAll(() => useDriver(entry.driver));
  afterEach(() => setCurrentDevice(0));

  it('test_peer_access_transitions: every change between the four access states of a pool of device 0', (context) => {
    skipWithoutPeerAccess(canAccessPeer(1, 0) && canAccessPeer(2, 0), entry.name, context);
    const devices = [0, 1, 2];
    const streams = devices.map((device) => Stream.create(device));
    // Pools of their own (the current pools may keep access from other cases).
    const pools = devices.map((device) => new DeviceMemoryResource(device, {}));
    const buffers = pools.map((pool) => pool.allocate(nbytes));

    // From device 0's side: fill its buffer, then each peer copies it on its own stream, which
    // works whether or not the peer has access (cumem); the bytes say it did.
    const verifyState = (state: readonly number[], seed: number) => {
      setCurrentDevice(0);
      (buffers[0] as Buffer).copyFrom(pattern(seed), { stream: streams[0] });
      (streams[0] as Stream).sync();
      for (const peer of [1, 2]) {
        setCurrentDevice(peer);
        (buffers[peer] as Buffer).copyFrom(buffers[0] as Buffer, { stream: streams[peer] });
        (streams[peer] as Stream).sync();
        expect(read(buffers[peer] as Buffer), `peer ${peer} in state [${state}]`).toEqual(pattern(seed));
      }
    };

    const states: readonly (readonly number[])[] = [[], [1], [2], [1, 2]];
    let seed = 0;
    for (const initial of states) {
      for (const final of states) {
        if (initial === final) continue;
        for (const state of [initial, final]) {
          (pools[0] as DeviceMemoryResource).peerAccessibleBy = state;
          expect(ordinals((pools[0] as DeviceMemoryResource).peerAccessibleBy)).toEqual([...state]);
          verifyState(state, seed++);
        }
      }
    }
    for (const buffer of buffers) buffer.close();
    for (const pool of pools) pool.close();
    for (const stream of streams) stream.close();
  });
});
