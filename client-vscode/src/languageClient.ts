// The vscode-languageclient client as this server needs it: the documents it is given, the
// settings it starts with, diagnostics pushed (never pulled), and failures reported by the
// extension once, in its own words, rather than by the library's pop-ups. When a client is
// started and stopped is serverLifecycle.ts's business.
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
  StaticFeature,
  TransportKind,
  vsdiag,
} from 'vscode-languageclient/node';
import { DECODED_SCHEME } from './binaryView';
import { LANGUAGE_KINDS } from './detect';
import { errorText } from './errors';
import { ProcessOptions, ServerCommand } from './python';
import { currentSettings, SECTION } from './settings';

export const CLIENT_ID = 'tokenizerLsp';
/** The client's name, and the name of its output channel. */
export const CLIENT_NAME = 'Tokenizer LSP';

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

export interface ClientHooks {
  /** The extension's log. */
  output: vscode.LogOutputChannel;
  /** What the client is given as its output channel (the server's stderr, its traces). */
  clientOutput: vscode.OutputChannel;
  /** Whether start() has succeeded; before that, the caller of start() reports failures. */
  isReady: () => boolean;
  /** Shows why the server will not be restarted (once per start attempt). */
  showStartError: (message: string) => void;
}

/** A client, not yet started, for the server `command` run with `processOptions`. */
export function createLanguageClient(command: ServerCommand, processOptions: ProcessOptions, hooks: ClientHooks): LanguageClient {
  const serverOptions: ServerOptions = {
    command: command.argv[0],
    args: command.argv.slice(1),
    transport: TransportKind.stdio,
    options: { cwd: processOptions.cwd, env: processOptions.env },
  };

  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    synchronize: { configurationSection: SECTION },
    initializationOptions: currentSettings(),
    outputChannel: hooks.clientOutput,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    errorHandler: new OneMessageErrorHandler(hooks),
    middleware: {
      // Push only (see PushDiagnosticsOnly). The server offers no pull provider to a client
      // that does not pull; should one be offered anyway, its pulls answer empty, so no
      // diagnostic is listed twice.
      provideDiagnostics: () => ({ kind: 'full', items: [] }) as unknown as vsdiag.FullDocumentDiagnosticReport,
    },
    // A failed start is reported once, where start() rejects (serverLifecycle.ts).
    initializationFailedHandler: (error) => {
      hooks.output.error(`The server failed to initialize: ${errorText(error)}`);
      return false;
    },
  };

  const client = new TokenizerLanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
  client.registerFeature(new PushDiagnosticsOnly());
  return client;
}

/**
 * vscode-languageclient pops up its own "couldn't create connection to server" (a forced
 * notification) whenever a start fails; the extension reports that failure itself, once, with
 * what to do. Everything still goes to the output channel.
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

  constructor(private readonly hooks: ClientHooks) {}

  error(): ErrorHandlerResult {
    return { action: ErrorAction.Continue, handled: true };
  }

  closed(): CloseHandlerResult {
    if (!this.hooks.isReady()) {
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    const now = Date.now();
    this.restarts.push(now);
    while (this.restarts.length > 0 && now - this.restarts[0] > 3 * 60 * 1000) {
      this.restarts.shift();
    }
    if (this.restarts.length <= 3) {
      this.hooks.output.warn('The server stopped unexpectedly; restarting it.');
      return { action: CloseAction.Restart, handled: true };
    }
    const message =
      'Tokenizer LSP: the server stopped 4 times in 3 minutes and will not be restarted. ' +
      'See the "Tokenizer LSP" output, then run "Tokenizer LSP: Restart server".';
    this.hooks.output.error(message);
    this.hooks.showStartError(message);
    return { action: CloseAction.DoNotRestart, handled: true };
  }
}
