// Starts, restarts and stops the server, one step at a time. Until a tokenizer file is opened
// (or a binary tokenizer file's view, or a restart, asks for it) nothing is started, checked or
// said. Then the command is resolved (python.ts), a client is made (languageClient.ts) and
// started; a changed server command or, with none configured, a changed Python interpreter
// restarts it; deactivation stops it. Steps run in the order they were asked for.
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { isTokenizerDocument } from './detect';
import { errorText } from './errors';
import { createLanguageClient } from './languageClient';
import { describeCommand, onPythonInterpreterChanged, resolveServerCommand, ServerCommand, serverProcessOptions } from './python';
import { SERVER_COMMAND_SETTING, serverCommandIsEmpty } from './settings';
import { StartErrorNotice } from './startErrors';

export class ServerLifecycle {
  private running: LanguageClient | undefined;
  /** Set once a tokenizer file has been opened (or a restart asked for): the server should run. */
  private wanted = false;
  /** Serialises start/stop/restart so two restarts never race. */
  private steps: Promise<void> = Promise.resolve();
  private interpreterSubscription: vscode.Disposable | undefined;
  private readonly startErrors: StartErrorNotice;
  private readonly started = new vscode.EventEmitter<void>();
  /** The server started, or was restarted by the client after a crash. */
  readonly onDidStart = this.started.event;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
    /** What the client is given as its output channel. */
    private readonly clientOutput: vscode.OutputChannel,
  ) {
    this.startErrors = new StartErrorNotice(output, () => this.restart());
  }

  /** The client, while one is starting or running. */
  get client(): LanguageClient | undefined {
    return this.running;
  }

  get isWanted(): boolean {
    return this.wanted;
  }

  /** Starts the server the first time a tokenizer file is open; other files change nothing. */
  consider(doc: vscode.TextDocument): void {
    if (this.wanted || !isTokenizerDocument(doc)) {
      return;
    }
    this.wanted = true;
    this.output.info(`${vscode.workspace.asRelativePath(doc.uri)} is a tokenizer file: starting the server.`);
    void this.queue(() => this.start());
  }

  /** A binary tokenizer file was opened (its decoded view asks): start the server if need be. */
  wantForBinaryFile(): void {
    if (!this.wanted) {
      this.wanted = true;
      this.output.info('A binary tokenizer file was opened: starting the server.');
      void this.queue(() => this.start());
    }
  }

  /** Stops the server if it runs and starts it again; `reason` goes to the log first. */
  restart(reason?: string): Promise<void> {
    if (reason) {
      this.output.info(reason);
    }
    this.wanted = true;
    return this.queue(async () => {
      await this.stop();
      await this.start();
    });
  }

  /**
   * Every other tokenizerLsp setting reaches the running server through
   * workspace/didChangeConfiguration (synchronize.configurationSection); only a new server
   * command needs a new process.
   */
  configurationChanged(event: vscode.ConfigurationChangeEvent): void {
    if (event.affectsConfiguration(SERVER_COMMAND_SETTING) && this.wanted) {
      void this.restart(`${SERVER_COMMAND_SETTING} changed: restarting the server.`);
    }
  }

  /** Stops the server, after whatever start or restart is under way. */
  shutdown(): Promise<void> {
    return this.queue(() => this.stop());
  }

  private queue(step: () => Promise<void>): Promise<void> {
    this.steps = this.steps.then(step, step).catch((err) => {
      this.output.error(`Unexpected error: ${errorText(err)}`);
    });
    return this.steps;
  }

  /** With no server command configured, follow the Python extension's interpreter choice. */
  private async followInterpreterChanges(): Promise<void> {
    if (this.interpreterSubscription || !vscode.extensions.getExtension('ms-python.python')) {
      return;
    }
    const subscription = await onPythonInterpreterChanged(this.output, () => {
      if (this.wanted && serverCommandIsEmpty()) {
        void this.restart('The Python interpreter changed: restarting the server.');
      }
    });
    if (subscription && !this.interpreterSubscription) {
      this.interpreterSubscription = subscription;
      this.context.subscriptions.push(subscription);
    } else {
      subscription?.dispose();
    }
  }

  private async start(): Promise<void> {
    this.startErrors.reset();
    // the import check and the server run in the same folder with the same environment
    const processOptions = serverProcessOptions();
    const resolved = await resolveServerCommand(this.output, processOptions);
    void this.followInterpreterChanges().catch((err) => this.output.warn(`Python extension: ${errorText(err)}`));
    if (!resolved.ok) {
      this.output.error(resolved.fix ? `${resolved.message} ${resolved.fix}` : resolved.message);
      this.startErrors.show(resolved.message, resolved.fix);
      return;
    }
    const command: ServerCommand = resolved.command;
    this.output.info(
      `Starting server: ${describeCommand(command.argv)} --stdio (from ${command.source}; in ${processOptions.cwd})`,
    );

    let ready = false;
    const next = createLanguageClient(command, processOptions, {
      output: this.output,
      clientOutput: this.clientOutput,
      isReady: () => ready,
      showStartError: (message) => this.startErrors.show(message),
    });
    next.onDidChangeState((event) => {
      if (ready && event.newState === State.Running) {
        this.output.info('Server restarted.');
        this.started.fire();
      }
    });
    this.running = next;
    try {
      await next.start();
      if (!next.isRunning()) {
        // start() can resolve although initialize failed (the process exited at once)
        throw new Error('the connection to the server was closed');
      }
      ready = true;
      this.output.info('Server started.');
      this.started.fire();
    } catch (err) {
      const detail = errorText(err);
      const exitedEarly = /connection got disposed|closed|exited/i.test(detail);
      const message = exitedEarly
        ? `Tokenizer LSP: the server (${describeCommand(command.argv)}) stopped before it was ready. ` +
          'Its messages are in the "Tokenizer LSP" output.'
        : `Tokenizer LSP: could not start ${describeCommand(command.argv)}: ${detail}`;
      this.output.error(`${message} (${detail})`);
      this.startErrors.show(message);
      if (this.running === next) {
        this.running = undefined;
      }
      try {
        await next.dispose(2000);
      } catch {
        /* already stopped */
      }
    }
  }

  private async stop(): Promise<void> {
    const running = this.running;
    this.running = undefined;
    this.startErrors.reset();
    if (running) {
      try {
        await running.dispose(5000);
        this.output.info('Server stopped.');
      } catch (err) {
        this.output.warn(`Stopping the server: ${errorText(err)}`);
      }
    }
  }
}
