// Plain-text renderings of the server commands' JSON results for the read-only views: the
// pieces of an encoding, the stats of a file. Text shows as hovers and `decode` show it: a
// space is ␣, newline/tab/CR are \n \t \r, other invisible characters \u00A0-style, and bytes
// that are not UTF-8 \xE2.

/** One piece of `tokenizer-lsp.encode`'s answer (docs/cli.md, encode). */
export interface EncodedToken {
  id: number;
  token: string;
  bytes: string;
  text: string | null;
  start: number;
  end: number;
}

export interface Encoding {
  ids: number[];
  tokens: EncodedToken[];
}

// one character at a time (visibleChar): a control or combining character is what it looks for
// eslint-disable-next-line no-control-regex, no-misleading-character-class
const INVISIBLE = /[\u0000-\u001f\u007f-\u00a0\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]/u;

/** A character as the user should see it: invisible ones escaped, the space as ␣. */
function visibleChar(ch: string): string {
  switch (ch) {
    case ' ':
      return '␣';
    case '\n':
      return '\\n';
    case '\t':
      return '\\t';
    case '\r':
      return '\\r';
    case '\\':
      return '\\\\';
  }
  if (INVISIBLE.test(ch)) {
    return `\\u${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return ch;
}

export function visibleText(text: string): string {
  let out = '';
  for (const ch of text) {
    out += visibleChar(ch);
  }
  return out;
}

/** Bytes (hex) as text: valid UTF-8 sequences decoded and made visible, other bytes \xNN. */
export function visibleBytes(hex: string): string {
  const bytes = hexBytes(hex);
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    const seq = len ? bytes.slice(i, i + len) : [];
    const decoded = seq.length === len && len ? decodeUtf8(seq) : undefined;
    if (decoded === undefined) {
      out += `\\x${b.toString(16).toUpperCase().padStart(2, '0')}`;
      i += 1;
    } else {
      out += visibleText(decoded);
      i += len;
    }
  }
  return out;
}

function decodeUtf8(seq: number[]): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(seq));
  } catch {
    return undefined;
  }
}

function hexBytes(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < hex.length; i += 2) {
    out.push(parseInt(hex.slice(i, i + 2), 16));
  }
  return out;
}

/** `e28880` as hovers write bytes: `E2 88 80`. */
export function spacedHex(hex: string): string {
  return (hex.toUpperCase().match(/../g) ?? []).join(' ');
}

/** 151643 as `151,643`: digits, never `151k`. */
export function digits(n: number): string {
  return n.toLocaleString('en-US');
}

/** Terminal columns a string takes: East Asian wide characters and emoji take two. */
function width(s: string): number {
  let w = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    const wide =
      (c >= 0x1100 && c <= 0x115f) ||
      (c >= 0x2e80 && c <= 0xa4cf) ||
      (c >= 0xac00 && c <= 0xd7a3) ||
      (c >= 0xf900 && c <= 0xfaff) ||
      (c >= 0xfe30 && c <= 0xfe4f) ||
      (c >= 0xff00 && c <= 0xff60) ||
      (c >= 0xffe0 && c <= 0xffe6) ||
      (c >= 0x1f300 && c <= 0x1faff) ||
      (c >= 0x20000 && c <= 0x3fffd);
    w += wide ? 2 : 1;
  }
  return w;
}

function pad(s: string, w: number): string {
  return s + ' '.repeat(Math.max(0, w - width(s)));
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i]))));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : pad(c, widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line)];
}

/** The view of "Tokenize text…": a summary, the pieces joined at their boundaries, a table. */
export function formatEncoding(source: string, input: string, result: Encoding): string {
  const pieces = result.tokens.map((t) => (t.text !== null ? visibleText(t.text) : visibleBytes(t.bytes)));
  const characters = [...input].length;
  const rows = result.tokens.map((t, i) => [
    String(i),
    String(t.id),
    pieces[i],
    t.token,
    spacedHex(t.bytes),
    `${t.start}-${t.end}`,
  ]);
  return [
    `Tokenizer: ${source}`,
    `Text: ${visibleText(input)}`,
    `${digits(result.tokens.length)} token${result.tokens.length === 1 ? '' : 's'} for ${digits(characters)} character${characters === 1 ? '' : 's'}`,
    '',
    `Pieces (│ marks each boundary):`,
    `│${pieces.join('│')}│`,
    '',
    `ids: [${result.ids.join(', ')}]`,
    '',
    ...table(['#', 'id', 'text', 'stored as', 'bytes', 'characters'], rows),
    '',
  ].join('\n');
}

/** A stats key as words: `vocab_size` -> `vocab size`. */
function label(key: string): string {
  return key.replace(/_/g, ' ');
}

function scalar(value: unknown, key = ''): string {
  if (value === null || value === undefined) {
    return key === 'unreachable' ? 'not computed yet' : '-';
  }
  if (typeof value === 'number') {
    return Number.isInteger(value) ? digits(value) : String(value);
  }
  if (typeof value === 'string') {
    return value;
  }
  return JSON.stringify(value);
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

/** Any JSON value as indented `key  value` lines (the stats keys are free: docs/cli.md, stats). */
function describe(value: unknown, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    if (value.every(isScalar)) {
      out.push(`${indent}${value.map((v) => scalar(v)).join(', ')}`);
      return;
    }
    for (const item of value) {
      if (isScalar(item)) {
        out.push(`${indent}${scalar(item)}`);
      } else if (!Array.isArray(item)) {
        // one line per object: `id 12  text ␣the  bytes 4`
        const fields = Object.entries(item as Record<string, unknown>).map(([k, v]) =>
          `${label(k)} ${isScalar(v) ? scalar(typeof v === 'string' && k === 'text' ? visibleText(v) : v, k) : JSON.stringify(v)}`,
        );
        out.push(`${indent}${fields.join('  ')}`);
      } else {
        out.push(`${indent}${JSON.stringify(item)}`);
      }
    }
    return;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    const keyWidth = Math.max(0, ...entries.filter(([, v]) => isScalar(v)).map(([k]) => label(k).length));
    for (const [k, v] of entries) {
      if (isScalar(v)) {
        out.push(`${indent}${label(k).padEnd(keyWidth)}  ${scalar(v, k)}`);
      } else {
        out.push(`${indent}${label(k)}:`);
        describe(v, `${indent}  `, out);
      }
    }
    return;
  }
  out.push(`${indent}${scalar(value)}`);
}

/** The view of "Show tokenizer stats": the server's own text when it gives one, else its JSON. */
export function formatStats(source: string, stats: Record<string, unknown>): string {
  if (typeof stats.text === 'string') {
    return `Tokenizer: ${source}\n\n${stats.text}`;
  }
  const out = [`Tokenizer: ${source}`, ''];
  describe(stats, '', out);
  out.push('');
  return out.join('\n');
}

/** One token of `tokenizer-lsp.renderChat`'s answer (`render --ids --format json`). */
export interface RenderedToken {
  id: number;
  token: string;
  text: string | null;
  start: number;
  end: number;
}

export interface RenderedChat {
  text: string;
  template: { source: string; name: string };
  ids?: number[];
  tokens?: RenderedToken[];
}

/**
 * The preview of a chat template: the prompt of the sample chat exactly as rendered (what
 * apply_chat_template returns), then below a rule its token ids, one row per token.
 */
export function formatChatPreview(source: string, result: RenderedChat): string {
  const ids = result.ids ?? [];
  const rows = (result.tokens ?? []).map((t, i) => [
    String(i),
    String(t.id),
    t.text !== null ? visibleText(t.text) : '',
    t.token,
    `${t.start}-${t.end}`,
  ]);
  return [
    `Chat template: ${result.template.source} (${result.template.name}), folder of ${source}`,
    'The sample chat (system, user, assistant, user, generation prompt), rendered as apply_chat_template(tokenize=False) returns it:',
    '─'.repeat(72),
    result.text,
    '─'.repeat(72),
    `${digits(ids.length)} token${ids.length === 1 ? '' : 's'}: the ids apply_chat_template(tokenize=True) returns`,
    '',
    `ids: [${ids.join(', ')}]`,
    '',
    ...table(['#', 'id', 'text', 'stored as', 'characters'], rows),
    '',
  ].join('\n');
}
