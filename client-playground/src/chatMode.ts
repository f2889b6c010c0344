// Chat mode: a messages editor (roles, content, tools as JSON), rendered through each
// folder's chat template by POST /api/render: the prompt the model sees, template text told
// apart from message text, special tokens marked, the ids, and the tokens of each message.

import { ApiFailure, type Backend, type ChatRequest, type Finding, type Rendered, type TokenizerInfo } from './backend';
import { Column, paintAll, type Settings } from './columns';
import { escapeHtml } from './view';

interface Message { role: string; content: string }

// the sample chat of the docs: system, user, assistant, user, and the generation prompt
export const SAMPLE_CHAT: Message[] = [
  { role: 'system', content: 'You are a helpful assistant.' },
  { role: 'user', content: 'What is a tokenizer?' },
  { role: 'assistant', content: 'It splits text into tokens, the units a model reads.' },
  { role: 'user', content: 'How many tokens is “你好 👋”?' },
];
const ROLES = ['system', 'user', 'assistant', 'tool'];

export class ChatMode {
  readonly el: HTMLElement;
  private list: HTMLElement;
  private tools: HTMLTextAreaElement;
  private genPrompt: HTMLInputElement;
  private error: HTMLElement;
  private cols: Column[];
  private timer = 0;
  private seq = 0;

  constructor(parent: HTMLElement, private backend: Backend, infos: TokenizerInfo[], specials: Set<number>[],
              private settings: () => Settings) {
    this.el = document.createElement('div');
    this.el.id = 'chat-view';
    this.el.innerHTML = `
      <div class="chat-editor">
        <div class="messages"></div>
        <div class="chat-actions">
          <button type="button" data-act="add">+ message</button>
          <label><input type="checkbox" class="gen" checked> add_generation_prompt</label>
        </div>
        <label class="tools-label">tools (JSON list, empty for none)
          <textarea class="tools" spellcheck="false" rows="3" placeholder='[{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]'></textarea>
        </label>
        <div class="chat-error" hidden></div>
      </div>
      <div class="columns"></div>`;
    parent.appendChild(this.el);
    this.list = this.el.querySelector('.messages')!;
    this.tools = this.el.querySelector('.tools')!;
    this.genPrompt = this.el.querySelector('.gen')!;
    this.error = this.el.querySelector('.chat-error')!;
    const box = this.el.querySelector<HTMLElement>('.columns')!;
    this.cols = infos.map((info, k) => new Column(box, info, specials[k]));
    SAMPLE_CHAT.forEach((m) => this.addMessage(m));
    this.el.querySelector('[data-act="add"]')!.addEventListener('click', () => {
      this.addMessage({ role: 'user', content: '' });
      this.schedule();
    });
    this.el.addEventListener('input', (ev) => {
      if ((ev.target as Element).closest('.chat-editor')) this.schedule();
    });
    this.el.addEventListener('change', (ev) => {
      if ((ev.target as Element).closest('.chat-editor')) this.schedule();
    });
  }

  private addMessage(m: Message): void {
    const row = document.createElement('div');
    row.className = 'message';
    row.innerHTML = `<select aria-label="role">${ROLES.map((r) => `<option${r === m.role ? ' selected' : ''}>${r}</option>`).join('')}</select>` +
      `<textarea rows="2" spellcheck="false" aria-label="content"></textarea>` +
      `<button type="button" title="remove this message" aria-label="remove">×</button>`;
    row.querySelector('textarea')!.value = m.content;
    row.querySelector('button')!.addEventListener('click', () => {
      row.remove();
      this.schedule();
    });
    this.list.appendChild(row);
  }

  /** The request of the render API (docs/playground.md): {"messages", "tools"?, "add_generation_prompt"}. */
  request(): ChatRequest | string {
    const messages = Array.from(this.list.querySelectorAll('.message')).map((row) => ({
      role: row.querySelector('select')!.value,
      content: row.querySelector('textarea')!.value,
    }));
    const req: ChatRequest = { messages, add_generation_prompt: this.genPrompt.checked };
    const raw = this.tools.value.trim();
    if (raw) {
      try {
        const tools = JSON.parse(raw);
        if (!Array.isArray(tools)) return 'tools: a JSON list of tool definitions';
        req.tools = tools;
      } catch (e) {
        return `tools: not JSON (${(e as Error).message})`;
      }
    }
    return req;
  }

  schedule(): void {
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.update(), 150);
  }

  async update(): Promise<void> {
    const req = this.request();
    this.error.hidden = typeof req !== 'string';
    if (typeof req === 'string') {
      this.error.textContent = req;
      return;
    }
    const seq = ++this.seq;
    this.cols.forEach((c) => (c.el.dataset.current = 'false'));
    await Promise.all(this.cols.map(async (col) => {
      let got: Rendered | null = null;
      let failure = '';
      try {
        got = await this.backend.render(col.info.index, req);
      } catch (e) {
        failure = e instanceof ApiFailure ? `${e.status}: ${e.message}` : String(e);
      }
      if (seq !== this.seq) return; // edited meanwhile: the newer render paints
      if (got) col.show({ text: got.text, tokens: got.tokens, origins: got.spans, extra: chatCounts(got) });
      else col.fail(failure);
      col.el.dataset.current = 'true';
    }));
    if (seq === this.seq) this.repaint();
  }

  repaint(): void {
    paintAll(this.cols, this.settings());
  }
}

/** Template tokens, message tokens, and the tokens of each message's text (counted by where a token starts). */
function chatCounts(r: Rendered): string {
  const msgSpans = r.spans.filter((s) => s.origin === 'message');
  const per = msgSpans.map(() => 0);
  let inMessages = 0;
  for (const t of r.tokens) {
    const i = msgSpans.findIndex((s) => s.start <= t.start && t.start < s.end);
    if (i >= 0) {
      per[i]++;
      inMessages++;
    }
  }
  const tpl = r.tokens.length - inMessages;
  const name = r.template.name ? ` (${escapeHtml(r.template.name)})` : '';
  return `<div class="chat-counts">template${name}: <span data-count="template">${tpl}</span> tokens · ` +
    `messages: <span data-count="messages">${inMessages}</span> · per message text: ` +
    per.map((n, i) => `<span class="per-message" data-message="${i}">${n}</span>`).join(' + ') +
    `<div class="template-source">${escapeHtml(r.template.source)}</div>${findingsHtml(r.findings)}</div>`;
}

/** The template checks' findings, one line each (code, template line, message). */
function findingsHtml(findings: Finding[] | undefined): string {
  // undefined: the backend does not send them (VS Code's editor shows them as diagnostics)
  if (findings === undefined) return '';
  if (findings.length === 0) return '<div class="findings" data-findings="0">template checks: no finding</div>';
  const rows = findings.map((f) => `<li class="finding ${escapeHtml(f.severity)}" data-code="${escapeHtml(f.code)}">` +
    `<b>${escapeHtml(f.severity)}</b> <code>${escapeHtml(f.code)}</code>` +
    `${f.line ? ` (template line ${f.line})` : ''}: ${escapeHtml(f.message)}</li>`).join('');
  return `<ul class="findings" data-findings="${findings.length}">${rows}</ul>`;
}
