// The HTML of a tokenized text: one element per token (data-token-id, data-tokenizer, in
// text order: docs/playground.md), grouped in coloured segments. Built as one string
// and set once: 100 KB of text is ~25,000 tokens, which DOM calls one by one would crawl.

import type { EncodedToken, Span } from './backend';
import type { Segmented } from './segments';

export const COLOURS = 8; // .c0 .. .c7 in playground.css

export interface ViewOptions {
  tokenizer: number;
  showWhitespace: boolean;
  specials: Set<number>;
  differs?: Uint8Array; // per segment: 1 when the other columns split it otherwise
  origins?: Span[]; // chat mode: template or message text
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ESC[c]);
}

/** The text with whitespace and control characters drawn (the toggle), HTML-escaped. */
export function visible(s: string, showWhitespace: boolean): string {
  if (!showWhitespace) return escapeHtml(s);
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === ' ') out += '<i class="ws">·</i>';
    else if (ch === '\t') out += '<i class="ws">→</i>\t';
    else if (ch === '\n') out += '<i class="ws">↵</i>\n';
    else if (ch === '\r') out += '<i class="ws">␍</i>';
    else if (c < 0x20) out += `<i class="ws">${String.fromCharCode(0x2400 + c)}</i>`;
    else if (c === 0x7f) out += '<i class="ws">␡</i>';
    else if (c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200f) || c === 0x2028 || c === 0x2029 || c === 0xfeff)
      out += `<i class="ws" title="U+${c.toString(16).toUpperCase().padStart(4, '0')}">⍽</i>`;
    else out += escapeHtml(ch);
  }
  return out;
}

function originAt(origins: Span[] | undefined, cpStart: number, hint: { k: number }): string {
  if (!origins) return '';
  while (hint.k < origins.length && origins[hint.k].end <= cpStart) hint.k++;
  const s = origins[hint.k];
  return s && s.start <= cpStart && s.origin === 'template' ? ' tpl' : '';
}

// Chunks of segments in blocks with `content-visibility: auto` (playground.css): the browser
// lays out only the chunks on screen, so 100 KB of text (50,000 elements) paints in a
// fraction of the time. A chunk ends after a newline (the block break is the line break
// the text has anyway), or, in one very long line, after CHUNK_MAX segments.
const CHUNK_MIN = 300;
const CHUNK_MAX = 3000;

export function tokensHtml(text: string, tokens: EncodedToken[], sg: Segmented, o: ViewOptions): string {
  const { segs, end16 } = sg;
  const parts: string[] = ['<div class="chunk">'];
  let pos = 0;
  let inChunk = 0;
  const hint = { k: 0 };
  const tokenAttrs = (k: number) => {
    const t = tokens[k];
    return [(o.specials.has(t.id) ? ' special' : '') + originAt(o.origins, t.start, hint),
      ` data-token-id="${t.id}" data-tokenizer="${o.tokenizer}" data-k="${k}"`];
  };
  segs.forEach((seg, si) => {
    if (seg.start > pos) parts.push(`<span class="gap">${visible(text.slice(pos, seg.start), o.showWhitespace)}</span>`);
    const diff = o.differs && o.differs[si] ? ' diff' : '';
    if (seg.last === seg.first) {
      // one token: the segment is the token's own element (half the elements to lay out)
      const [cls, attrs] = tokenAttrs(seg.first);
      parts.push(`<span class="seg tok c${si % COLOURS}${diff}${cls}" data-seg="${si}"${attrs}>` +
        `${visible(text.slice(seg.start, seg.end), o.showWhitespace)}</span>`);
    } else {
      parts.push(`<span class="seg multi c${si % COLOURS}${diff}" data-seg="${si}">`);
      let p = seg.start;
      for (let k = seg.first; k <= seg.last; k++) {
        // each token draws the text from where the previous stopped to its own end; a token
        // that shares a character already drawn is an empty element (still in order)
        const e = k === seg.last ? seg.end : Math.max(p, Math.min(seg.end, end16[k]));
        const [cls, attrs] = tokenAttrs(k);
        parts.push(`<span class="tok${cls}"${attrs}>${visible(text.slice(p, e), o.showWhitespace)}</span>`);
        p = e;
      }
      parts.push('</span>');
    }
    pos = Math.max(pos, seg.end);
    inChunk++;
    if ((inChunk >= CHUNK_MIN && text.charCodeAt(seg.end - 1) === 10) || inChunk >= CHUNK_MAX) {
      parts.push('</div><div class="chunk">');
      inChunk = 0;
    }
  });
  if (pos < text.length) parts.push(`<span class="gap">${visible(text.slice(pos), o.showWhitespace)}</span>`);
  parts.push('</div>');
  return parts.join('');
}

/** The ids, each in its segment's colour (the toggle under the text). No data-token-id here. */
export function idsHtml(tokens: EncodedToken[], sg: Segmented): string {
  const parts: string[] = [];
  sg.segs.forEach((seg, si) => {
    for (let k = seg.first; k <= seg.last; k++) parts.push(`<span class="id c${si % COLOURS}" data-k="${k}">${tokens[k].id}</span>`);
  });
  return parts.join(' ');
}
