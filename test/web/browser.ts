import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * The browser tests drive Debian's Chromium (installed by .ci/run) through playwright-core,
 * which downloads no browser of its own. Without it they are skipped locally and fail under CI.
 */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumMissing = !existsSync(CHROMIUM);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-background-networking'] });
}

/**
 * INK_OF_CANVAS is browser-side source: a function counting the pixels of a canvas that are not
 * transparent, so a test can tell a drawn chart from an empty one.
 */
const INK_OF_CANVAS = `(c) => {
  const ctx = c.getContext('2d');
  if (!ctx || c.width === 0 || c.height === 0) return 0;
  const data = ctx.getImageData(0, 0, c.width, c.height).data;
  let ink = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) ink++;
  return ink;
}`;

/** inkOfCanvases is the expression that measures every canvas matching `selector`. */
export function inkOfCanvases(selector: string): string {
  return `[...document.querySelectorAll(${JSON.stringify(selector)})].map(${INK_OF_CANVAS})`;
}

/** panelsSettled is true once the page has panels and none is still streaming. */
export const PANELS_SETTLED = "document.querySelectorAll('.panel').length > 0 && document.querySelectorAll('.panel[data-state=running]').length === 0";

/** DrawnChart is what the time chart inside one element draws: uPlot's data, time first. */
export interface DrawnChart {
  data: Array<Array<number | null>>;
}

/** chartData is the expression reading the data the time chart inside `selector` draws (its ChartHost's uPlot). */
export function chartData(selector: string): string {
  return `(() => {
    const u = document.querySelector(${JSON.stringify(selector)} + ' .chart')?.uplot;
    return u ? { data: u.data.map((col) => [...col]) } : null;
  })()`;
}

/**
 * chartPixels is the expression reading the canvas of the time chart inside `selector` at the
 * places of the given [time in seconds, value] pairs: for each, the RGBA of the most opaque
 * pixel within a pixel left or right (bars of a dense series are two pixels wide), `dy` canvas
 * pixels below the value's place (negative: above).
 */
export function chartPixels(selector: string, at: Array<[number, number]>, dy = 0): string {
  return `(() => {
    const u = document.querySelector(${JSON.stringify(selector)} + ' .chart').uplot;
    return ${JSON.stringify(at)}.map(([x, y]) => {
      const cx = Math.round(u.valToPos(x, 'x', true));
      const cy = Math.round(u.valToPos(y, 'y', true)) + ${dy};
      let best = [0, 0, 0, 0];
      for (let dx = -1; dx <= 1; dx++) {
        const px = [...u.ctx.getImageData(cx + dx, cy, 1, 1).data];
        if (px[3] > best[3]) best = px;
      }
      return best;
    });
  })()`;
}

/** isRed and isBlue tell a pixel of the pure red or blue fill the probe charts use from anything else. */
export const isRed = ([r, g, b, a]: number[]): boolean => a > 100 && r > 150 && g < 100 && b < 100;
export const isBlue = ([r, g, b, a]: number[]): boolean => a > 100 && b > 150 && r < 100 && g < 100;
