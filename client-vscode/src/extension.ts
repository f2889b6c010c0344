// VS Code client of tokenizer-lsp: once a tokenizer file is open, finds a Python that can
// import `tokenizer_lsp`, starts `<python> -m tokenizer_lsp --stdio` through
// vscode-languageclient, and keeps the server's settings (the `tokenizerLsp` section) in sync
// with VS Code's. The extension activates on every JSON file, but until a tokenizer file is
// opened it starts nothing, checks nothing and says nothing.
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
  StaticFeature,
  TransportKind,
  vsdiag,
} from 'vscode-languageclient/node';
import { DECODED_SCHEME, registerBinaryViews } from './binaryView';
import { registerCommands } from './commands';
import { isTokenizerDocument, LANGUAGE_KINDS } from './detect';
import { registerLargeFileNotice } from './largeFiles';
import {
  describeCommand,
  onPythonInterpreterChanged,
  resolveServerCommand,
  ServerCommand,
  serverProcessOptions,
} from './python';
import { ServerLogChannel } from './serverLog';
import { TokenizerStatusBar } from './statusBar';

const CLIENT_ID = 'tokenizerLsp';
const CLIENT_NAME = 'Tokenizer LSP';
const SECTION = 'tokenizerLsp';

/**
 * Files the server is given once it runs: every language the shared detection rules name
 * (json, jsonc, tiktoken, bpe-merges, plaintext). They are matched by language so that a
 * tokenizer file with any name is served; the server answers nothing for other files.
 */
export const DOCUMENT_SELECTOR = [
  ...[...LANGUAGE_KINDS.keys()].map((language) => ({ scheme: 'file', language })),
  // the decoded view of a binary file (.model, .gguf): the server hovers and checks its rows
  { scheme: DECODED_SCHEME },
];

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
/** What the client is given as its output channel: the same channel, one timestamp a line. */
let clientOutput: ServerLogChannel;
/** Set once a tokenizer file has been opened (or a restart asked for): the server should run. */
let wanted = false;
/** Serialises start/stop/restart so two restarts never race. */
let lifecycle: Promise<void> = Promise.resolve();
let interpreterSubscription: vscode.Disposable | undefined;
let extensionContext: vscode.ExtensionContext;
let statusBar: TokenizerStatusBar | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionContext = context;
  output = vscode.window.createOutputChannel(CLIENT_NAME, { log: true });
  clientOutput = new ServerLogChannel(output);
  context.subscriptions.push(output, { dispose: () => clientOutput.flush() });

  context.subscriptions.push(
    vscode.commands.registerCommand('tokenizerLsp.restartServer', () => {
      output.info('Restart requested.');
      return restart();
    }),
    vscode.commands.registerCommand('tokenizerLsp.showOutput', () => output.show(true)),
    vscode.workspace.onDidChangeConfiguration((event) => {
      // Every other tokenizerLsp setting reaches the running server through
      // workspace/didChangeConfiguration (synchronize.configurationSection); only a new
      // server command needs a new process.
      if (event.affectsConfiguration(`${SECTION}.server.command`) && wanted) {
        output.info('tokenizerLsp.server.command changed: restarting the server.');
        void restart();
      }
    }),
    vscode.workspace.onDidOpenTextDocument((doc) => considerDocument(doc)),
  );

  registerLargeFileNotice(context, output);
  registerCommands(context, () => client, output);
  registerBinaryViews(context, () => client, wantServer, output);
  statusBar = new TokenizerStatusBar(() => client, output);
  context.subscriptions.push(statusBar);
  for (const doc of vscode.workspace.textDocuments) {
    considerDocument(doc);
  }
  if (!wanted) {
    output.info('Activated; the server starts when a tokenizer file is opened.');
  }
}

/** Starts the server the first time a tokenizer file is open; other files change nothing. */
function considerDocument(doc: vscode.TextDocument): void {
  if (wanted || !isTokenizerDocument(doc)) {
    return;
  }
  wanted = true;
  output.info(`${vscode.workspace.asRelativePath(doc.uri)} is a tokenizer file: starting the server.`);
  void queue(startClient);
}

