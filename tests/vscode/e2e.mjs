// End-to-end checks of the tokenizer-lsp VS Code extension in real VS Code (code-server) driven
// by headless Chromium. Run through scripts/vscode-e2e.sh, which installs and packages first.
//
// Env: CODE_SERVER_BIN, TOKENIZER_LSP_VSIX, TOKENIZER_LSP_PYTHON (required);
//      TOKENIZER_CORPUS (default ../shared/corpus), E2E_TRACE (default messages),
//      CHROMIUM (default /usr/bin/chromium), E2E_KEEP_TMP=1 keeps the temp folder.
//
//      E2E_INSTALL=link: in the missing-module check, stand in for the install command from the
//      error message with a symlink to TOKENIZER_LSP_PYTHON's venv (default: run the command,
//      which pip-installs this repository into a new venv under the run's home; needs PyPI).
//
// Checks: 1 a plain JSON file opened first starts nothing and shows nothing (although the
// configured Python lacks tokenizer_lsp), 2 one clear error for a Python without tokenizer_lsp
// whose install command and setting, done as it says, work (Open Settings, Retry), 3 hover on a
// Ġ token, 4 inlay hints (through the large-file notice), 5 utf8-fragment diagnostics at their
// default severity (hint) and raised to warning, 6 nothing on a plain JSON file while the server
// runs, 7 tiktoken/merges language modes, hints and a merge hover (vocab.bpe and merges.txt),
// 8 a settings change without restart, 9 the restart command and the output channel with the
// server's own log, 10 one message for a server that exits at once, 11 a relative server
// command run from the workspace folder (import check and server alike), 12 recovery after the
// server is killed; navigation (issue 14) in qwen3's tokenizer.json (pair merges) and llama2's
// (string merges): 13 F12 on a merge part lands on the part's vocab key, 14 Shift+F12 on a
// vocab key peeks at every reference (counted from the file), 15 Ctrl+T "#我" lists the token
// of each file by its decoded text and Enter opens it on the vocab key.
// E2E_ONLY=name,name runs some of them; each check sets up what it needs.
// Each check asserts on text a person sees, saves a screenshot in artifacts/vscode/ and prints
// one line; the run ends with "N passed, N failed" and a non-zero exit status on a failure.
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { buildWorkspace } from './workspace.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const ART = path.join(ROOT, 'artifacts', 'vscode');
const CODE_SERVER = mustEnv('CODE_SERVER_BIN');
const VSIX = mustEnv('TOKENIZER_LSP_VSIX');
const PYTHON = mustEnv('TOKENIZER_LSP_PYTHON');
const CORPUS = process.env.TOKENIZER_CORPUS || path.join(ROOT, '..', 'shared', 'corpus');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const TRACE = process.env.E2E_TRACE || 'messages';
const EXTENSION_ID = 'tokenizer-lsp.tokenizer-lsp';
const WAIT_SERVER_MS = 90_000; // first answers on an 11 MB file, on a slow 2-core machine

function mustEnv(name) {
  const v = process.env[name];
  if (!v) {
    console.error(`e2e: ${name} is not set (run scripts/vscode-e2e.sh)`);
    process.exit(2);
  }
  return v;
}

