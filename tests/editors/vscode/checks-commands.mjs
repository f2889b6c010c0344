// Checks 16-22 of the VS Code end-to-end suite (issue 17; see e2e.mjs): the status bar item,
// the extension's commands, the progress while gemma3 opens, and the model folder's squiggle
// and light bulb. Expected values come from the files themselves or from HF `tokenizers` run
// in TOKENIZER_LSP_PYTHON, never from the server. Screenshots for the README go to
// docs/images/ as well as artifacts/vscode/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import {
  CORPUS, EDITOR_LINES, PYTHON, ROOT, WAIT_SERVER_MS, WORKSPACE, check, count, fail, log, norm, page, serverUp, shot, sleep,
  until, ws,
} from './harness.mjs';
import {
  clearNotifications, closeQuickInput, cursorPosition, editorText, ensureLargeFileModeOff, ensureServer, errorToasts, gotoLine,
  hoverUntil, onlyEditor, openFile, renderedLine, runCommand, serverWithNoEditor,
} from './harness-ui.mjs';

const DOC_IMAGES = path.join(ROOT, 'docs', 'images');
const ACTIVE_TAB = '.part.editor .editor-group-container.active .tab.active';
const STATUS_ITEM = '.part.statusbar .statusbar-item';
/** A sample with ASCII, CJK, an emoji, a double space and a tab (whitespace made visible). */
const SAMPLE = 'Hello, world! 你好 👋  tabs\tand spaces';

/**
 * A screenshot for the README (docs/images/NAME.png), of the whole window or a region. It shows
 * what a user sees, not the test run: with `clean`, no panel (the run's trace log), no side bar
 * (the run's workspace, its venv) and no banner VS Code puts over a tokenizer.json (ambiguous
 * characters: every user may close it).
 */
async function docShot(name, clip, keepNotifications = false, keepMouse = false, clean = false) {
  fs.mkdirSync(DOC_IMAGES, { recursive: true });
  if (!keepNotifications) await clearNotifications(); // VS Code's own large-file notice
  if (clean) {
    if (await page.locator('.part.panel').isVisible().catch(() => false)) await runCommand('View: Hide Panel');
    if (await page.locator('.part.sidebar').isVisible().catch(() => false)) await runCommand('View: Close Primary Side Bar');
    for (const close of await page.locator('.editor-banner .action-label').all()) await close.click().catch(() => {});
    await sleep(300);
  }
  if (!keepMouse) await page.mouse.move(5, 5);
  try {
    await page.screenshot({ path: path.join(DOC_IMAGES, `${name}.png`), ...(clip ? { clip } : {}) });
  } catch (err) {
    log(`screenshot docs/images/${name}.png failed: ${err.message}`);
  }
}

/** The bottom of the window: the end of the editor and the whole status bar. */
const BOTTOM = { x: 0, y: 640, width: 1600, height: 360 };

/** A corpus file copied into the workspace under `rel` (once); null without the corpus. */
function workspaceCopy(corpusRel, rel = corpusRel) {
  const from = path.join(CORPUS, corpusRel);
  const to = path.join(WORKSPACE, rel);
  if (!fs.existsSync(from)) return null;
  if (!fs.existsSync(to)) {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
  }
  return { rel, file: to };
}

/** Runs Python (the venv with `tokenizers`) and returns its stdout parsed as JSON. */
function python(code, ...args) {
  return JSON.parse(execFileSync(PYTHON, ['-c', code, ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }));
}

async function statusItemText() {
  const texts = await page.locator(STATUS_ITEM).evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
  return texts.find((t) => /\b(tokens|ranks)\b/.test(t)) || '';
}

/** What a command changes on screen: the active tab, a prompt, the panel, the toasts, a server start. */
async function screenState() {
  return JSON.stringify([
    await activeTabTitle(),
    await page.locator('.quick-input-widget:visible').count(),
    await page.locator('.part.panel').isVisible().catch(() => false),
    await page.locator('.notification-toast').count(),
    count(/Starting server:/g),
  ]);
}

async function activeTabTitle() {
  return norm(await page.locator(ACTIVE_TAB).first().innerText().catch(() => '')).trim();
}

