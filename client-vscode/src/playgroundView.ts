// "Open Tokenizer Playground": the playground's page (client-playground/, the same bundle
// `tokenizer-lsp playground` serves) in a webview, fed by the language server: the page asks
// the extension by postMessage, the extension asks the server's own commands
// (tokenizer-lsp.encode, tokenizer-lsp.renderChat) for the file the command was run on. No
// second engine, no network: the webview loads only dist/playground.{js,css}, under a CSP with
// the webview's cspSource and a nonce (docs/playground.md, "Safe by default"). Clicking a token reveals
// its vocabulary entry (workspace/symbol `#ID`).
import { randomBytes } from 'crypto';
import * as path from 'path';
import * as vscode from 'vscode';

type Send = (command: string, args: unknown[]) => Promise<unknown>;

interface PageRequest { type: 'request'; id: number; op: string; index?: number; text?: string; messages?: unknown; tokenId?: number }

const panels = new Map<string, vscode.WebviewPanel>();

export function openPlayground(context: vscode.ExtensionContext, source: vscode.Uri, send: Send, mode: 'text' | 'chat' = 'text'): void {
  const key = `${source.toString()}#${mode}`;
  const open = panels.get(key);
  if (open) {
    open.reveal();
    return;
  }
  const dist = vscode.Uri.joinPath(context.extensionUri, 'dist');
  const panel = vscode.window.createWebviewPanel(
    'tokenizerLsp.playground',
    `Playground: ${path.basename(path.dirname(source.fsPath))}/${path.basename(source.fsPath)}`,
    vscode.ViewColumn.Beside,
    { enableScripts: true, localResourceRoots: [dist], retainContextWhenHidden: true },
  );
  panels.set(key, panel);
  panel.onDidDispose(() => panels.delete(key));
  panel.webview.html = pageHtml(panel.webview, dist, mode);
  panel.webview.onDidReceiveMessage(async (msg: PageRequest) => {
    if (!msg || msg.type !== 'request') return;
    try {
      const result = await answer(msg, source, send);
      void panel.webview.postMessage({ type: 'response', id: msg.id, result });
    } catch (err) {
      const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
      void panel.webview.postMessage({ type: 'response', id: msg.id, error: { status: 400, message } });
    }
  });
}

async function answer(msg: PageRequest, source: vscode.Uri, send: Send): Promise<unknown> {
  switch (msg.op) {
    case 'tokenizers':
      return [{ index: 0, path: source.fsPath, format: path.basename(source.fsPath) }];
    case 'specials':
      return { ids: [] };
    case 'encode':
      return send('tokenizer-lsp.encode', [source.toString(), String(msg.text ?? '')]);
    case 'render':
      return send('tokenizer-lsp.renderChat', [source.toString(), msg.messages]);
    case 'reveal':
      await reveal(source, Number(msg.tokenId));
      return null;
    default:
      throw new Error(`unknown request ${msg.op}`);
  }
}

/** The token's entry in the vocabulary file (the server's workspace/symbol answers `#ID`). */
async function reveal(source: vscode.Uri, id: number): Promise<void> {
  const found = await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', `#${id}`);
  const hit = (found ?? []).find((s) => s.location.uri.toString() === source.toString());
  if (!hit) return;
  const doc = await vscode.workspace.openTextDocument(source);
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: hit.location.range, preserveFocus: false });
}

function pageHtml(webview: vscode.Webview, dist: vscode.Uri, mode: string): string {
  const nonce = randomBytes(16).toString('base64');
  const js = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'playground.js'));
  const css = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'playground.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="${css}">
<title>Tokenizer playground</title>
</head>
<body>
<div id="app" data-mode="${mode === 'chat' ? 'chat' : 'text'}">Loading…</div>
<script nonce="${nonce}" src="${js}"></script>
</body>
</html>`;
}
