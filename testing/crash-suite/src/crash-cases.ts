// The crash cases (cases/*.mjs) and what each needs, read from its header comments:
//   // needs: interprocess, hostMemoryPools   capabilities, or 'fake', 'processes', 'bigArrayBuffer'
//   // expects-signal: SIGSEGV               the case passes only by dying of that signal
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One case program. */
export interface CrashCase {
  readonly name: string;
  readonly file: string;
  readonly needs: readonly string[];
  readonly expectedSignal: NodeJS.Signals | undefined;
}

/** The folder of the case programs. */
export const casesDirectory = fileURLToPath(new URL('../cases/', import.meta.url));

function headerValue(text: string, key: string): string | undefined {
  return new RegExp(`^// ${key}: (.+)$`, 'm').exec(text)?.[1]?.trim();
}

/** Every `NN-*.mjs` / `NNN-*.mjs` case, in name order. */
export function crashCases(): CrashCase[] {
  return readdirSync(casesDirectory)
    .filter((name) => /^\d{2,3}-.*\.mjs$/.test(name))
    .sort()
    .map((name) => {
      const file = join(casesDirectory, name);
      const text = readFileSync(file, 'utf8');
      const needs = (headerValue(text, 'needs') ?? '')
        .split(',')
        .map((need) => need.trim())
        .filter(Boolean);
      return {
        name: name.replace(/\.mjs$/, ''),
        file,
        needs,
        expectedSignal: headerValue(text, 'expects-signal') as NodeJS.Signals | undefined,
      };
    });
}
