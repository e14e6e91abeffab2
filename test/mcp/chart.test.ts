import { rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { chartFont, parseLabelSet, renderChartPng, renderChartSvg, truncateMiddle, valueFormatter, type ChartRequest, type ChartSeries } from '../../src/mcp/chart.js';
import { decodePng, PNG_SIGNATURE, type DecodedPng } from '../support/png.js';

const END = Date.UTC(2026, 0, 1, 12, 0, 0);
const START = END - 3_600_000;
/** FIRST_SERIES_COLOUR is the renderer's first palette colour, #1f77b4. */
const FIRST_SERIES_COLOUR: [number, number, number] = [0x1f, 0x77, 0xb4];

/** wave makes a series of n points over the hour, sine-shaped around `level`. */
function wave(name: string, n: number, level: number, transform: (i: number, v: number) => number = (_i, v) => v): ChartSeries {
  const timestampsMs = new Float64Array(n);
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    timestampsMs[i] = START + Math.round((i * 3_600_000) / (n - 1));
    values[i] = transform(i, level + (level / 4) * Math.sin(i / 40));
  }
  return { name, timestampsMs, values };
}

function tenSeries(points = 1000): ChartSeries[] {
  return Array.from({ length: 10 }, (_, s) => wave(`{service_name="svc-${s}", code="500"}`, points, 100 * (s + 1)));
}

function request(extra: Partial<ChartRequest> = {}): ChartRequest {
  return { title: 'HTTP request rate', series: tenSeries(), unit: 'req/s', startMs: START, endMs: END, ...extra };
}

interface PixelStats {
  distinctColours: number;
  nonWhiteShare: number;
}

function pixelStats(png: DecodedPng): PixelStats {
  const colours = new Set<number>();
  let nonWhite = 0;
  const pixels = png.width * png.height;
  for (let i = 0; i < pixels; i++) {
    const [r, g, b] = [png.rgba[4 * i], png.rgba[4 * i + 1], png.rgba[4 * i + 2]];
    colours.add((r << 16) | (g << 8) | b);
    if (r < 250 || g < 250 || b < 250) nonWhite++;
  }
  return { distinctColours: colours.size, nonWhiteShare: nonWhite / pixels };
}

/** countNear counts pixels within `tolerance` of a colour on every channel. */
function countNear(png: DecodedPng, [r, g, b]: [number, number, number], tolerance = 12): number {
  let n = 0;
  for (let i = 0; i < png.width * png.height; i++) {
    if (Math.abs(png.rgba[4 * i] - r) <= tolerance && Math.abs(png.rgba[4 * i + 1] - g) <= tolerance && Math.abs(png.rgba[4 * i + 2] - b) <= tolerance) n++;
  }
  return n;
}

/** inkInRows counts non-white pixels in a band of rows. */
function inkInRows(png: DecodedPng, fromY: number, toY: number): number {
  let n = 0;
  for (let y = fromY; y < toY; y++) {
    for (let x = 0; x < png.width; x++) {
      const o = 4 * (y * png.width + x);
      if (png.rgba[o] < 200 || png.rgba[o + 1] < 200 || png.rgba[o + 2] < 200) n++;
    }
  }
  return n;
}

/** svgTexts lists the text content of an SVG's text elements. */
function svgTexts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1].replaceAll('&quot;', '"').replaceAll('&amp;', '&'));
}

afterAll(() => {
  // The renderer removes its trimmed font copies when the process exits, but a test worker is
  // ended by a signal, which skips exit handlers.
  const dir = path.dirname(chartFont()?.renderFiles[0] ?? '');
  if (path.dirname(dir) === os.tmpdir() && path.basename(dir).startsWith('sluice-chart-fonts-')) rmSync(dir, { recursive: true, force: true });
});