const log = (msg) => console.error(`[e2e] ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const norm = (s) => s.replace(/\u00a0/g, ' ').replace(/\u200b|\u200c/g, '');

function freePort() {
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
async function until(fn, timeoutMs, intervalMs = 500) {
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
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'tokenizer-lsp-e2e-'));
const USER_DATA = path.join(TMP, 'user-data');
const EXT_DIR = path.join(TMP, 'extensions');
const WORKSPACE = path.join(TMP, 'workspace');
const XDG = path.join(TMP, 'xdg');
// code-server's (and so the extension's) home: `~` in tokenizerLsp.server.command means this
const HOME = path.join(TMP, 'home');
fs.mkdirSync(HOME, { recursive: true });
const childEnv = {
  ...process.env,
  HOME,
  XDG_CONFIG_HOME: path.join(XDG, 'config'),
  XDG_DATA_HOME: path.join(XDG, 'data'),
  XDG_CACHE_HOME: path.join(XDG, 'cache'),
  XDG_STATE_HOME: path.join(XDG, 'state'),
  XDG_RUNTIME_DIR: path.join(XDG, 'runtime'),
};
for (const d of ['config', 'data', 'cache', 'state', 'runtime']) fs.mkdirSync(path.join(XDG, d), { recursive: true, mode: 0o700 });

const ws = buildWorkspace(WORKSPACE, ROOT, CORPUS);
for (const n of ws.notes) log(n);

const SETTINGS_FILE = path.join(USER_DATA, 'User', 'settings.json');
/** The command that runs this checkout's server; checks that change it put it back. */
const GOOD_COMMAND = [PYTHON, '-m', 'tokenizer_lsp'];
/** `-S` skips site-packages, so this Python cannot import tokenizer_lsp. */
const NO_MODULE_COMMAND = [PYTHON, '-S', '-m', 'tokenizer_lsp'];
const baseSettings = {
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
function writeSettings(extra = {}) {
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

const csArgs = ['--user-data-dir', USER_DATA, '--extensions-dir', EXT_DIR];
log(`installing ${path.basename(VSIX)} into code-server`);
const installOut = execFileSync(CODE_SERVER, [...csArgs, '--install-extension', VSIX], {
  env: childEnv,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'pipe'],
  timeout: 120_000,
});
fs.writeFileSync(path.join(ART, 'install-extension.log'), installOut);
const listed = execFileSync(CODE_SERVER, [...csArgs, '--list-extensions', '--show-versions'], { env: childEnv, encoding: 'utf8' });
if (!listed.includes(EXTENSION_ID)) {
  console.error(`e2e: the extension did not install:\n${installOut}\n${listed}`);
  process.exit(1);
}
log(`installed: ${listed.trim().split('\n').join(', ')}`);

const port = await freePort();
const csLog = fs.openSync(path.join(ART, 'code-server.log'), 'w');
const codeServer = spawn(
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
let codeServerExited = false;
codeServer.on('exit', () => {
  codeServerExited = true;
});

let browser;
async function cleanup() {
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
function collectLogs() {
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

function extensionLog() {
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

// A hung browser or server must not eat CI's time: give up after 15 minutes.
const WATCHDOG_MS = Number(process.env.E2E_TIMEOUT_MS || 15 * 60 * 1000);
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
let page;
const EDITOR_LINES = '.part.editor .editor-group-container.active .monaco-editor .view-lines';

async function shot(name) {
  const file = path.join(ART, `${name}.png`);
  try {
    await page.screenshot({ path: file });
  } catch (err) {
    log(`screenshot ${name} failed: ${err.message}`);
  }
  return path.relative(ROOT, file);
}

async function closeQuickInput() {
  if (await page.locator('.quick-input-widget:visible').count()) await page.keyboard.press('Escape');
}

async function runCommand(title) {
  await closeQuickInput();
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget:visible input');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(`>${title}`);
  const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  const row = page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: exact }) })
    .first();
  await row.waitFor({ timeout: 10_000 });
  await row.click();
}

/** Opens a workspace file by quick open and waits for its text on screen. */
async function openFile(rel, expectText) {
  await closeQuickInput();
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget:visible input');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(rel);
  const name = path.basename(rel);
  const row = page
    .locator('.quick-input-list .monaco-list-row', { hasText: name })
    .filter({ hasText: path.dirname(rel) })
    .first();
  await row.waitFor({ timeout: 20_000 });
  await sleep(300);
  await row.click();
  const t0 = Date.now();
  await page.locator('.part.editor .editor-group-container.active .tab.active', { hasText: name }).waitFor({ timeout: 60_000 });
  // A file opened before comes back scrolled where it was: then any text will do.
  const shown = await until(async () => {
    const text = norm(await page.locator(EDITOR_LINES).innerText());
    return expectText ? text.includes(expectText) : text.trim() !== '';
  }, 120_000);
  log(`opened ${rel} in ${((Date.now() - t0) / 1000).toFixed(1)} s${shown ? '' : ` (its text ${JSON.stringify(expectText)} did not show)`}`);
}

/** Go to Line/Column (Ctrl+G) `:line` or `:line:col` (1-based, col in UTF-16 units). */
async function gotoLine(line, col) {
  await closeQuickInput();
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget:visible input');
  await input.waitFor({ timeout: 10_000 });
  await input.fill(col ? `:${line}:${col}` : `:${line}`);
  await sleep(200);
  await page.keyboard.press('Enter');
  const want = col ? `Ln ${line}, Col ${col}` : `Ln ${line},`;
  await until(async () => norm(await page.locator('[id="status.editor.selection"]').innerText()).includes(want), 60_000, 200);
  await sleep(300);
}

/** The cursor as the status bar shows it ("Ln 684, Col 7"), or null. */
async function cursorPosition() {
  const text = norm(await page.locator('[id="status.editor.selection"]').innerText());
  const m = /Ln (\d+), Col (\d+)/.exec(text);
  return m ? { line: Number(m[1]), col: Number(m[2]), text: text.trim() } : null;
}

/** The rendered text of the line the editor highlights as the cursor's (.current-line). */
async function activeLineText() {
  return page.evaluate((selector) => {
    const editor = document.querySelector(selector)?.closest('.monaco-editor');
    const current = editor?.querySelector('.view-overlays .current-line');
    if (!current) return null;
    const top = current.parentElement.style.top;
    const line = [...editor.querySelectorAll('.view-lines .view-line')].find((l) => l.style.top === top);
    return line ? line.textContent.replace(/\u00a0/g, ' ') : null;
  }, EDITOR_LINES);
}

async function editorText() {
  return norm(await page.locator(EDITOR_LINES).innerText());
}

/** The rendered text of the visible line that starts (after indentation) with `prefix`. */
async function renderedLine(prefix) {
  const lines = (await editorText()).split('\n');
  return lines.find((l) => l.trimStart().startsWith(prefix));
}

/** innerText of every visible hover widget. */
async function hoverText() {
  return page.evaluate(() =>
    [...document.querySelectorAll('.monaco-hover')]
      .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
      .map((el) => el.innerText)
      .join('\n---\n'),
  ).then(norm);
}

/**
 * Screen point of the character just inside `literal` (e.g. the `Ġ` of `"Ġt"`; `inside` = 0 for
 * its first character) on the first visible line that contains it. Works however Monaco splits
 * the line into spans (unicode highlights, inlay hints).
 */
async function literalPoint(literal, inside = 1) {
  return page.evaluate(
    ({ selector, literal, inside }) => {
      for (const line of document.querySelectorAll(`${selector} .view-line`)) {
        const text = line.textContent.replace(/\u00a0/g, ' ');
        const at = text.indexOf(literal);
        if (at < 0) continue;
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        let offset = 0;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const len = node.textContent.length;
          const want = at + inside; // first character inside the quotes
          if (want < offset + len) {
            const range = document.createRange();
            range.setStart(node, want - offset);
            range.setEnd(node, Math.min(want - offset + 1, len));
            const r = range.getBoundingClientRect();
            return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
          }
          offset += len;
        }
      }
      return null;
    },
    { selector: EDITOR_LINES, literal, inside },
  );
}

/** Moves the mouse onto `literal` until a hover containing every string of `want` shows. */
async function hoverUntil(literal, want, timeoutMs, inside = 1) {
  let text = '';
  let point = null;
  const ok = await until(
    async () => {
      point = await literalPoint(literal, inside);
      if (!point) return false;
      await page.mouse.move(5, 5);
      await sleep(150);
      await page.mouse.move(point.x, point.y, { steps: 3 });
      return until(async () => {
        text = await hoverText();
        return want.every((w) => text.includes(w));
      }, 3000, 250);
    },
    timeoutMs,
    500,
  );
  if (!point) text = `(${literal} is not on screen)`;
  return { ok: Boolean(ok), text };
}

/** Sets an enum setting the way a person does: Settings editor, search, pick from the list. */
async function setEnumSetting(key, value) {
  await runCommand('Preferences: Open User Settings');
  const search = page.locator('.settings-editor .settings-header .suggest-input-container .monaco-editor').first();
  await search.waitFor({ timeout: 20_000 });
  await search.click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type(key);
  const row = page.locator(`.settings-editor .setting-item-contents[data-key="${key}"]`);
  await row.waitFor({ timeout: 20_000 });
  await row.locator('select').selectOption(value);
  const saved = await until(() => fs.readFileSync(SETTINGS_FILE, 'utf8').includes(`"${key}": "${value}"`), 10_000);
  if (!saved) fail(`the Settings editor did not save ${key} = ${value}`);
  await shot(`settings-${key}-${value}`);
  await runCommand('View: Close Editor');
}

/** Replaces the user settings the way a person does: Open User Settings (JSON), edit, save. */
async function editSettingsJson(settings) {
  await runCommand('Preferences: Open User Settings (JSON)');
  await page.locator('.part.editor .editor-group-container.active .tab.active', { hasText: 'settings.json' }).waitFor({ timeout: 20_000 });
  await page.locator(EDITOR_LINES).click();
  // Pasted, not typed: typing would trigger auto-closing brackets and auto-indent.
  await page.evaluate((text) => navigator.clipboard.writeText(text), JSON.stringify(settings, null, 2) + '\n');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  await sleep(300);
  await page.keyboard.press('Control+S');
  const want = JSON.stringify(settings);
  const saved = await until(() => {
    try {
      return JSON.stringify(JSON.parse(fs.readFileSync(SETTINGS_FILE, 'utf8'))) === want;
    } catch {
      return false;
    }
  }, 10_000);
  if (!saved) fail(`settings.json was not saved as typed; it holds: ${JSON.stringify(fs.readFileSync(SETTINGS_FILE, 'utf8').slice(-300))}`);
  await runCommand('View: Close Editor');
}

function currentSettings() {
  return JSON.parse(fs.readFileSync(SETTINGS_FILE, 'utf8'));
}

async function openProblems() {
  await closeQuickInput();
  await page.keyboard.press('Control+Shift+M');
  await page.locator('.markers-panel').first().waitFor({ timeout: 10_000 });
}

async function problemsText() {
  const panel = page.locator('.markers-panel').first();
  if (!(await panel.count())) return '';
  return norm(await panel.innerText());
}

// ---------------------------------------------------------------------------------------------
// checks
// ---------------------------------------------------------------------------------------------
const results = [];
const ONLY = (process.env.E2E_ONLY || '').split(',').filter(Boolean);
async function check(name, fn) {
  if (ONLY.length && !ONLY.some((o) => name.includes(o))) return;
  const started = Date.now();
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

function fail(msg) {
  throw new Error(msg);
}

const { hover, fragment } = ws.tokenizer;
const TOKENIZER_IS_LARGE = (() => {
  const lineCount = fs.readFileSync(ws.tokenizer.file, 'utf8').split('\n').length;
  return lineCount > 300_000 || fs.statSync(ws.tokenizer.file).size > 20 * 1024 * 1024;
})();

/** The decoded text as the server shows it (visible_text): a space is ␣, \n \t \r escaped. */
function visibleText(text) {
  return text.replace(/ /g, '␣').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r');
}

const count = (re) => (extensionLog().match(re) || []).length;

/** Whether, by the extension's log, the last thing that happened to the server is that it started. */
function serverUp() {
  const markers = extensionLog().match(
    /Server started\.|Server restarted\.|Server stopped\.|Starting server:|stopped unexpectedly|\[error\] Tokenizer LSP:/g,
  );
  const last = markers?.at(-1);
  return last === 'Server started.' || last === 'Server restarted.';
}

/**
 * Changes user settings (a value of undefined removes the key) through the settings.json editor:
 * once the window is up, VS Code does not notice settings.json written behind its back.
 */
async function updateSettings(changes) {
  const current = currentSettings();
  const next = { ...current, ...changes };
  for (const [k, v] of Object.entries(changes)) if (v === undefined) delete next[k];
  if (JSON.stringify(next) === JSON.stringify(current)) return false;
  await editSettingsJson(next);
  return true;
}

/** The server runs with GOOD_COMMAND and a tokenizer file is open (each check's starting point). */
async function ensureServer() {
  if (await updateSettings({ 'tokenizerLsp.server.command': GOOD_COMMAND })) {
    log('set tokenizerLsp.server.command to the working command');
    await sleep(1000);
  }
  await openFile(ws.tokenizer.rel);
  const up = await until(serverUp, WAIT_SERVER_MS);
  if (!up) fail(`the server is not running; extension log tail: ${JSON.stringify(extensionLog().slice(-800))}`);
}

/** VS Code's large-file mode off for JSON, as "Turn Off for JSON Files" does (check 4 tests that). */
async function ensureLargeFileModeOff() {
  if (!TOKENIZER_IS_LARGE) return;
  const json = currentSettings()['[json]'] || {};
  if (json['editor.largeFileOptimizations'] === false) return;
  await updateSettings({ '[json]': { ...json, 'editor.largeFileOptimizations': false } });
  await sleep(1000);
  // an open model keeps the mode it was opened with
  await runCommand('View: Close All Editors');
  await sleep(1500);
}

/** Texts of the notifications: the toasts on screen and, opened for the purpose, the notification center. */
async function notificationTexts() {
  const toasts = await page.locator('.notification-toast').evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
  await runCommand('Notifications: Show Notifications');
  await sleep(500);
  const center = await page
    .locator('.notifications-center .notification-list-item')
    .evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
  await runCommand('Notifications: Hide Notifications');
  return [...new Set([...toasts, ...center])];
}

async function clearNotifications() {
  await runCommand('Notifications: Clear All Notifications');
  await sleep(300);
}

/** Tokenizer LSP's error toasts (the large-file notice is information, not counted). */
async function errorToasts() {
  const toasts = page.locator('.notification-toast', { hasText: 'Tokenizer LSP' });
  const texts = await toasts.evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
  return texts.filter((t) => !/large-file|hides its inlay/.test(t));
}

async function main() {
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

  // 1. a plain JSON file opened first: the extension activates (onLanguage:json) but starts no
  // server, checks no Python and shows nothing, although the Python it is set to lacks the package
  await check('plain-json-first-silent', async () => {
    if (extensionLog().includes('is a tokenizer file')) fail('a tokenizer file was opened before this check (it must run first)');
    await openFile(ws.plain.rel, '"demo-app"');
    const activated = await until(() => extensionLog().includes('Activated; the server starts when a tokenizer file is opened.'), 60_000);
    if (!activated) fail(`the extension did not activate on ${ws.plain.rel}; its log: ${JSON.stringify(extensionLog().slice(-500))}`);
    await sleep(6000); // a Python check and its error would be done by now
    const notes = (await notificationTexts()).filter((t) => /Tokenizer LSP|tokenizer_lsp|tokenizer-lsp/i.test(t));
    await shot('01a-plain-json-first');
    if (notes.length) fail(`notifications after opening a plain JSON file: ${JSON.stringify(notes)}`);
    const logText = extensionLog();
    for (const bad of ['Using Python', 'Starting server:', 'not installed', '[error]']) {
      if (logText.includes(bad)) fail(`the extension log has "${bad}" after opening only a plain JSON file: ${JSON.stringify(logText.slice(-600))}`);
    }
    // processes of this run: code-server's own process group (pytest elsewhere runs servers too)
    const servers = execFileSync('ps', ['-eo', 'pgid=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => Number(l.split(/\s+/)[0]) === codeServer.pid && /-m tokenizer_lsp|\/bin\/tokenizer-lsp /.test(l));
    if (servers.length) fail(`a server process runs: ${JSON.stringify(servers)}`);
    return `the extension activated on ${ws.plain.rel} and logged only ${JSON.stringify(logText.trim().split('\n').map((l) => l.replace(/^\S+ \S+ /, '')))}; no notification, no Python check, no server process`;
  });

  // 2. a Python without tokenizer_lsp: one clear error with the command that fixes it; that
  // command and the setting it names, done as the message says, give a running server
  await check('missing-module-message', async () => {
    await clearNotifications();
    if (JSON.stringify(currentSettings()['tokenizerLsp.server.command']) !== JSON.stringify(NO_MODULE_COMMAND)) {
      await editSettingsJson({ ...currentSettings(), 'tokenizerLsp.server.command': NO_MODULE_COMMAND });
    }
    const startsBefore = count(/Starting server:/g);
    const errorsBefore = count(/\[error\] Tokenizer LSP:/g);
    // the first tokenizer file starts the server (or, when one already ran, the setting restarted it)
    await openFile(ws.tokenizer.rel);
    const appeared = await until(async () => (await errorToasts()).some((t) => t.includes('not installed')), 60_000);
    if (!appeared) fail(`no error notification about the missing package; toasts: ${JSON.stringify(await errorToasts())}`);
    await sleep(5000); // anything else (retries, more errors) would show by now
    const errors = await errorToasts();
    await shot('02a-missing-module-error');
    if (errors.length !== 1) fail(`expected exactly one error notification, saw ${errors.length}: ${JSON.stringify(errors)}`);
    const message = errors[0];
    const install = /`([^`]*-m venv [^`]*)`/.exec(message)?.[1];
    const wantInstall = 'python3 -m venv ~/.venvs/tokenizer-lsp && ~/.venvs/tokenizer-lsp/bin/pip install /path/to/tokenizer-lsp';
    if (install !== wantInstall) fail(`the message does not give the install command "${wantInstall}": ${JSON.stringify(message)}`);
    const settingMatch = /"tokenizerLsp\.server\.command" to (\[[^\]]*\])/.exec(message);
    if (!settingMatch || settingMatch[1] !== '["~/.venvs/tokenizer-lsp/bin/tokenizer-lsp"]') {
      fail(`the message does not name the setting value ["~/.venvs/tokenizer-lsp/bin/tokenizer-lsp"]: ${JSON.stringify(message)}`);
    }
    for (const button of ['Open Settings', 'Retry', 'Show Log']) {
      if (!message.includes(button)) fail(`the notification has no "${button}" button: ${JSON.stringify(message)}`);
    }
    if (count(/Starting server:/g) !== startsBefore) fail('the extension started a server anyway');
    if (count(/\[error\] Tokenizer LSP:/g) !== errorsBefore + 1) fail('the log does not hold the error once');

    // "Open Settings" shows the setting
    await page.locator('.notification-toast', { hasText: 'not installed' }).locator('.monaco-button', { hasText: 'Open Settings' }).click();
    const row = page.locator('.settings-editor .setting-item-contents[data-key="tokenizerLsp.server.command"]');
    const shown = await row.waitFor({ timeout: 20_000 }).then(() => true, () => false);
    await shot('02b-open-settings');
    if (!shown) fail('"Open Settings" did not show the setting tokenizerLsp.server.command');
    await runCommand('View: Close Editor');

    // the setting from the message, before the package is there: one error, with Retry
    const setting = JSON.parse(settingMatch[1]);
    // (not "Clear All": the large-file notice for tokenizer.json, shown once, is check 4's)
    await editSettingsJson({ ...currentSettings(), 'tokenizerLsp.server.command': setting });
    const notFound = await until(async () => (await errorToasts()).find((t) => t.includes('cannot run') && t.includes(HOME)), 60_000);
    if (!notFound) fail(`no error for the not yet installed ${setting[0]} (with ~ as ${HOME}); toasts: ${JSON.stringify(await errorToasts())}`);

    // the install command, as a person runs it in a terminal (/path/to/tokenizer-lsp: this checkout)
    const venv = path.join(HOME, '.venvs', 'tokenizer-lsp');
    let how;
    if (process.env.E2E_INSTALL === 'link') {
      fs.mkdirSync(path.dirname(venv), { recursive: true });
      fs.symlinkSync(path.dirname(path.dirname(PYTHON)), venv);
      how = `linked ${venv} to ${path.dirname(path.dirname(PYTHON))} (E2E_INSTALL=link)`;
    } else {
      const command = install.replace('/path/to/tokenizer-lsp', ROOT);
      const t0 = Date.now();
      try {
        const out = execFileSync('bash', ['-c', command], {
          env: { ...process.env, HOME, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
          cwd: HOME,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: 600_000,
        });
        fs.writeFileSync(path.join(ART, 'install-command.log'), `$ ${command}\n${out}`);
      } catch (err) {
        fs.writeFileSync(path.join(ART, 'install-command.log'), `$ ${command}\n${err.stdout || ''}\n${err.stderr || ''}`);
        fail(`the install command from the message failed (artifacts/vscode/install-command.log): ${String(err.stderr || err.message).slice(-400)}`);
      }
      how = `ran "${command}" with HOME=${HOME} in ${((Date.now() - t0) / 1000).toFixed(0)} s`;
    }
    // nothing watches the venv: Retry on the notification starts the server
    const startedBefore = count(/Server started\./g);
    await page.locator('.notification-toast', { hasText: 'cannot run' }).locator('.monaco-button', { hasText: 'Retry' }).click();
    const back = await until(() => count(/Server started\./g) > startedBefore, WAIT_SERVER_MS);
    if (!back) fail(`Retry did not start the server; log tail: ${JSON.stringify(extensionLog().slice(-600))}`);
    const startLine = extensionLog().split('\n').reverse().find((l) => l.includes('Starting server:')) || '';
    if (!startLine.includes(`${venv}/bin/tokenizer-lsp --stdio`)) fail(`the server did not start from ${venv}/bin/tokenizer-lsp: ${JSON.stringify(startLine)}`);
    await openFile(ws.tokenizer.rel);
    await gotoLine(hover.line);
    const { ok, text } = await hoverUntil(JSON.stringify(hover.token), [hover.hex], WAIT_SERVER_MS);
    if (!ok) fail(`with the installed server the hover on ${JSON.stringify(hover.token)} shows ${JSON.stringify(text)}`);
    await page.mouse.move(5, 5);
    await updateSettings({ 'tokenizerLsp.server.command': GOOD_COMMAND });
    return `one notification: ${JSON.stringify(message.slice(0, 420))}; Open Settings shows the setting; ${how}; the setting ${JSON.stringify(setting)} + Retry started ${JSON.stringify(startLine.replace(/^\S+ \S+ \[info\] /, '').slice(0, 160))} and the hover works`;
  });
  await page.keyboard.press('Escape');

  // 3. hover on a Ġ token of a real tokenizer.json
  await check('hover-token', async () => {
    await ensureServer();
    await openFile(ws.tokenizer.rel);
    await gotoLine(hover.line);
    const literal = JSON.stringify(hover.token);
    const shown = visibleText(hover.text);
    const head = `${shown} — byte-level token, id ${hover.id}`;
    const want = [head, `bytes: ${hover.hex}`, `stored as: ${hover.token}`];
    const { ok, text } = await hoverUntil(literal, want, WAIT_SERVER_MS);
    if (!ok) fail(`hover on ${literal} (line ${hover.line}) should show ${want.map((w) => JSON.stringify(w)).join(', ')}; it showed: ${JSON.stringify(text || '(no hover)')}`);
    const first = text.split('\n').find((l) => l.trim() !== '') || '';
    if (first.trim() !== head) fail(`the hover's first line is ${JSON.stringify(first)}, not ${JSON.stringify(head)}`);
    return `${ws.tokenizer.source}, ${literal} on line ${hover.line}: hover shows ${JSON.stringify(text.slice(0, 300))}`;
  });
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');

  // 4. inlay hints in the editor text. qwen3's tokenizer.json has 757k lines: VS Code's
  // large-file mode (over 300k lines or 20 MB) draws no inlay hints, and the extension says so
  // and offers to turn it off for JSON files; then the file is reopened.
  await check('inlay-hints', async () => {
    await ensureServer();
    const literal = JSON.stringify(hover.token);
    const source = hover.source.trim();
    const needsNotice = TOKENIZER_IS_LARGE && (currentSettings()['[json]'] || {})['editor.largeFileOptimizations'] !== false;
    await openFile(ws.tokenizer.rel);
    let noticeText = '';
    if (needsNotice) {
      // The toast hides itself after a while; then it is in the notification center.
      let toast = page.locator('.notification-toast', { hasText: 'hides its inlay hints' }).first();
      await toast.waitFor({ timeout: 5_000 }).catch(() => {});
      if (!(await toast.count())) {
        await runCommand('Notifications: Show Notifications');
        toast = page.locator('.notifications-center .notification-list-item', { hasText: 'hides its inlay hints' }).first();
        await toast.waitFor({ timeout: 20_000 }).catch(() => {});
      }
      if (!(await toast.count())) fail(`${ws.tokenizer.rel} is a large file for VS Code, but no notice about hidden inlay hints showed`);
      noticeText = norm(await toast.innerText()).replace(/\s+/g, ' ');
      await shot('04a-large-file-notice');
      await toast.locator('.monaco-button', { hasText: 'Turn Off for JSON Files' }).click();
      const written = await until(() => /"\[json\]"[\s\S]*"editor\.largeFileOptimizations": false/.test(fs.readFileSync(SETTINGS_FILE, 'utf8')), 10_000);
      if (!written) fail(`"Turn Off for JSON Files" did not write the [json] override: ${fs.readFileSync(SETTINGS_FILE, 'utf8')}`);
      await runCommand('View: Close Editor');
      await sleep(1500);
      await openFile(ws.tokenizer.rel);
    }
    await gotoLine(hover.line);
    let line;
    const ok = await until(async () => {
      line = await renderedLine(literal);
      return line && line.trim() !== source && /^"[^"]*"(.+?):/.test(line.trim());
    }, WAIT_SERVER_MS);
    if (!ok) fail(`line ${hover.line} should show a hint after ${literal}; it reads ${JSON.stringify(line)} (file: ${JSON.stringify(source)})`);
    const label = /^"[^"]*"(.+?):/.exec(line.trim())[1].trim();
    const want = visibleText(hover.text);
    if (label !== want) fail(`hint after ${literal} is ${JSON.stringify(label)}, not the decoded text ${JSON.stringify(want)}`);
    const notice = needsNotice ? `after the notice ${JSON.stringify(noticeText.slice(0, 160))} and "Turn Off for JSON Files" + reopen, ` : '';
    return `${notice}line ${hover.line} renders as ${JSON.stringify(line.trim())} (hint ${JSON.stringify(label)}; file has ${JSON.stringify(source)})`;
  });

  // 5. utf8-fragment diagnostics: at their default severity (hint) VS Code draws faint dots
  // and shows the finding in the hover, but not in Problems; raised to warning, they are
  // squiggles and listed in Problems.
  await check('fragment-diagnostics', async () => {
    await ensureServer();
    const editorRoot = EDITOR_LINES.replace(' .view-lines', '');
    const literal = JSON.stringify(fragment.token);
    if (await updateSettings({ 'tokenizerLsp.diagnostics.severity': undefined })) await sleep(2000);
    await openFile(ws.tokenizer.rel);
    await gotoLine(fragment.line);
    const dots = await until(async () => page.locator(`${editorRoot} .squiggly-hint`).count(), WAIT_SERVER_MS);
    if (!dots) fail(`no hint decorations (.squiggly-hint) near the fragment tokens at line ${fragment.line} with the default severity`);
    const atDefault = await hoverUntil(literal, [fragment.hex, 'utf8-fragment'], 30_000);
    if (!atDefault.ok) fail(`at the default severity the hover on the fragment ${literal} (line ${fragment.line}) should show the bytes ${fragment.hex} and the utf8-fragment finding; it showed ${JSON.stringify(atDefault.text)}`);
    await page.mouse.move(5, 5);
    await shot('05a-fragments-as-hints');
    await openProblems();
    await sleep(1000);
    // (the server's summary diagnostic, information, is listed and names the code; a finding's
    // own row ends in its source and code)
    if (/tokenizer-lsp\s*\(?utf8-fragment\b/.test(await problemsText())) fail('Problems lists utf8-fragment hints (README says VS Code does not list hints)');
    const defaultFinding = atDefault.text.split('\n').find((l) => /utf8-fragment/.test(l)) || '';

    // raised to warning in the user settings (JSON), as the README says
    await editSettingsJson({ ...currentSettings(), 'tokenizerLsp.diagnostics.severity': { 'utf8-fragment': 'warning' } });
    await openFile(ws.tokenizer.rel);
    await gotoLine(fragment.line);
    const squiggles = await until(async () => page.locator(`${editorRoot} .squiggly-warning`).count(), WAIT_SERVER_MS);
    await openProblems();
    let problems = '';
    const listed = await until(async () => {
      problems = await problemsText();
      return /tokenizer-lsp\s*\(?utf8-fragment\b/.test(problems);
    }, 30_000);
    if (!listed) fail(`the Problems panel lists no utf8-fragment diagnostic (with severity set to warning); it shows ${JSON.stringify(problems.slice(0, 400))}; squiggles in view: ${squiggles || 0}`);
    if (!squiggles) fail('Problems lists utf8-fragment but no warning squiggle is drawn near the fragment tokens');
    const { ok, text } = await hoverUntil(literal, [fragment.hex, 'utf8-fragment'], 20_000);
    if (!ok) fail(`hover on the fragment ${literal} (line ${fragment.line}) should show the bytes ${fragment.hex} and the utf8-fragment diagnostic; it showed ${JSON.stringify(text)}`);
    // Every finding once: the rows of the Problems list must not repeat.
    const rows = await page.locator('.markers-panel .monaco-list-row').evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
    const dupes = rows.filter((r, i) => r && rows.indexOf(r) !== i);
    if (dupes.length) fail(`the Problems list shows findings twice, e.g. ${JSON.stringify(dupes[0])}`);
    const first = problems.split('\n').find((l) => /fragment|continuation|UTF-8/i.test(l)) || '';
    await updateSettings({ 'tokenizerLsp.diagnostics.severity': undefined });
    return `default (hint): ${dots} hint decorations in view, hover ${JSON.stringify(defaultFinding.trim().slice(0, 120))}, not in Problems; as warning: ${squiggles} warning squiggles in view; Problems: ${JSON.stringify(first.trim())}`;
  });
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');

  // 6. a plain JSON file gets nothing while the server runs (it is attached to every JSON file)
  await check('plain-json-untouched', async () => {
    await ensureServer();
    await clearNotifications();
    await openFile(ws.plain.rel, '"demo-app"');
    await sleep(4000); // longer than the debounce; the server has answered for the open file by now
    const text = await editorText();
    const extra = [];
    for (const l of text.split('\n')) {
      if (l.trim() && !ws.plain.lines.some((src) => src.trimEnd() === l.trimEnd())) extra.push(l);
    }
    if (extra.length) fail(`lines differ from the file (inlay hints?): ${JSON.stringify(extra)}`);
    const { text: hoverShown } = await hoverUntil('"Ġtokenizer"', ['__never__'], 3000);
    if (/\b[0-9A-F]{2}( [0-9A-F]{2})+\b|U\+[0-9A-F]{4}|bytes/i.test(hoverShown)) fail(`hover on "Ġtokenizer" shows token information: ${JSON.stringify(hoverShown)}`);
    await page.mouse.move(5, 5);
    await openProblems();
    const problems = await problemsText();
    if (problems.includes(path.basename(ws.plain.rel))) fail(`Problems lists ${path.basename(ws.plain.rel)}: ${JSON.stringify(problems.slice(0, 400))}`);
    const squiggles = await page.locator(`${EDITOR_LINES.replace(' .view-lines', '')} [class*="squiggly-"]`).count();
    if (squiggles) fail(`${squiggles} squiggles drawn in ${ws.plain.rel}`);
    const notes = (await errorToasts()).filter((t) => !/large-file|hides its inlay/.test(t));
    if (notes.length) fail(`notifications: ${JSON.stringify(notes)}`);
    return `no hints, no token hover (${hoverShown ? JSON.stringify(hoverShown.slice(0, 80)) : 'no hover at all'}), no problems, no squiggles, no notification`;
  });
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');

  // 7. language ids of .tiktoken and merges files (vocab.bpe and merges.txt), hints, a merge hover
  await check('tiktoken-and-merges-languages', async () => {
    await ensureServer();
    const mode = async () => norm(await page.locator('[id="status.editor.mode"]').innerText()).trim();
    await openFile(ws.tiktoken.rel, ws.tiktoken.lines[0].split(' ')[0]);
    const tikMode = await until(async () => (await mode()) === 'tiktoken' && 'tiktoken', 10_000);
    if (!tikMode) fail(`language mode of ${ws.tiktoken.rel} is ${JSON.stringify(await mode())}, not "tiktoken"`);
    const [b64] = ws.tiktoken.lines[0].split(' ');
    let tikLine;
    const tikHint = await until(async () => {
      tikLine = await renderedLine(b64);
      return tikLine && tikLine.trim() !== ws.tiktoken.lines[0].trim();
    }, WAIT_SERVER_MS);
    if (!tikHint) fail(`no inlay hint on line 1 of ${ws.tiktoken.rel}: it reads ${JSON.stringify(tikLine)}`);
    await shot('07a-tiktoken');

    await openFile(ws.merges.rel, '#version');
    const mergesMode = await until(async () => (await mode()) === 'BPE merges' && 'BPE merges', 10_000);
    if (!mergesMode) fail(`language mode of ${ws.merges.rel} is ${JSON.stringify(await mode())}, not "BPE merges"`);
    let mergeLine;
    const mergeHint = await until(async () => {
      mergeLine = (await editorText()).split('\n').find((l) => l.startsWith(ws.merges.lines[1].split(' ')[0]));
      return mergeLine && mergeLine.trim() !== ws.merges.lines[1].trim();
    }, WAIT_SERVER_MS);
    if (!mergeHint) fail(`no inlay hint on the merge ${JSON.stringify(ws.merges.lines[1])}: it reads ${JSON.stringify(mergeLine)}`);

    // merges.txt (a name Vim and others take for plain text) with its vocab.json beside it
    const mh = ws.mergesTxt.hover;
    await openFile(ws.mergesTxt.rel, '#version');
    const txtMode = await until(async () => (await mode()) === 'BPE merges' && 'BPE merges', 10_000);
    if (!txtMode) fail(`language mode of ${ws.mergesTxt.rel} is ${JSON.stringify(await mode())}, not "BPE merges"`);
    await gotoLine(mh.line);
    const want = `merge rank ${mh.rank}: ${mh.left} + ${mh.right} → ${mh.left}${mh.right}`;
    const { ok, text } = await hoverUntil(mh.text, [want], WAIT_SERVER_MS, 0);
    if (!ok) fail(`hover on "${mh.left}" of the merge "${mh.text}" (line ${mh.line} of ${ws.mergesTxt.rel}) should show ${JSON.stringify(want)}; it showed ${JSON.stringify(text)}`);
    await shot('07b-merges-txt-hover');
    await page.mouse.move(5, 5);
    return `tiktoken: mode "tiktoken", line 1 ${JSON.stringify(tikLine.trim())}; vocab.bpe: mode "BPE merges", line 2 ${JSON.stringify(mergeLine.trim())}; merges.txt: mode "BPE merges", hover on "${mh.text}" shows ${JSON.stringify(text.replace(/\n+/g, ' | ').slice(0, 200))}`;
  });
  await page.keyboard.press('Escape');

  // 8. a settings change reaches the running server (no restart), both ways
  await check('settings-live-update', async () => {
    await ensureLargeFileModeOff();
    if (await updateSettings({ 'tokenizerLsp.inlayHints.mode': undefined })) await sleep(1000);
    await ensureServer();
    const startsBefore = count(/Starting server:/g);
    const configBefore = count(/Sending notification 'workspace\/didChangeConfiguration'/g);
    await openFile(ws.tokenizer.rel);
    await gotoLine(hover.line);
    const literal = JSON.stringify(hover.token);
    const hinted = await until(async () => {
      const l = await renderedLine(literal);
      return l && l.trim() !== hover.source.trim();
    }, WAIT_SERVER_MS);
    if (!hinted) fail(`no hint to start from on line ${hover.line}`);
    await setEnumSetting('tokenizerLsp.inlayHints.mode', 'off');
    await until(async () => (await page.locator('.part.editor .editor-group-container.active .tab.active').innerText()).includes('tokenizer.json'), 10_000);
    await gotoLine(hover.line);
    let line;
    const gone = await until(async () => {
      line = await renderedLine(literal);
      return line && line.trim() === hover.source.trim();
    }, 30_000);
    if (!gone) {
      // VS Code asks again only on workspace/inlayHint/refresh or when the view changes.
      await gotoLine(hover.line + 300);
      await gotoLine(hover.line);
      const goneAfterScroll = await until(async () => {
        line = await renderedLine(literal);
        return line && line.trim() === hover.source.trim();
      }, 15_000);
      if (goneAfterScroll) fail('hints went away only after scrolling: the server did not send workspace/inlayHint/refresh after the settings change');
      fail(`after setting tokenizerLsp.inlayHints.mode to "off", line ${hover.line} still reads ${JSON.stringify(line)}`);
    }
    const offLine = line.trim();
    // back to the default: the setting removed in settings.json
    await updateSettings({ 'tokenizerLsp.inlayHints.mode': undefined });
    await gotoLine(hover.line);
    const back = await until(async () => {
      line = await renderedLine(literal);
      return line && line.trim() !== hover.source.trim();
    }, 30_000);
    if (!back) fail(`after removing tokenizerLsp.inlayHints.mode again (default "all"), line ${hover.line} reads ${JSON.stringify(line)}`);
    const startsAfter = count(/Starting server:/g);
    if (startsAfter !== startsBefore) fail(`the server was restarted (${startsBefore} -> ${startsAfter} starts)`);
    if (TRACE !== 'off' && count(/Sending notification 'workspace\/didChangeConfiguration'/g) < configBefore + 2) fail('no workspace/didChangeConfiguration in the LSP trace for each change');
    return `with mode "off" (set in the Settings editor) line ${hover.line} reads ${JSON.stringify(offLine)}, with the default "all" again ${JSON.stringify(line.trim())}; server not restarted`;
  });

  // 9. "Tokenizer LSP: Restart server" and the "Tokenizer LSP" output channel, which holds the
  // server's own log, one timestamp a line and no blank lines
  await check('restart-command-and-log', async () => {
    await ensureServer();
    const before = count(/Server started\./g);
    const startsBefore = count(/Starting server:/g);
    const OPEN_LINE = `tokenizer_lsp: open ${path.basename(ws.tokenizer.rel)}`;
    const opensBefore = extensionLog().split(OPEN_LINE).length;
    await runCommand('Tokenizer LSP: Restart server');
    const restarted = await until(() => count(/Server started\./g) > before, 60_000);
    if (!restarted) fail(`no new "Server started." in the extension log after the restart command`);
    // the restarted server logs the documents the client opens in it again
    const logged = await until(() => extensionLog().split(OPEN_LINE).length > opensBefore, 30_000);
    if (!logged) fail(`the restarted server's own log line "${OPEN_LINE} ..." is not in the channel`);
    const lastOpen = extensionLog().split('\n').reverse().find((l) => l.includes(OPEN_LINE));
    if (count(/Starting server:/g) !== startsBefore + 1) fail(`the restart started ${count(/Starting server:/g) - startsBefore} servers`);
    await runCommand('Tokenizer LSP: Show server log');
    const outputText = async () => norm(await page.locator('.part.panel .monaco-editor .view-lines').first().innerText());
    // The channel is long (LSP trace); filter it like a person would.
    const channelName = async () =>
      norm(await page.locator('.part.panel select:visible').first().evaluate((el) => el.options[el.selectedIndex]?.text || '')).trim();
    const onChannel = await until(async () => (await channelName()) === 'Tokenizer LSP', 10_000);
    if (!onChannel) fail(`the Output view shows the channel ${JSON.stringify(await channelName())}, not "Tokenizer LSP"`);
    const filter = page.locator('.part.panel input[placeholder*="Filter"]:visible').first();
    await filter.waitFor({ timeout: 10_000 });
    await filter.fill('Starting server');
    let out = '';
    const shown = await until(async () => {
      out = await outputText();
      return (out.match(/Starting server:/g) || []).length >= 2;
    }, 20_000);
    if (!shown) fail(`the "Tokenizer LSP" output does not show the restart: ${JSON.stringify(out.slice(-400))}`);
    const startLine = out.split('\n').reverse().find((l) => l.includes('Starting server:')) || '';
    // the server's own log: it logs each document it opens (the restart re-opens tokenizer.json)
    await filter.fill(OPEN_LINE);
    let serverOut = '';
    const serverLine = await until(async () => {
      serverOut = await outputText();
      return serverOut.split('\n').find((l) => l.trim() === lastOpen.trim());
    }, 30_000);
    await shot('09a-output-channel');
    await filter.fill('');
    if (!serverLine) fail(`the "Tokenizer LSP" output does not show the restarted server's ${JSON.stringify(lastOpen)}: ${JSON.stringify(serverOut.slice(-400))}`);
    const stamps = (l) => (l.match(/\d\d:\d\d:\d\d/g) || []).length;
    if (stamps(serverLine) !== 1) fail(`the server's line has ${stamps(serverLine)} timestamps: ${JSON.stringify(serverLine)}`);
    // the whole channel: one timestamp per entry, no blank entries
    const logLines = extensionLog().split('\n').filter((l, i, all) => i < all.length - 1 || l !== '');
    const blank = logLines.filter((l) => l.trim() === '' || /^\S+ \S+ \[\w+\]\s*$/.test(l));
    if (blank.length) fail(`the output channel has ${blank.length} blank lines`);
    const doubled = logLines.filter((l) => /^\S+ \S+ \[\w+\] (\[(Trace|Info|Warn|Error|Debug|LSP)\s*- |\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)/.test(l));
    if (doubled.length) fail(`${doubled.length} lines of the output channel carry a second timestamp, e.g. ${JSON.stringify(doubled[0])}`);
    // the restarted server answers
    await openFile(ws.tokenizer.rel);
    await gotoLine(hover.line);
    const { ok, text } = await hoverUntil(JSON.stringify(hover.token), [hover.hex], WAIT_SERVER_MS);
    if (!ok) fail(`after the restart the hover on ${JSON.stringify(hover.token)} shows ${JSON.stringify(text)}`);
    return `output channel shows ${JSON.stringify(startLine.trim().slice(0, 160))} and the server's ${JSON.stringify(serverLine.trim())}; ${logLines.length} log lines, none blank or with two timestamps; hover works after the restart`;
  });
  await page.mouse.move(5, 5);
  await page.keyboard.press('Escape');

  // 10. a server that dies at once: the client gives up after a few tries, with one message
  await check('crashing-server-one-message', async () => {
    await ensureServer();
    await clearNotifications();
    const good = currentSettings();
    const startsBefore = count(/Starting server:/g);
    // a runnable program that exits at once instead of speaking LSP
    await editSettingsJson({ ...good, 'tokenizerLsp.server.command': [PYTHON, '-c', 'import sys; sys.exit(3)'] });
    const toasts = page.locator('.notification-toast');
    const appeared = await until(async () => (await toasts.count()) > 0 && /Tokenizer LSP/.test(await toasts.first().innerText()), 60_000);
    await sleep(8000); // retries and any further messages would show by now
    const texts = await toasts.evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
    await shot('10a-crashing-server');
    const ours = texts.filter((t) => /Tokenizer LSP|tokenizerLsp|tokenizer-lsp/i.test(t) && !/large-file|hides its inlay/.test(t));
    const starts = count(/Starting server:/g) - startsBefore;
    if (!appeared || ours.length !== 1) fail(`expected one notification, saw ${ours.length}: ${JSON.stringify(ours)} (server starts: ${starts})`);
    await editSettingsJson(good);
    const back = await until(serverUp, 60_000);
    if (!back) fail('the server did not start again after the setting was fixed');
    return `${starts} start attempt(s), one notification: ${JSON.stringify(ours[0].slice(0, 250))}`;
  });

  // 11. a relative server command is run from the workspace folder, by the import check as by
  // the server itself (code-server's own folder holds no such path)
  await check('relative-command-cwd', async () => {
    await ensureServer();
    const link = path.join(WORKSPACE, '.e2e-venv');
    if (!fs.existsSync(link)) fs.symlinkSync(path.dirname(path.dirname(PYTHON)), link);
    const command = ['.e2e-venv/bin/python', '-m', 'tokenizer_lsp'];
    await clearNotifications();
    const startedBefore = count(/Server started\./g);
    const errorsBefore = count(/\[error\] Tokenizer LSP:/g);
    await updateSettings({ 'tokenizerLsp.server.command': command });
    await until(() => count(/Server started\./g) > startedBefore || count(/\[error\] Tokenizer LSP:/g) > errorsBefore, WAIT_SERVER_MS);
    const errors = await errorToasts();
    if (count(/\[error\] Tokenizer LSP:/g) > errorsBefore || errors.length) {
      fail(`the relative command ${JSON.stringify(command)} failed: ${JSON.stringify(errors[0] || extensionLog().slice(-500))}`);
    }
    if (!serverUp()) fail(`the server did not start from ${JSON.stringify(command)}; log tail: ${JSON.stringify(extensionLog().slice(-500))}`);
    const startLine = extensionLog().split('\n').reverse().find((l) => l.includes('Starting server:')) || '';
    if (!startLine.includes(`.e2e-venv/bin/python -m tokenizer_lsp --stdio`) || !startLine.includes(`in ${WORKSPACE})`)) {
      fail(`the server was not started from the workspace folder: ${JSON.stringify(startLine)}`);
    }
    await openFile(ws.tokenizer.rel);
    await gotoLine(hover.line);
    const { ok, text } = await hoverUntil(JSON.stringify(hover.token), [hover.hex], WAIT_SERVER_MS);
    if (!ok) fail(`with the relative command the hover shows ${JSON.stringify(text)}`);
    await page.mouse.move(5, 5);
    await updateSettings({ 'tokenizerLsp.server.command': GOOD_COMMAND });
    return `${JSON.stringify(command)} passed the import check and started: ${JSON.stringify(startLine.replace(/^\S+ \S+ \[info\] /, ''))}; the hover works`;
  });
  await page.keyboard.press('Escape');

  // 12. the server dies while in use: the client starts it again by itself
  await check('server-crash-recovers', async () => {
    await ensureServer();
    await clearNotifications();
    // the server processes of this run only: children in code-server's own process group
    // The server forks short-lived helpers with the same argv while it checks a file; a
    // process whose parent is a server is such a helper, not a second server.
    const servers = execFileSync('ps', ['-eo', 'pid=,ppid=,pgid=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((f) => f.length > 3 && Number(f[2]) === codeServer.pid && f.slice(3).join(' ').includes('-m tokenizer_lsp'));
    const serverPids = new Set(servers.map((f) => Number(f[0])));
    const ours = servers.filter((f) => !serverPids.has(Number(f[1]))).map((f) => Number(f[0]));
    if (ours.length !== 1) {
      const when = extensionLog().split('\n').filter((l) => /Server (started|stopped|restarted)\.|Starting server:|exited with code/.test(l)).slice(-4);
      fail(`expected one running server process, found ${ours.length}: ${JSON.stringify(servers.map((f) => `pid ${f[0]} ppid ${f[1]}: ${f.slice(3).join(' ')}`))}; ps: ${JSON.stringify(execFileSync('ps', ['-o', 'pid=,ppid=,etimes=,stat=,args=', '-p', ours.join(',')], { encoding: 'utf8' }).trim().split('\n'))}; the extension's log ends ${JSON.stringify(when)}`);
    }
    const startedBefore = count(/Server restarted\./g);
    process.kill(ours[0], 'SIGKILL');
    const back = await until(() => count(/Server restarted\./g) > startedBefore, 60_000);
    if (!back) fail(`the server was not restarted after it was killed; log tail: ${JSON.stringify(extensionLog().slice(-600))}`);
    await openFile(ws.tokenizer.rel);
    await gotoLine(hover.line);
    const { ok, text } = await hoverUntil(JSON.stringify(hover.token), [hover.hex], WAIT_SERVER_MS);
    if (!ok) fail(`after the restart the hover shows ${JSON.stringify(text)}`);
    const toasts = await page.locator('.notification-toast').evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
    const errors = toasts.filter((t) => /Tokenizer LSP/.test(t) && /stopped|crash|connection/i.test(t));
    if (errors.length) fail(`a single crash should not raise a notification: ${JSON.stringify(errors)}`);
    return `killed pid ${ours[0]}; the client restarted the server and the hover works again`;
  });
}

/**
 * Checks 13-15: navigation (issue 14) by the keys a person presses on Linux. The expectations
 * come from the files' own text (tests/vscode/workspace.mjs navigationExpectations), not from
 * the server: the line and column of a merge's right part, the line of that token's vocab key,
 * and the number of references (merges using the token as a part + merges producing it + its
 * added_tokens entry + the vocab key).
 */
async function navigationChecks() {
  const where = (nav) => `${nav.rel} (${nav.format} merges)`;
  // VS Code 1.100 titles a one-file peek "References (24)"; others say "24 references"
  const peekCount = (title) => {
    const m = /References \((\d+)\)|(\d+) references?\b/.exec(title);
    return m ? Number(m[1] ?? m[2]) : null;
  };

  // 13. F12 on a merge part lands on the vocab key of that token, in each tokenizer.json
  await check('definition-f12', async () => {
    await ensureLargeFileModeOff();
    await ensureServer();
    const done = [];
    for (const nav of ws.navigation) {
      const { merge, decl } = nav;
      await openFile(nav.rel);
      await gotoLine(merge.line, merge.col);
      const before = await cursorPosition();
      const t0 = Date.now();
      await page.keyboard.press('F12');
      let pos;
      const moved = await until(async () => {
        pos = await cursorPosition();
        if (pos && pos.line !== merge.line) return true;
        // a null answer: VS Code says so in a message over the editor
        const none = await page.locator('.monaco-editor-overlaymessage').filter({ hasText: 'No definition' }).count();
        if (none) fail(`F12 on "${merge.right}" of merge ${merge.rank} ${JSON.stringify(merge.text)} (line ${merge.line}, col ${merge.col} of ${where(nav)}): VS Code says "No definition found"`);
        return false;
      }, WAIT_SERVER_MS, 200);
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      await sleep(400);
      const active = (await activeLineText()) || '';
      const name = nav.rel.split('/')[0];
      await shot(`13-definition-f12-${name}`);
      if (!moved) fail(`F12 on "${merge.right}" at line ${merge.line}, col ${merge.col} of ${where(nav)} did not move the cursor in ${WAIT_SERVER_MS / 1000} s (status bar ${JSON.stringify(pos?.text)})`);
      const keyLiteral = JSON.stringify(decl.token);
      if (pos.line !== decl.line || pos.col < decl.col || pos.col > decl.col + keyLiteral.length) {
        fail(`F12 on "${merge.right}" (merge ${merge.rank} ${JSON.stringify(merge.text)}, line ${merge.line} of ${where(nav)}) went to ${pos.text}; the vocab key ${JSON.stringify(decl.text)} is at Ln ${decl.line}, Col ${decl.col}`);
      }
      if (!active.trimStart().startsWith(keyLiteral)) fail(`after F12 the highlighted line reads ${JSON.stringify(active)}, not the vocab key ${JSON.stringify(decl.text)}`);
      done.push(`${where(nav)}: "${merge.right}" of merge ${merge.rank} ${merge.text} at ${before.text} -> ${pos.text} (${secs} s), the line reads ${JSON.stringify(active.trim())}`);
    }
    return done.join('; ');
  });
  await page.keyboard.press('Escape');

  // 14. Shift+F12 on a vocab key: the peek widget lists every reference
  await check('references-shift-f12', async () => {
    await ensureLargeFileModeOff();
    await ensureServer();
    const done = [];
    for (const nav of ws.navigation) {
      const { decl, references: want } = nav;
      await openFile(nav.rel);
      await gotoLine(decl.line, decl.col + 1);
      const t0 = Date.now();
      await page.keyboard.press('Shift+F12');
      const head = page.locator('.part.editor .peekview-widget .head').first();
      let title = '';
      const shown = await until(async () => {
        if (!(await head.count())) return false;
        title = norm(await head.innerText()).replace(/\s+/g, ' ').replace(`${WORKSPACE}/`, '').trim();
        return peekCount(title) !== null;
      }, WAIT_SERVER_MS, 250);
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      await sleep(500);
      await shot(`14-references-shift-f12-${nav.rel.split('/')[0]}`);
      if (!shown) fail(`Shift+F12 on the vocab key ${JSON.stringify(decl.text)} (line ${decl.line} of ${where(nav)}) showed no references peek (title ${JSON.stringify(title)})`);
      const got = peekCount(title);
      // the first rows of the peek's list: the file, then references in file order
      const rows = await page
        .locator('.part.editor .peekview-widget .ref-tree .monaco-list-row')
        .evaluateAll((els) => els.slice(0, 4).map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
      await page.keyboard.press('Escape');
      await page.locator('.part.editor .peekview-widget').first().waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
      const parts = `${want.asPart} as a merge part + ${want.producing} producing merge(s) + ${want.added} added token + 1 vocab key`;
      if (got !== want.total) fail(`the peek for "${decl.token}" (${where(nav)}) says ${JSON.stringify(title)}; the file has ${want.total} (${parts})`);
      done.push(`${where(nav)}: "${decl.token}" -> peek ${JSON.stringify(title)} in ${secs} s (file: ${parts}); rows ${JSON.stringify(rows)}`);
    }
    return done.join('; ');
  });
  await page.keyboard.press('Escape');

  // 15. Ctrl+T (Go to Symbol in Workspace) finds a token by its decoded text; Enter opens it
  await check('workspace-symbol-ctrl-t', async () => {
    await ensureLargeFileModeOff();
    await ensureServer();
    const { query, rows: want } = ws.symbol;
    // the server searches the files it has open
    for (const nav of ws.navigation) await openFile(nav.rel);
    await closeQuickInput();
    await page.keyboard.press('Control+T');
    const input = page.locator('.quick-input-widget:visible input');
    await input.waitFor({ timeout: 10_000 });
    // Ctrl+T fills in "#" and the word at the cursor (selected); the query replaces the word
    await until(async () => (await input.inputValue()).startsWith('#'), 5_000, 100);
    const opened = await input.inputValue();
    if (!opened.startsWith('#')) fail(`Ctrl+T opened the quick input with ${JSON.stringify(opened)}, not the "#" of Go to Symbol in Workspace`);
    if (opened !== '#') await input.fill('#');
    await page.keyboard.type(query);
    const listRows = () =>
      page.locator('.quick-input-widget:visible .quick-input-list .monaco-list-row').evaluateAll((els) =>
        els.map((e) => ({
          name: (e.querySelector('.label-name')?.textContent || '').replace(/\u00a0/g, ' ').trim(),
          description: (e.querySelector('.label-description')?.textContent || '').trim(),
          aria: e.getAttribute('aria-label') || '',
        })),
      );
    let rows = [];
    const t0 = Date.now();
    const found = await until(async () => {
      rows = await listRows();
      return want.every((w) => rows.some((r) => r.name === query && r.description.includes(w.container)));
    }, WAIT_SERVER_MS, 300);
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    await shot('15a-workspace-symbol-quick-pick');
    const shownRows = rows.slice(0, 6).map((r) => `${r.name} | ${r.description}`);
    if (!found) fail(`Ctrl+T "#${query}": want rows ${JSON.stringify(want.map((w) => `${query} | ${w.container}`))}; the list shows ${JSON.stringify(shownRows)}`);
    // pick the first expected row: the editor opens its file on the vocab key
    const target = want[0];
    const row = page
      .locator('.quick-input-widget:visible .quick-input-list .monaco-list-row')
      .filter({ has: page.locator('.label-description', { hasText: target.container }) })
      .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${query.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\s*$`) }) })
      .first();
    await row.click();
    let pos;
    const landed = await until(async () => {
      pos = await cursorPosition();
      return pos && pos.line === target.line;
    }, 30_000, 200);
    await sleep(400);
    const active = (await activeLineText()) || '';
    await shot('15b-workspace-symbol-opened');
    if (!landed) fail(`choosing "${query} ${target.container}" put the cursor at ${pos?.text}, not on the vocab key ${JSON.stringify(target.key)} at line ${target.line} of ${target.rel}`);
    if (!active.trimStart().startsWith(JSON.stringify(target.key))) fail(`after choosing the symbol the highlighted line reads ${JSON.stringify(active)}`);
    return `Ctrl+T opened ${JSON.stringify(opened)}; "#${query}" lists ${want.map((w) => `"${query}" ${w.container} (${w.rel})`).join(' and ')} in ${secs} s, first rows ${JSON.stringify(shownRows)}; choosing the ${target.rel} one goes to ${pos.text}: ${JSON.stringify(active.trim())}`;
  });
  await page.keyboard.press('Escape');
}

let fatal;
try {
  await main();
  await navigationChecks();
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
