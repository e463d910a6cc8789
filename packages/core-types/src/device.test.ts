import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Device } from './device.js';
import { Host } from './host.js';

describe('Device', () => {
  it('defaults to ordinal 0 and is interned', () => {
    expect(new Device().ordinal).toBe(0);
    expect(new Device(0)).toBe(new Device());
    expect(new Device(3)).toBe(new Device(3));
    expect(new Device(3)).not.toBe(new Device(2));
  });

  it('is frozen', () => {
    const device = new Device(1);
    expect(Object.isFrozen(device)).toBe(true);
    expect(() => {
      (device as { ordinal: number }).ordinal = 5;
    }).toThrow(TypeError);
  });

  it.each([1.5, Number.NaN, '0', true, null, 1n])('rejects ordinal %s with TypeError', (value) => {
    expect(() => new Device(value as number)).toThrow(TypeError);
  });

  it('rejects a negative ordinal with RangeError', () => {
    expect(() => new Device(-1)).toThrow(RangeError);
  });

  it('is recognised across copies by its marker, and not confused with Host', () => {
    expect(Device.isInstance(new Device(0))).toBe(true);
    expect(Device.isInstance({ ordinal: 0 })).toBe(false);
    expect(Device.isInstance(new Host())).toBe(false);
    const foreign = { [Symbol.for('cumem.location.device')]: true, ordinal: 0 };
    expect(Device.isInstance(foreign)).toBe(true);
  });

  it('prints itself, through util.inspect too (no brand symbol shows)', () => {
    expect(String(new Device(2))).toBe('Device(2)');
    expect(inspect(new Device(2))).toBe('Device(2)');
    expect(inspect({ at: new Device(1) })).toBe('{ at: Device(1) }');
  });
});