/** Fills the quick input (input box or file dialog) and presses Enter. */
async function answerQuickInput(value) {
  const input = page.locator('.quick-input-widget:visible input');
  await input.waitFor({ timeout: 20_000 });
  await input.fill(value);
  await sleep(300);
  await page.keyboard.press('Enter');
}

/** Whether a view whose tab title includes `kind` is the active editor; its visible text. */
async function viewText(kind, timeoutMs = WAIT_SERVER_MS) {
  const shown = await until(async () => (await activeTabTitle()).includes(kind), timeoutMs, 250);
  if (!shown) {
    const errors = await errorToasts();
    fail(`no "${kind}" view opened (active tab ${JSON.stringify(await activeTabTitle())}; error toasts ${JSON.stringify(errors)})`);
  }
  let text = '';
  await until(async () => {
    text = norm(await page.locator(EDITOR_LINES).innerText());
    return text.trim() !== '';
  }, 30_000, 250);
  return text;
}

export async function commandChecks() {
  const qwen3 = ws.tokenizer; // qwen3/tokenizer.json (or the fallback the workspace made)
  // files the checks open later (gemma3 after these, the chat-template checks' model folder),
  // made before the window looks for them: made just before, Quick Open at times did not list
  // chat/tokenizer_config.json for 20 s (every-command-runs)
  workspaceCopy('gemma3/tokenizer.json');
  workspaceCopy('qwen3/tokenizer.json', 'chat/tokenizer.json');
  workspaceCopy('qwen3/tokenizer_config.json', 'chat/tokenizer_config.json');
  const tiktoken = ws.tiktoken;

  // 16. the status bar item: qwen3's vocab size in digits, then o200k's rank count after a switch
  await check('status-bar', async () => {
    await ensureServer();
    await openFile(qwen3.rel);
    const vocab = Object.keys(JSON.parse(fs.readFileSync(qwen3.file, 'utf8')).model.vocab).length;
    const want = vocab.toLocaleString('en-US');
    let text = '';
    const shown = await until(async () => (text = await statusItemText()).includes(`${want} tokens`), WAIT_SERVER_MS, 300);
    if (!shown) fail(`the status bar should show "${want} tokens" for ${qwen3.rel}; its tokenizer item reads ${JSON.stringify(text)}`);
    const qwenText = text;
    // unreachable tokens come after the other findings: wait for the count (or give up quietly)
    await until(async () => /\d unreachable/.test((text = await statusItemText())), 60_000, 500);
    // for the README: the item with its tooltip (the same numbers, labelled)
    await clearNotifications();
    await page.locator(STATUS_ITEM).filter({ hasText: `${want} tokens` }).first().hover();
    await page.locator('.monaco-hover:visible', { hasText: 'Tokenizer stats' }).first().waitFor({ timeout: 5_000 }).catch(() => {});
    await docShot('status-bar-vscode', { x: 700, y: 640, width: 900, height: 360 }, true, true);
    await page.mouse.move(5, 5);
    const ranks = fs.readFileSync(tiktoken.file, 'utf8').split('\n').filter((l) => l.trim() !== '').length;
    const wantRanks = ranks.toLocaleString('en-US');
    await openFile(tiktoken.rel);
    let tikText = '';
    const followed = await until(async () => (tikText = await statusItemText()).includes(`${wantRanks} ranks`), WAIT_SERVER_MS, 300);
    await shot('16a-status-bar-tiktoken');
    if (!followed) fail(`after switching to ${tiktoken.rel} the status bar should show "${wantRanks} ranks"; it reads ${JSON.stringify(tikText)}`);
    // a plain JSON file: no item
    await openFile(ws.plain.rel, '"demo-app"');
    const hidden = await until(async () => (await statusItemText()) === '', 10_000, 250);
    if (!hidden) fail(`the item stays on ${ws.plain.rel}: ${JSON.stringify(await statusItemText())}`);
    // back on qwen3, a click opens the stats view
    await openFile(qwen3.rel);
    await until(async () => (await statusItemText()).includes(want), 30_000, 300);
    await page.locator(STATUS_ITEM).filter({ hasText: `${want} tokens` }).first().click();
    const stats = await viewText('(stats)');
    if (!stats.includes(want)) fail(`the stats view opened by the click does not show ${want}: ${JSON.stringify(stats.slice(0, 400))}`);
    await shot('16b-stats-view');
    return `${qwen3.rel}: ${JSON.stringify(qwenText)} then ${JSON.stringify(text)}; ${tiktoken.rel}: ${JSON.stringify(tikText)}; hidden on ${ws.plain.rel}; the click opened the stats (${JSON.stringify(stats.split('\n').slice(0, 6).join(' | '))})`;
  });
  await closeQuickInput();

  // 17. "Tokenize text…": an input box, then a view whose ids equal HF tokenizers' own
  await check('tokenize-text', async () => {
    await ensureLargeFileModeOff(); // the picture shows the vocabulary's inlay hints
    await ensureServer();
    await onlyEditor(qwen3.rel);
    const want = python(
      'import json, sys; from tokenizers import Tokenizer; print(json.dumps(Tokenizer.from_file(sys.argv[1]).encode(sys.argv[2], add_special_tokens=False).ids))',
      qwen3.file,
      SAMPLE,
    );
    // the extension host has the document once the status bar shows it (11 MB take a while)
    await until(async () => (await statusItemText()) !== '', WAIT_SERVER_MS, 300);
    // the picture shows the vocabulary with its inlay hints: at 我's entry, found in the file
    const line = fs.readFileSync(qwen3.file, 'utf8').split('\n').findIndex((l) => l.includes('"æĪĳ":')) + 1;
    if (line > 0) {
      await gotoLine(line);
      // its hint (我) drawn, for the picture only: VS Code's large-file mode draws none
      await until(async () => ((await renderedLine('"æĪĳ"')) || '').includes('我'), 30_000, 300);
    }
    await runCommand('Tokenizer LSP: Tokenize text…');
    await answerQuickInput(SAMPLE);
    const text = await viewText('(tokens)');
    const idsLine = text.split('\n').find((l) => l.startsWith('ids: ')) || '';
    const got = idsLine ? JSON.parse(idsLine.slice(5)) : null;
    await docShot('tokenize-text-vscode', undefined, false, false, true);
    if (JSON.stringify(got) !== JSON.stringify(want)) fail(`the view's ids ${JSON.stringify(got)} differ from tokenizers' ${JSON.stringify(want)}; view: ${JSON.stringify(text.slice(0, 600))}`);
    const pieces = text.split('\n').find((l) => l.startsWith('│')) || '';
    if (!pieces.includes('␣') || !pieces.includes('\\t') || !pieces.includes('你')) fail(`the pieces line does not show whitespace and text: ${JSON.stringify(pieces)}`);
    return `"${SAMPLE.replace('\t', '\\t')}" -> ${want.length} ids equal to tokenizers' ${JSON.stringify(want)}; pieces ${JSON.stringify(pieces)}`;
  });
  await closeQuickInput();

  // 17b. "Open Tokenizer Playground": the playground's page in a webview beside the file, fed by
  // the language server; the text typed into its textarea comes back as coloured tokens whose
  // data-token-id are HF tokenizers' ids; a click on a token reveals its vocabulary entry
  await check('playground-webview', async () => {
    await ensureServer();
    await onlyEditor(qwen3.rel);
    await until(async () => (await statusItemText()) !== '', WAIT_SERVER_MS, 300);
    await runCommand('Tokenizer LSP: Open Tokenizer Playground');
    // code-server nests the page: the webview's iframe, then the page's own frame
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const input = frame.locator('textarea#text-input');
    await input.waitFor({ timeout: WAIT_SERVER_MS });
    await input.fill(SAMPLE);
    const want = python(
      'import json, sys; from tokenizers import Tokenizer; print(json.dumps(Tokenizer.from_file(sys.argv[1]).encode(sys.argv[2], add_special_tokens=False).ids))',
      qwen3.file,
      SAMPLE,
    );
    const column = frame.locator('#text-view .column[data-tokenizer="0"]');
    await until(async () => (await column.getAttribute('data-current')) === 'true', WAIT_SERVER_MS, 300);
    const got = await frame.locator('#text-view .tokens [data-token-id]').evaluateAll((els) => els.map((e) => Number(e.dataset.tokenId)));
    await docShot('playground-vscode');
    if (JSON.stringify(got) !== JSON.stringify(want)) fail(`the webview's ids ${JSON.stringify(got)} differ from tokenizers' ${JSON.stringify(want)}`);
    // a click on "Hello" shows its entry in tokenizer.json: the cursor on the vocab's
    // `"Hello": 9707` line (found in the file itself)
    const entry = `"Hello": ${want[0]},`;
    const wantLine = fs.readFileSync(qwen3.file, 'utf8').split('\n').findIndex((l) => l.trim() === entry) + 1;
    await frame.locator('#text-view .tokens [data-token-id] >> nth=0').click();
    const line = await until(async () => {
      const pos = await cursorPosition().catch(() => null);
      return pos && pos.line === wantLine ? pos.text : null;
    }, 30_000, 500);
    // the webview opened a second editor group: the next checks expect one
    await onlyEditor(qwen3.rel);
    return `"${SAMPLE.replace('\t', '\\t')}" in the webview -> ${got.length} tokens equal to tokenizers'; a click on Hello moved the cursor to its entry (${line}, line ${wantLine})`;
  });

  // 19. "Compare tokenizer with…": a file picker, an optional text, a readable report
  await check('compare-with', async () => {
    await ensureServer();
    const edited = path.join(WORKSPACE, 'qwen3-edited', 'tokenizer.json');
    const obj = JSON.parse(fs.readFileSync(qwen3.file, 'utf8'));
    const removed = obj.model.merges.pop();
    const removedRank = obj.model.merges.length;
    obj.model.ignore_merges = !obj.model.ignore_merges;
    fs.mkdirSync(path.dirname(edited), { recursive: true });
    fs.writeFileSync(edited, JSON.stringify(obj, null, 2));
    await onlyEditor(qwen3.rel);
    await runCommand('Tokenizer LSP: Compare tokenizer with…');
    // code-server's file dialog is a quick input holding a path: once it shows the folder of
    // the open file,
    // the path of the other file replaces it; the dialog sets its value again when the
    // folder's listing arrives, which can overwrite a path typed before (a CI failure):
    // wait for the listing, then check the path stayed before pressing Enter
    const input = page.locator('.quick-input-widget:visible input');
    await input.waitFor({ timeout: 20_000 });
    const rows = page.locator('.quick-input-widget:visible .quick-input-list .monaco-list-row');
    let typed = '';
    for (let attempt = 0; attempt < 3 && typed !== edited; attempt++) {
      await until(async () => (await input.inputValue()).startsWith('/'), 20_000, 200);
      await until(async () => (await rows.count()) > 0, 10_000, 200);
      await sleep(500);
      await input.fill(edited);
      await sleep(1000);
      typed = await input.inputValue();
    }
    if (typed !== edited) fail(`the file dialog did not keep the path typed: it reads ${JSON.stringify(typed)}`);
    await page.keyboard.press('Enter');
    // then the optional text: Enter with nothing compares the files only
    const box = page.locator('.quick-input-widget:visible .quick-input-title', { hasText: 'qwen3-edited' });
    const asked = await until(async () => (await box.count()) > 0, 20_000, 250);
    if (!asked) fail(`after choosing ${edited} in the file dialog no text box followed; the dialog reads ${JSON.stringify(norm(await page.locator('.quick-input-widget').innerText().catch(() => '')))}`);
    await answerQuickInput('');
    const text = await viewText('(compared with');
    await docShot('compare-vscode');
    if (!text.includes('They differ')) fail(`the report does not say the files differ: ${JSON.stringify(text.slice(0, 500))}`);
    if (!text.includes('ignore_merges')) fail(`the report does not name ignore_merges: ${JSON.stringify(text.slice(0, 800))}`);
    if (!text.includes(`rank ${removedRank}`)) fail(`the report does not show the removed merge of rank ${removedRank}: ${JSON.stringify(text.slice(0, 800))}`);
    const lines = text.split('\n').filter((l) => l.trim());
    return `qwen3 against a copy with ignore_merges flipped and the last merge (${JSON.stringify(removed)}, rank ${removedRank}) removed: ${JSON.stringify(lines.slice(0, 8).join(' | '))}`;
  });
  await closeQuickInput();

  // 21-22: the model folder (issue 16), on copies of llama2's files with one defect each
  const llama2 = path.join(CORPUS, 'llama2');
  const haveLlama2 = fs.existsSync(path.join(llama2, 'tokenizer_config.json'));

  // 21. a wrong eos_token in tokenizer_config.json: an error squiggle on it, the finding in its hover
  await check('config-squiggle', async () => {
    if (!haveLlama2) fail(`no corpus llama2/tokenizer_config.json under ${CORPUS}`);
    await ensureServer();
    const dir = path.join(WORKSPACE, 'model-config');
    fs.mkdirSync(dir, { recursive: true });
    fs.copyFileSync(path.join(llama2, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
    const config = fs.readFileSync(path.join(llama2, 'tokenizer_config.json'), 'utf8');
    const wrong = config.replace('"eos_token": "</s>"', '"eos_token": "</eos>"');
    if (wrong === config) fail('llama2/tokenizer_config.json has no "eos_token": "</s>" to break');
    fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), wrong);
    const line = wrong.split('\n').findIndex((l) => l.includes('"eos_token"')) + 1;
    await openFile('model-config/tokenizer_config.json', '"eos_token"');
    await clearNotifications();
    await gotoLine(line);
    const editorRoot = EDITOR_LINES.replace(' .view-lines', '');
    const squiggles = await until(async () => page.locator(`${editorRoot} .squiggly-error`).count(), WAIT_SERVER_MS, 300);
    if (!squiggles) fail(`no error squiggle in model-config/tokenizer_config.json (eos_token "</eos>" on line ${line})`);
    const { ok, text } = await hoverUntil('"</eos>"', ['config-token-missing'], 30_000);
    await docShot('config-squiggle-vscode', undefined, true, true);
    if (!ok) fail(`the hover on "</eos>" (line ${line}) does not show config-token-missing: ${JSON.stringify(text)}`);
    await page.mouse.move(5, 5);
    const finding = text.split('\n').find((l) => l.includes('</eos>')) || text;
    return `line ${line} "eos_token": "</eos>": ${squiggles} error squiggle(s); hover ${JSON.stringify(finding.trim().slice(0, 200))}`;
  });
  await page.keyboard.press('Escape');

  // 22. an added token whose id disagrees with the vocab: the light bulb's fix sets the vocab's id
  await check('light-bulb-added-token-id', async () => {
    if (!haveLlama2) fail(`no corpus llama2/tokenizer.json under ${CORPUS}`);
    await ensureServer();
    const dir = path.join(WORKSPACE, 'model-fix');
    fs.mkdirSync(dir, { recursive: true });
    const original = fs.readFileSync(path.join(llama2, 'tokenizer.json'), 'utf8');
    const vocabId = JSON.parse(original).model.vocab['<s>'];
    const broken = original.replace(`"id": ${vocabId},\n      "content": "<s>"`, `"id": 5,\n      "content": "<s>"`);
    if (broken === original) fail('llama2/tokenizer.json has no added token <s> laid out as expected');
    fs.writeFileSync(path.join(dir, 'tokenizer.json'), broken);
    const lines = broken.split('\n');
    // the finding sits on the token's content (the cursor must be inside it for Ctrl+.)
    const line = lines.findIndex((l, i) => i > 0 && l.includes('"<s>"') && lines[i - 1].includes('"id": 5,')) + 1;
    await openFile('model-fix/tokenizer.json', '"added_tokens"');
    await clearNotifications();
    await gotoLine(line, lines[line - 1].indexOf('<s>') + 2);
    const editorRoot = EDITOR_LINES.replace(' .view-lines', '');
    const warned = await until(async () => page.locator(`${editorRoot} .squiggly-warning`).count(), WAIT_SERVER_MS, 300);
    if (!warned) fail(`no warning squiggle on the added token <s> with id 5 (line ${line})`);
    const menu = page.locator('.action-widget .monaco-list-row, .context-view .action-widget [role="option"]');
    let items = [];
    const offered = await until(async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+.');
      // the menu's rows, looked at as they come (at most 3 s: the server may still be busy)
      return until(async () => {
        items = await menu.evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()).filter(Boolean));
        return items.some((t) => new RegExp(`\\b${vocabId}\\b`).test(t) && /id/i.test(t));
      }, 3000, 150);
    }, 60_000, 1000);
    await docShot('light-bulb-vscode', undefined, true, true);
    if (!offered) fail(`Ctrl+. on the added token's id offers ${JSON.stringify(items)}, no fix setting id ${vocabId}`);
    const fix = items.find((t) => new RegExp(`\\b${vocabId}\\b`).test(t) && /id/i.test(t));
    // chosen by the keyboard, as the menu invites ("Enter to Apply")
    for (let i = 0; i < 6; i++) {
      const focused = await page.locator('.action-widget .monaco-list-row.focused').first().getAttribute('aria-label').catch(() => null);
      if (focused && focused.replace(/\s+/g, ' ').trim() === fix) break;
      await page.keyboard.press('ArrowDown');
      await sleep(200);
    }
    await page.keyboard.press('Enter');
    let fixedLine = '';
    const fixed = await until(async () => {
      fixedLine = (await editorText()).split('\n').find((l) => l.includes('"id": ') && l.trim().startsWith('"id"') && l.includes(`${vocabId},`)) || '';
      return Boolean(fixedLine) && !(await editorText()).includes('"id": 5,');
    }, 20_000, 300);
    if (!fixed) fail(`after choosing ${JSON.stringify(fix)} the line still reads ${JSON.stringify(lines[line - 2])}`);
    const cleared = await until(async () => (await page.locator(`${editorRoot} .squiggly-warning`).count()) === 0, 30_000, 300);
    await shot('22b-light-bulb-applied');
    await runCommand('File: Revert File');
    if (!cleared) fail('the added-token-mismatch warning stayed after the fix');
    return `line ${line - 1} "id": 5 for <s> (vocab id ${vocabId}): Ctrl+. offered ${JSON.stringify(items)}; ${JSON.stringify(fix)} made it ${JSON.stringify(fixedLine.trim())} and the warning went away`;
  });
  await page.keyboard.press('Escape');

  // 23. every command the extension declares is registered and runs without an error dialog
  await check('every-command-runs', async () => {
    await ensureServer();
    await onlyEditor(qwen3.rel);
    await until(async () => (await statusItemText()) !== '', WAIT_SERVER_MS, 300);
    await clearNotifications();
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const done = [];
    const palette = manifest.contributes.menus.commandPalette;
    for (const { command, title, category } of manifest.contributes.commands) {
      const label = category ? `${category}: ${title}` : title;
      // a chat-template command is offered on a model folder's config or template only
      const when = (palette.find((m) => m.command === command) || {}).when || '';
      const chatOnly = when.includes('tokenizer_config.json') && !when.includes('tokenizerActive');
      if (chatOnly) {
        const cfg = workspaceCopy('qwen3/tokenizer_config.json', 'chat/tokenizer_config.json');
        workspaceCopy('qwen3/tokenizer.json', 'chat/tokenizer.json');
        if (!cfg) fail(`no corpus qwen3/tokenizer_config.json for "${label}"`);
        // the command goes out at once, while the server builds the config: an answer of
        // ContentModified ("the document changed while this was computed") is asked again
        await openFile(cfg.rel);
      }
      const before = await screenState();
      await runCommand(label);
      // what the command did shows (a view, a prompt, the panel, a message, a server start):
      // looked at then, not after a fixed 2.5 s; one that shows nothing gets those 2.5 s
      await until(async () => (await screenState()) !== before, 2500, 100);
      // one that asks the server shows "Tokenizer LSP: <doing>…" until the answer, then opens
      // its view: waited for, or the view (qwen3's decoded vocabulary: seconds on a loaded
      // machine) opens during the next command and takes the editor from its file
      await until(async () => !(await page.locator('.notification-toast', { hasText: /Tokenizer LSP: [^\n]*…/ }).count()), WAIT_SERVER_MS, 200);
      // a restart has run once the server is up again
      if (command === 'tokenizerLsp.restartServer') await until(serverUp, WAIT_SERVER_MS, 200);
      // a prompt (input box, file dialog) is dismissed as a person who changed their mind would
      if (await page.locator('.quick-input-widget:visible').count()) await page.keyboard.press('Escape');
      await sleep(500);
      // any error notification, VS Code's own ("command not found") included
      const errors = await page
        .locator('.notification-toast')
        .filter({ has: page.locator('.codicon-error') })
        .evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim()));
      if (errors.length) fail(`"${label}" (${command}) raised ${JSON.stringify(errors)}`);
      done.push(label);
      if (command === 'tokenizerLsp.restartServer') await until(async () => (await statusItemText()) !== '', WAIT_SERVER_MS, 300);
      if (command === 'tokenizerLsp.openPlayground') {
        // its webview keeps the focus in a second group: back to one group, the file open
        // again and known to the server (the status bar's stats) before the next command
        await onlyEditor(qwen3.rel);
        await until(async () => (await statusItemText()) !== '', WAIT_SERVER_MS, 300);
        continue;
      }
      // a view took the editor: back to the file (a prompt or the panel left it in front)
      if ((await activeTabTitle()) !== path.basename(qwen3.rel)) await openFile(qwen3.rel);
    }
    return `ran ${done.length} commands without an error notification: ${done.join('; ')}`;
  });
  await closeQuickInput();

  // The chat template of a model folder (issue 31): the code lens over tokenizer_config.json's
  // chat_template says it renders, and its Preview opens the playground in chat mode on that
  // folder, whose ids are transformers' apply_chat_template of the chat the page shows.
  await check('chat-template-lens', async () => {
    const tok = workspaceCopy('qwen3/tokenizer.json', 'chat/tokenizer.json');
    const cfg = workspaceCopy('qwen3/tokenizer_config.json', 'chat/tokenizer_config.json');
    if (!tok || !cfg) fail(`no corpus qwen3 folder under ${CORPUS}`);
    await ensureServer();
    await runCommand('View: Close All Editors');
    await openFile(cfg.rel);
    // lenses are drawn for the lines on screen: go to the "chat_template" key (found in the file)
    const keyLine = fs.readFileSync(cfg.file, 'utf8').split('\n').findIndex((l) => l.trimStart().startsWith('"chat_template"')) + 1;
    if (keyLine < 1) fail('no "chat_template" key in the copied tokenizer_config.json');
    await gotoLine(keyLine, 1);
    // a lens line: its titles joined by " | " (commands are links, the rest plain text)
    const lens = page.locator('.codelens-decoration a');
    const texts = await until(async () => {
      const line = await page.locator('.codelens-decoration').allInnerTexts().catch(() => []);
      const t = line.join(' | ').split('|').map((x) => x.trim()).filter(Boolean);
      return t.some((x) => x.includes('Preview')) ? t : null;
    }, WAIT_SERVER_MS, 500);
    if (!texts) fail('no code lens with "Preview" over chat_template');
    if (!texts.some((x) => /^renders/.test(x.trim()))) fail(`the lens does not say the template renders: ${JSON.stringify(texts)}`);
    await lens.filter({ hasText: 'Preview' }).first().click();
    const frame = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const column = frame.locator('#chat-view .column[data-tokenizer="0"]');
    await column.waitFor({ timeout: WAIT_SERVER_MS });
    await until(async () => (await column.getAttribute('data-current')) === 'true', WAIT_SERVER_MS, 300);
    const messages = await frame.locator('#chat-view .message').evaluateAll((rows) => rows.map((r) => ({
      role: r.querySelector('select').value, content: r.querySelector('textarea').value })));
    const got = await column.locator('.tokens [data-token-id]').evaluateAll((els) => els.map((e) => Number(e.dataset.tokenId)));
    const want = python(
      'import json, sys; from transformers import AutoTokenizer; t = AutoTokenizer.from_pretrained(sys.argv[1]); '
      + 'r = t.apply_chat_template(json.loads(sys.argv[2]), tokenize=True, add_generation_prompt=True); '
      + 'print(json.dumps(list(r["input_ids"] if hasattr(r, "keys") else r)))',
      path.dirname(cfg.file), JSON.stringify(messages),
    );
    await docShot('chat-template-vscode');
    if (JSON.stringify(got) !== JSON.stringify(want)) fail(`the preview's ids ${JSON.stringify(got)} differ from apply_chat_template's ${JSON.stringify(want)}`);
    await runCommand('View: Close All Editor Groups');
    return `lens ${JSON.stringify(texts)}; Preview: ${messages.length} messages -> ${got.length} ids equal to transformers' apply_chat_template`;
  });

}

