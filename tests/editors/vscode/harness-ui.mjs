// What a person does in the VS Code window, as functions the checks share: run a command from
// the palette, open a file, go to a line, hover a literal, edit settings, read notifications
// and the Problems panel; ensureServer() is every check's starting point.
import fs from 'node:fs';
import path from 'node:path';
import {
  SETTINGS_FILE, GOOD_COMMAND, TOKENIZER_IS_LARGE, WAIT_SERVER_MS, ws, page, shot, fail, until, sleep, norm, log,
  extensionLog, serverUp, EDITOR_LINES,
} from './harness.mjs';

export async function closeQuickInput() {
  if (await page.locator('.quick-input-widget:visible').count()) await page.keyboard.press('Escape');
}

export async function runCommand(title) {
  // The palette can be closed under the typed title by what an earlier command opened late (a
  // decoded view taking focus on a loaded machine: its row then stays "hidden"): start over, at
  // most three times, as openFile does.
  const exact = new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  for (let attempt = 1; ; attempt++) {
    await closeQuickInput();
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget:visible input');
    const row = page
      .locator('.quick-input-list .monaco-list-row')
      .filter({ has: page.locator('.label-name', { hasText: exact }) })
      .first();
    try {
      // the palette may close between showing and the typing too (CI: fill waited 30 s for
      // an input that had gone): each step short, and the whole attempt started over
      await input.waitFor({ timeout: 10_000 });
      await input.fill(`>${title}`, { timeout: 5_000 });
      await row.waitFor({ timeout: 10_000 });
      await row.click();
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}

/** Opens a workspace file by quick open and waits for its text on screen. */
export async function openFile(rel, expectText) {
  const input = page.locator('.quick-input-widget:visible input');
  // Quick Open right after a command that showed (or dismissed) another quick input, or
  // restarted the server, at times never takes the typed name, or is replaced by a prompt that
  // a command opened late (its row then stays "not visible"): start over, at most three times.
  const name = path.basename(rel);
  const row = page
    .locator('.quick-input-list .monaco-list-row', { hasText: name })
    .filter({ hasText: path.dirname(rel) })
    .first();
  for (let attempt = 1; ; attempt++) {
    try {
      await closeQuickInput();
      await page.keyboard.press('Control+P');
      await input.waitFor({ timeout: 10_000 });
      await input.fill(rel, { timeout: 10_000 });
      await row.waitFor({ timeout: 20_000 });
      await sleep(300);
      await row.click({ timeout: 10_000 });
      break;
    } catch (e) {
      if (attempt >= 3) throw e;
      log(`quick open did not open ${rel} (attempt ${attempt}: ${String(e.message).split('\n')[0]}): trying again`);
      await page.keyboard.press('Escape');
      await sleep(1000);
    }
  }
  const t0 = Date.now();
  await page.locator('.part.editor .editor-group-container.active .tab.active', { hasText: name }).waitFor({ timeout: 60_000 });
  // A file opened before comes back scrolled where it was: then any text will do.
  const shown = await until(async () => {
    const text = norm(await page.locator(EDITOR_LINES).innerText());
    return expectText ? text.includes(expectText) : text.trim() !== '';
  }, 120_000, 100);
  log(`opened ${rel} in ${((Date.now() - t0) / 1000).toFixed(1)} s${shown ? '' : ` (its text ${JSON.stringify(expectText)} did not show)`}`);
}

/**
 * `rel` the one editor in the window, as "Close All Editors" and opening it would leave it, but
 * a file that is open stays open: VS Code keeps its text and the server its index (11 MB are not
 * loaded and indexed once more), and a server restart re-opens this file alone.
 */
export async function onlyEditor(rel, expectText) {
  // the playground's webview first, closed by a middle click on its tab (it keeps the focus in
  // its frame, where Quick Open does not reach the file's tab); then views beside (stats,
  // tokens) joined into one group with the file's tab
  const webviews = page.locator('.part.editor .tab', { hasText: 'Playground' });
  for (let i = await webviews.count(); i > 0; i--) await webviews.first().click({ button: 'middle', timeout: 10_000 });
  if ((await page.locator('.part.editor .editor-group-container').count()) > 1) await runCommand('View: Join All Editor Groups');
  await openFile(rel, expectText);
  if ((await page.locator('.part.editor .editor-group-container.active .tab').count()) > 1) await runCommand('View: Close Other Editors in Group');
}

/** Go to Line/Column (Ctrl+G) `:line` or `:line:col` (1-based, col in UTF-16 units). */
export async function gotoLine(line, col) {
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
export async function cursorPosition() {
  const text = norm(await page.locator('[id="status.editor.selection"]').innerText());
  const m = /Ln (\d+), Col (\d+)/.exec(text);
  return m ? { line: Number(m[1]), col: Number(m[2]), text: text.trim() } : null;
}

/** The rendered text of the line the editor highlights as the cursor's (.current-line). */
export async function activeLineText() {
  return page.evaluate((selector) => {
    const editor = document.querySelector(selector)?.closest('.monaco-editor');
    const current = editor?.querySelector('.view-overlays .current-line');
    if (!current) return null;
    const top = current.parentElement.style.top;
    const line = [...editor.querySelectorAll('.view-lines .view-line')].find((l) => l.style.top === top);
    return line ? line.textContent.replace(/\u00a0/g, ' ') : null;
  }, EDITOR_LINES);
}

export async function editorText() {
  return norm(await page.locator(EDITOR_LINES).innerText());
}

/** The rendered text of the visible line that starts (after indentation) with `prefix`. */
export async function renderedLine(prefix) {
  const lines = (await editorText()).split('\n');
  return lines.find((l) => l.trimStart().startsWith(prefix));
}

/** innerText of every visible hover widget. */
export async function hoverText() {
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
export async function literalPoint(literal, inside = 1) {
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
export async function hoverUntil(literal, want, timeoutMs, inside = 1) {
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
export async function setEnumSetting(key, value) {
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
export async function editSettingsJson(settings) {
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

export function currentSettings() {
  return JSON.parse(fs.readFileSync(SETTINGS_FILE, 'utf8'));
}

export async function openProblems() {
  await closeQuickInput();
  await page.keyboard.press('Control+Shift+M');
  await page.locator('.markers-panel').first().waitFor({ timeout: 10_000 });
}

export async function problemsText() {
  const panel = page.locator('.markers-panel').first();
  if (!(await panel.count())) return '';
  return norm(await panel.innerText());
}


/**
 * Changes user settings (a value of undefined removes the key) through the settings.json editor:
 * once the window is up, VS Code does not notice settings.json written behind its back.
 */
export async function updateSettings(changes) {
  const current = currentSettings();
  const next = { ...current, ...changes };
  for (const [k, v] of Object.entries(changes)) if (v === undefined) delete next[k];
  if (JSON.stringify(next) === JSON.stringify(current)) return false;
  await editSettingsJson(next);
  return true;
}

/**
 * The server runs with GOOD_COMMAND and a tokenizer file is open (each check's starting point):
 * `file` (default the workspace's tokenizer.json; a check on another opens that one, and no
 * other is loaded and indexed for nothing); with `alone`, the only editor (checks that restart
 * the server: it re-opens every open file).
 */
export async function ensureServer({ alone = false, file = ws.tokenizer.rel } = {}) {
  if (await updateSettings({ 'tokenizerLsp.server.command': GOOD_COMMAND })) {
    log('set tokenizerLsp.server.command to the working command');
    await sleep(1000);
  }
  await (alone ? onlyEditor : openFile)(file);
  const up = await until(serverUp, WAIT_SERVER_MS);
  if (!up) fail(`the server is not running; extension log tail: ${JSON.stringify(extensionLog().slice(-800))}`);
}

/** Whether the server runs with GOOD_COMMAND already (ensureServer's state, without a file to open). */
export async function serverRunsWithoutFile() {
  return JSON.stringify(currentSettings()['tokenizerLsp.server.command']) === JSON.stringify(GOOD_COMMAND) && serverUp();
}

/**
 * No editor open and the server running: left so by the checks before, else started on
 * tokenizer.json and closed again (opened and closed each time, it cost VS Code and the server
 * 11 MB for nothing); no panel an earlier check left open over the editor (the screenshots).
 */
export async function serverWithNoEditor() {
  await ensureLargeFileModeOff();
  await runCommand('View: Close All Editors');
  if (!(await serverRunsWithoutFile())) {
    await ensureServer();
    await runCommand('View: Close All Editors');
  }
  if (await page.locator('.part.panel').isVisible().catch(() => false)) await runCommand('View: Hide Panel');
}

/** VS Code's large-file mode off for JSON, as "Turn Off for JSON Files" does (check 4 tests that). */
export async function ensureLargeFileModeOff() {
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
export async function notificationTexts() {
  const toasts = await page.locator('.notification-toast').evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
  await runCommand('Notifications: Show Notifications');
  await sleep(500);
  const center = await page
    .locator('.notifications-center .notification-list-item')
    .evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
  await runCommand('Notifications: Hide Notifications');
  return [...new Set([...toasts, ...center])];
}

export async function clearNotifications() {
  await runCommand('Notifications: Clear All Notifications');
  await sleep(300);
}

/** Tokenizer LSP's error toasts (the large-file notice is information, not counted). */
export async function errorToasts() {
  const toasts = page.locator('.notification-toast', { hasText: 'Tokenizer LSP' });
  const texts = await toasts.evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
  return texts.filter((t) => !/large-file|hides its inlay/.test(t));
}
