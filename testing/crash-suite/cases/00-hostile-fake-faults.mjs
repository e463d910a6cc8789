// The harness itself: on the hostile fake libcuda a write through a view of freed memory must
// kill the process with SIGSEGV, proving that the suite sees crashes and the fake is hostile.
// needs: fake
// expects-signal: SIGSEGV
import { setUp } from './support.mjs';

const { driver } = await setUp();
driver.contextSetCurrent(driver.primaryContextRetain(0));
const pointer = driver.memHostAlloc(4096, 0);
const view = driver.hostView(pointer, 4096);
driver.memFreeHost(pointer);
view.fill(1);
console.error('the write through freed memory did not fault');
