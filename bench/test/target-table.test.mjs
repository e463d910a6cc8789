import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROWS } from '../rows.mjs';
import { renderTargetTable, tableInReadme } from '../target-table.mjs';

describe("bench/README.md's target table", () => {
  it('is the one generated from rows.mjs (node bench/report.mjs --regenerate)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(tableInReadme(readme)).toBe(renderTargetTable());
  });
  it('has one line per row, in the order of rows.mjs', () => {
    const ids = renderTargetTable()
      .split('\n')
      .slice(2)
      .map((line) => /^\| `([^`]+)`/.exec(line)?.[1]);
    expect(ids).toEqual(ROWS.map((row) => row.id));
  });
});
