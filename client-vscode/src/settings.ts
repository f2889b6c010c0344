// The extension's settings (the `tokenizerLsp` section of package.json's `configuration`) as
// the rest of the client reads them: the whole section for the server, which reads it itself
// (initializationOptions, then workspace/didChangeConfiguration), and the one setting the
// client acts on, the command that starts the server.
import * as vscode from 'vscode';

export const SECTION = 'tokenizerLsp';
/** The setting whose change needs a new server process (every other one reaches the running server). */
export const SERVER_COMMAND_SETTING = `${SECTION}.server.command`;

/** The `tokenizerLsp` settings as one plain JSON object, as the server expects them. */
export function currentSettings(): Record<string, unknown> {
  const value = vscode.workspace.getConfiguration().get<Record<string, unknown>>(SECTION) ?? {};
  return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
}

/** No server command is configured: the client picks the Python (and follows the Python extension's). */
export function serverCommandIsEmpty(): boolean {
  const configured = vscode.workspace.getConfiguration(SECTION).get<unknown>('server.command');
  return Array.isArray(configured) ? configured.length === 0 : !configured;
}
