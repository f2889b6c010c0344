// End-to-end checks of the tokenizer-lsp VS Code extension in real VS Code (code-server) driven
// by headless Chromium. Run through scripts/vscode-e2e.sh, which installs and packages first.
//
// Env: CODE_SERVER_BIN, TOKENIZER_LSP_VSIX, TOKENIZER_LSP_PYTHON (required);
//      TOKENIZER_CORPUS (default ../shared/corpus), E2E_TRACE (default messages),
//      CHROMIUM (default /usr/bin/chromium), E2E_KEEP_TMP=1 keeps the temp folder,
//      E2E_CPU_PROFILE=1 writes the workbench page's JavaScript CPU profile to
//      artifacts/vscode/renderer.cpuprofile (open it in Chromium's DevTools, Performance).
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
// Commands and status bar (issue 17, checks-commands.mjs): 16 the status bar item on qwen3 and
// o200k, 17 "Tokenize text…", 18 "Open decoded vocabulary" on gemma3, 19 "Compare tokenizer
// with…", 20 progress while gemma3 opens, 21-22 the model folder's squiggle and light bulb.
// Quick fixes (issue 16, checks-fixes.mjs): 24 all of gemma3's merges converted to strings
// through the refactor menu, timed, one undo step.
// Binary files (issue 25, checks-binary.mjs): 25 a `.model` opens as its decoded view and a row
// hovers with its id and bytes.
// Set-up and shared helpers: harness.mjs (code-server, browser, check()) and harness-ui.mjs.
// E2E_ONLY=name,name runs some of them; each check sets up what it needs, and leaves open what
// the next one uses (qwen3 through the command checks; gemma3 from progress-gemma3 through
// convert-merges-gemma3 to decoded-vocabulary), so that VS Code and the server load an 11-33 MB file once rather than
// once per check.
// Each check asserts on text a person sees, saves a screenshot in artifacts/vscode/ and prints
// one line; the run ends with "N passed, N failed" and a non-zero exit status on a failure.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  ART, GOOD_COMMAND, HOME, NO_MODULE_COMMAND, PYTHON, ROOT, SETTINGS_FILE, TOKENIZER_IS_LARGE, TRACE, WAIT_SERVER_MS,
  WORKSPACE, codeServer, count, check, extensionLog, fail, fragment, hover, log, norm, page, run, serverUp, shot, sleep,
  until, visibleText, ws, EDITOR_LINES,
} from './harness.mjs';
import {
  clearNotifications, currentSettings, editSettingsJson, editorText, ensureLargeFileModeOff, ensureServer, errorToasts,
  gotoLine, hoverUntil, notificationTexts, openFile, openProblems, problemsText, renderedLine, runCommand,
  setEnumSetting, updateSettings,
} from './harness-ui.mjs';
import { binaryChecks } from './checks-binary.mjs';
import { commandChecks, gemma3ProgressChecks, gemma3ViewChecks } from './checks-commands.mjs';
import { fixChecks } from './checks-fixes.mjs';
import { navigationChecks } from './checks-navigation.mjs';

/** pip's cache for the install command (scripts/vscode-e2e.sh: under the e2e cache). */
const PIP_CACHE = process.env.E2E_PIP_CACHE_DIR || '';

async function main() {
  // 1. a plain JSON file opened first: the extension activates (onLanguage:json) but starts no
  // server, checks no Python and shows nothing, although the Python it is set to lacks the package
  await check('plain-json-first-silent', async () => {
    if (extensionLog().includes('is a tokenizer file')) fail('a tokenizer file was opened before this check (it must run first)');
    await openFile(ws.plain.rel, '"demo-app"');
    const activated = await until(() => extensionLog().includes('Activated; the server starts when a tokenizer file is opened.'), 60_000);
    if (!activated) fail(`the extension did not activate on ${ws.plain.rel}; its log: ${JSON.stringify(extensionLog().slice(-500))}`);
    // That line is logged once the extension has considered every open document and wants no
    // server (extension.ts): a Python check would have begun by then. A margin for its error.
    await sleep(3000);
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
    // the error is logged with the toast; anything else (retries, more errors) would show in
    // the next moments
    await until(() => count(/\[error\] Tokenizer LSP:/g) > errorsBefore, 10_000);
    await sleep(3000);
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
          // pip's download and wheel cache kept between runs (the run's HOME is new each time):
          // the same command, as a person who has installed Python packages before runs it
          env: { ...process.env, HOME, PIP_DISABLE_PIP_VERSION_CHECK: '1', ...(PIP_CACHE ? { PIP_CACHE_DIR: PIP_CACHE } : {}) },
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
    log(`missing-module: ${how}`);
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
    await ensureServer({ alone: true });
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
    await ensureServer({ alone: true });
    await clearNotifications();
    const good = currentSettings();
    const startsBefore = count(/Starting server:/g);
    const exitsBefore = count(/Server process exited with code 3\./g);
    // a runnable program that exits at once instead of speaking LSP
    await editSettingsJson({ ...good, 'tokenizerLsp.server.command': [PYTHON, '-c', 'import sys; sys.exit(3)'] });
    const toasts = page.locator('.notification-toast');
    const appeared = await until(async () => (await toasts.count()) > 0 && /Tokenizer LSP/.test(await toasts.first().innerText()), 60_000);
    // the client's last word: it logs the process's exit once it has given up (after the
    // message); retries would be logged before it. Then a margin for toasts of those events.
    await until(() => count(/Server process exited with code 3\./g) > exitsBefore, 30_000);
    await sleep(3000);
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
    await ensureServer({ alone: true });
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
    await ensureServer({ alone: true });
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

// gemma3 is opened once for the three checks on it: its progress, the conversion of its merges
// (VS Code colours the 33 MB meanwhile; a file opened again is coloured again, 30-50 s), then
// its decoded vocabulary
await run(main, navigationChecks, commandChecks, gemma3ProgressChecks, fixChecks, gemma3ViewChecks, binaryChecks);
