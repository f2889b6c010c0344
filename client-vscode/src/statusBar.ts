// The status bar item of the active tokenizer file: model type, vocab size in digits
// (`151,643`, never `151k`), fragments and unreachable tokens, from the server's
// `tokenizer-lsp.stats`; a click opens the whole stats view. It follows the active editor
// (a view made from a tokenizer file counts as that file) and is hidden for anything else.
// Unreachable tokens are computed after the other findings: while the server answers
// `null` the item says so and asks again.
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';
import { tokenizerOf } from './commands';
import { digits } from './commandsFormat';

type Stats = Record<string, unknown>;

const RETRY_MS = 3_000; // unreachable still being computed, or a server still starting
const MAX_RETRIES = 100;
const EDIT_SETTLE_MS = 1_500;

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export class TokenizerStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  /** Stats by document URI, for the document version they were asked for. */
  private readonly cache = new Map<string, { version: number; stats: Stats }>();
  private timer: NodeJS.Timeout | undefined;
  private retries = 0;
  private asked = 0; // the newest request: older answers are dropped

  constructor(
    private readonly getClient: () => LanguageClient | undefined,
    private readonly output: vscode.LogOutputChannel,
  ) {
    this.item = vscode.window.createStatusBarItem('tokenizerLsp.stats', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Tokenizer LSP: tokenizer stats';
    this.disposables.push(
      this.item,
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
      vscode.workspace.onDidChangeTextDocument((event) => {
        const key = event.document.uri.toString();
        if (event.contentChanges.length === 0 || !this.cache.has(key)) {
          return;
        }
        this.cache.delete(key);
        if (this.currentSource()?.toString() === key) {
          this.schedule(EDIT_SETTLE_MS);
        }
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => this.cache.delete(doc.uri.toString())),
    );
  }

  /** Shows the item for the active editor: at once from the cache, else after asking. */
  refresh(): void {
    this.retries = 0;
    this.update();
  }

  dispose(): void {
    clearTimeout(this.timer);
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  private currentSource(): vscode.Uri | undefined {
    return tokenizerOf(vscode.window.activeTextEditor);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.update(), ms);
  }

  private update(): void {
    clearTimeout(this.timer);
    const source = this.currentSource();
    if (!source) {
      this.item.hide();
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === source.toString());
    const version = doc?.version ?? 0;
    const cached = this.cache.get(source.toString());
    if (cached && cached.version === version) {
      this.render(source, cached.stats);
      if (!pending(cached.stats) || this.retries >= MAX_RETRIES) {
        return;
      }
    } else {
      this.item.text = '$(sync~spin) Tokenizer';
      this.item.tooltip = `Reading the stats of ${vscode.workspace.asRelativePath(source)}…`;
      this.item.command = undefined;
      this.item.show();
    }
    const client = this.getClient();
    if (!client?.isRunning()) {
      if (client && this.retries++ < MAX_RETRIES) {
        this.schedule(RETRY_MS); // starting: ask once it runs
      } else {
        this.item.hide();
      }
      return;
    }
    const ask = ++this.asked;
    client
      .sendRequest(ExecuteCommandRequest.type, { command: 'tokenizer-lsp.stats', arguments: [source.toString()] })
      .then(
        (stats) => {
          if (ask !== this.asked || !stats || typeof stats !== 'object') {
            return;
          }
          this.cache.set(source.toString(), { version, stats: stats as Stats });
          if (this.currentSource()?.toString() !== source.toString()) {
            return;
          }
          this.render(source, stats as Stats);
          if (pending(stats as Stats) && this.retries++ < MAX_RETRIES) {
            this.schedule(RETRY_MS);
          }
        },
        (err: unknown) => {
          if (ask !== this.asked) {
            return;
          }
          this.output.debug(`tokenizer-lsp.stats ${source.toString()}: ${err instanceof Error ? err.message : String(err)}`);
          // a document the server does not index yet (just opened) or not a tokenizer file
          if (this.retries++ < 5 && this.currentSource()?.toString() === source.toString()) {
            this.schedule(RETRY_MS);
          } else {
            this.item.hide();
          }
        },
      );
  }

  private render(source: vscode.Uri, stats: Stats): void {
    const format = typeof stats.format === 'string' ? stats.format : undefined;
    const tiktoken = format === 'tiktoken' || source.path.endsWith('.tiktoken');
    const model = typeof stats.model_type === 'string' && stats.model_type ? stats.model_type : tiktoken ? 'tiktoken' : format ?? 'tokenizer';
    const size = count(stats.vocab_size) ?? count(stats.ranks);
    const fragments = count(stats.fragments);
    const parts = [`$(symbol-key) ${model}`];
    if (size !== undefined) {
      parts[0] += ` ${digits(size)} ${tiktoken ? 'ranks' : 'tokens'}`;
    }
    if (fragments !== undefined) {
      parts.push(`${digits(fragments)} fragments`);
    }
    const notComputed = typeof stats.unreachable_not_computed === 'string' ? stats.unreachable_not_computed : undefined;
    if ('unreachable' in stats && notComputed === undefined) {
      const unreachable = count(stats.unreachable);
      parts.push(unreachable === undefined ? '$(sync~spin) unreachable' : `${digits(unreachable)} unreachable`);
    }
    this.item.text = parts.join(' · ');
    const rows = [
      ['file', vscode.workspace.asRelativePath(source)],
      ['format', format ?? '-'],
      ['model type', model],
      [tiktoken ? 'ranks' : 'vocab size', size === undefined ? '-' : digits(size)],
      ['UTF-8 fragments', fragments === undefined ? '-' : digits(fragments)],
      ['unreachable tokens', notComputed !== undefined ? `not computed: ${notComputed}` : stats.unreachable === null ? 'being computed' : count(stats.unreachable) === undefined ? '-' : digits(count(stats.unreachable)!)],
    ];
    const tooltip = new vscode.MarkdownString(
      `**Tokenizer stats**\n\n| | |\n|---|---|\n${rows.map(([k, v]) => `| ${k} | ${v.replace(/\|/g, '\\|')} |`).join('\n')}\n\nClick for all the stats.`,
    );
    this.item.tooltip = tooltip;
    this.item.accessibilityInformation = { label: `Tokenizer stats: ${this.item.text.replace(/\$\([^)]*\) ?/g, '')}` };
    this.item.command = { title: 'Show tokenizer stats', command: 'tokenizerLsp.showStats', arguments: [source] };
    this.item.show();
  }
}

/** The server is still computing the unreachable tokens (null without a reason why not). */
function pending(stats: Stats): boolean {
  return stats.unreachable === null && typeof stats.unreachable_not_computed !== 'string';
}