/**
 * 20 (before 18: gemma3's first open). Progress while a 33 MB file is indexed: VS Code shows
 * the server's $/progress in the status bar ("Indexing gemma3/tokenizer.json: parsing").
 * gemma3 stays open, indexed and (by VS Code) coloured for the checks after it: the conversion
 * of its merges (checks-fixes.mjs), then its decoded vocabulary.
 */
export async function gemma3ProgressChecks() {
  const gemma3 = workspaceCopy('gemma3/tokenizer.json');
  await check('progress-gemma3', async () => {
    if (!gemma3) fail(`no corpus gemma3/tokenizer.json under ${CORPUS}`);
    await serverWithNoEditor();
    const seen = new Set();
    let watching = true;
    // poll the status bar from the moment the file is asked for
    const watcher = (async () => {
      while (watching) {
        const texts = await page.locator(STATUS_ITEM).evaluateAll((els) => els.map((e) => e.innerText.replace(/\s+/g, ' ').trim())).catch(() => []);
        for (const t of texts) {
          if (/Indexing/.test(t)) {
            if (!seen.size) await docShot('progress-gemma3-vscode', BOTTOM, true);
            seen.add(t);
          }
        }
        await sleep(100);
      }
    })();
    await openFile(gemma3.rel);
    const appeared = await until(() => seen.size > 0, WAIT_SERVER_MS, 200);
    await until(async () => (await statusItemText()) !== '', WAIT_SERVER_MS, 500); // indexed: the stats show
    watching = false;
    await watcher;
    if (!appeared) fail(`no "Indexing" progress showed in the status bar while ${gemma3.rel} opened`);
    const texts = [...seen];
    if (!texts.some((t) => t.includes('gemma3/tokenizer.json'))) fail(`the progress does not name the file: ${JSON.stringify(texts)}`);
    return `status bar progress while ${gemma3.rel} (${(fs.statSync(gemma3.file).size / 1e6).toFixed(1)} MB) opened: ${JSON.stringify(texts)}`;
  });

}

