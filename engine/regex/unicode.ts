/**
 * Unicode classes for `\p{…}` and `\P{…}`: the general categories and scripts Go's regexp
 * accepts (unicode.Categories, unicode.Scripts, unicode.CategoryAliases, plus `Any`).
 *
 * The ranges come from the JavaScript engine's own Unicode data (`/\p{gc=Lu}/u`), extracted once
 * per name and cached, rather than from a shipped table. The Unicode version is therefore the
 * runtime's (ICU), which may be newer than the Go release a peer system was built with; the
 * difference is limited to recently assigned characters.
 */
import { normalizeRanges, type RangeList } from './charclass.js';

/** GENERAL_CATEGORIES lists Go's unicode.Categories keys. */
const GENERAL_CATEGORIES: readonly string[] = [
  'C', 'Cc', 'Cf', 'Co', 'Cs', 'L', 'LC', 'Ll', 'Lm', 'Lo', 'Lt', 'Lu', 'M', 'Mc', 'Me', 'Mn',
  'N', 'Nd', 'Nl', 'No', 'P', 'Pc', 'Pd', 'Pe', 'Pf', 'Pi', 'Po', 'Ps', 'S', 'Sc', 'Sk', 'Sm',
  'So', 'Z', 'Zl', 'Zp', 'Zs',
];

/** CATEGORY_ALIASES maps the long Unicode category names Go accepts to the short ones. */
const CATEGORY_ALIASES: Readonly<Record<string, string>> = {
  Cased_Letter: 'LC', Close_Punctuation: 'Pe', Combining_Mark: 'M', Connector_Punctuation: 'Pc',
  Control: 'Cc', Currency_Symbol: 'Sc', Dash_Punctuation: 'Pd', Decimal_Number: 'Nd',
  Enclosing_Mark: 'Me', Final_Punctuation: 'Pf', Format: 'Cf', Initial_Punctuation: 'Pi',
  Letter: 'L', Letter_Number: 'Nl', Line_Separator: 'Zl', Lowercase_Letter: 'Ll', Mark: 'M',
  Math_Symbol: 'Sm', Modifier_Letter: 'Lm', Modifier_Symbol: 'Sk', Nonspacing_Mark: 'Mn',
  Number: 'N', Open_Punctuation: 'Ps', Other: 'C', Other_Letter: 'Lo', Other_Number: 'No',
  Other_Punctuation: 'Po', Other_Symbol: 'So', Paragraph_Separator: 'Zp', Private_Use: 'Co',
  Punctuation: 'P', Separator: 'Z', Space_Separator: 'Zs', Spacing_Mark: 'Mc', Surrogate: 'Cs',
  Symbol: 'S', Titlecase_Letter: 'Lt', Uppercase_Letter: 'Lu', cntrl: 'Cc', digit: 'Nd',
  punct: 'P',
};

/** SCRIPTS lists the Unicode script names Go's unicode.Scripts accepts. */
const SCRIPTS: readonly string[] = [
  'Adlam', 'Ahom', 'Anatolian_Hieroglyphs', 'Arabic', 'Armenian', 'Avestan', 'Balinese', 'Bamum',
  'Bassa_Vah', 'Batak', 'Bengali', 'Bhaiksuki', 'Bopomofo', 'Brahmi', 'Braille', 'Buginese',
  'Buhid', 'Canadian_Aboriginal', 'Carian', 'Caucasian_Albanian', 'Chakma', 'Cham', 'Cherokee',
  'Chorasmian', 'Common', 'Coptic', 'Cuneiform', 'Cypriot', 'Cypro_Minoan', 'Cyrillic',
  'Deseret', 'Devanagari', 'Dives_Akuru', 'Dogra', 'Duployan', 'Egyptian_Hieroglyphs', 'Elbasan',
  'Elymaic', 'Ethiopic', 'Georgian', 'Glagolitic', 'Gothic', 'Grantha', 'Greek', 'Gujarati',
  'Gunjala_Gondi', 'Gurmukhi', 'Han', 'Hangul', 'Hanifi_Rohingya', 'Hanunoo', 'Hatran', 'Hebrew',
  'Hiragana', 'Imperial_Aramaic', 'Inherited', 'Inscriptional_Pahlavi', 'Inscriptional_Parthian',
  'Javanese', 'Kaithi', 'Kannada', 'Katakana', 'Kawi', 'Kayah_Li', 'Kharoshthi',
  'Khitan_Small_Script', 'Khmer', 'Khojki', 'Khudawadi', 'Lao', 'Latin', 'Lepcha', 'Limbu',
  'Linear_A', 'Linear_B', 'Lisu', 'Lycian', 'Lydian', 'Mahajani', 'Makasar', 'Malayalam',
  'Mandaic', 'Manichaean', 'Marchen', 'Masaram_Gondi', 'Medefaidrin', 'Meetei_Mayek',
  'Mende_Kikakui', 'Meroitic_Cursive', 'Meroitic_Hieroglyphs', 'Miao', 'Modi', 'Mongolian', 'Mro',
  'Multani', 'Myanmar', 'Nabataean', 'Nag_Mundari', 'Nandinagari', 'New_Tai_Lue', 'Newa', 'Nko',
  'Nushu', 'Nyiakeng_Puachue_Hmong', 'Ogham', 'Ol_Chiki', 'Old_Hungarian', 'Old_Italic',
  'Old_North_Arabian', 'Old_Permic', 'Old_Persian', 'Old_Sogdian', 'Old_South_Arabian',
  'Old_Turkic', 'Old_Uyghur', 'Oriya', 'Osage', 'Osmanya', 'Pahawh_Hmong', 'Palmyrene',
  'Pau_Cin_Hau', 'Phags_Pa', 'Phoenician', 'Psalter_Pahlavi', 'Rejang', 'Runic', 'Samaritan',
  'Saurashtra', 'Sharada', 'Shavian', 'Siddham', 'SignWriting', 'Sinhala', 'Sogdian',
  'Sora_Sompeng', 'Soyombo', 'Sundanese', 'Syloti_Nagri', 'Syriac', 'Tagalog', 'Tagbanwa',
  'Tai_Le', 'Tai_Tham', 'Tai_Viet', 'Takri', 'Tamil', 'Tangsa', 'Tangut', 'Telugu', 'Thaana',
  'Thai', 'Tibetan', 'Tifinagh', 'Tirhuta', 'Toto', 'Ugaritic', 'Vai', 'Vithkuqi', 'Wancho',
  'Warang_Citi', 'Yezidi', 'Yi', 'Zanabazar_Square',
];