/** A binary tokenizer file was opened (its decoded view asks): start the server if need be. */
function wantServer(): void {
  if (!wanted) {
    wanted = true;
    output.info('A binary tokenizer file was opened: starting the server.');
    void queue(startClient);
  }
}

function restart(): Promise<void> {
  wanted = true;
  return queue(async () => {
    await stopClient();
    await startClient();
  });
}

/** With no server command configured, follow the Python extension's interpreter choice. */
async function followInterpreterChanges(): Promise<void> {
  if (interpreterSubscription || !vscode.extensions.getExtension('ms-python.python')) {
    return;
  }
  const subscription = await onPythonInterpreterChanged(output, () => {
    const configured = vscode.workspace.getConfiguration(SECTION).get<unknown>('server.command');
    if (wanted && (Array.isArray(configured) ? configured.length === 0 : !configured)) {
      output.info('The Python interpreter changed: restarting the server.');
      void restart();
    }
  });
  if (subscription && !interpreterSubscription) {
    interpreterSubscription = subscription;
    extensionContext.subscriptions.push(subscription);
  } else {
    subscription?.dispose();
  }
}

export async function deactivate(): Promise<void> {
  await queue(stopClient);
}

function queue(step: () => Promise<void>): Promise<void> {
  lifecycle = lifecycle.then(step, step).catch((err) => {
    output.error(`Unexpected error: ${errorText(err)}`);
  });
  return lifecycle;
}

/** The `tokenizerLsp` settings as one plain JSON object, as the server expects them. */
function currentSettings(): Record<string, unknown> {
  const value = vscode.workspace.getConfiguration().get<Record<string, unknown>>(SECTION) ?? {};
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

async function startClient(): Promise<void> {
  shownStartError = false;
  // the import check and the server run in the same folder with the same environment
  const processOptions = serverProcessOptions();
  const resolved = await resolveServerCommand(output, processOptions);
  void followInterpreterChanges().catch((err) => output.warn(`Python extension: ${errorText(err)}`));
  if (!resolved.ok) {
    output.error(resolved.fix ? `${resolved.message} ${resolved.fix}` : resolved.message);
    showStartError(resolved.message, resolved.fix);
    return;
  }
  const command: ServerCommand = resolved.command;
  output.info(
    `Starting server: ${describeCommand(command.argv)} --stdio (from ${command.source}; in ${processOptions.cwd})`,
  );

  const serverOptions: ServerOptions = {
    command: command.argv[0],
    args: command.argv.slice(1),
    transport: TransportKind.stdio,
    options: { cwd: processOptions.cwd, env: processOptions.env },
  };

  let ready = false;
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    synchronize: { configurationSection: SECTION },
    initializationOptions: currentSettings(),
    outputChannel: clientOutput,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    errorHandler: new OneMessageErrorHandler(() => ready),
    middleware: {
      // Push only (see PushDiagnosticsOnly). The server offers no pull provider to a client
      // that does not pull; should one be offered anyway, its pulls answer empty, so no
      // diagnostic is listed twice.
      provideDiagnostics: () => ({ kind: 'full', items: [] }) as unknown as vsdiag.FullDocumentDiagnosticReport,
    },
    // A failed start is reported once, below, where start() rejects.
    initializationFailedHandler: (error) => {
      output.error(`The server failed to initialize: ${errorText(error)}`);
      return false;
    },
  };

  const next = new TokenizerLanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  next.registerFeature(new PushDiagnosticsOnly());
  next.onDidChangeState((event) => {
    if (ready && event.newState === State.Running) {
      output.info('Server restarted.');
      statusBar?.refresh();
    }
  });
  client = next;
  try {
    await next.start();
    if (!next.isRunning()) {
      // start() can resolve although initialize failed (the process exited at once)
      throw new Error('the connection to the server was closed');
    }
    ready = true;
    output.info('Server started.');
    statusBar?.refresh();
  } catch (err) {
    const detail = errorText(err);
    const exitedEarly = /connection got disposed|closed|exited/i.test(detail);
    const message = exitedEarly
      ? `Tokenizer LSP: the server (${describeCommand(command.argv)}) stopped before it was ready. ` +
        'Its messages are in the "Tokenizer LSP" output.'
      : `Tokenizer LSP: could not start ${describeCommand(command.argv)}: ${detail}`;
    output.error(`${message} (${detail})`);
    showStartError(message);
    if (client === next) {
      client = undefined;
    }
    try {
      await next.dispose(2000);
    } catch {
      /* already stopped */
    }
  }
}

