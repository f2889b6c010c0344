// The end-to-end harness: a throw-away code-server profile with the packaged extension, the
// workspace of real corpus files (workspace.mjs), headless Chromium on it, `check()` with one
// line and one screenshot per check, the logs, and the run's end ("N passed, N failed").
// Importing it sets all of that up; e2e.mjs lists the suites and calls run().
// Env: see e2e.mjs.
import { spawn, execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { buildWorkspace } from './workspace.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const ART = path.join(ROOT, 'artifacts', 'vscode');
export const CODE_SERVER = mustEnv('CODE_SERVER_BIN');
export const VSIX = mustEnv('TOKENIZER_LSP_VSIX');
export const PYTHON = mustEnv('TOKENIZER_LSP_PYTHON');
export const CORPUS = process.env.TOKENIZER_CORPUS || path.join(ROOT, '..', 'shared', 'corpus');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const TRACE = process.env.E2E_TRACE || 'messages';
export const EXTENSION_ID = 'tokenizer-lsp.tokenizer-lsp';
export const WAIT_SERVER_MS = 90_000; // first answers on an 11 MB file, on a slow 2-core machine

export function mustEnv(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`e2e: ${name} is not set (run scripts/vscode-e2e.sh)`);
    process.exit(2);
  }
  return v;
}

// each line stamped with the seconds since its check began (or since the run began, between
// checks): where a check's time goes is read off the log
let checkStarted = Date.now();
export const log = (msg) => console.error(`[e2e +${((Date.now() - checkStarted) / 1000).toFixed(1)}s] ${msg}`);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const norm = (s) => s.replace(/\u00a0/g, ' ').replace(/\u200b|\u200c/g, '');

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Polls `fn` until it returns a truthy value or `timeoutMs` passes; returns the last value. */
export async function until(fn, timeoutMs, intervalMs = 200) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
    } catch (err) {
      last = undefined;
      if (Date.now() > end) throw err;
    }
    if (last) return last;
    if (Date.now() > end) return last;
    await sleep(intervalMs);
  }
}

// ---------------------------------------------------------------------------------------------
// setup: temp dirs, workspace, settings, extension install, code-server, chromium
// ---------------------------------------------------------------------------------------------
fs.rmSync(ART, { recursive: true, force: true });
fs.mkdirSync(ART, { recursive: true });
export const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'tokenizer-lsp-e2e-'));
export const USER_DATA = path.join(TMP, 'user-data');
export const EXT_DIR = path.join(TMP, 'extensions');
export const WORKSPACE = path.join(TMP, 'workspace');
export const XDG = path.join(TMP, 'xdg');
// code-server's (and so the extension's) home: `~` in tokenizerLsp.server.command means this
export const HOME = path.join(TMP, 'home');
fs.mkdirSync(HOME, { recursive: true });
export const childEnv = {
  ...process.env,
  HOME,
  XDG_CONFIG_HOME: path.join(XDG, 'config'),
  XDG_DATA_HOME: path.join(XDG, 'data'),
  XDG_CACHE_HOME: path.join(XDG, 'cache'),
  XDG_STATE_HOME: path.join(XDG, 'state'),
  XDG_RUNTIME_DIR: path.join(XDG, 'runtime'),
};
for (const d of ['config', 'data', 'cache', 'state', 'runtime']) fs.mkdirSync(path.join(XDG, d), { recursive: true, mode: 0o700 });

export const csArgs = ['--user-data-dir', USER_DATA, '--extensions-dir', EXT_DIR];
// code-server installs the extension (its own process, seconds) while the workspace is built
log(`installing ${path.basename(VSIX)} into code-server`);
const installing = new Promise((resolve) => {
  execFile(CODE_SERVER, [...csArgs, '--install-extension', VSIX], { env: childEnv, encoding: 'utf8', timeout: 120_000 }, (err, stdout, stderr) =>
    resolve(err ? `${stdout || ''}${stderr || ''}${err.message}\n` : stdout),
  );
});
export const ws = buildWorkspace(WORKSPACE, ROOT, CORPUS);
for (const n of ws.notes) log(n);

export const SETTINGS_FILE = path.join(USER_DATA, 'User', 'settings.json');
/** The command that runs this checkout's server; checks that change it put it back. */
export const GOOD_COMMAND = [PYTHON, '-m', 'tokenizer_lsp'];
/** `-S` skips site-packages and `-E` PYTHONPATH (a run against a checkout's server/ sets it),
 * so this Python cannot import tokenizer_lsp. */
