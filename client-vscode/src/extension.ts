// VS Code client of tokenizer-lsp: once a tokenizer file is open, finds a Python that can
// import `tokenizer_lsp`, starts `<python> -m tokenizer_lsp --stdio` through
// vscode-languageclient, and keeps the server's settings (the `tokenizerLsp` section) in sync
// with VS Code's. The extension activates on every JSON file, but until a tokenizer file is
// opened it starts nothing, checks nothing and says nothing.
//
// This module only makes the pieces and connects them to VS Code's events; each piece is a
// module named for what it does:
//   serverLifecycle.ts  when the server runs (first tokenizer file, restarts, deactivation)
//   languageClient.ts   the LanguageClient's options, push-only diagnostics, crash handling
//   python.ts, bundled.ts, processes.ts   which command starts the server, checked first
//   startErrors.ts      the one notification of a failed start
//   settings.ts         the `tokenizerLsp` settings as the client reads them
//   serverLog.ts        the output channel's lines (one timestamp each)
//   commands.ts, commandsFormat.ts   the commands over the server's executeCommand
//   statusBar.ts        the active tokenizer file's stats in the status bar
//   playgroundView.ts   the playground page in a webview
//   binaryView.ts       .model/.gguf files opened as their decoded view
//   largeFiles.ts       the notice about VS Code's large-file mode
//   detect.ts           what a document is (the server's detect_rules.json)
// tests/editors/test_client_imports.py keeps the imports among them free of cycles.
import * as vscode from 'vscode';
import { registerBinaryViews } from './binaryView';
import { registerCommands } from './commands';
import { CLIENT_NAME } from './languageClient';
import { registerLargeFileNotice } from './largeFiles';
import { ServerLogChannel } from './serverLog';
import { ServerLifecycle } from './serverLifecycle';
import { TokenizerStatusBar } from './statusBar';

let server: ServerLifecycle | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  // what the client is given as its output channel: the same channel, one timestamp a line
  const clientOutput = new ServerLogChannel(output);
  context.subscriptions.push(output, { dispose: () => clientOutput.flush() });
  const lifecycle = new ServerLifecycle(context, output, clientOutput);
  server = lifecycle;
  const client = () => lifecycle.client;

  context.subscriptions.push(
    vscode.commands.registerCommand('tokenizerLsp.restartServer', () => lifecycle.restart('Restart requested.')),
    vscode.commands.registerCommand('tokenizerLsp.showOutput', () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => lifecycle.configurationChanged(event)),
    vscode.workspace.onDidOpenTextDocument((doc) => lifecycle.consider(doc)),
  );

  registerLargeFileNotice(context, output);
  registerCommands(context, client, output);
  registerBinaryViews(context, client, () => lifecycle.wantForBinaryFile(), output);
  const statusBar = new TokenizerStatusBar(client, output);
  context.subscriptions.push(statusBar, lifecycle.onDidStart(() => statusBar.refresh()));
  for (const doc of vscode.workspace.textDocuments) {
    lifecycle.consider(doc);
  }
  if (!lifecycle.isWanted) {
    output.info('Activated; the server starts when a tokenizer file is opened.');
  }
}

export async function deactivate(): Promise<void> {
  await server?.shutdown();
}
