// The columns of a mode: one per tokenizer, each with a header (name, format, counts), the
// coloured tokens, and the ids under them on a toggle. Where the columns split the same text
// differently, the segments are marked (.diff).

import type { EncodedToken, Span, TokenizerInfo } from './backend';
import { codePointLength, segmentKeys, segmentsOf, type Segmented } from './segments';
import { remember } from './tooltip';
import { escapeHtml, idsHtml, tokensHtml } from './view';

export interface Shown { text: string; tokens: EncodedToken[]; origins?: Span[]; extra?: string }

export interface Settings { showWhitespace: boolean; showIds: boolean }

export class Column {
  readonly el: HTMLElement;
  private head: HTMLElement;
  private body: HTMLElement;
  private ids: HTMLElement;
  private note: HTMLElement;
  shown: Shown | null = null;
  sg: Segmented | null = null;
  private painted: Shown | null = null; // what the DOM shows (the diff marks aside)
  private differs: Uint8Array | undefined;

  constructor(parent: HTMLElement, readonly info: TokenizerInfo, readonly specials: Set<number>) {
    this.el = document.createElement('section');
    this.el.className = 'column';
    this.el.dataset.tokenizer = String(info.index);
    const name = info.path.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || info.path;
    this.el.innerHTML = `<header><strong title="${escapeHtml(info.path)}">${escapeHtml(name)}</strong> ` +
      `<span class="format">${escapeHtml(info.format)}</span><span class="counts"></span></header>` +
      `<div class="note" hidden></div><div class="tokens"></div><div class="ids"></div>`;
    this.head = this.el.querySelector('.counts')!;
    this.note = this.el.querySelector('.note')!;
    this.body = this.el.querySelector('.tokens')!;
    this.ids = this.el.querySelector('.ids')!;
    parent.appendChild(this.el);
  }

  fail(message: string): void {
    this.shown = null;
    this.painted = null;
    this.sg = null;
    this.note.hidden = false;
    this.note.textContent = message;
    this.body.innerHTML = '';
    this.ids.innerHTML = '';
    this.head.textContent = '';
  }

  show(s: Shown): void {
    this.shown = s;
    this.sg = segmentsOf(s.text, s.tokens);
    this.note.hidden = true;
  }

  /** The diff marks alone, on what is painted (no rebuild): false when a paint is needed. */
  mark(differs: Uint8Array | undefined): boolean {
    if (!this.shown || this.painted !== this.shown) return false;
    const els = this.body.querySelectorAll('[data-seg]');
    if (els.length !== this.sg!.segs.length) return false;
    const old = this.differs;
    els.forEach((el, i) => {
      const want = !!differs?.[i];
      if (want !== !!old?.[i]) el.classList.toggle('diff', want);
    });
    this.differs = differs;
    this.counts();
    return true;
  }

  paint(settings: Settings, differs?: Uint8Array): void {
    const s = this.shown;
    if (!s || !this.sg) return;
    this.painted = s;
    this.differs = differs;
    this.body.innerHTML = tokensHtml(s.text, s.tokens, this.sg, {
      tokenizer: this.info.index, showWhitespace: settings.showWhitespace, specials: this.specials, differs, origins: s.origins,
    });
    remember(this.body, { tokens: s.tokens, sg: this.sg, specials: this.specials });
    this.ids.hidden = !settings.showIds;
    this.ids.innerHTML = settings.showIds ? idsHtml(s.tokens, this.sg) : '';
    this.counts();
  }

  private counts(): void {
    const s = this.shown!;
    const differs = this.differs;
    const n = s.tokens.length;
    const chars = codePointLength(s.text);
    const split = differs ? differs.reduce((a, b) => a + b, 0) : 0;
    this.head.innerHTML = ` <span class="count" data-count="tokens">${n}</span> token${n === 1 ? '' : 's'}` +
      ` · <span class="count" data-count="characters">${chars}</span> character${chars === 1 ? '' : 's'}` +
      (differs ? ` · <span class="count differ" data-count="differ">${split}</span> split otherwise` : '') +
      (s.extra ?? '');
  }
}

/** Paint every column, marking the segments the others do not share (same text only).
 *  marksOnly: a column that already shows its text only gets its marks updated. */
export function paintAll(cols: Column[], settings: Settings, marksOnly = false): void {
  const ready = cols.filter((c) => c.shown && c.sg);
  const sameText = ready.length > 1 && ready.every((c) => c.shown!.text === ready[0].shown!.text);
  const keys = sameText ? ready.map((c) => segmentKeys(c.sg!.segs)) : [];
  for (const c of cols) {
    let differs: Uint8Array | undefined;
    if (sameText && c.sg) {
      const others = keys.filter((_, i) => ready[i] !== c);
      differs = new Uint8Array(c.sg.segs.length);
      c.sg.segs.forEach((s, i) => {
        if (s.end > s.start && others.some((o) => !o.has(`${s.start}:${s.end}`))) differs![i] = 1;
      });
    }
    if (!(marksOnly && c.mark(differs))) c.paint(settings, differs);
  }
}
