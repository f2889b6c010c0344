// Which command starts the server: the `tokenizerLsp.server.command` setting, else the
// interpreter selected in the Python extension (ms-python.python), else `python3`. A platform
// .vsix runs that Python on the server it carries (bundled.ts); a development package checks,
// before anything is started, that this Python can import `tokenizer_lsp`. Checks run with the
// same working directory and environment as the server itself (serverProcessOptions).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { bundledLauncher, defaultPythons, resolveBundled } from './bundled';
import { CHECK_TIMEOUT_MS, ProcessOptions, Resolution, runProcess } from './processes';

// the types the rest of the client imports from here
export type { ProcessOptions, Resolution, ServerCommand } from './processes';

export function serverProcessOptions(): ProcessOptions {
  const folder = firstWorkspaceFolder();
  let cwd = os.homedir();
  if (folder?.scheme === 'file') {
    try {
      if (fs.statSync(folder.fsPath).isDirectory()) {
        cwd = folder.fsPath;
      }
    } catch {
      /* gone: the home folder */
    }
  }
  return { cwd, env: { ...process.env, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' } };
}

const MODULE = 'tokenizer_lsp';
const PYTHON_EXTENSION = 'ms-python.python';

/** Minimal shape of the parts of the Python extension's API that are used here. */
interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string } | undefined;
    resolveEnvironment(
      env: { id: string; path: string } | string,
    ): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: {
    getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined };
  };
}

export function describeCommand(argv: readonly string[]): string {
  return argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** Expands `~`, `${userHome}` and `${workspaceFolder}` in one argument of the configured command. */
export function expandVariables(arg: string, home: string, workspaceFolder: string | undefined): string {
  let out = arg.replace(/^~(?=$|[\\/])/, home).replace(/\$\{userHome\}/g, home);
  if (workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  return out;
}

/** The configured argv, or undefined when the setting is empty (a lone string is accepted too). */
function configuredCommand(): string[] | undefined {
  const value = vscode.workspace.getConfiguration('tokenizerLsp').get<unknown>('server.command');
  let argv: string[] = [];
  if (typeof value === 'string') {
    argv = [value.trim()];
  } else if (Array.isArray(value)) {
    argv = value.filter((a): a is string => typeof a === 'string');
  }
  if (argv.length === 0 || argv[0].trim() === '') {
    return undefined;
  }
  const folder = firstWorkspaceFolder()?.fsPath;
  return argv.map((a) => expandVariables(a, os.homedir(), folder));
}

function firstWorkspaceFolder(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

let pythonApi: Promise<PythonExtensionApi | undefined> | undefined;

/**
 * The Python extension's API when that extension is installed, activating it if needed. Only a
 * successful answer is kept: after a timeout or a failure the next call asks again.
 */
export function getPythonApi(log: vscode.LogOutputChannel): Promise<PythonExtensionApi | undefined> {
  if (!pythonApi) {
    const asking: Promise<PythonExtensionApi | undefined> = (async () => {
      const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
      if (!extension) {
        return undefined;
      }
      try {
        if (!extension.isActive) {
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), 20_000);
          });
          const activated = await Promise.race([extension.activate(), timeout]);
          clearTimeout(timer);
          if (activated === undefined) {
            log.warn('The Python extension did not activate within 20 s; not using its interpreter this time.');
            return undefined;
          }
          return activated;
        }
        return extension.exports;
      } catch (err) {
        log.warn(`The Python extension failed to activate: ${String(err)}`);
        return undefined;
      }
    })();
    pythonApi = asking;
    void asking.then((api) => {
      if (api === undefined && pythonApi === asking) {
        pythonApi = undefined;
      }
    });
  }
  return pythonApi;
}

/** argv prefix that runs the Python extension's active interpreter, if there is one. */
async function pythonFromExtension(log: vscode.LogOutputChannel): Promise<string[] | undefined> {
  const api = await getPythonApi(log);
  if (!api) {
    return undefined;
  }
  const resource = firstWorkspaceFolder();
  try {
    const envs = api.environments;
    if (envs) {
      const active = envs.getActiveEnvironmentPath(resource);
      if (active) {
        const resolved = await envs.resolveEnvironment(active);
        const executable = resolved?.executable.uri?.fsPath;
        if (executable) {
          return [executable];
        }
      }
    }
  } catch (err) {
    log.warn(`Python extension: environments API failed: ${String(err)}`);
  }
  try {
    const execCommand = api.settings?.getExecutionDetails(resource).execCommand;
    if (execCommand && execCommand.length > 0) {
      return execCommand;
    }
  } catch (err) {
    log.warn(`Python extension: settings API failed: ${String(err)}`);
  }
  return undefined;
}

function lastLine(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  return lines.length > 0 ? lines[lines.length - 1] : '';
}

/** The repository clone open in the workspace, if any: then the install command names its path. */
function cloneInWorkspace(): string | undefined {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme !== 'file') {
      continue;
    }
    try {
      const pyproject = fs.readFileSync(path.join(folder.uri.fsPath, 'pyproject.toml'), 'utf8');
      if (/^name\s*=\s*["']tokenizer-lsp["']/m.test(pyproject)) {
        return folder.uri.fsPath;
      }
    } catch {
      /* not a clone */
    }
  }
  return undefined;
}

/** The venv the install command creates, and the setting value that runs its server. */
export function installCommand(): { shell: string; setting: string } {
  const clone = cloneInWorkspace() ?? '/path/to/tokenizer-lsp';
  const where = describeCommand([clone]);
  if (process.platform === 'win32') {
    const venv = '%USERPROFILE%\\.venvs\\tokenizer-lsp';
    return {
      shell: `python -m venv ${venv} && ${venv}\\Scripts\\pip install ${where}`,
      setting: '["${userHome}/.venvs/tokenizer-lsp/Scripts/tokenizer-lsp.exe"]',
    };
  }
  return {
    shell: `python3 -m venv ~/.venvs/tokenizer-lsp && ~/.venvs/tokenizer-lsp/bin/pip install ${where}`,
    setting: '["~/.venvs/tokenizer-lsp/bin/tokenizer-lsp"]',
  };
}