/** 18. "Open decoded vocabulary" on gemma3: a read-only view of `decode`, every row. */
export async function gemma3ViewChecks() {
  const gemma3 = workspaceCopy('gemma3/tokenizer.json');
  await check('decoded-vocabulary', async () => {
    if (!gemma3) fail(`no corpus gemma3/tokenizer.json under ${CORPUS}`);
    await ensureLargeFileModeOff();
    await ensureServer({ file: gemma3.rel });
    const obj = JSON.parse(fs.readFileSync(gemma3.file, 'utf8'));
    const vocab = obj.model.vocab;
    const inVocab = new Set(Array.isArray(vocab) ? vocab.map((r) => r[0]) : Object.keys(vocab));
    const rows = inVocab.size + obj.added_tokens.filter((t) => !inVocab.has(t.content)).length;
    const t0 = Date.now();
    await runCommand('Tokenizer LSP: Open decoded vocabulary');
    const text = await viewText('(decoded)', 180_000);
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    // the first row: id 0 and its token as the file stores it
    const first = Array.isArray(vocab) ? vocab[0][0] : Object.entries(vocab).find(([, id]) => id === 0)[0];
    if (!/^\s*0\s/.test(text.split('\n')[0]) || !text.split('\n')[0].includes(first)) fail(`the first row is ${JSON.stringify(text.split('\n')[0])}, not id 0 ${JSON.stringify(first)}`);
    // read-only: typing changes nothing
    await page.locator(EDITOR_LINES).click();
    await page.keyboard.type('x');
    await sleep(300);
    const dirty = await page.locator(`${ACTIVE_TAB}.dirty`).count();
    if (dirty) fail('typing into the decoded view made it dirty: it is not read-only');
    // every row: the last line number (Ctrl+End) is the row count (+1 for the final newline)
    await page.keyboard.press('Control+End');
    let pos;
    await until(async () => (pos = await cursorPosition()) && pos.line > 1000, 20_000, 250);
    const lines = pos?.line ?? 0;
    if (lines !== rows && lines !== rows + 1) fail(`the decoded view has ${lines} lines; the file has ${rows} rows (vocab + added tokens outside it)`);
    // for the README: multilingual rows (a row's line is its id + 1)
    await gotoLine(Math.min(236_001, rows));
    await docShot('decoded-vocabulary-vscode');
    return `${gemma3.rel}: the view opened in ${secs} s with ${rows.toLocaleString('en-US')} rows (last line ${lines}), read-only; first row ${JSON.stringify(text.split('\n')[0].trim())}`;
  });
}