async function stopClient(): Promise<void> {
  const running = client;
  client = undefined;
  shownStartError = false;
  if (running) {
    try {
      await running.dispose(5000);
      output.info('Server stopped.');
    } catch (err) {
      output.warn(`Stopping the server: ${errorText(err)}`);
    }
  }
}

let shownStartError = false;

/**
 * One error notification per start attempt, with the command that fixes it and buttons for the
 * setting, another attempt (after installing the package: nothing watches for that) and the log.
 */
function showStartError(message: string, fix?: string): void {
  if (shownStartError) {
    return;
  }
  shownStartError = true;
  const openSettings = 'Open Settings';
  const retry = 'Retry';
  const showLog = 'Show Log';
  const text = fix ? `${message} ${fix}` : message;
  void Promise.resolve(vscode.window.showErrorMessage(text, openSettings, retry, showLog))
    .then(async (choice) => {
      if (choice === openSettings) {
        await vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.server.command`);
      } else if (choice === retry) {
        output.info('Retry requested.');
        await restart();
      } else if (choice === showLog) {
        output.show(true);
      }
    })
    .catch((err) => output.error(`Handling the notification: ${errorText(err)}`));
}

/**
 * vscode-languageclient pops up its own "couldn't create connection to server" (a forced
 * notification) whenever a start fails; startClient reports that failure itself, once, with what
 * to do. Everything still goes to the output channel.
 */
class TokenizerLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    const ownMessage = showNotification === 'force' && message.includes("couldn't create connection to server");
    super.error(message, data, ownMessage ? false : showNotification);
  }
}

/**
 * The server pushes diagnostics (textDocument/publishDiagnostics) to clients that do not pull
 * and answers pulls (textDocument/diagnostic) from the others. This client says it does not
 * pull (registered after the built-in features, it removes their capability) and so gets the
 * pushed diagnostics, which the server also re-sends after a settings change.
 */
class PushDiagnosticsOnly implements StaticFeature {
  fillClientCapabilities(capabilities: Parameters<StaticFeature['fillClientCapabilities']>[0]): void {
    delete capabilities.textDocument?.diagnostic;
    delete capabilities.workspace?.diagnostics;
  }
  getState(): ReturnType<StaticFeature['getState']> {
    return { kind: 'static' };
  }
  initialize(): void {}
  clear(): void {}
}

/**
 * Restarts a crashed server at most 3 times in 3 minutes, then stops and says so once.
 * Connection errors while running are logged, not shown.
 */
class OneMessageErrorHandler implements ErrorHandler {
  private readonly restarts: number[] = [];

  /** `isReady` tells whether start() has succeeded; before that, start() reports failures. */
  constructor(private readonly isReady: () => boolean) {}

  error(): ErrorHandlerResult {
    return { action: ErrorAction.Continue, handled: true };
  }

  closed(): CloseHandlerResult {
    if (!this.isReady()) {
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const now = Date.now();
    this.restarts.push(now);
    while (this.restarts.length > 0 && now - this.restarts[0] > 3 * 60 * 1000) {
      this.restarts.shift();
    }
    if (this.restarts.length <= 3) {
      output.warn('The server stopped unexpectedly; restarting it.');
      return { action: CloseAction.Restart, handled: true };
    }
    const message =
      'Tokenizer LSP: the server stopped 4 times in 3 minutes and will not be restarted. ' +
      'See the "Tokenizer LSP" output, then run "Tokenizer LSP: Restart server".';
    output.error(message);
    showStartError(message);
    return { action: CloseAction.DoNotRestart, handled: true };
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    return err.message;
  }
  if (typeof err === 'object' && err !== null && 'message' in err) {
    return String((err as { message: unknown }).message);
  }
  return String(err);
}
