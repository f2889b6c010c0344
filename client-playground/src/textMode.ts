// Text mode: a textarea, and the tokens of its text for every tokenizer, side by side.
// Each column keeps at most one request in flight: a keystroke while one is out marks the
// column behind, and the newest text goes when the answer comes (no queue of stale texts).
// A column's element says data-current="true" once it shows the textarea's text (the
// browser tests wait on it).

import { ApiFailure, type Backend, type TokenizerInfo } from './backend';
import { Column, paintAll, type Settings } from './columns';

export const SAMPLE_TEXT =
  'Tokenizers split text into tokens: "Hello, world!"\n' +
  '\tdef f(x):    return x  # a tab and runs of spaces\n' +
  '你好，世界。日本語のテキスト。\n' +
  'Emoji: 👋 👩‍👩‍👧 🏳️‍🌈, combining marks: e\u0301 n\u0303 a\u0308\n';

export class TextMode {
  readonly el: HTMLElement;
  readonly input: HTMLTextAreaElement;
  private cols: Column[] = [];
  private busy: boolean[] = [];

  constructor(parent: HTMLElement, private backend: Backend, infos: TokenizerInfo[], specials: Set<number>[],
              private settings: () => Settings) {
    this.el = document.createElement('div');
    this.el.id = 'text-view';
    this.el.innerHTML = '<textarea id="text-input" spellcheck="false" aria-label="Text to tokenize"></textarea>' +
      '<div class="columns"></div>';
    parent.appendChild(this.el);
    this.input = this.el.querySelector('textarea')!;
    this.input.value = SAMPLE_TEXT;
    const box = this.el.querySelector<HTMLElement>('.columns')!;
    this.cols = infos.map((info, k) => new Column(box, info, specials[k]));
    this.busy = infos.map(() => false);
    this.input.addEventListener('input', () => this.update());
    this.update();
  }

  update(): void {
    this.cols.forEach((c, k) => {
      c.el.dataset.current = 'false';
      if (!this.busy[k]) void this.fetch(k);
    });
  }

  repaint(): void {
    paintAll(this.cols, this.settings());
  }

  private async fetch(k: number): Promise<void> {
    const col = this.cols[k];
    const text = this.input.value;
    this.busy[k] = true;
    try {
      const got = await this.backend.encode(col.info.index, text);
      col.show({ text, tokens: got.tokens });
    } catch (e) {
      col.fail(e instanceof ApiFailure ? `${e.status}: ${e.message}` : String(e));
    } finally {
      this.busy[k] = false;
    }
    if (this.input.value !== text) {
      void this.fetch(k); // typed meanwhile: the newest text, once
      return;
    }
    // this column now, without waiting for the others; once all show this text, the marks
    // of where they differ (on what is painted: no second paint of 100 KB)
    col.paint(this.settings());
    col.el.dataset.current = 'true';
    if (this.cols.every((c) => c.el.dataset.current === 'true')) paintAll(this.cols, this.settings(), true);
  }
}
