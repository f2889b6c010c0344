// The one error notification of a start attempt (or of a server that keeps crashing): the
// message with the command that fixes it, and buttons for the setting, another attempt (after
// installing the package: nothing watches for that) and the log. Further failures of the same
// attempt go to the log only.
import * as vscode from 'vscode';
import { errorText } from './errors';
import { SERVER_COMMAND_SETTING } from './settings';

export class StartErrorNotice {
  private shown = false;

  constructor(
    private readonly output: vscode.LogOutputChannel,
    /** What "Retry" does: a restart of the server. */
    private readonly retry: () => Promise<void>,
  ) {}

  /** A new start attempt (or a stop): its failure may be shown again. */
  reset(): void {
    this.shown = false;
  }

  show(message: string, fix?: string): void {
    if (this.shown) {
      return;
    }
    this.shown = true;
    const openSettings = 'Open Settings';
    const retry = 'Retry';
    const showLog = 'Show Log';
    const text = fix ? `${message} ${fix}` : message;
    void Promise.resolve(vscode.window.showErrorMessage(text, openSettings, retry, showLog))
      .then(async (choice) => {
        if (choice === openSettings) {
          await vscode.commands.executeCommand('workbench.action.openSettings', SERVER_COMMAND_SETTING);
        } else if (choice === retry) {
          this.output.info('Retry requested.');
          await this.retry();
        } else if (choice === showLog) {
          this.output.show(true);
        }
      })
      .catch((err) => this.output.error(`Handling the notification: ${errorText(err)}`));
  }
}
