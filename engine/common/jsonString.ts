/**
 * Decoding of backslash escapes inside a quoted string, as Go's encoding/json unquotes them:
 * `\" \\ \/ \b \f \n \r \t \uXXXX`, a surrogate pair written as two `\u` escapes joined into
 * one character, and a lone surrogate decoded to U+FFFD. The LogQL `json` parser reads JSON
 * strings with it; the `logfmt` parser reads quoted values with the logfmt dialect, which Go's
 * logfmt decoder also lets write `\'` and which refuses raw control characters (a JSON
 * document's scanner has already refused those before any decoding).
 */

function hexQuad(s: string, i: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = s.charCodeAt(i + k);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 102) d = c - 87;
    else if (c >= 65 && c <= 70) d = c - 55;
    else return -1;
    v = v * 16 + d;
  }
  return v;
}

/**
 * unescapeQuoted decodes s[start, end), the text between the quotes. `logfmt` selects the
 * logfmt dialect (accepts `\'`, rejects characters below U+0020). Undefined for an invalid
 * escape. Unescaped runs are copied as slices, not character by character.
 */
function unescapeQuoted(s: string, start: number, end: number, logfmt: boolean): string | undefined {
  let out = '';
  let chunk = start;
  let i = start;
  while (i < end) {
    const c = s.charCodeAt(i);
    if (c !== 92) {
      if (c < 0x20 && logfmt) return undefined;
      i++;
      continue;
    }
    out += s.slice(chunk, i);
    const e = s[i + 1];
    i += 2;
    switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case "'":
        if (!logfmt) return undefined;
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        const hi = hexQuad(s, i);
        if (hi < 0) return undefined;
        i += 4;
        if (hi >= 0xd800 && hi < 0xdc00) {
          if (s.charCodeAt(i) === 92 && s[i + 1] === 'u') {
            const lo = hexQuad(s, i + 2);
            if (lo >= 0xdc00 && lo < 0xe000) {
              out += String.fromCharCode(hi, lo);
              i += 6;
              break;
            }
          }
          out += '\ufffd';
        } else if (hi >= 0xdc00 && hi < 0xe000) {
          out += '\ufffd';
        } else {
          out += String.fromCharCode(hi);
        }
        break;
      }
      default:
        return undefined;
    }
    chunk = i;
  }
  return out + s.slice(chunk, end);
}

/** unescapeJsonString decodes the contents s[start, end) of a JSON string; undefined if an escape is invalid. */
export function unescapeJsonString(s: string, start: number, end: number): string | undefined {
  return unescapeQuoted(s, start, end, false);
}

/** unescapeLogfmtValue decodes the body of a quoted logfmt value; undefined if it is invalid. */
export function unescapeLogfmtValue(body: string): string | undefined {
  return unescapeQuoted(body, 0, body.length, true);
}
