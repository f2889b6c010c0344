// Binary tokenizer files (SentencePiece `.model`, GGUF `.gguf`) in the editor: opening one shows
// its read-only decoded view, one row per token (id, stored form, text, bytes, kind, type), as
// the server renders it (command `tokenizer-lsp.decodedVocabulary`, which reads the file from
// disk: the editor never reads it, and a GGUF of gigabytes is read by its metadata alone).
//
// The custom editor only hands over: it opens the view, a text document of the
// `tokenizer-lsp-decoded` scheme, in its place. That document is in the language client's
// selector, so the server is given its text and answers hovers and diagnostics on its rows
// (server/tokenizer_lsp/core/formats/decoded_view.py knows a view by its header line).
import * as path from 'path';
import * as vscode from 'vscode';
import { ExecuteCommandRequest, LanguageClient } from 'vscode-languageclient/node';

export const DECODED_SCHEME = 'tokenizer-lsp-decoded';
export const DECODED_VIEW_TYPE = 'tokenizerLsp.decodedView';
/** How long the view waits for a server that is still starting. */
const START_WAIT_MS = 60_000;

/** The view's URI of a binary file: titled `<name> (decoded)`; the query keeps the file's URI. */
export function decodedUri(file: vscode.Uri): vscode.Uri {
  return vscode.Uri.from({ scheme: DECODED_SCHEME, path: `${file.path} (decoded)`, query: file.toString() });
}

class DecodedContent implements vscode.TextDocumentContentProvider {
  constructor(
    private readonly getClient: () => LanguageClient | undefined,
    private readonly start: () => void,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    let file: vscode.Uri;
    try {
      file = vscode.Uri.parse(uri.query, true);
    } catch {
      return 'This view names no file.\n';
    }
    this.start();
    const client = await running(this.getClient);
    if (!client) {
      return `Tokenizer LSP: the server is not running, so ${path.basename(file.fsPath)} cannot be decoded. ` +
        'Its messages are in the "Tokenizer LSP" output.\n';
    }
    try {
      const result = (await client.sendRequest(ExecuteCommandRequest.type, {
        command: 'tokenizer-lsp.decodedVocabulary',
        arguments: [file.toString()],
      })) as { text: string; rows: number };
      return result.text;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.output.error(`decoding ${file.fsPath}: ${message}`);
      return `Tokenizer LSP: ${message}\n`;
    }
  }
}

/** Opens the decoded view in place of the binary file's (empty) custom editor. */
class DecodedEditor implements vscode.CustomReadonlyEditorProvider {
  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    panel.webview.html = `<p>Opening the decoded view of ${escapeHtml(path.basename(document.uri.fsPath))}…</p>`;
    const column = panel.viewColumn ?? vscode.ViewColumn.Active;
    const doc = await vscode.workspace.openTextDocument(decodedUri(document.uri));
    await vscode.window.showTextDocument(doc, { viewColumn: column, preview: false });
    panel.dispose();
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? c);
}

async function running(getClient: () => LanguageClient | undefined): Promise<LanguageClient | undefined> {
  const end = Date.now() + START_WAIT_MS;
  for (;;) {
    const client = getClient();
    if (client?.isRunning()) {
      return client;
    }
    if (Date.now() > end) {
      return undefined;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * The custom editor for `.model`/`.gguf` files (package.json `customEditors`) and the content
 * of their views. `start` asks for the server (a binary file is a tokenizer file).
 */
export function registerBinaryViews(
  context: vscode.ExtensionContext,
  getClient: () => LanguageClient | undefined,
  start: () => void,
  output: vscode.LogOutputChannel,
): void {
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(DECODED_SCHEME, new DecodedContent(getClient, start, output)),
    vscode.window.registerCustomEditorProvider(DECODED_VIEW_TYPE, new DecodedEditor(), {
      supportsMultipleEditorsPerDocument: true,
    }),
  );
}
