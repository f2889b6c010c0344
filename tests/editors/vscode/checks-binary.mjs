// Check 25 of the VS Code end-to-end suite (issue 25; see e2e.mjs): a binary tokenizer file
// (Mistral's SentencePiece `.model`) opened in VS Code shows its read-only decoded view, one
// row per piece, and a hover on a row names the piece's id and bytes. Expected values come from
// the `sentencepiece` package run in TOKENIZER_LSP_PYTHON, never from the server.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CORPUS, PYTHON, WAIT_SERVER_MS, WORKSPACE, check, fail, norm, page, shot, until, EDITOR_LINES } from './harness.mjs';
import { ensureServer, errorToasts, gotoLine, hoverUntil, openFile } from './harness-ui.mjs';

const ACTIVE_TAB = '.part.editor .editor-group-container.active .tab.active';
const MODEL = 'mistral-spm/mistral_instruct_tokenizer_240323.model.v3';

export async function binaryChecks() {
  // 25. `.model` opens as its decoded view; hover on the row of `▁the`
  await check('binary-model-view', async () => {
    const from = path.join(CORPUS, MODEL);
    if (!fs.existsSync(from)) fail(`the corpus file ${from} is absent (set TOKENIZER_CORPUS)`);
    const rel = 'mistral-spm/tokenizer.model';
    const to = path.join(WORKSPACE, rel);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(from, to);
    const want = JSON.parse(execFileSync(PYTHON, ['-c', [
      'import json, sys, sentencepiece as spm',
      'sp = spm.SentencePieceProcessor(model_file=sys.argv[1])',
      'i = sp.piece_to_id("\u2581the")',
      'print(json.dumps({"id": i, "n": sp.get_piece_size()}))',
    ].join('\n'), to], { encoding: 'utf8' }));
    await ensureServer();
    await openFile(rel);
    const opened = await until(async () => {
      const tab = norm(await page.locator(ACTIVE_TAB).first().innerText().catch(() => ''));
      const text = norm(await page.locator(EDITOR_LINES).innerText().catch(() => ''));
      return tab.includes('(decoded)') && text.includes('tokenizer-lsp decoded view');
    }, WAIT_SERVER_MS, 300);
    if (!opened) fail(`tokenizer.model did not open as its decoded view (error toasts ${JSON.stringify(await errorToasts())})`);
    const head = norm(await page.locator(EDITOR_LINES).innerText());
    if (!head.includes(`${want.n.toLocaleString('en-US')} tokens`)) fail(`the view's header does not count ${want.n} tokens: ${JSON.stringify(head.slice(0, 300))}`);
    await gotoLine(want.id + 3); // two header lines, then id 0 on line 3
    const { ok, text } = await hoverUntil('"\u2581the"', [`id ${want.id}`, '20 74 68 65', 'NORMAL'], WAIT_SERVER_MS);
    await shot('25-binary-model-hover');
    if (!ok) fail(`no hover naming id ${want.id} and bytes 20 74 68 65 on the row of "\u2581the": ${JSON.stringify(text)}`);
    return `decoded view of ${rel} (${want.n} rows); hover on "\u2581the": ${JSON.stringify(text.split('\n').slice(0, 3).join(' | '))}`;
  });
}
