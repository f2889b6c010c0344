// The client's process runners, in one module: the types of a server command and of the
// working directory and environment it runs in, and the two checks run before a server is
// started (python.ts: can this Python import tokenizer_lsp; bundled.ts: can it run the bundled
// server). python.ts and bundled.ts both import from here, and neither from the other's types.
import { execFile } from 'child_process';

export const CHECK_TIMEOUT_MS = 30_000;
/** launch.py's exit status when this Python cannot run the bundled server (its one line says why). */
const UNUSABLE = 3;

export interface ServerCommand {
  /** Full argv without `--stdio` (vscode-languageclient appends it). */
  argv: string[];
  /** Where the command came from, for the log. */
  source: string;
}

export type Resolution =
  | { ok: true; command: ServerCommand }
  | { ok: false; message: string; fix?: string };

/** Where the server runs and the check runs: the first workspace folder, else the home folder. */
export interface ProcessOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** Runs `argv` (in the server's cwd and environment) and reports how it ended; never throws. */
export function runProcess(argv: string[], options: ProcessOptions): Promise<{ code: number | null; errno?: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      argv[0],
      argv.slice(1),
      { timeout: CHECK_TIMEOUT_MS, windowsHide: true, cwd: options.cwd, env: options.env },
      (error, _stdout, stderr) => {
        if (!error) {
          resolve({ code: 0, stderr: String(stderr) });
          return;
        }
        const err = error as NodeJS.ErrnoException & { code?: unknown; killed?: boolean };
        if (typeof err.code === 'string') {
          resolve({ code: null, errno: err.code, stderr: String(stderr) });
        } else if (err.killed) {
          resolve({ code: null, errno: 'ETIMEDOUT', stderr: String(stderr) });
        } else {
          resolve({ code: typeof err.code === 'number' ? err.code : 1, stderr: String(stderr) });
        }
      },
    );
  });
}

export interface CheckResult {
  /** why this Python could not be run at all (not found, not executable, failed) */
  missing?: string;
  ok?: boolean;
  /** launch.py's own line: "ok 3.12.4 <folder>" or what is wrong */
  line: string;
}

export function runLauncherCheck(python: string[], launcher: string, options: ProcessOptions): Promise<CheckResult> {
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