/** How to get a working server: the package is not on PyPI, so from a clone into its own venv. */
export function installFix(): string {
  if (bundledLauncher()) {
    return 'Clear the setting "tokenizerLsp.server.command" to use the server this extension carries.';
  }
  const { shell, setting } = installCommand();
  return (
    `tokenizer-lsp is not on PyPI: install it from a clone of its repository into a venv with \`${shell}\`, ` +
    `then set "tokenizerLsp.server.command" to ${setting}.`
  );
}

/** Checks that `python` (an argv prefix) can import tokenizer_lsp; undefined when it can. */
export async function checkImportable(
  python: string[],
  options: ProcessOptions,
): Promise<{ message: string; fix?: string } | undefined> {
  const shown = describeCommand(python);
  const result = await runProcess([...python, '-c', `import ${MODULE}`], options);
  if (result.code === 0) {
    return undefined;
  }
  if (result.errno === 'ENOENT' || result.errno === 'EACCES') {
    return {
      message: `Tokenizer LSP: cannot run Python: ${shown} (${result.errno === 'ENOENT' ? 'not found' : 'permission denied'}).`,
      fix: `Install Python 3.10 or newer. ${installFix()}`,
    };
  }
  if (result.errno === 'ETIMEDOUT') {
    return {
      message: `Tokenizer LSP: \`${shown} -c "import ${MODULE}"\` did not finish within ${CHECK_TIMEOUT_MS / 1000} s.`,
    };
  }
  if (result.errno) {
    return { message: `Tokenizer LSP: cannot run ${shown}: ${result.errno}.` };
  }
  const detail = lastLine(result.stderr);
  if (/No module named ['"]?tokenizer_lsp['"]?/.test(result.stderr)) {
    return {
      message: `Tokenizer LSP: the Python package ${MODULE} is not installed for ${shown}.`,
      fix: installFix(),
    };
  }
  return {
    message: `Tokenizer LSP: \`${shown} -c "import ${MODULE}"\` failed: ${detail || `exit status ${result.code}`}.`,
    fix: `${bundledLauncher() ? '' : 'Reinstall it from a clone of the repository. '}${installFix()}`,
  };
}

/** Whether `program` can be run: an executable path (relative ones from `cwd`), or a name on PATH. */
export function isRunnable(program: string, cwd: string): boolean {
  const canRun = (p: string): boolean => {
    try {
      fs.accessSync(p, process.platform === 'win32' ? fs.constants.F_OK : fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes('/') || program.includes(path.sep)) {
    return canRun(path.resolve(cwd, program));
  }
  const exts = process.platform === 'win32' ? (process.env.PATHEXT || '.EXE;.CMD;.BAT').split(';') : [''];
  return (process.env.PATH || '')
    .split(path.delimiter)
    .filter((d) => d !== '')
    .some((dir) => exts.some((ext) => canRun(path.join(dir, program + ext))));
}

/** Index of `-m tokenizer_lsp` in argv, so argv.slice(0, index) is the Python to check. */
function moduleFlagIndex(argv: string[]): number {
  for (let i = 1; i + 1 < argv.length; i++) {
    if (argv[i] === '-m' && argv[i + 1] === MODULE) {
      return i;
    }
  }
  return -1;
}

export async function resolveServerCommand(log: vscode.LogOutputChannel, options: ProcessOptions): Promise<Resolution> {
  const configured = configuredCommand();
  if (configured) {
    const source = 'setting tokenizerLsp.server.command';
    const at = moduleFlagIndex(configured);
    if (at > 0) {
      const problem = await checkImportable(configured.slice(0, at), options);
      if (problem) {
        return {
          ok: false,
          message: `${problem.message.replace(/\.$/, '')} (from the setting "tokenizerLsp.server.command").`,
          fix: problem.fix,
        };
      }
    }
    if (at <= 0 && !isRunnable(configured[0], options.cwd)) {
      return {
        ok: false,
        message:
          `Tokenizer LSP: cannot run ${describeCommand([configured[0]])} (from the setting "tokenizerLsp.server.command"): ` +
          'not found or not executable.',
        fix: installFix(),
      };
    }
    return { ok: true, command: { argv: configured, source } };
  }

  const fromExtension = await pythonFromExtension(log);
  const launcher = bundledLauncher();
  if (launcher) {
    const candidates = fromExtension ? [fromExtension] : defaultPythons();
    const from = fromExtension ? 'the interpreter selected in the Python extension' : 'the default Python';
    return resolveBundled(launcher, candidates, from, options, log);
  }
  const python = fromExtension ?? [process.platform === 'win32' ? 'python' : 'python3'];
  const source = fromExtension ? 'the interpreter selected in the Python extension' : 'the default python3';
  log.info(`Using Python ${describeCommand(python)} (${source}).`);
  const problem = await checkImportable(python, options);
  if (problem) {
    return { ok: false, ...problem };
  }
  return { ok: true, command: { argv: [...python, '-m', MODULE], source } };
}

/** Calls `listener` when the Python extension's selected interpreter changes. */
export async function onPythonInterpreterChanged(
  log: vscode.LogOutputChannel,
  listener: () => void,
): Promise<vscode.Disposable | undefined> {
  const api = await getPythonApi(log);
  const event = api?.environments?.onDidChangeActiveEnvironmentPath;
  return event ? event(() => listener()) : undefined;
}
