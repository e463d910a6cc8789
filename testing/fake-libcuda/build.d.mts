/** The symbol sets the fake is built with (see build.mjs). */
export type FakeLibcudaVariant = 'default' | 'without-legacy' | 'without-legacy-timing' | 'without-advise';
export declare const variants: Record<FakeLibcudaVariant, readonly string[]>;
/** Where cuda.h is looked for: CUDA_PATH, CUDA_HOME, then /usr/local/cuda. */
export declare function cudaInclude(env?: NodeJS.ProcessEnv): string | undefined;
/** Why the fake cannot be built here (no cuda.h, no cc), or undefined. */
export declare function fakeUnavailable(): string | undefined;
/** Compiles the fake unless it is up to date; returns the path of its libcuda.so.1. */
export declare function buildFakeLibcuda(options?: {
  variant?: FakeLibcudaVariant;
  directory?: string;
}): string;
/** The exported function symbols of a shared library (`nm -D`), or undefined without nm. */
export declare function exportedSymbols(library: string): Set<string> | undefined;
