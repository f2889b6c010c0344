// The extension's own commands over the server's workspace/executeCommand commands
// (server/tokenizer_lsp/lsp/commands/): "Tokenize text…", "Open decoded vocabulary",
// "Compare tokenizer with…", "Show tokenizer stats", "Preview chat template". Each shows its answer in a read-only
// virtual document (scheme `tokenizer-lsp`), which the language server is never given.
// A user's slip (no tokenizer file open, a cancelled prompt) is an information message or
// nothing, never an error dialog; the server's own refusal (a file it cannot load) is shown
// as it words it.
import * as path from 'path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient, LSPErrorCodes, ResponseError } from 'vscode-languageclient/node';
import { Encoding, formatChatPreview, formatEncoding, formatStats, RenderedChat } from './commandsFormat';
import { isChatTemplateName, isTokenizerDocument } from './detect';
import { openPlayground } from './playgroundView';

export const VIEW_SCHEME = 'tokenizer-lsp';
/** How long a command waits for a server that is still starting. */
const START_WAIT_MS = 60_000;

type ClientGetter = () => LanguageClient | undefined;

/** Contents of the read-only views, by URI; refreshed in place when a command runs again. */
class ViewProvider implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? 'This view is gone: run its command again.\n';
  }

  set(uri: vscode.Uri, text: string): void {
    this.contents.set(uri.toString(), text);
    this.changed.fire(uri);
  }

  forget(uri: vscode.Uri): void {
    this.contents.delete(uri.toString()); // a 20 MB decoded vocabulary is not kept once closed
  }
}

/** A view's URI: its title is the path's last part; the query remembers the tokenizer file. */
function viewUri(kind: string, source: vscode.Uri): vscode.Uri {
  const name = `${path.basename(path.dirname(source.fsPath))}/${path.basename(source.fsPath)}`;
  return vscode.Uri.from({ scheme: VIEW_SCHEME, path: `/${name} (${kind})`, query: source.toString() });
}

/** The tokenizer file a view was made from. */
export function sourceOfView(uri: vscode.Uri): vscode.Uri | undefined {
  if (uri.scheme !== VIEW_SCHEME || !uri.query) {
    return undefined;
  }
  try {
    return vscode.Uri.parse(uri.query, true);
  } catch {
    return undefined;
  }
}

/** The tokenizer file an editor shows, or the one its view was made from. */
export function tokenizerOf(editor: vscode.TextEditor | undefined): vscode.Uri | undefined {
  if (!editor) {
    return undefined;
  }
  return sourceOfView(editor.document.uri) ?? (isTokenizerDocument(editor.document) ? editor.document.uri : undefined);
}

