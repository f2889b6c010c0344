// End-to-end test of the platform packages (`npm run package:all`). Run through
// scripts/vscode-bundled-e2e.sh, which builds them and installs code-server first.
//
// 1. every dist/tokenizer-lsp-<target>.vsix: manifest target, size, and the compiled modules of
//    orjson, regex, tiktoken and tokenizers for each CPython 3.10-3.14 (vsix-contents.mjs);
// 2. the linux-x64 launcher on each CPython 3.10+ found on this machine, in a venv with nothing
//    installed: `launch.py --check`, then an LSP initialize/shutdown over stdio; a Python older
//    than 3.10 gets the one-line message;
// 3. real VS Code (code-server) with the linux-x64 .vsix in a fresh profile without the Python
//    extension, whose only Python is such a venv (first on PATH; no other Python on PATH imports
//    pygls or orjson): opening a corpus tokenizer.json starts the bundled server, and a hover,
//    a utf8-fragment diagnostic and the status bar item (when the extension has one) show.
//
// Env: CODE_SERVER_BIN (required), TOKENIZER_CORPUS (default ../shared/corpus), CHROMIUM,
//      E2E_BASE_PYTHON (the venv's base, default python3), E2E_KEEP_TMP=1.
// Prints one line per check and "N passed, N failed"; exits non-zero on a failure.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { checkVsix, TARGETS } from './vsix-contents.mjs';
import { lspSmoke } from './lsp-smoke.mjs';
import { buildWorkspace } from './workspace.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const ART = path.join(ROOT, 'artifacts', 'vscode-bundled');
const CODE_SERVER = process.env.CODE_SERVER_BIN;
const CORPUS = process.env.TOKENIZER_CORPUS || path.join(ROOT, '..', 'shared', 'corpus');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const EXTENSION_ID = 'tokenizer-lsp.tokenizer-lsp';
const WAIT_SERVER_MS = 120_000;
const vsixOf = (target) => path.join(ROOT, 'dist', `tokenizer-lsp-${target}.vsix`);

const log = (msg) => console.error(`[e2e-bundled] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const norm = (s) => s.replace(/\u00a0/g, ' ').replace(/\u200b|\u200c/g, '');

async function until(fn, timeoutMs, intervalMs = 500) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const last = await Promise.resolve().then(fn).catch(() => undefined);
    if (last || Date.now() > end) return last;
    await sleep(intervalMs);
  }
}

const results = [];
function report(name, ok, detail) {
  results.push({ name, ok });
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}: ${String(detail).replace(/\s+/g, ' ').slice(0, 700)}`);
}
async function check(name, fn) {
  try {
    report(name, true, (await fn()) || '');
  } catch (err) {
    report(name, false, err instanceof Error ? err.message : String(err));
  }
  if (page) await page.screenshot({ path: path.join(ART, `${name}.png`) }).catch(() => {});
}
const fail = (msg) => {
  throw new Error(msg);
};

fs.rmSync(ART, { recursive: true, force: true });
fs.mkdirSync(ART, { recursive: true });
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'tokenizer-lsp-bundled-'));
let page;
let browser;
let codeServer;
let codeServerExited = false;

// ---- 1. what each .vsix holds ---------------------------------------------------------------------
for (const target of TARGETS) {
  for (const r of checkVsix(vsixOf(target), target)) report(`vsix ${r.name}`, r.ok, r.detail);
}

// ---- 2. the launcher on this machine's Pythons, each in a bare venv --------------------------------
const unpacked = path.join(TMP, 'linux-x64');
execFileSync('unzip', ['-q', vsixOf('linux-x64'), 'extension/bundled/*', '-d', unpacked]);
const LAUNCHER = path.join(unpacked, 'extension', 'bundled', 'tool', 'launch.py');

/** A venv with nothing in it (not even pip) made from `base`; returns its python. */
function bareVenv(base, dir) {
  execFileSync(base, ['-m', 'venv', '--without-pip', dir], { stdio: 'pipe' });
  return path.join(dir, 'bin', 'python');
}

