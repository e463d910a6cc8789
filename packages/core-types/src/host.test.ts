import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Host } from './host.js';

describe('Host', () => {
  it('is interned per NUMA id', () => {
    expect(new Host()).toBe(new Host());
    expect(new Host({})).toBe(new Host());
    expect(new Host({ numaId: null })).toBe(new Host());
    expect(new Host({ numaId: 1 })).toBe(new Host({ numaId: 1 }));
    expect(new Host({ numaId: 1 })).not.toBe(new Host({ numaId: 0 }));
    expect(new Host({ numaId: 0 })).not.toBe(new Host());
  });

  it('has a distinct interned numaCurrent()', () => {
    const current = Host.numaCurrent();
    expect(current).toBe(Host.numaCurrent());
    expect(current).not.toBe(new Host());
    expect(current.isNumaCurrent).toBe(true);
    expect(current.numaId).toBeNull();
    expect(new Host().isNumaCurrent).toBe(false);
    // Building numaCurrent first must not have replaced the plain host.
    expect(new Host().isNumaCurrent).toBe(false);
  });

  it('reports numaId', () => {
    expect(new Host().numaId).toBeNull();
    expect(new Host({ numaId: 3 }).numaId).toBe(3);
  });

  it.each([true, false, 1.5, '1', Number.NaN, Number.POSITIVE_INFINITY])(
    'rejects numaId %s with TypeError',
    (numaId) => {
      expect(() => new Host({ numaId: numaId as number })).toThrow(TypeError);
    },
  );

  it('rejects a negative numaId with RangeError', () => {
    expect(() => new Host({ numaId: -1 })).toThrow(RangeError);
  });

  it('rejects options that are not an object', () => {
    expect(() => new Host(3 as unknown as { numaId: number })).toThrow(TypeError);
  });

  it('prints itself', () => {
    expect(String(new Host())).toBe('Host()');
    expect(String(new Host({ numaId: 2 }))).toBe('Host({ numaId: 2 })');
    expect(String(Host.numaCurrent())).toBe('Host.numaCurrent()');
  });

  it('prints itself through util.inspect as toString does', () => {
    expect(inspect(new Host())).toBe('Host()');
    expect(inspect(new Host({ numaId: 1 }))).toBe('Host({ numaId: 1 })');
  });
});
