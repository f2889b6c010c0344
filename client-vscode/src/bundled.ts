// The server a platform .vsix carries (`npm run package:all`): bundled/libs holds the server
// and its libraries for CPython 3.10-3.14, bundled/tool/launch.py puts the folder for the
// running Python on sys.path. Any Python 3.10+ runs it: the one selected in the Python
// extension, else `python3` (`py -3` on Windows). A development package (`npm run package`)
// has no bundled/libs and the extension imports tokenizer_lsp from the Python instead.
import * as fs from 'fs';
import * as path from 'path';
import { ProcessOptions, Resolution, runLauncherCheck } from './processes';

/** bundled/tool/launch.py when this package carries the libraries, else undefined. */
export function bundledLauncher(extensionRoot = path.join(__dirname, '..')): string | undefined {
  const launcher = path.join(extensionRoot, 'bundled', 'tool', 'launch.py');
  const common = path.join(extensionRoot, 'bundled', 'libs', 'common');
  return fs.existsSync(launcher) && fs.existsSync(common) ? launcher : undefined;
}

/** The Pythons to try, in order, when the Python extension names none. */
export function defaultPythons(platform: NodeJS.Platform = process.platform): string[][] {
  return platform === 'win32' ? [['py', '-3'], ['python'], ['python3']] : [['python3'], ['python']];
}

/** What to install, said once in every message that lacks a usable Python. */
export function pythonFix(platform: NodeJS.Platform = process.platform): string {
  const how =
    platform === 'win32'
      ? 'from python.org or the Microsoft Store (it provides `py`)'
      : platform === 'darwin'
        ? 'from python.org or with `brew install python@3.13`'
        : 'with your package manager (e.g. `sudo apt install python3`) or from python.org';
  return (
    `Install Python 3.10 or newer ${how}, or select a Python 3.10+ interpreter in the Python extension, ` +
    'then press Retry. Nothing else needs installing: the extension carries the server and its libraries.'
  );
}

function shown(argv: readonly string[]): string {
  return argv.join(' ');
}

/**
 * The command that runs the bundled server: the first of `candidates` that is a usable Python.
 * One message names every Python tried and what to install when none is.
 */
export async function resolveBundled(
  launcher: string,
  candidates: string[][],
  source: string,
  options: ProcessOptions,
  log: { info(message: string): void },
): Promise<Resolution> {
  const tried: string[] = [];
  for (const python of candidates) {
    const result = await runLauncherCheck(python, launcher, options);
    if (result.ok) {
      log.info(`Using Python ${shown(python)} (${source}) with the bundled libraries: ${result.line}.`);
      return { ok: true, command: { argv: [...python, launcher], source: `${source} with the bundled server` } };
    }
    if (result.missing) {
      tried.push(`${shown(python)} (${result.missing})`);
      continue;
    }
    // a Python that runs but cannot be used (too old, another implementation): say so at once
    return {
      ok: false,
      message: `Tokenizer LSP cannot use ${shown(python)} (${source}): ${result.line.replace(/\.$/, '')}.`,
      fix: pythonFix(),
    };
  }
  return {
    ok: false,
    message: `Tokenizer LSP needs Python 3.10 or newer and found none (tried ${tried.join(', ')}).`,
    fix: pythonFix(),
  };
}
