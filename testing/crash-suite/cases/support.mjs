// What every crash case shares: choosing the driver the harness named, and checks that end the
// program with a clear message (exit code 1) instead of a signal. A case passes by exiting 0.
//   CUMEM_CRASH_DRIVER  'napi' | 'ffi' | 'reference'
//   CUMEM_CRASH_LIBCUDA the library an adapter loads (the hostile fake on CPU), else libcuda.so.1
import * as memory from '@cumem/memory';
import * as memoryInternal from '@cumem/memory/internal';

/** Selects the driver for @cumem/memory (and everything built on it) and returns it. */
export async function setUp() {
  const name = process.env.CUMEM_CRASH_DRIVER ?? 'napi';
  let driver;
  if (name === 'reference') {
    const { createReferenceDriver } = await import('@cumem/testing/reference-driver');
    driver = createReferenceDriver();
  } else {
    const { createDriver } = await import(name === 'ffi' ? '@cumem/driver-ffi' : '@cumem/driver-napi');
    const libraryPath = process.env.CUMEM_CRASH_LIBCUDA;
    driver = createDriver(libraryPath ? { libraryPath } : undefined);
  }
  memory.useDriver(driver);
  return { driver, name, onFake: Boolean(process.env.CUMEM_CRASH_LIBCUDA) };
}

/** Fails the case with `message` unless `condition` holds. */
export function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

/**
 * Runs `action` and requires it to throw an instance of `Type` (TypeError, RangeError, or a
 * cumem error class); `what` names the step in the failure message.
 */
export function expectThrows(Type, what, action) {
  let thrown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error(`${what}: expected ${Type.name}, but nothing was thrown`);
  if (!(thrown instanceof Type)) {
    throw new Error(`${what}: expected ${Type.name}, got ${thrown?.name}: ${thrown?.message}`);
  }
  return thrown;
}

/** Like {@link expectThrows} for an async action. */
export async function expectRejects(Type, what, action) {
  let thrown;
  try {
    await action();
  } catch (error) {
    thrown = error;
  }
  if (thrown === undefined) throw new Error(`${what}: expected ${Type.name}, but it resolved`);
  if (!(thrown instanceof Type))
    throw new Error(`${what}: expected ${Type.name}, got ${thrown?.name}: ${thrown?.message}`);
  return thrown;
}

/** Requires `action` to throw anything but a crash: any Error is an acceptable refusal. */
export function expectRefused(what, action) {
  return expectThrows(Error, what, action);
}

/** Full collections, with turns of the event loop between them so finalizers run. */
export async function collectGarbage(rounds = 4) {
  check(typeof globalThis.gc === 'function', 'the case runs with --expose-gc');
  for (let i = 0; i < rounds; i++) {
    globalThis.gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Fills `buffer` with `byte`, copies it back and requires every byte to be `byte`: the buffer
 * still holds its memory. With `stream`, both are ordered on it and it is synchronized;
 * without, they use the default stream (copyTo then waits).
 */
export function checkRoundTrip(buffer, byte, what, stream) {
  const order = stream === undefined ? undefined : { stream };
  buffer.fill(byte, order);
  const back = new Uint8Array(buffer.size);
  buffer.copyTo(back, order);
  stream?.sync();
  check(
    back.every((value) => value === byte),
    what,
  );
}

/** Writes `value` through a stale view, then requires every live buffer's bytes to be `expected`. */
export function scribbleAndCheck(staleView, liveBuffers, expected, what) {
  if (staleView.length > 0) staleView.fill(0xee);
  for (const buffer of liveBuffers) {
    const bytes = new Uint8Array(buffer.size);
    buffer.copyTo(bytes);
    check(
      bytes.every((b) => b === expected),
      `${what}: a write through a stale view changed another allocation's bytes`,
    );
  }
}

/**
 * Allocates `count` buffers of `size` bytes from `mr`, filled with `byte`, then writes through
 * each stale view in `views` and requires those buffers unchanged ({@link scribbleAndCheck});
 * closes them after.
 */
export function checkStaleViews(views, mr, { count, size, byte, what }) {
  const others = [];
  for (let i = 0; i < count; i++) {
    const other = mr.allocate(size);
    other.fill(byte);
    others.push(other);
  }
  memory.defaultStream().sync();
  for (const view of views) scribbleAndCheck(view, others, byte, what);
  for (const other of others) other.close();
}

export { memory, memoryInternal };

/**
 * Runs this case file again as a second process (`process.argv[2] === 'child'`), with `fd` as
 * the child's fd 3 and `request` as JSON on its stdin; fails when the child crashes or fails.
 */
export async function runChild(caseFile, fd, request) {
  const { spawn } = await import('node:child_process');
  const child = spawn(process.execPath, ['--expose-gc', caseFile, 'child'], {
    env: process.env,
    stdio: ['pipe', 'inherit', 'pipe', fd ?? 'ignore'],
  });
  let errors = '';
  child.stderr.on('data', (chunk) => {
    errors += chunk;
  });
  child.stdin.end(`${JSON.stringify(request)}\n`);
  const [code, signal] = await new Promise((resolve) => child.on('close', (...args) => resolve(args)));
  if (signal) throw new Error(`the importing process crashed with ${signal}:\n${errors.slice(-2000)}`);
  if (code !== 0) throw new Error(`the importing process exited with ${code}:\n${errors.slice(-2000)}`);
}

/** The JSON request a {@link runChild} child was sent. */
export async function readRequest() {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return JSON.parse(text);
}
