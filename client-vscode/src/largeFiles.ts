// VS Code treats a file over 300,000 lines or 20 M characters as "large" (editor.largeFileOptimizations):
// it then draws no inlay hints at all, and most real tokenizer.json files (Qwen, Llama 3, Gemma)
// are that large. The .tiktoken and merges languages get the optimisation turned off by the
// manifest's configurationDefaults; JSON is shared with every other JSON file, so for a large
// tokenizer JSON the user is told once and offered to turn it off for JSON files.
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { isTokenizerDocument } from './detect';

/** TextModel.LARGE_FILE_LINE_COUNT_THRESHOLD and LARGE_FILE_SIZE_THRESHOLD (characters) in VS Code. */
export const LARGE_FILE_LINES = 300_000;
export const LARGE_FILE_CHARS = 20 * 1024 * 1024;

const NEVER_AGAIN_KEY = 'tokenizerLsp.largeFileNotice.neverShow';

export function registerLargeFileNotice(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const notified = new Set<string>();

  const consider = (editor: vscode.TextEditor | undefined): void => {
    const doc = editor?.document;
    if (!doc || doc.uri.scheme !== 'file' || doc.languageId !== 'json' || !isTokenizerDocument(doc)) {
      return;
    }
    if (context.globalState.get<boolean>(NEVER_AGAIN_KEY) || notified.has(doc.uri.toString())) {
      return;
    }
    const optimised = vscode.workspace.getConfiguration('editor', doc).get<boolean>('largeFileOptimizations', true);
    if (!optimised) {
      return;
    }
    let bytes = 0;
    try {
      bytes = fs.statSync(doc.uri.fsPath).size;
    } catch {
      /* unsaved or gone: judge by lines */
    }
    // VS Code counts characters (UTF-16 units); the byte size only rules small files out cheaply.
    const tooManyLines = doc.lineCount > LARGE_FILE_LINES;
    if (!tooManyLines && (bytes <= LARGE_FILE_CHARS || doc.getText().length <= LARGE_FILE_CHARS)) {
      return;
    }
    notified.add(doc.uri.toString());
    const name = path.basename(doc.uri.fsPath);
    const size =
      tooManyLines
        ? `${doc.lineCount.toLocaleString('en-US')} lines`
        : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
    log.info(`${name} is a large file for VS Code (${size}): inlay hints are not drawn while editor.largeFileOptimizations is on.`);
    const turnOff = 'Turn Off for JSON Files';
    const never = "Don't Show Again";
    void Promise.resolve(vscode.window
      .showInformationMessage(
        `Tokenizer LSP: ${name} has ${size}, so VS Code's large-file mode hides its inlay hints (decoded tokens). ` +
          'Turn off "editor.largeFileOptimizations" for JSON files and reopen the file to see them.',
        turnOff,
        never,
      ))
      .then(async (choice) => {
        if (choice === turnOff) {
          await vscode.workspace
            .getConfiguration('editor', { languageId: 'json' })
            .update('largeFileOptimizations', false, vscode.ConfigurationTarget.Global, true);
          log.info('Set "[json]": {"editor.largeFileOptimizations": false} in user settings.');
          void vscode.window.showInformationMessage(
            `Tokenizer LSP: large-file mode is off for JSON files. Close and reopen ${name} to see its inlay hints.`,
          );
        } else if (choice === never) {
          await context.globalState.update(NEVER_AGAIN_KEY, true);
        }
      })
      .catch((err: unknown) => {
        log.error(`Large-file notice: ${err instanceof Error ? err.message : String(err)}`);
      });
  };

  context.subscriptions.push(vscode.window.onDidChangeActiveTextEditor(consider));
  consider(vscode.window.activeTextEditor);
}