const pythonVersion = (exe) => {
  const r = spawnSync(exe, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
};
// this machine's CPythons: E2E_PYTHONS (paths), pyenv's versions, python3.X and python3 on PATH
const pyenvVersions = path.join(process.env.PYENV_ROOT || path.join(os.homedir(), '.pyenv'), 'versions');
const candidates = [
  ...(process.env.E2E_PYTHONS || '').split(/\s+/).filter(Boolean),
  ...(fs.existsSync(pyenvVersions) ? fs.readdirSync(pyenvVersions).sort().map((d) => path.join(pyenvVersions, d, 'bin', 'python3')) : []),
  'python3.10', 'python3.11', 'python3.12', 'python3.13', 'python3.14', 'python3',
];
const found = new Map();
for (const exe of candidates) {
  const v = pythonVersion(exe);
  if (v && !found.has(v)) found.set(v, exe);
}
// What the engines must give, computed by tokenizers and tiktoken themselves in the repo's venv
const SAMPLE = 'hello world 我';
const engineFiles = {
  tokenizers: path.join(CORPUS, 'qwen3', 'tokenizer.json'),
  tiktoken: path.join(CORPUS, 'openai-tiktoken', 'o200k_base.tiktoken'),
};
const REFERENCE = `
import json, sys
import tiktoken, tiktoken.load, tiktoken_ext.openai_public as op
from tokenizers import Tokenizer
tok_path, tik_path, text = sys.argv[1:4]
local = tiktoken.load.load_tiktoken_bpe(tik_path)
op.load_tiktoken_bpe = lambda *args, **kwargs: local  # the corpus file, not a download
print(json.dumps({"tokenizers": Tokenizer.from_file(tok_path).encode(text, add_special_tokens=False).ids,
                  "tiktoken": tiktoken.Encoding(**op.o200k_base()).encode(text)}))
`;
const venvPython = path.join(ROOT, '.venv', 'bin', 'python');
const expectedIds =
  fs.existsSync(engineFiles.tokenizers) && fs.existsSync(engineFiles.tiktoken) && fs.existsSync(venvPython)
    ? JSON.parse(execFileSync(venvPython, ['-c', REFERENCE, engineFiles.tokenizers, engineFiles.tiktoken, SAMPLE], { encoding: 'utf8' }))
    : undefined;
if (!expectedIds) console.log('SKIP launcher encode: no corpus qwen3 + o200k_base or no .venv to compute the expected ids');

for (const v of ['3.10', '3.11', '3.12', '3.13', '3.14']) {
  if (!found.has(v)) {
    console.log(`SKIP launcher CPython ${v}: no python${v} on this machine`);
    continue;
  }
  await check(`launcher-cpython-${v}`, async () => {
    const py = bareVenv(found.get(v), path.join(TMP, `venv-${v}`));
    const bare = spawnSync(py, ['-c', 'import pygls'], { encoding: 'utf8' });
    if (bare.status === 0) fail(`the venv of ${found.get(v)} imports pygls by itself`);
    const checked = spawnSync(py, [LAUNCHER, '--check'], { encoding: 'utf8' });
    if (checked.status !== 0 || !checked.stdout.startsWith(`ok ${v}.`)) fail(`launch.py --check: exit ${checked.status}, ${JSON.stringify(checked.stdout + checked.stderr)}`);
    const smoke = await lspSmoke([py, LAUNCHER, '--stdio']);
    const encoded = [];
    for (const [engine, file] of Object.entries(expectedIds ? engineFiles : {})) {
      const out = spawnSync(py, [LAUNCHER, 'encode', '--format', 'json', file, SAMPLE], { encoding: 'utf8' });
      const ids = out.status === 0 ? JSON.parse(out.stdout).ids : undefined;
      if (JSON.stringify(ids) !== JSON.stringify(expectedIds[engine])) {
        fail(`encode ${path.basename(file)} ${JSON.stringify(SAMPLE)} with the bundled ${engine}: ${JSON.stringify(ids ?? out.stderr.slice(-300))}, want ${JSON.stringify(expectedIds[engine])}`);
      }
      encoded.push(`${engine} ${JSON.stringify(ids)}`);
    }
    return `${checked.stdout.trim()}; ${smoke}${encoded.length ? `; encode ${JSON.stringify(SAMPLE)}: ${encoded.join(', ')} as ${path.basename(venvPython)} computes them` : ''}`;
  });
}
const old = [...found].find(([v]) => /^3\.[6-9]$/.test(v))?.[1];
if (old) {
  await check('launcher-too-old-python', async () => {
    const r = spawnSync(old, [LAUNCHER, '--check'], { encoding: 'utf8' });
    if (r.status !== 3 || !/too old: tokenizer-lsp needs Python 3\.10 or newer/.test(r.stdout)) fail(`exit ${r.status}: ${JSON.stringify(r.stdout + r.stderr)}`);
    return `${old}: exit 3, ${JSON.stringify(r.stdout.trim())}`;
  });
}

// ---- 2b. the extension's choice of Python and its one message (bundled.ts, which needs no vscode)
{
  const esbuild = await import('esbuild');
  const out = path.join(TMP, 'bundled.mjs');
  await esbuild.build({ entryPoints: [path.join(ROOT, 'client-vscode', 'src', 'bundled.ts')], bundle: true, platform: 'node', format: 'esm', outfile: out, logLevel: 'error' });
  const { resolveBundled } = await import(out);
  const options = { cwd: TMP, env: { ...process.env } };
  const quiet = { info: () => {} };
  const good = found.get('3.11') || found.get('3.12') || found.get('3.10') || found.get('3.13');
  await check('extension-picks-first-usable-python', async () => {
    const r = await resolveBundled(LAUNCHER, [['no-such-python3'], [good]], 'the default Python', options, quiet);
    if (!r.ok || r.command.argv.join(' ') !== `${good} ${LAUNCHER}`) fail(JSON.stringify(r));
    return `after a missing python3: ${r.command.argv.join(' ')} (${r.command.source})`;
  });
  await check('extension-message-no-python', async () => {
    const r = await resolveBundled(LAUNCHER, [['no-such-python3'], ['no-such-python']], 'the default Python', options, quiet);
    const text = `${r.message} ${r.fix}`;
    if (r.ok || !/needs Python 3\.10 or newer and found none \(tried no-such-python3 \(not found\), no-such-python \(not found\)\)/.test(text) || !/Install Python 3\.10 or newer/.test(text)) fail(JSON.stringify(r));
    return JSON.stringify(text);
  });
  if (old) {
    await check('extension-message-old-python', async () => {
      const r = await resolveBundled(LAUNCHER, [[old]], 'the default Python', options, quiet);
      const text = `${r.message} ${r.fix}`;
      if (r.ok || !/too old: tokenizer-lsp needs Python 3\.10 or newer/.test(text) || !/Install Python 3\.10 or newer/.test(text)) fail(JSON.stringify(r));
      return JSON.stringify(text);
    });
  }
}

// ---- 3. real VS Code with nothing but a bare venv -----------------------------------------------------
const VENV = path.join(TMP, 'only-python');
const HOME = path.join(TMP, 'home');
const USER_DATA = path.join(TMP, 'user-data');
const EXT_DIR = path.join(TMP, 'extensions');
const WORKSPACE = path.join(TMP, 'workspace');
// PATH: the bare venv first, and no directory whose Pythons could bring their own packages
const childPath = [path.join(VENV, 'bin'), ...(process.env.PATH || '').split(':').filter((d) => d && !/pyenv|\.venv|conda/.test(d))].join(':');
const childEnv = { ...process.env, HOME, SHELL: '/bin/bash', PATH: childPath, XDG_CONFIG_HOME: path.join(HOME, '.config'), XDG_DATA_HOME: path.join(HOME, '.local', 'share'), XDG_CACHE_HOME: path.join(HOME, '.cache') };
delete childEnv.VIRTUAL_ENV;
delete childEnv.PYTHONPATH;
const csArgs = ['--user-data-dir', USER_DATA, '--extensions-dir', EXT_DIR];

async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function extensionLog() {
  let text = '';
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.includes(EXTENSION_ID) && e.name.endsWith('.log')) text += fs.readFileSync(p, 'utf8');
    }
  };
  walk(path.join(USER_DATA, 'logs'));
  return text;
}

