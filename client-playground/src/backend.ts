// Where the page gets its tokens: the playground's HTTP API (docs/playground.md), or, inside
// VS Code, the extension relaying the language server (a Backend of its own).

export interface TokenizerInfo { index: number; path: string; format: string }
export interface EncodedToken { id: number; token: string | null; bytes: string; text: string | null; start: number; end: number }
export interface Encoded { ids: number[]; tokens: EncodedToken[]; notes?: string[] }
export interface Span { start: number; end: number; origin: 'template' | 'message' }
export interface Rendered {
  text: string;
  template: { source: string; name: string | null };
  ids: number[];
  tokens: EncodedToken[];
  spans: Span[];
  generation: [number, number][];
  /** The template checks' findings (the playground's API adds them; VS Code's relay may not). */
  findings?: Finding[];
}
export interface Finding { code: string; severity: string; message: string; line: number | null }
export interface ChatRequest { messages: unknown[]; tools?: unknown[]; add_generation_prompt?: boolean; [k: string]: unknown }

export interface Backend {
  tokenizers(): Promise<TokenizerInfo[]>;
  specials(index: number): Promise<number[]>;
  encode(index: number, text: string, signal?: AbortSignal): Promise<Encoded>;
  render(index: number, messages: ChatRequest, signal?: AbortSignal): Promise<Rendered>;
  /** Show the token's entry in its vocabulary file (VS Code only). */
  reveal?(index: number, tokenId: number): void;
}

/** An answer that is not 200: the server's one line. */
export class ApiFailure extends Error {
  constructor(readonly status: number, message: string) { super(message); }
}

async function call<T>(path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  // same origin: the cookie the page's URL set carries the token
  const init: RequestInit = body === undefined ? { signal } : {
    method: 'POST', signal, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  };
  const res = await fetch(path, init);
  if (!res.ok) throw new ApiFailure(res.status, (await res.text()).trim() || res.statusText);
  return (await res.json()) as T;
}

export const httpBackend: Backend = {
  tokenizers: () => call<TokenizerInfo[]>('api/tokenizers'),
  specials: async (i) => (await call<{ ids: number[] }>(`api/specials?tokenizer=${i}`)).ids,
  encode: (i, text, signal) => call<Encoded>('api/encode', { tokenizer: i, text }, signal),
  render: (i, messages, signal) => call<Rendered>('api/render', { tokenizer: i, messages }, signal),
};

interface VsCodeApi { postMessage(msg: unknown): void }

/** Inside a VS Code webview: requests by postMessage to the extension, which asks the
 *  language server (client-vscode/src/playgroundView.ts). JSON messages only. */
export function webviewBackend(api: VsCodeApi): Backend {
  let next = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  window.addEventListener('message', (ev: MessageEvent) => {
    const msg = ev.data as { type?: string; id?: number; result?: unknown; error?: { status: number; message: string } };
    if (msg?.type !== 'response' || typeof msg.id !== 'number') return;
    const w = waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    if (msg.error) w.reject(new ApiFailure(msg.error.status, msg.error.message));
    else w.resolve(msg.result);
  });
  const ask = <T>(op: string, args: Record<string, unknown> = {}): Promise<T> => new Promise((resolve, reject) => {
    const id = next++;
    waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
    api.postMessage({ type: 'request', id, op, ...args });
  });
  return {
    tokenizers: () => ask<TokenizerInfo[]>('tokenizers'),
    specials: async (i) => (await ask<{ ids: number[] }>('specials', { index: i })).ids,
    encode: (i, text) => ask<Encoded>('encode', { index: i, text }),
    render: (i, messages) => ask<Rendered>('render', { index: i, messages }),
    reveal: (i, tokenId) => api.postMessage({ type: 'request', id: 0, op: 'reveal', index: i, tokenId }),
  };
}
