// Checks 13-15 of the VS Code end-to-end suite (see e2e.mjs): navigation.
import {
  WAIT_SERVER_MS, WORKSPACE, ws, page, shot, check, fail, until, sleep, norm,
} from './harness.mjs';
import {
  activeLineText, closeQuickInput, cursorPosition, ensureLargeFileModeOff, ensureServer, gotoLine, openFile,
} from './harness-ui.mjs';

/**
 * Checks 13-15: navigation (issue 14) by the keys a person presses on Linux. The expectations
 * come from the files' own text (tests/editors/vscode/workspace.mjs navigationExpectations), not from
 * the server: the line and column of a merge's right part, the line of that token's vocab key,
 * and the number of references (merges using the token as a part + merges producing it + its
 * added_tokens entry + the vocab key).
 */
export async function navigationChecks() {
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