async function vscodeChecks() {
  if (!CODE_SERVER) fail('CODE_SERVER_BIN is not set (run scripts/vscode-bundled-e2e.sh)');
  fs.mkdirSync(HOME, { recursive: true });
  bareVenv(process.env.E2E_BASE_PYTHON || 'python3', VENV);
  // VS Code hands extensions the PATH of a login shell (/etc/profile resets it): the venv goes
  // in front there too, as a user's ~/.profile would put it
  fs.writeFileSync(path.join(HOME, '.profile'), `PATH="${path.join(VENV, 'bin')}:$PATH"; export PATH\n`);
  const ws = buildWorkspace(WORKSPACE, ROOT, CORPUS);
  fs.mkdirSync(path.join(USER_DATA, 'User'), { recursive: true });
  fs.writeFileSync(path.join(USER_DATA, 'User', 'settings.json'), JSON.stringify({
    'workbench.editorLargeFileConfirmation': 1024,
    '[json]': { 'editor.largeFileOptimizations': false },
    'editor.hover.delay': 300,
    'editor.minimap.enabled': false,
    'workbench.startupEditor': 'none',
    'security.workspace.trust.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'extensions.ignoreRecommendations': true,
    'json.schemaDownload.enable': false,
    'git.enabled': false,
  }, null, 2));

  await check('only-python-is-a-bare-venv', async () => {
    // both the PATH code-server starts with and the login shell's, which extensions get
    const loginPath = execFileSync('bash', ['-lc', 'printf %s "$PATH"'], { env: childEnv, encoding: 'utf8' });
    const pythons = [];
    for (const dir of new Set([...childPath.split(':'), ...loginPath.split(':')])) {
      for (const name of ['python', 'python3', 'python3.10', 'python3.11', 'python3.12', 'python3.13', 'python3.14', 'python3.9']) {
        const exe = path.join(dir, name);
        if (fs.existsSync(exe)) pythons.push(exe);
      }
    }
    const importing = pythons.filter((exe) =>
      ['pygls', 'orjson', 'tokenizer_lsp'].some((m) => spawnSync(exe, ['-c', `import ${m}`], { env: childEnv }).status === 0));
    if (importing.length) fail(`Pythons on the PATH that import pygls, orjson or tokenizer_lsp: ${importing.join(', ')}`);
    const first = execFileSync('bash', ['-lc', 'command -v python3'], { env: childEnv, encoding: 'utf8' }).trim();
    if (first !== path.join(VENV, 'bin', 'python3')) fail(`python3 in a login shell is ${first}, not the venv's`);
    return `python3 in a login shell is ${first}; none of ${pythons.length} Pythons on the PATH imports pygls, orjson or tokenizer_lsp`;
  });

  await check('install-linux-x64-vsix', async () => {
    execFileSync(CODE_SERVER, [...csArgs, '--install-extension', vsixOf('linux-x64')], { env: childEnv, stdio: 'pipe', timeout: 180_000 });
    const listed = execFileSync(CODE_SERVER, [...csArgs, '--list-extensions'], { env: childEnv, encoding: 'utf8' }).trim().split('\n');
    if (listed.length !== 1 || listed[0] !== EXTENSION_ID) fail(`extensions in the profile: ${JSON.stringify(listed)} (want only ${EXTENSION_ID}, no Python extension)`);
    return `the profile has exactly ${JSON.stringify(listed)}`;
  });

  const port = await freePort();
  const csLog = fs.openSync(path.join(ART, 'code-server.log'), 'w');
  codeServer = spawn(CODE_SERVER, [...csArgs, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry',
    '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override', '--ignore-last-opened', WORKSPACE],
  { env: childEnv, stdio: ['ignore', csLog, csLog], detached: true });
  codeServer.on('exit', () => {
    codeServerExited = true;
  });
  const up = await until(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60_000);
  if (!up) fail('code-server did not answer within 60 s');
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(WORKSPACE)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 120_000 });
  await page.locator('.explorer-folders-view').waitFor({ timeout: 60_000 });
  await sleep(1000);
  const ui = await import('./bundled-ui.mjs');
  await ui.vscodeUiChecks({ page, ws, check, fail, until, sleep, norm, extensionLog, venv: VENV, codeServerPid: codeServer.pid, waitMs: WAIT_SERVER_MS });
}

