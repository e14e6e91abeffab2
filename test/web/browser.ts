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