describe('renderChartPng', () => {
  it('draws a PNG of the default size, 800x400, with lines in the series colours', () => {
    const bytes = renderChartPng(request());
    expect([...bytes.subarray(0, 8)]).toEqual([...PNG_SIGNATURE]);
    const png = decodePng(bytes);
    expect([png.width, png.height]).toEqual([800, 400]);
    const stats = pixelStats(png);
    expect(stats.distinctColours).toBeGreaterThan(30);
    expect(stats.nonWhiteShare).toBeGreaterThan(0.03);
    expect(stats.nonWhiteShare).toBeLessThan(0.6);
    expect(countNear(png, FIRST_SERIES_COLOUR)).toBeGreaterThan(200);
    // The background is white: the corners hold no drawing.
    expect([...png.rgba.subarray(0, 3)]).toEqual([255, 255, 255]);
  });

  it('draws other sizes exactly as asked', () => {
    for (const [width, height] of [
      [1200, 600],
      [200, 100],
      [2000, 1200],
    ]) {
      const png = decodePng(renderChartPng(request({ width, height })));
      expect([png.width, png.height]).toEqual([width, height]);
      expect(countNear(png, FIRST_SERIES_COLOUR)).toBeGreaterThan(0);
    }
  });

  it.skipIf(chartFont() === undefined)('draws text with the font it found', () => {
    const withTitle = decodePng(renderChartPng(request({ title: 'A title with plenty of letters in it' })));
    const without = decodePng(renderChartPng(request({ title: '' })));
    expect(inkInRows(withTitle, 0, 30)).toBeGreaterThan(inkInRows(without, 0, 30) + 200);
  });

  it.skipIf(chartFont() === undefined)('hands resvg a trimmed copy of the font, not the system file', () => {
    const font = chartFont()!;
    expect(font.renderFiles).toHaveLength(font.files.length);
    // resvg re-reads the file for every text element: the copy keeps what charts draw, so it is
    // smaller than the system file and small in absolute terms whichever font was found
    // (DejaVu Sans: 760 KB to about 300; Liberation Sans, already small: 140 KB to about 114).
    font.renderFiles.forEach((copy, i) => {
      expect(copy).not.toBe(font.files[i]);
      expect(statSync(copy).size).toBeLessThan(statSync(font.files[i]).size);
      expect(statSync(copy).size).toBeLessThan(400 * 1024);
    });
  });

  it('draws "no data" for an empty series list', () => {
    const req: ChartRequest = { title: 'Nothing here', series: [], startMs: START, endMs: END };
    const png = decodePng(renderChartPng(req));
    expect([png.width, png.height]).toEqual([800, 400]);
    const texts = svgTexts(renderChartSvg(req));
    expect(texts).toContain('No data');
    expect(texts).toContain('Nothing here');
    expect(texts).toContain('2026-01-01 11:00:00 – 12:00:00 UTC');
  });

  it('draws "no data" when no value is finite', () => {
    const allNaN = wave('{job="api"}', 50, 1, () => NaN);
    expect(svgTexts(renderChartSvg({ title: 'NaN only', series: [allNaN] }))).toContain('No data');
  });

  it('leaves gaps at NaN and infinite values without failing', () => {
    const gappy = wave('{job="api"}', 600, 100, (i, v) => (i >= 200 && i < 260 ? NaN : i >= 400 && i < 420 ? (i % 2 ? Infinity : -Infinity) : v));
    const svg = renderChartSvg({ title: 'Gaps', series: [gappy] });
    const line = /<path d="([^"]*)"[^>]*stroke="#1f77b4"/.exec(svg);
    expect(line).not.toBeNull();
    // Three runs of finite values: the line is three separate sub-paths.
    expect(line![1].match(/M/g)).toHaveLength(3);
    const png = decodePng(renderChartPng({ title: 'Gaps', series: [gappy] }));
    expect(countNear(png, FIRST_SERIES_COLOUR)).toBeGreaterThan(100);
  });

  it('marks a point between two gaps, which a line alone would not show', () => {
    const svg = renderChartSvg({ title: 'Lonely', series: [{ name: 'x', timestampsMs: [0, 60_000, 120_000], values: [NaN, 5, NaN] }] });
    expect(svg).toMatch(/<path [^>]*fill="#1f77b4"[^>]*ecmeta_series_index="0" ecmeta_data_index="1"/);
  });
});

