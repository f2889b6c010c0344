// The server a platform .vsix carries (`npm run package:all`): bundled/libs holds the server
// and its libraries for CPython 3.10-3.14, bundled/tool/launch.py puts the folder for the
// running Python on sys.path. Any Python 3.10+ runs it: the one selected in the Python
// extension, else `python3` (`py -3` on Windows). A development package (`npm run package`)
// has no bundled/libs and the extension imports tokenizer_lsp from the Python instead.
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { ProcessOptions, Resolution } from './python';

const CHECK_TIMEOUT_MS = 30_000;
/** launch.py's exit status when this Python cannot run the bundled server (its one line says why). */
const UNUSABLE = 3;

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

interface CheckResult {
  /** why this Python could not be run at all (not found, not executable, failed) */
  missing?: string;
  ok?: boolean;
  /** launch.py's own line: "ok 3.12.4 <folder>" or what is wrong */
  line: string;
}

function runCheck(python: string[], launcher: string, options: ProcessOptions): Promise<CheckResult> {
  return new Promise((resolve) => {
    execFile(
      python[0],
      [...python.slice(1), launcher, '--check'],
      { timeout: CHECK_TIMEOUT_MS, windowsHide: true, cwd: options.cwd, env: options.env },
      (error, stdout, stderr) => {
        const line = String(stdout).trim().split(/\r?\n/).pop() || String(stderr).trim().split(/\r?\n/).pop() || '';
        if (!error) {
          resolve({ ok: true, line });
          return;
        }
        // `code` is the errno name when the program did not start, its exit status when it ran
        const err = error as Omit<NodeJS.ErrnoException, 'code'> & { code?: string | number; killed?: boolean };
        if (err.code === 'ENOENT' || err.code === 'EACCES') {
          resolve({ missing: err.code === 'ENOENT' ? 'not found' : 'permission denied', line });
        } else if (err.killed) {
          resolve({ missing: `no answer within ${CHECK_TIMEOUT_MS / 1000} s`, line });
        } else if (err.code === UNUSABLE) {
          resolve({ ok: false, line });
        } else {
          // e.g. Windows' `python` alias without a Python behind it (exit status 9009), or
          // macOS's /usr/bin/python3 without the command line tools: try the next one
          resolve({ missing: line || `exit status ${String(err.code)}`, line });
        }
      },
    );
  });
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
    const result = await runCheck(python, launcher, options);
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
