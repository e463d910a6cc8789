import { MemAccessFlags, MemLocationType, P2PAttribute, StreamFlags } from '@cumem/core-types';
import { describe, expect, it } from 'vitest';
import type { SuiteContext } from './suite-context.js';
import { expectCudaError, expectSameBytes, randomBytes, readBack } from './support.js';

const size = 1 << 20;

/**
 * Several devices: peer queries, context peer access, peer copies and pool access for many
 * locations. The cases between two devices use the suite device and the next one (or the one
 * before it) and are skipped as not applicable on one device.
 */
export function peerCases(suite: SuiteContext): void {
  const needsTwo = () => (suite.driver.deviceGetCount() < 2 ? 'not applicable: needs 2 GPUs' : undefined);
  const peerOf = () => (suite.device + 1) % suite.driver.deviceGetCount();
  const device = (id: number) => ({ type: MemLocationType.Device, id });
  // Cases between two devices: skipped as not applicable on one GPU; left out for a one-device
  // reference driver, which the suite also runs with two devices ('reference, 2 devices').
  const itWithTwo = (title: string, body: () => unknown) => {
    if (suite.isReference && suite.driver.deviceGetCount() < 2) return;
    suite.itUnless(needsTwo, title, body);
  };

  describe('peers', () => {
    it('a device is not its own peer, and peer queries check both ordinals', () => {
      expect(suite.driver.deviceCanAccessPeer(suite.device, suite.device)).toBe(false);
      const bad = suite.driver.deviceGetCount();
      expectCudaError(() => suite.driver.deviceCanAccessPeer(suite.device, bad), 'cuDeviceCanAccessPeer');
      // cuda.h: the same device twice, or a bad one, is CUDA_ERROR_INVALID_DEVICE.
      expectCudaError(
        () => suite.driver.deviceGetP2PAttribute(P2PAttribute.AccessSupported, suite.device, suite.device),
        'cuDeviceGetP2PAttribute',
        'CUDA_ERROR_INVALID_DEVICE',
      );
    });

    it('contextEnablePeerAccess refuses the current context itself', () => {
      expectCudaError(() => suite.driver.contextEnablePeerAccess(suite.context), 'cuCtxEnablePeerAccess');
    });

    it('memcpyPeerAsync copies within one context byte for byte', () => {
      const data = randomBytes(size);
      const src = suite.driver.memAlloc(size);
      const dst = suite.driver.memAlloc(size);
      try {
        suite.driver.memcpyHtoD(src, data);
        suite.driver.memcpyPeerAsync(dst, suite.context, src, suite.context, size, suite.stream);
        suite.driver.streamSynchronize(suite.stream);
        expectSameBytes(readBack(suite.driver, dst, size), data);
      } finally {
        suite.driver.memFree(src);
        suite.driver.memFree(dst);
      }
    });

    it('memPoolSetAccessMany: an empty list changes nothing, the owner keeps read-write', () => {
      const pool = suite.driver.deviceGetDefaultMemPool(suite.device);
      suite.driver.memPoolSetAccessMany(pool, []);
      suite.driver.memPoolSetAccessMany(pool, [
        { location: device(suite.device), flags: MemAccessFlags.ReadWrite },
      ]);
      expect(suite.driver.memPoolGetAccess(pool, device(suite.device))).toBe(MemAccessFlags.ReadWrite);
      expectCudaError(
        () => suite.driver.memPoolSetAccessMany(pool, [{ location: device(suite.device), flags: 99 }]),
        'cuMemPoolSetAccess',
      );
    });

    itWithTwo('peer queries agree with each other in both directions', () => {
      const peer = peerOf();
      for (const [a, b] of [
        [suite.device, peer],
        [peer, suite.device],
      ] as const) {
        const can = suite.driver.deviceCanAccessPeer(a, b);
        expect(suite.driver.deviceGetP2PAttribute(P2PAttribute.AccessSupported, a, b)).toBe(can ? 1 : 0);
        expect([0, 1]).toContain(
          suite.driver.deviceGetP2PAttribute(P2PAttribute.NativeAtomicSupported, a, b),
        );
        expect(suite.driver.deviceGetP2PAttribute(P2PAttribute.PerformanceRank, a, b)).toBeGreaterThanOrEqual(
          0,
        );
      }
    });

    itWithTwo('contextEnablePeerAccess twice is success (ALREADY_ENABLED is not an error)', () => {
      const peer = peerOf();
      if (!suite.driver.deviceCanAccessPeer(suite.device, peer)) return;
      const peerContext = suite.driver.primaryContextRetain(peer);
      try {
        suite.driver.contextEnablePeerAccess(peerContext);
        suite.driver.contextEnablePeerAccess(peerContext);
      } finally {
        suite.driver.primaryContextRelease(peer);
      }
    });

    itWithTwo(
      'pool memory of another device: peer copy without access, memcpyAsync after granting it',
      () => {
        const driver = suite.driver;
        const peer = peerOf();
        const pool = driver.deviceGetDefaultMemPool(suite.device);
        const peerPool = driver.deviceGetDefaultMemPool(peer);
        const peerContext = driver.primaryContextRetain(peer);
        const first = randomBytes(size);
        const second = randomBytes(size);
        const granted = driver.memPoolGetAccess(peerPool, device(suite.device));
        // Memory of the peer is made, read and freed in the peer's context, on the peer's stream.
        const readOnPeer = (pointer: bigint) => {
          driver.contextSetCurrent(peerContext);
          try {
            return readBack(driver, pointer, size);
          } finally {
            driver.contextSetCurrent(suite.context);
          }
        };
        const src = driver.memAllocFromPoolAsync(size, pool, suite.stream);
        let dst = 0n;
        let peerStream = 0n;
        try {
          driver.memcpyHtoDAsync(src, first, suite.stream);
          driver.streamSynchronize(suite.stream);
          driver.contextSetCurrent(peerContext);
          peerStream = driver.streamCreate(StreamFlags.NonBlocking, 0);
          dst = driver.memAllocFromPoolAsync(size, peerPool, peerStream);
          driver.streamSynchronize(peerStream);
          driver.contextSetCurrent(suite.context);
          driver.memcpyPeerAsync(dst, peerContext, src, suite.context, size, suite.stream);
          driver.streamSynchronize(suite.stream);
          expectSameBytes(readOnPeer(dst), first);
          if (driver.deviceCanAccessPeer(suite.device, peer)) {
            const readWrite = { location: device(suite.device), flags: MemAccessFlags.ReadWrite };
            driver.memPoolSetAccessMany(peerPool, [readWrite]);
            expect(driver.memPoolGetAccess(peerPool, device(suite.device))).toBe(MemAccessFlags.ReadWrite);
            driver.memcpyHtoDAsync(src, second, suite.stream);
            driver.memcpyAsync(dst, src, size, suite.stream);
            driver.streamSynchronize(suite.stream);
            expectSameBytes(readOnPeer(dst), second);
          }
        } finally {
          driver.contextSetCurrent(suite.context);
          driver.streamSynchronize(suite.stream);
          driver.memFreeAsync(src, suite.stream);
          driver.streamSynchronize(suite.stream);
          driver.contextSetCurrent(peerContext);
          if (dst !== 0n) driver.memFreeAsync(dst, peerStream);
          if (peerStream !== 0n) {
            driver.streamSynchronize(peerStream);
            driver.streamDestroy(peerStream);
          }
          driver.contextSetCurrent(suite.context);
          driver.memPoolSetAccessMany(peerPool, [{ location: device(suite.device), flags: granted }]);
          driver.primaryContextRelease(peer);
        }
        expect(driver.memPoolGetAccess(peerPool, device(suite.device))).toBe(granted);
      },
    );

    itWithTwo('a stream of another device orders a peer copy', () => {
      const peer = peerOf();
      const peerContext = suite.driver.primaryContextRetain(peer);
      const data = randomBytes(size);
      const src = suite.driver.memAlloc(size);
      let dst = 0n;
      let peerStream = 0n;
      try {
        suite.driver.memcpyHtoD(src, data);
        suite.driver.contextSetCurrent(peerContext);
        dst = suite.driver.memAlloc(size);
        peerStream = suite.driver.streamCreate(StreamFlags.NonBlocking, 0);
        suite.driver.memcpyPeerAsync(dst, peerContext, src, suite.context, size, peerStream);
        suite.driver.streamSynchronize(peerStream);
        expectSameBytes(readBack(suite.driver, dst, size), data);
      } finally {
        suite.driver.contextSetCurrent(peerContext);
        if (peerStream !== 0n) suite.driver.streamDestroy(peerStream);
        if (dst !== 0n) suite.driver.memFree(dst);
        suite.driver.contextSetCurrent(suite.context);
        suite.driver.memFree(src);
        suite.driver.primaryContextRelease(peer);
      }
    });
  });
}
