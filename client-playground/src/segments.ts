// Tokens -> coloured segments. The API gives each token's span in code points of the text
// (Python's str offsets); the page works in UTF-16 (JavaScript's). A segment is a run of
// tokens that must be coloured as one because they share a character (an emoji split into
// byte pieces) or because one ends inside a grapheme (a ZWJ family, a letter and its
// combining mark): tiktokenizer's getTiktokenSegments, done with the offsets and
// Intl.Segmenter instead of re-decoding bytes.

import type { EncodedToken } from './backend';

export interface Segment {
  start: number; // UTF-16 offsets into the text
  end: number;
  first: number; // tokens[first .. last] (inclusive)
  last: number;
}

/** UTF-16 index of every code point offset 0..n (n = the text's length in code points). */
export function codePointIndex(text: string): Int32Array {
  const out = new Int32Array(text.length + 1);
  let cp = 0;
  for (let i = 0; i < text.length; i++) {
    out[cp++] = i;
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++; // a pair is one code point; a lone surrogate is one too
    }
  }
  out[cp] = text.length;
  return out.subarray(0, cp + 1);
}

export function codePointLength(text: string): number {
  return codePointIndex(text).length - 1;
}

/** graphemeEnd[i] = 1 when a grapheme of `text` ends at UTF-16 offset i (0 and the end too). */
export function graphemeBoundaries(text: string): Uint8Array {
  const out = new Uint8Array(text.length + 1);
  out[0] = 1;
  out[text.length] = 1;
  if (typeof Intl !== 'undefined' && 'Segmenter' in Intl) {
    const seg = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
    for (const s of seg.segment(text)) out[s.index] = 1;
  } else {
    out.fill(1);
  }
  return out;
}

export interface Segmented {
  segs: Segment[];
  end16: Int32Array; // each token's end, in UTF-16
}

export function segmentsOf(text: string, tokens: EncodedToken[]): Segmented {
  const cp = codePointIndex(text);
  const n = cp.length - 1;
  const at = (k: number) => cp[Math.max(0, Math.min(k, n))];
  const whole = graphemeBoundaries(text);
  const out: Segment[] = [];
  const end16 = new Int32Array(tokens.length);
  let cur: Segment | null = null;
  tokens.forEach((t, k) => {
    const start = at(t.start);
    const end = Math.max(start, at(t.end));
    end16[k] = end;
    // join the open segment when this token reaches back into it, or when the open one
    // stops inside a grapheme (its last character is not whole yet)
    if (cur && cur.end > cur.start && (start < cur.end || !whole[cur.end])) {
      cur.end = Math.max(cur.end, end);
      cur.last = k;
      return;
    }
    cur = { start: Math.max(start, cur ? cur.end : 0), end, first: k, last: k };
    cur.end = Math.max(cur.end, cur.start);
    out.push(cur);
  });
  return { segs: out, end16 };
}

/** "start:end" of each segment: where two columns agree on a segment, they split alike. */
export function segmentKeys(segs: Segment[]): Set<string> {
  const out = new Set<string>();
  for (const s of segs) if (s.end > s.start) out.add(`${s.start}:${s.end}`);
  return out;
}
