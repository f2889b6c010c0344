// The VS Code part of e2e-bundled.mjs: with only the platform .vsix and a bare venv, opening a
// corpus tokenizer.json starts the bundled server, and a hover, a diagnostic and the status bar
// show. The page helpers are the minimum of e2e.mjs's (which runs its own checks on import).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const EDITOR_LINES = '.part.editor .editor-group-container.active .monaco-editor .view-lines';

export async function vscodeUiChecks({ page, ws, check, fail, until, sleep, norm, extensionLog, venv, codeServerPid, waitMs }) {
  async function closeQuickInput() {
    if (await page.locator('.quick-input-widget:visible').count()) await page.keyboard.press('Escape');
  }

  async function openFile(rel) {
    await closeQuickInput();
    await page.keyboard.press('Control+P');
    const input = page.locator('.quick-input-widget:visible input');
    await input.waitFor({ timeout: 10_000 });
    await input.fill(rel);
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: path.basename(rel) }).filter({ hasText: path.dirname(rel) }).first();
    await row.waitFor({ timeout: 20_000 });
    await sleep(300);
    await row.click();
    await page.locator('.part.editor .editor-group-container.active .tab.active', { hasText: path.basename(rel) }).waitFor({ timeout: 60_000 });
    await until(async () => norm(await page.locator(EDITOR_LINES).innerText()).trim() !== '', 120_000);
  }

  async function gotoLine(line) {
    await closeQuickInput();
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget:visible input');
    await input.waitFor({ timeout: 10_000 });
    await input.fill(`:${line}`);
    await sleep(200);
    await page.keyboard.press('Enter');
    await until(async () => norm(await page.locator('[id="status.editor.selection"]').innerText()).includes(`Ln ${line},`), 60_000, 200);
    await sleep(300);
  }

  const hoverText = () =>
    page
      .evaluate(() =>
        [...document.querySelectorAll('.monaco-hover')]
          .filter((el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden')
          .map((el) => el.innerText)
          .join('\n---\n'),
      )
      .then(norm);

  /** Screen point of the first character inside `literal` on the first visible line holding it. */
  const literalPoint = (literal) =>
    page.evaluate(
      ({ selector, literal }) => {
        for (const line of document.querySelectorAll(`${selector} .view-line`)) {
          const at = line.textContent.replace(/\u00a0/g, ' ').indexOf(literal);
          if (at < 0) continue;
          const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
          let offset = 0;
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const len = node.textContent.length;
            if (at + 1 < offset + len) {
              const range = document.createRange();
              range.setStart(node, at + 1 - offset);
              range.setEnd(node, Math.min(at + 2 - offset, len));
              const r = range.getBoundingClientRect();
              return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
            }
            offset += len;
          }
        }
        return null;
      },
      { selector: EDITOR_LINES, literal },
    );

  async function hoverUntil(literal, want, timeoutMs) {
    let text = '';
    const ok = await until(async () => {
      const point = await literalPoint(literal);
      if (!point) return false;
      await page.mouse.move(5, 5);
      await sleep(150);
      await page.mouse.move(point.x, point.y, { steps: 3 });
      return until(async () => {
        text = await hoverText();
        return want.every((w) => text.includes(w));
      }, 3000, 250);
    }, timeoutMs);
    return { ok: Boolean(ok), text };
  }

  const { hover, fragment } = ws.tokenizer;

  await check('bundled-server-starts', async () => {
    await openFile(ws.tokenizer.rel);
    const started = await until(() => /Server started\./.test(extensionLog()), waitMs);
    const text = extensionLog();
    if (!started) fail(`the server did not start; extension log: ${JSON.stringify(text.slice(-900))}`);
    const using = /Using Python .*bundled libraries.*/.exec(text)?.[0] ?? '';
    if (!using.includes('python3')) fail(`the log does not say the bundled libraries run with python3: ${JSON.stringify(text.slice(-900))}`);
    // the extension runs `python3` from the PATH it hands the server: the venv's bin comes first
    const processes = execFileSync('ps', ['-eo', 'pid=,pgid=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
      .filter((m) => m && Number(m[2]) === codeServerPid && m[3].includes('bundled/tool/launch.py'))
      .map((m) => ({ pid: m[1], args: m[3] }));
    const server = processes.find((p) => /^python3 \S*bundled\/tool\/launch\.py/.test(p.args));
    const env = server ? fs.readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0') : [];
    // (code-server puts its own remote-cli folder, which has no Python, in front)
    const serverPath = (env.find((e) => e.startsWith('PATH=')) || 'PATH=').slice(5).split(':');
    const firstOnPath = serverPath.find((d) => d && fs.existsSync(path.join(d, 'python3')));
    const venvBin = path.join(venv, 'bin');
    if (!server || firstOnPath !== venvBin) {
      fail(`want a server process "python3 .../bundled/tool/launch.py" whose PATH finds python3 in ${venvBin}; found ${JSON.stringify(processes)}, python3 found in ${JSON.stringify(firstOnPath)}`);
    }
    const errors = await page.locator('.notification-toast', { hasText: 'Tokenizer LSP' }).allInnerTexts();
    const bad = errors.filter((t) => !/large-file|hides its inlay/.test(t));
    if (bad.length) fail(`error notifications: ${JSON.stringify(bad)}`);
    return `${using.replace(/^.*Using/, 'Using')}; process ${server.pid}: ${server.args} (its PATH finds python3 in ${firstOnPath})`;
  });

  await check('hover', async () => {
    await gotoLine(hover.line);
    const literal = JSON.stringify(hover.token);
    const want = [`byte-level token, id ${hover.id}`, `bytes: ${hover.hex}`];
    const { ok, text } = await hoverUntil(literal, want, waitMs);
    if (!ok) fail(`hover on ${literal} (line ${hover.line}) should show ${JSON.stringify(want)}; it showed ${JSON.stringify(text || '(nothing)')}`);
    return `${ws.tokenizer.source} ${literal} line ${hover.line}: ${JSON.stringify(text.slice(0, 200))}`;
  });

  await check('diagnostic', async () => {
    await page.mouse.move(5, 5);
    await gotoLine(fragment.line);
    const root = EDITOR_LINES.replace(' .view-lines', '');
    const dots = await until(async () => page.locator(`${root} .squiggly-hint`).count(), waitMs);
    if (!dots) fail(`no diagnostic decoration (.squiggly-hint) near the fragment token at line ${fragment.line}`);
    const literal = JSON.stringify(fragment.token);
    const { ok, text } = await hoverUntil(literal, [fragment.hex, 'utf8-fragment'], 30_000);
    if (!ok) fail(`hover on the fragment ${literal} should show ${fragment.hex} and utf8-fragment; it showed ${JSON.stringify(text)}`);
    const finding = text.split('\n').find((l) => l.includes('utf8-fragment')) || '';
    return `${dots} hint decorations in view; line ${fragment.line} ${literal}: ${JSON.stringify(finding.trim())}`;
  });

  // The status bar item is another part of issue 17: checked when the extension has one.
  const vocab = JSON.parse(fs.readFileSync(ws.tokenizer.file, 'utf8'));
  const sizes = new Set([Object.keys(vocab.model.vocab).length]);
  const ids = new Set([...Object.values(vocab.model.vocab), ...(vocab.added_tokens || []).map((t) => t.id)]);
  sizes.add(ids.size);
  const spelled = [...sizes].flatMap((n) => [String(n), n.toLocaleString('en-US')]);
  const items = await page
    .locator('.part.statusbar .statusbar-item')
    .evaluateAll((els) => els.map((e) => ({ id: e.id, text: e.innerText.replace(/\s+/g, ' ').trim(), label: e.getAttribute('aria-label') || '' })));
  const ours = items.filter((i) => i.id.toLowerCase().includes('tokenizer') || spelled.some((s) => i.text.includes(s)));
  if (!ours.length) {
    console.log(`SKIP status-bar: the extension shows no status bar item yet (items: ${JSON.stringify(items.map((i) => i.id)).slice(0, 300)})`);
    return;
  }
  await check('status-bar', async () => {
    const item = await until(async () => {
      const now = await page
        .locator('.part.statusbar .statusbar-item')
        .evaluateAll((els) => els.map((e) => ({ id: e.id, text: e.innerText.replace(/\s+/g, ' ').trim() })));
      return now.find((i) => spelled.some((s) => i.text.includes(s)));
    }, waitMs);
    if (!item) fail(`no status bar item shows the vocab size (${spelled.join(' or ')}); items of the extension: ${JSON.stringify(ours)}`);
    return `${item.id}: ${JSON.stringify(item.text)} (vocab size from the file: ${spelled.join(' or ')})`;
  });

  // the unreachable count comes from tokenizers in the server's engine worker: the bundled
  // engines run in VS Code too
  await check('engine-worker-in-vscode', async () => {
    let text = '';
    const counted = await until(async () => {
      const now = await page.locator('.part.statusbar .statusbar-item').allInnerTexts();
      text = now.map((t) => t.replace(/\s+/g, ' ').trim()).find((t) => spelled.some((s) => t.includes(s))) || '';
      return /\d[\d,]* unreachable/.test(text);
    }, waitMs, 1000);
    if (!counted) fail(`the status bar item shows no unreachable count: ${JSON.stringify(text)}; log tail ${JSON.stringify(extensionLog().slice(-600))}`);
    return JSON.stringify(text);
  });
}
