// The playground page (docs/playground.md): text mode and chat mode over a Backend, the HTTP
// API when served by `tokenizer-lsp playground`, the extension's relay inside a VS Code
// webview (acquireVsCodeApi is there).

import { httpBackend, webviewBackend, type Backend } from './backend';
import { ChatMode } from './chatMode';
import type { Settings } from './columns';
import { TextMode } from './textMode';
import { installTooltip } from './tooltip';

declare global {
  interface Window { acquireVsCodeApi?: () => { postMessage(msg: unknown): void } }
}

async function start(root: HTMLElement, backend: Backend): Promise<void> {
  const infos = await backend.tokenizers();
  const specials = await Promise.all(infos.map(async (i) => new Set(await backend.specials(i.index).catch(() => []))));
  const settings: Settings = { showWhitespace: false, showIds: false };
  root.innerHTML = `
    <header class="bar">
      <h1>Tokenizer playground</h1>
      <nav role="tablist">
        <button type="button" role="tab" data-mode="text" aria-selected="true">Text</button>
        <button type="button" role="tab" data-mode="chat" aria-selected="false">Chat</button>
      </nav>
      <label><input type="checkbox" id="toggle-whitespace"> whitespace</label>
      <label><input type="checkbox" id="toggle-ids"> ids</label>
      <span class="legend"><span class="seg c0 multi"><span class="tok">ab</span></span> one character, several tokens
        <span class="seg c1 diff"><span class="tok">ab</span></span> split otherwise in another column
        <span class="seg c2"><span class="tok special">&lt;s&gt;</span></span> special</span>
    </header>
    <main></main>`;
  const main = root.querySelector('main')!;
  if (infos.length === 0) {
    main.textContent = 'No tokenizer: start the playground with the paths of tokenizer files or model folders.';
    return;
  }
  const text = new TextMode(main, backend, infos, specials, () => settings);
  let chat: ChatMode | null = null;
  const showMode = (mode: string) => {
    root.querySelectorAll<HTMLButtonElement>('[role="tab"]').forEach((b) => b.setAttribute('aria-selected', String(b.dataset.mode === mode)));
    text.el.hidden = mode !== 'text';
    if (mode === 'chat' && !chat) {
      chat = new ChatMode(main, backend, infos, specials, () => settings);
      void chat.update();
    }
    if (chat) chat.el.hidden = mode !== 'chat';
    document.body.dataset.mode = mode;
  };
  root.querySelectorAll<HTMLButtonElement>('[role="tab"]').forEach((b) => b.addEventListener('click', () => showMode(b.dataset.mode!)));
  const toggle = (id: string, key: keyof Settings) => {
    root.querySelector<HTMLInputElement>(`#${id}`)!.addEventListener('change', (ev) => {
      settings[key] = (ev.target as HTMLInputElement).checked;
      text.repaint();
      chat?.repaint();
    });
  };
  toggle('toggle-whitespace', 'showWhitespace');
  toggle('toggle-ids', 'showIds');
  installTooltip(main);
  if (backend.reveal) {
    // VS Code: a click on a token shows its entry in the vocabulary file
    main.addEventListener('click', (ev) => {
      const tok = (ev.target as Element).closest?.('[data-token-id]') as HTMLElement | null;
      if (tok) backend.reveal!(Number(tok.dataset.tokenizer), Number(tok.dataset.tokenId));
    });
  }
  const wanted = root.dataset.mode ?? new URLSearchParams(location.search).get('mode');
  showMode(wanted === 'chat' ? 'chat' : 'text');
  text.input.focus();
}

const root = document.getElementById('app')!;
start(root, window.acquireVsCodeApi ? webviewBackend(window.acquireVsCodeApi()) : httpBackend).catch((e) => {
  root.textContent = `The playground could not start: ${e instanceof Error ? e.message : String(e)}`;
});