async function cleanup() {
  await browser?.close().catch(() => {});
  if (codeServer) {
    const killGroup = (signal) => {
      try {
        process.kill(-codeServer.pid, signal);
      } catch {
        /* gone */
      }
    };
    // as harness.mjs: SIGTERM, its exit (not a fixed 1.5 s), then the group's stragglers
    killGroup('SIGTERM');
    await until(() => codeServerExited, 5000, 100);
    await sleep(500);
    killGroup('SIGKILL');
  }
  const logs = path.join(USER_DATA, 'logs');
  if (fs.existsSync(logs)) fs.writeFileSync(path.join(ART, 'tokenizer-lsp-extension.log'), extensionLog() || '(none)\n');
  if (process.env.E2E_KEEP_TMP !== '1') fs.rmSync(TMP, { recursive: true, force: true });
}

setTimeout(async () => {
  report('watchdog', false, 'the run took longer than 15 minutes');
  await cleanup();
  process.exit(1);
}, 15 * 60 * 1000).unref();

try {
  await vscodeChecks();
} catch (err) {
  report('vscode-setup', false, err instanceof Error ? err.message : String(err));
}
await cleanup();
const passed = results.filter((r) => r.ok).length;
console.log(`${passed} passed, ${results.length - passed} failed`);
process.exit(results.length - passed ? 1 : 0);