/** UnicodeClassSource says how to build one named class. */
type UnicodeClassSource =
  | { kind: 'any' }
  | { kind: 'category'; name: string }
  | { kind: 'script'; name: string };

/**
 * canonicalName folds a class name the way Go's lookup does (case, `_`, `-` and spaces are
 * ignored), so `\p{greek}` and `\p{Old Italic}` resolve too.
 */
function canonicalName(name: string): string {
  return name.replace(/[_\- ]/g, '').toLowerCase();
}

let lookupTable: Map<string, UnicodeClassSource> | undefined;

/** buildLookup indexes every accepted name by its canonical form. */
function buildLookup(): Map<string, UnicodeClassSource> {
  const table = new Map<string, UnicodeClassSource>();
  for (const script of SCRIPTS) table.set(canonicalName(script), { kind: 'script', name: script });
  for (const [alias, cat] of Object.entries(CATEGORY_ALIASES)) {
    table.set(canonicalName(alias), { kind: 'category', name: cat });
  }
  // Categories win over scripts and aliases on a name clash, as in Go's lookup order.
  for (const cat of GENERAL_CATEGORIES) table.set(canonicalName(cat), { kind: 'category', name: cat });
  table.set('any', { kind: 'any' });
  return table;
}

const cache = new Map<string, RangeList>();

/** Index in the all-code-points string at which the supplementary planes begin. */
const SUPPLEMENTARY_BASE = 0xd800 + (0x10000 - 0xe000);

/** codePointAtIndex inverts the layout of allCodePoints(). */
function codePointAtIndex(index: number): number {
  if (index < 0xd800) return index;
  if (index < SUPPLEMENTARY_BASE) return index + 0x800;
  return 0x10000 + ((index - SUPPLEMENTARY_BASE) >> 1);
}

/**
 * allCodePointsRef keeps the 4 MB string of allCodePoints() only while memory allows, so a
 * pattern naming several classes pays for building it once.
 */
let allCodePointsRef: WeakRef<{ text: string }> | undefined;

/**
 * allCodePoints builds every scalar value in order (surrogates excluded) as one string, so a
 * single `/\p{…}+/gu` scan yields a property's ranges as runs.
 */
function allCodePoints(): string {
  const held = allCodePointsRef?.deref();
  if (held !== undefined) return held.text;
  const parts: string[] = [];
  const chunk = 0x1000;
  const buf: number[] = [];
  const flush = (): void => {
    parts.push(String.fromCodePoint(...buf));
    buf.length = 0;
  };
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp === 0xd800) cp = 0xe000;
    buf.push(cp);
    if (buf.length === chunk) flush();
  }
  if (buf.length > 0) flush();
  const text = parts.join('');
  allCodePointsRef = new WeakRef({ text });
  return text;
}

/** rangesOfProperty extracts the ranges of a `\p{…}` property escape from the runtime. */
function rangesOfProperty(property: string): RangeList {
  const text = allCodePoints();
  const re = new RegExp(`\\p{${property}}+`, 'gu');
  const out: number[] = [];
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const lo = codePointAtIndex(m.index);
    const hi = codePointAtIndex(m.index + m[0].length) - 1;
    // The string skips the surrogates, so a run may appear to cross them.
    if (lo < 0xd800 && hi >= 0xd800) {
      out.push(lo, 0xd7ff);
      if (hi > 0xdfff) out.push(0xe000, hi);
    } else {
      out.push(lo, hi);
    }
  }
  return normalizeRanges(out);
}

/** categoryRanges builds a general category with Go's membership where it differs from JS. */
function categoryRanges(cat: string): RangeList {
  if (cat === 'Cs') return [0xd800, 0xdfff];
  // Go's C is Cc|Cf|Co|Cs; the JavaScript C also includes unassigned code points.
  if (cat === 'C') {
    return normalizeRanges([...rangesOfProperty('gc=Cc'), ...rangesOfProperty('gc=Cf'),
      ...rangesOfProperty('gc=Co'), 0xd800, 0xdfff]);
  }
  return rangesOfProperty(`gc=${cat}`);
}

/**
 * unicodeClassRanges returns the normalized ranges of a named Unicode class, or undefined when
 * Go would reject the name. Results are cached; callers must not mutate them.
 */
export function unicodeClassRanges(name: string): readonly number[] | undefined {
  if (lookupTable === undefined) lookupTable = buildLookup();
  const source = lookupTable.get(canonicalName(name));
  if (source === undefined) return undefined;
  const key = source.kind === 'any' ? 'any' : `${source.kind}:${source.name}`;
  let ranges = cache.get(key);
  if (ranges === undefined) {
    if (source.kind === 'any') ranges = [0, 0x10ffff];
    else if (source.kind === 'category') ranges = categoryRanges(source.name);
    else ranges = rangesOfProperty(`sc=${source.name}`);
    cache.set(key, ranges);
  }
  return ranges;
}