export const NO_MODULE_COMMAND = [PYTHON, '-S', '-E', '-m', 'tokenizer_lsp'];
export const baseSettings = {
  'tokenizerLsp.trace.server': TRACE,
  // VS Code in a browser asks before opening files over 10 MB (qwen3's tokenizer.json is 11 MB).
  'workbench.editorLargeFileConfirmation': 1024,
  'editor.inlayHints.enabled': 'on',
  'editor.hover.delay': 300,
  'editor.minimap.enabled': false,
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'json.schemaDownload.enable': false,
  'git.enabled': false,
  'chat.commandCenter.enabled': false,
  'window.restoreWindows': 'none',
  'files.hotExit': 'off',
};
/** Writes the test's settings, keeping what VS Code itself wrote there (e.g. a [json] override). */
export function writeSettings(extra = {}) {
  fs.mkdirSync(path.dirname(SETTINGS_FILE), { recursive: true });
  let current = {};
  try {
    current = JSON.parse(fs.readFileSync(SETTINGS_FILE, 'utf8'));
  } catch {
    /* first write, or not plain JSON */
  }
  const next = { ...current, ...baseSettings, ...extra };
  for (const [k, v] of Object.entries(extra)) if (v === undefined) delete next[k];
  fs.writeFileSync(SETTINGS_FILE, JSON.stringify(next, null, 2) + '\n');
}
// The run starts as a user without the package would: the Python it is pointed at cannot
// import tokenizer_lsp. Opening a plain JSON file must not find that out (check 1).
writeSettings({ 'tokenizerLsp.server.command': NO_MODULE_COMMAND });

export const installOut = await installing;
fs.writeFileSync(path.join(ART, 'install-extension.log'), installOut);
export const listed = execFileSync(CODE_SERVER, [...csArgs, '--list-extensions', '--show-versions'], { env: childEnv, encoding: 'utf8' });
if (!listed.includes(EXTENSION_ID)) {
  console.error(`e2e: the extension did not install:\n${installOut}\n${listed}`);
  process.exit(1);
}
log(`installed: ${listed.trim().split('\n').join(', ')}`);

export const port = await freePort();
export const csLog = fs.openSync(path.join(ART, 'code-server.log'), 'w');
export const codeServer = spawn(
  CODE_SERVER,
  [
    ...csArgs,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
    WORKSPACE,
  ],
  // its own process group, so that cleanup ends its helpers (file watcher, extension host) too
  { env: childEnv, stdio: ['ignore', csLog, csLog], detached: true },
);
export let codeServerExited = false;
codeServer.on('exit', () => {
  codeServerExited = true;
});

export let browser;
/** The page's CPU profiler (E2E_CPU_PROFILE=1): where the workbench's own time goes. */
let profiler;
export async function cleanup() {
  if (profiler) {
    try {
      const { profile } = await profiler.send('Profiler.stop');
      fs.writeFileSync(path.join(ART, 'renderer.cpuprofile'), JSON.stringify(profile));
    } catch (err) {
      log(`profile: ${err.message}`);
    }
  }
  try {
    await browser?.close();
  } catch {
    /* gone */
  }
  const killGroup = (signal) => {
    try {
      process.kill(-codeServer.pid, signal);
    } catch {
      /* already gone */
    }
  };
  killGroup('SIGTERM');
  await until(() => codeServerExited, 5000, 100);
  await sleep(500);
  killGroup('SIGKILL');
  collectLogs();
  if (process.env.E2E_KEEP_TMP !== '1') fs.rmSync(TMP, { recursive: true, force: true });
  else log(`kept ${TMP}`);
}

/** Copies the extension's log (output channel "Tokenizer LSP") and VS Code's logs to artifacts. */
export function collectLogs() {
  const logsDir = path.join(USER_DATA, 'logs');
  if (!fs.existsSync(logsDir)) return;
  fs.cpSync(logsDir, path.join(ART, 'vscode-logs'), { recursive: true });
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.includes(EXTENSION_ID) && e.name.endsWith('.log')) found.push(p);
    }
  };
  walk(logsDir);
  const text = found.map((p) => `==> ${path.relative(logsDir, p)} <==\n${fs.readFileSync(p, 'utf8')}`).join('\n');
  fs.writeFileSync(path.join(ART, 'tokenizer-lsp-extension.log'), text || '(no extension log found)\n');
}

export function extensionLog() {
  const logsDir = path.join(USER_DATA, 'logs');
  let text = '';
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.includes(EXTENSION_ID) && e.name.endsWith('.log')) text += fs.readFileSync(p, 'utf8');
    }
  };
  walk(logsDir);
  return text;
}

