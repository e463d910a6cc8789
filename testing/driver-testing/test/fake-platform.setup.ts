// `CUMEM_FAKE_PLATFORM=darwin|win32 vitest run`: @cumem/testing's own suite as it runs on a
// developer's macOS or Windows machine, where npm installs it (no `os` field) but no CUDA adapter
// runs. process.platform is what Node and cumem's platform checks read; overriding it per test
// worker is the closest this Linux CI gets to those systems.
const fake = process.env.CUMEM_FAKE_PLATFORM;
if (fake) Object.defineProperty(process, 'platform', { value: fake, configurable: true });