export function registerCommands(context: vscode.ExtensionContext, getClient: ClientGetter, output: vscode.LogOutputChannel): void {
  const views = new ViewProvider();
  let lastTokenizer: vscode.Uri | undefined = tokenizerOf(vscode.window.activeTextEditor);

  const setContext = (editor: vscode.TextEditor | undefined) => {
    const target = tokenizerOf(editor);
    if (target) {
      lastTokenizer = target;
    }
    void vscode.commands.executeCommand('setContext', 'tokenizerLsp.tokenizerActive', target !== undefined);
  };
  setContext(vscode.window.activeTextEditor);

  /** The file a command works on: the active one, else the last active, else one to pick. */
  async function target(): Promise<vscode.Uri | undefined> {
    const active = tokenizerOf(vscode.window.activeTextEditor);
    if (active) {
      return active;
    }
    const open = vscode.workspace.textDocuments.filter(isTokenizerDocument).map((d) => d.uri);
    if (lastTokenizer && open.some((u) => u.toString() === lastTokenizer!.toString())) {
      return lastTokenizer;
    }
    if (open.length === 0) {
      void vscode.window.showInformationMessage(
        'Tokenizer LSP: open a tokenizer file first (tokenizer.json, vocab.json, merges.txt or a .tiktoken file).',
      );
      return undefined;
    }
    if (open.length === 1) {
      return open[0];
    }
    const picked = await vscode.window.showQuickPick(
      open.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri })),
      { title: 'Which tokenizer file?' },
    );
    return picked?.uri;
  }

  /** workspace/executeCommand on the running server; undefined (said once) when it cannot. */
  async function request<T>(command: string, args: unknown[], busy: string): Promise<T | undefined> {
    const client = await runningClient(getClient);
    if (!client) {
      const showLog = 'Show Log';
      const choice = await vscode.window.showWarningMessage(
        'Tokenizer LSP: the server is not running, so this command cannot answer. Its messages are in the "Tokenizer LSP" output.',
        showLog,
      );
      if (choice === showLog) {
        output.show(true);
      }
      return undefined;
    }
    try {
      return await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Tokenizer LSP: ${busy}…` },
        () => askedAgainIfModified(() => client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }) as Promise<T>),
      );
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      output.error(`${command} failed: ${message}`);
      void vscode.window.showErrorMessage(`Tokenizer LSP: ${message}`);
      return undefined;
    }
  }

  async function show(uri: vscode.Uri, text: string, beside: boolean): Promise<void> {
    views.set(uri, text);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, {
      preview: false,
      viewColumn: beside ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active,
    });
  }

  const describe = (uri: vscode.Uri) => vscode.workspace.asRelativePath(uri);

  async function tokenizeText(): Promise<void> {
    const source = await target();
    if (!source) {
      return;
    }
    const text = await vscode.window.showInputBox({
      title: `Tokenize text with ${describe(source)}`,
      prompt: 'The text to encode (\\n in the box is a backslash and an n; paste real newlines)',
      placeHolder: 'Hello, world! 你好 👋',
      ignoreFocusOut: true,
    });
    if (text === undefined || text === '') {
      return;
    }
    const result = await request<Encoding>('tokenizer-lsp.encode', [source.toString(), text], 'encoding');
    if (result) {
      await show(viewUri('tokens', source), formatEncoding(describe(source), text, result), true);
    }
  }

  async function openDecodedVocabulary(): Promise<void> {
    const source = await target();
    if (!source) {
      return;
    }
    const result = await request<{ text: string; rows: number }>(
      'tokenizer-lsp.decodedVocabulary',
      [source.toString()],
      `decoding the vocabulary of ${describe(source)}`,
    );
    if (result) {
      await show(viewUri('decoded', source), result.text, false);
    }
  }

  async function compareWith(): Promise<void> {
    const source = await target();
    if (!source) {
      return;
    }
    const picked = await vscode.window.showOpenDialog({
      title: `Compare ${describe(source)} with…`,
      openLabel: 'Compare',
      canSelectMany: false,
      defaultUri: vscode.Uri.file(path.dirname(source.fsPath)),
      filters: { 'Tokenizer files': ['json', 'txt', 'bpe', 'tiktoken'], 'All files': ['*'] },
    });
    const other = picked?.[0];
    if (!other) {
      return;
    }
    const sample = await vscode.window.showInputBox({
      title: `Compare ${describe(source)} with ${describe(other)}`,
      prompt: 'Optional: a text to encode with both (Enter with nothing compares the files only)',
      ignoreFocusOut: true,
    });
    if (sample === undefined) {
      return;
    }
    const args: unknown[] = [source.toString(), other.toString()];
    if (sample !== '') {
      args.push({ text: sample });
    }
    const result = await request<{ same: boolean; report: string }>('tokenizer-lsp.diff', args, 'comparing');
    if (result) {
      // the report names both files itself
      const head = result.same ? 'They mean the same.\n\n' : 'They differ:\n\n';
      await show(viewUri(`compared with ${path.basename(path.dirname(other.fsPath))}`, source), `${head}${result.report}\n`, true);
    }
  }

  async function showStats(uri?: vscode.Uri): Promise<void> {
    const source = uri instanceof vscode.Uri ? uri : await target();
    if (!source) {
      return;
    }
    const stats = await request<Record<string, unknown>>('tokenizer-lsp.stats', [source.toString()], 'reading the stats');
    if (stats) {
      await show(viewUri('stats', source), formatStats(describe(source), stats), true);
    }
  }

  /** The playground's page on the file (args from the chat template's code lens: [uri, {mode}]). */
  async function playground(uri?: unknown, options?: { mode?: string }): Promise<void> {
    const source = uri instanceof vscode.Uri ? uri : typeof uri === 'string' ? vscode.Uri.parse(uri) : await target();
    if (!source) {
      return;
    }
    const send = async (command: string, args: unknown[]) => {
      const client = await runningClient(getClient);
      if (!client) throw new Error('the server is not running (its messages are in the "Tokenizer LSP" output)');
      return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args });
    };
    openPlayground(context, source, send, options?.mode === 'chat' ? 'chat' : 'text');
  }

  /**
   * The rendered prompt of the sample chat and its ids, from the template of the folder of a
   * tokenizer_config.json or chat template file (the code lens's "Preview", or the command on
   * the active editor). The playground will replace this view.
   */
  async function previewChatTemplate(uri?: vscode.Uri | string, _options?: { mode?: string }): Promise<void> {
    let source = typeof uri === 'string' ? vscode.Uri.parse(uri, true) : uri instanceof vscode.Uri ? uri : undefined;
    if (!source) {
      const active = vscode.window.activeTextEditor?.document.uri;
      const name = active ? path.basename(active.fsPath).toLowerCase() : '';
      if (active && active.scheme === 'file' && (isChatTemplateName(active.fsPath) || name === 'tokenizer_config.json')) {
        source = active;
      } else {
        source = await target();
      }
    }
    if (!source) {
      return;
    }
    const result = await request<RenderedChat>('tokenizer-lsp.renderChat', [source.toString()], 'rendering the chat template');
    if (result) {
      await show(viewUri('chat preview', source), formatChatPreview(describe(source), result), true);
    }
  }

  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, views),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      if (doc.uri.scheme === VIEW_SCHEME) {
        views.forget(doc.uri);
      }
    }),
    vscode.window.onDidChangeActiveTextEditor(setContext),
    vscode.commands.registerCommand('tokenizerLsp.tokenizeText', guarded(tokenizeText, output)),
    vscode.commands.registerCommand('tokenizerLsp.openDecodedVocabulary', guarded(openDecodedVocabulary, output)),
    vscode.commands.registerCommand('tokenizerLsp.compareWith', guarded(compareWith, output)),
    vscode.commands.registerCommand('tokenizerLsp.showStats', guarded(showStats, output)),
    vscode.commands.registerCommand('tokenizerLsp.openPlayground', guarded(playground, output)),
    vscode.commands.registerCommand('tokenizerLsp.previewChatTemplate', guarded(previewChatTemplate, output)),
  );
}

/** Waits for a server that is starting (a command run right after opening a file). */
async function runningClient(getClient: ClientGetter): Promise<LanguageClient | undefined> {
  const end = Date.now() + START_WAIT_MS;
  for (;;) {
    const client = getClient();
    if (client?.isRunning()) {
      return client;
    }
    if (!client || Date.now() > end) {
      return undefined; // no server wanted or it failed to start: the extension said why
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A bug in a command is logged and named once, never an unhandled rejection. */
function guarded<A extends unknown[]>(fn: (...args: A) => Promise<void>, output: vscode.LogOutputChannel) {
  return async (...args: A): Promise<void> => {
    try {
      await fn(...args);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      output.error(`Command failed: ${message}`);
      void vscode.window.showErrorMessage(`Tokenizer LSP: ${message}`);
    }
  };
}

/**
 * The request, sent again when the server answers ContentModified: a document it read changed
 * (or VS Code closed and reopened it, as it does when a file's language is set) while it was
 * computed, and LSP asks the client to retry. Twice at most: a file being typed into answers so
 * each time, and then the error is shown.
 */
async function askedAgainIfModified<T>(send: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await send();
    } catch (err) {
      if (attempt > 2 || !(err instanceof ResponseError) || err.code !== LSPErrorCodes.ContentModified) {
        throw err;
      }
    }
  }
}
