// SVG plots of the growth curves (issue 47), written by bench/report.mjs from a results file.
// Written by hand rather than with a plotting package: a few line charts need about a hundred
// lines, the output is plain text that diffs well in git, and the bench gains no dependency.
//
// One SVG per curve row: one panel per series (e.g. latency and heap bytes), the x axis in
// powers of ten (n), the y axis logarithmic when the values span more than 20x, one line per
// implementation that measured the row.

const WIDTH = 640;
const PANEL_HEIGHT = 220;
const MARGIN = { left: 70, right: 110, top: 34, bottom: 40 };
const COLORS = { ffi: '#1f77b4', napi: '#d62728', cudaCore: '#2ca02c', c: '#7f7f7f' };

const escapeXml = (text) =>
  String(text)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;');

function formatTick(value) {
  if (value >= 1e6) return `${value / 1e6}M`;
  if (value >= 1e3) return `${value / 1e3}k`;
  if (value >= 100) return value.toFixed(0);
  if (value >= 1) return Number(value.toPrecision(3)).toString();
  return Number(value.toPrecision(2)).toString();
}

/** A scale from [low, high] to [from, to] pixels, logarithmic or linear. */
function scale(low, high, from, to, logarithmic) {
  const f = logarithmic ? Math.log10 : (value) => value;
  const [a, b] = [f(low), f(high)];
  return (value) => (b === a ? (from + to) / 2 : from + ((f(value) - a) / (b - a)) * (to - from));
}

function ticks(low, high, logarithmic) {
  if (logarithmic) {
    const out = [];
    for (let p = Math.floor(Math.log10(low)); p <= Math.ceil(Math.log10(high)); p++) out.push(10 ** p);
    return out.filter((value) => value >= low / 1.0001 && value <= high * 1.0001);
  }
  const step = 10 ** Math.floor(Math.log10((high - low) / 4 || 1));
  const out = [];
  for (let value = Math.ceil(low / step) * step; value <= high; value += step) out.push(value);
  return out.length > 8 ? out.filter((_, i) => i % 2 === 0) : out;
}

/**
 * The SVG text for `curves`: `{ title, series: [name], lines: [{ label, points: [{ n, <series>: y }] }] }`.
 */
export function renderCurveSvg({ title, series, lines }) {
  const height = MARGIN.top + series.length * (PANEL_HEIGHT + MARGIN.bottom) + 10;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${WIDTH / 2}" y="18" text-anchor="middle" font-size="13">${escapeXml(title)}</text>`,
  ];
  const allN = lines.flatMap((line) => line.points.map((point) => point.n)).filter((n) => n > 0);
  if (allN.length === 0) {
    parts.push(`<text x="${WIDTH / 2}" y="60" text-anchor="middle">no points measured</text>`, '</svg>');
    return parts.join('\n');
  }
  const [nLow, nHigh] = [Math.min(...allN), Math.max(...allN)];
  series.forEach((name, index) => {
    const top = MARGIN.top + index * (PANEL_HEIGHT + MARGIN.bottom);
    const bottom = top + PANEL_HEIGHT;
    const [left, right] = [MARGIN.left, WIDTH - MARGIN.right];
    const values = lines
      .flatMap((line) => line.points.map((point) => point[name]))
      .filter((v) => Number.isFinite(v) && v > 0);
    if (values.length === 0) return;
    const [low, high] = [Math.min(...values), Math.max(...values)];
    const logY = high / low > 20;
    const yLow = logY ? low : Math.min(0, low);
    const x = scale(nLow, nHigh, left, right, true);
    const y = scale(yLow, high, bottom, top, logY);
    parts.push(
      `<rect x="${left}" y="${top}" width="${right - left}" height="${PANEL_HEIGHT}" fill="none" stroke="#ccc"/>`,
    );
    for (const tick of ticks(nLow, nHigh, true)) {
      const at = x(tick).toFixed(1);
      parts.push(
        `<line x1="${at}" y1="${top}" x2="${at}" y2="${bottom}" stroke="#eee"/>`,
        `<text x="${at}" y="${bottom + 14}" text-anchor="middle">${formatTick(tick)}</text>`,
      );
    }
    for (const tick of ticks(yLow, high, logY)) {
      const at = y(tick).toFixed(1);
      parts.push(
        `<line x1="${left}" y1="${at}" x2="${right}" y2="${at}" stroke="#eee"/>`,
        `<text x="${left - 6}" y="${at}" text-anchor="end" dominant-baseline="middle">${formatTick(tick)}</text>`,
      );
    }
    parts.push(
      `<text x="${(left + right) / 2}" y="${bottom + 30}" text-anchor="middle">n</text>`,
      `<text x="14" y="${(top + bottom) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(top + bottom) / 2})">${escapeXml(name)}${logY ? ' (log)' : ''}</text>`,
    );
    lines.forEach((line, k) => {
      const color = COLORS[line.label] ?? '#000';
      const points = line.points.filter(
        (point) => Number.isFinite(point[name]) && point[name] > 0 && point.n > 0,
      );
      if (points.length === 0) return;
      const path = points.map((point) => `${x(point.n).toFixed(1)},${y(point[name]).toFixed(1)}`).join(' ');
      parts.push(`<polyline points="${path}" fill="none" stroke="${color}" stroke-width="2"/>`);
      for (const point of points)
        parts.push(
          `<circle cx="${x(point.n).toFixed(1)}" cy="${y(point[name]).toFixed(1)}" r="3" fill="${color}"/>`,
        );
      parts.push(
        `<rect x="${right + 12}" y="${top + 8 + k * 16}" width="10" height="10" fill="${color}"/>`,
        `<text x="${right + 26}" y="${top + 17 + k * 16}">${escapeXml(line.label)}</text>`,
      );
    });
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

/** Curve rows of a results file as `{ id, svg }`: those whose variants hold points. */
export function curvePlots(results) {
  const plots = [];
  for (const row of results.rows ?? []) {
    const lines = Object.entries(row.variants ?? {})
      .filter(([, variants]) => Array.isArray(variants?.points))
      .map(([impl, variants]) => ({ label: impl, points: variants.points, series: variants.series }));
    if (lines.length === 0) continue;
    const series = lines[0].series ?? Object.keys(lines[0].points[0] ?? {}).filter((key) => key !== 'n');
    const title = `${row.id}: ${results.device}, ${String(results.commit).slice(0, 7)}, ${String(results.date).slice(0, 10)}`;
    plots.push({ id: row.id, svg: renderCurveSvg({ title, series, lines }) });
  }
  return plots;
}