describe('renderChartSvg', () => {
  it('labels a time axis in UTC whatever the local time zone', () => {
    const saved = process.env.TZ;
    process.env.TZ = 'Asia/Kolkata';
    try {
      const texts = svgTexts(renderChartSvg(request()));
      expect(texts).toContain('11:30');
      expect(texts).toContain('HTTP request rate');
    } finally {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    }
  });

  it('names the y-axis "label (unit)" and formats its numbers in the unit', () => {
    const bytes = svgTexts(renderChartSvg(request({ unit: 'bytes', yAxisLabel: 'Memory', series: [wave('{pod="a"}', 100, 3 * 2 ** 20)] })));
    expect(bytes).toContain('Memory (bytes)');
    expect(bytes.some((t) => /^\d+(\.\d+)? MiB$/.test(t))).toBe(true);
    expect(bytes.some((t) => /KiB$/.test(t) && !/^(0|256|512|768) KiB$/.test(t))).toBe(false);
    const seconds = svgTexts(renderChartSvg(request({ unit: 's', series: [wave('{pod="a"}', 100, 0.2)] })));
    expect(seconds).toContain('s');
    expect(seconds.some((t) => /^\d+ ms$/.test(t))).toBe(true);
    const rates = svgTexts(renderChartSvg(request({ series: [wave('{pod="a"}', 100, 40_000)] })));
    expect(rates).toContain('req/s');
    expect(rates.some((t) => /^\d+(\.\d+)?k$/.test(t))).toBe(true);
  });

  it('moves labels every series shares to the subtitle and keeps the legend to what differs', () => {
    const texts = svgTexts(renderChartSvg(request()));
    expect(texts.some((t) => t.startsWith('{code="500"}'))).toBe(true);
    expect(texts).toContain('service_name="svc-3"');
  });

  it('shortens long legend names and pages a legend with many series', () => {
    const long = 'x'.repeat(300);
    const many = Array.from({ length: 60 }, (_, s) => wave(`${long}-${s}`, 100, s + 1));
    const texts = svgTexts(renderChartSvg(request({ series: many })));
    expect(texts.every((t) => t.length < 80)).toBe(true);
    expect(texts.some((t) => /^1\/\d+$/.test(t))).toBe(true);
  });

  it('draws at most what was asked: no animation, disposed after each render', () => {
    const svg = renderChartSvg(request({ width: 640, height: 320 }));
    expect(svg).toMatch(/^<svg width="640" height="320"/);
    expect(svg).not.toContain('<animate');
    // A second render of the same request gives the same picture (up to ECharts' instance
    // numbers in element ids): nothing carried over from the first.
    const withoutIds = (text: string) => text.replace(/zr\d+-/g, 'zr-').replace(/cls-\d+/g, 'cls');
    expect(withoutIds(renderChartSvg(request({ width: 640, height: 320 })))).toBe(withoutIds(svg));
  });

  it('rejects sizes out of bounds and malformed series with a plain Error', () => {
    for (const size of [{ width: 199 }, { width: 2001 }, { width: 800.5 }, { width: Number.NaN }, { height: 99 }, { height: 1201 }]) {
      expect(() => renderChartSvg(request(size))).toThrow(/chart (width|height) must be a whole number of pixels from \d+ to \d+/);
    }
    expect(() => renderChartPng(request({ height: 5000 }))).toThrow(Error);
    expect(() => renderChartSvg(request({ series: [{ name: 'bad', timestampsMs: [1, 2, 3], values: [1, 2] }] }))).toThrow(/3 timestamps but 2 values/);
    expect(() => renderChartSvg(request({ startMs: END, endMs: START }))).toThrow(/startMs .* must be before endMs/);
  });
});

describe('formatting helpers', () => {
  it('formats values by unit', () => {
    const cases: [string | undefined, number, string][] = [
      ['bytes', 0, '0'],
      ['bytes', 512, '512 B'],
      ['bytes', 1536, '1.5 KiB'],
      ['bytes', 2 ** 20, '1 MiB'],
      ['By', 3 * 2 ** 30, '3 GiB'],
      ['bytes/s', 2 ** 21, '2 MiB/s'],
      ['s', 0.25, '250 ms'],
      ['s', 1.5, '1.5 s'],
      ['s', 90, '1.5 min'],
      ['s', 0.000002, '2 µs'],
      ['ms', 1500, '1.5 s'],
      ['ms', 0.5, '500 µs'],
      ['%', 12.5, '12.5%'],
      ['req/s', 1500, '1.5k'],
      [undefined, 2_500_000, '2.5M'],
      [undefined, -4200, '-4.2k'],
      [undefined, 999_999, '1M'],
      [undefined, 0.125, '0.125'],
    ];
    for (const [unit, value, text] of cases) expect(`${unit} ${valueFormatter(unit)(value)}`).toBe(`${unit} ${text}`);
  });

  it('truncates in the middle, keeping both ends', () => {
    expect(truncateMiddle('short', 10)).toBe('short');
    expect(truncateMiddle('abcdefghijklmnop', 7)).toBe('abc…nop');
    expect(Array.from(truncateMiddle('x'.repeat(100), 20))).toHaveLength(20);
  });

  it('reads label sets', () => {
    expect(parseLabelSet('up{job="api", zone="a"}')).toEqual([
      ['__name__', 'up'],
      ['job', 'api'],
      ['zone', 'a'],
    ]);
    expect(parseLabelSet('{msg="say \\"hi\\", bye"}')).toEqual([['msg', 'say \\"hi\\", bye']]);
    expect(parseLabelSet('{}')).toEqual([]);
    expect(parseLabelSet('sum(rate(x[5m]))')).toBeUndefined();
    expect(parseLabelSet('{job=api}')).toBeUndefined();
  });
});

