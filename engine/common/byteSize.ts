/**
 * Byte sizes written as text. Two spellings are read, on purpose not one: LogQL follows
 * go-humanize's ParseBytes as Loki does (fractions, thousands commas, every SI and IEC unit up
 * to exabytes), because queries written for Loki must read the same; service and org settings
 * take only a whole number with B, KB, MB, GB, KiB, MiB or GiB, so a configuration value has
 * one obvious meaning and a typo such as `1.5GB` or `1T` is refused rather than guessed.
 */

const HUMAN_BYTE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  ki: 1024,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mi: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gi: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1e12,
  tb: 1e12,
  ti: 1024 ** 4,
  tib: 1024 ** 4,
  p: 1e15,
  pb: 1e15,
  pi: 1024 ** 5,
  pib: 1024 ** 5,
  e: 1e18,
  eb: 1e18,
  ei: 1024 ** 6,
  eib: 1024 ** 6,
};

const MAX_UINT64 = 18446744073709551615;

/** HumanByteSizeParts is a size cut as ParseBytes cuts it: the number (commas dropped) and the unit. */
export interface HumanByteSizeParts {
  numberText: string;
  unitText: string;
}

/**
 * splitHumanByteSize cuts `text` where its run of digits, points and commas ends. Callers that
 * explain a refused size (LogQL's conversion errors) name the part that was wrong from it.
 */
export function splitHumanByteSize(text: string): HumanByteSizeParts {
  let end = 0;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    if ((c >= 48 && c <= 57) || c === 46 || c === 44) end++;
    else break;
  }
  return { numberText: text.slice(0, end).replace(/,/g, ''), unitText: text.slice(end).trim().toLowerCase() };
}

/** isHumanByteNumber tells whether the number part of a size is a plain decimal. */
export function isHumanByteNumber(numberText: string): boolean {
  return /^(?:\d+\.?\d*|\.\d+)$/.test(numberText);
}

/**
 * parseHumanByteSize reads a human byte size the way go-humanize's ParseBytes does (used by
 * Loki for byte literals and for label values in byte filters): a decimal number, optional
 * spaces, and a case-insensitive SI or IEC unit. Returns undefined when `text` is not one.
 */
export function parseHumanByteSize(text: string): number | undefined {
  const { numberText, unitText } = splitHumanByteSize(text);
  if (!isHumanByteNumber(numberText)) return undefined;
  const unit = HUMAN_BYTE_UNITS[unitText];
  if (unit === undefined) return undefined;
  const bytes = Math.trunc(Number(numberText) * unit);
  if (!Number.isFinite(bytes) || bytes > MAX_UINT64) return undefined;
  return bytes;
}

const SETTING_BYTE_UNITS: Record<string, number> = { '': 1, b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/**
 * parseSettingByteSize reads a setting's byte size: `1048576`, `512KiB`, `16MiB` or `10MB`,
 * spaces allowed around and between, unit in any case. Undefined when `text` is not one; the
 * caller words the error for its flag or variable.
 */
export function parseSettingByteSize(text: string): number | undefined {
  const match = /^\s*(\d+)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (match === null) return undefined;
  const unit = SETTING_BYTE_UNITS[match[2].toLowerCase()];
  return unit === undefined ? undefined : Number(match[1]) * unit;
}