// A hung browser or server must not eat CI's time: give up after 30 minutes (the whole suite
// takes about 15 on a 2-core machine).
export const WATCHDOG_MS = Number(process.env.E2E_TIMEOUT_MS || 30 * 60 * 1000);
setTimeout(async () => {
  console.log(`FAIL watchdog: the run took longer than ${WATCHDOG_MS / 1000} s`);
  if (page) await shot('00-watchdog');
  await cleanup();
  console.log(`${results.filter((r) => r.ok).length} passed, ${results.filter((r) => !r.ok).length + 1} failed`);
  process.exit(1);
}, WATCHDOG_MS).unref();

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(signal, async () => {
    await cleanup();
    process.exit(code);
  });
}

// ---------------------------------------------------------------------------------------------
// page helpers
// ---------------------------------------------------------------------------------------------
export let page;
export const EDITOR_LINES = '.part.editor .editor-group-container.active .monaco-editor .view-lines';

export async function shot(name) {
  const file = path.join(ART, `${name}.png`);
  try {
    await page.screenshot({ path: file });
  } catch (err) {
    log(`screenshot ${name} failed: ${err.message}`);
  }
  return path.relative(ROOT, file);
}

// ---------------------------------------------------------------------------------------------
// checks
// ---------------------------------------------------------------------------------------------
export const results = [];
export const ONLY = (process.env.E2E_ONLY || '').split(',').filter(Boolean);
export async function check(name, fn) {
  if (ONLY.length && !ONLY.some((o) => name.includes(o))) return;
  const started = Date.now();
  checkStarted = started;
  let ok = false;
  let detail = '';
  try {
    detail = (await fn()) || '';
    ok = true;
  } catch (err) {
    detail = err instanceof Error ? err.message : String(err);
  }
  const shotPath = await shot(`${String(results.length + 1).padStart(2, '0')}-${name}`);
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  results.push({ name, ok });
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name} (${secs} s): ${detail.replace(/\s+/g, ' ').slice(0, 600)} [${shotPath}]`);
}

export function fail(msg) {
  throw new Error(msg);
}

export const { hover, fragment } = ws.tokenizer;
export const TOKENIZER_IS_LARGE = (() => {
  const lineCount = fs.readFileSync(ws.tokenizer.file, 'utf8').split('\n').length;
  return lineCount > 300_000 || fs.statSync(ws.tokenizer.file).size > 20 * 1024 * 1024;
})();

/** The decoded text as the server shows it (visible_text): a space is ␣, \n \t \r escaped. */
export function visibleText(text) {
  return text.replace(/ /g, '␣').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r');
}

export const count = (re) => (extensionLog().match(re) || []).length;

/** Whether, by the extension's log, the last thing that happened to the server is that it started. */
export function serverUp() {
  const markers = extensionLog().match(
    /Server started\.|Server restarted\.|Server stopped\.|Starting server:|stopped unexpectedly|\[error\] Tokenizer LSP:/g,
  );
  const last = markers?.at(-1);
  return last === 'Server started.' || last === 'Server restarted.';
}

/** Waits for code-server, opens the workspace in headless Chromium and sets `page`. */
export async function openWorkbench() {
  const ready = await until(async () => {
    if (codeServerExited) fail('code-server exited; see artifacts/vscode/code-server.log');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      return res.ok;
    } catch {
      return false;
    }
  }, 60_000);
  if (!ready) fail('code-server did not answer on /healthz within 60 s');

  const profile = path.join(TMP, 'chromium-profile');
  // A fresh profile: playwright passes it as --user-data-dir.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1600, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  browser = context;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: `http://127.0.0.1:${port}` });
  page = await context.newPage();
  if (process.env.E2E_CPU_PROFILE === '1') {
    profiler = await context.newCDPSession(page);
    await profiler.send('Profiler.enable');
    await profiler.send('Profiler.setSamplingInterval', { interval: 2000 });
    await profiler.send('Profiler.start');
  }
  const consoleLines = [];
  page.on('console', (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
  process.on('exit', () => {
    try {
      fs.writeFileSync(path.join(ART, 'browser-console.log'), consoleLines.join('\n') + '\n');
    } catch {
      /* ignore */
    }
  });

  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(WORKSPACE)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 120_000 });
  await page.locator('.explorer-folders-view').waitFor({ timeout: 60_000 });
  await sleep(1000);
}

/** Runs the suites in order (a suite is an async function of checks), cleans up, exits. */
export async function run(...suites) {
  let fatal;
  try {
    await openWorkbench();
    for (const suite of suites) await suite();
  } catch (err) {
    fatal = err;
    console.log(`FAIL setup: ${err instanceof Error ? err.message : String(err)}`);
    if (page) await shot('00-setup-failure');
  }
  await cleanup();
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed + (fatal ? 1 : 0);
  console.log(`${passed} passed, ${failed} failed`);
  console.log(`artifacts: ${path.relative(ROOT, ART)}/ (screenshots, tokenizer-lsp-extension.log, code-server.log)`);
  process.exit(failed ? 1 : 0);
}
