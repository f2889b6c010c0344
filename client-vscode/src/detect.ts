// Which open documents are tokenizer files. The extension activates on every JSON file, but
// starts the server (and so checks Python, and may report that it is missing) only once one of
// these is opened: by its name, its language mode, or a cheap look at the first 64 KB of a JSON
// document. The server makes the final call on content; this only decides when it is worth
// starting.
import * as path from 'path';
import * as vscode from 'vscode';

/** tokenizer.json, *.tokenizer.json, vocab.json, encoder.json, merges.txt, vocab.bpe, *.tiktoken. */
const TOKENIZER_NAME = /^(?:tokenizer\.json|.+\.tokenizer\.json|vocab\.json|encoder\.json|merges\.txt|vocab\.bpe|.+\.tiktoken)$/i;
const TOKENIZER_LANGUAGES = new Set(['tiktoken', 'bpe-merges']);
const JSON_LANGUAGES = new Set(['json', 'jsonc']);

export const SNIFF_BYTES = 64 * 1024;

export function isTokenizerName(fsPath: string): boolean {
  return TOKENIZER_NAME.test(path.basename(fsPath));
}

/** Scalar members of an object before the one that matters (`"dropout": null,` ...). */
const SCALARS = String.raw`(?:\s*"[A-Za-z_]+"\s*:\s*(?:null|true|false|-?[\d.eE+-]+|"(?:[^"\\]|\\.)*")\s*,)*`;
/** HF tokenizer.json: a "model" object with a known "type", or with a "vocab" object or list. */
const MODEL_TYPE = new RegExp(String.raw`"model"\s*:\s*\{${SCALARS}\s*"type"\s*:\s*"(?:BPE|WordPiece|WordLevel|Unigram)"`);
const MODEL_VOCAB = new RegExp(String.raw`"model"\s*:\s*\{${SCALARS}\s*"vocab"\s*:\s*[\{\[]`);
/** Top-level keys HF writes before the model; three of them identify a tokenizer.json whose
 * model starts beyond the first 64 KB (e.g. thousands of added tokens). */
const HF_KEYS = ['"added_tokens"', '"truncation"', '"padding"', '"normalizer"', '"pre_tokenizer"', '"post_processor"', '"decoder"'];
const VOCAB_ENTRY = /\s*"((?:[^"\\]|\\.)*)"\s*:\s*\d+\s*,/y;

/** Whether the first 64 KB of a JSON text look like a tokenizer file (HF or GPT-2 vocab). */
export function looksLikeTokenizerJson(head: string): boolean {
  if (MODEL_TYPE.test(head) || MODEL_VOCAB.test(head)) {
    return true;
  }
  if (HF_KEYS.filter((k) => head.includes(k)).length >= 3) {
    return true;
  }
  // GPT-2 vocab.json under another name: an object of token -> id whose first entries hold
  // the 256-character byte alphabet (single characters, most of them).
  const start = /^\uFEFF?\s*\{/.exec(head);
  if (!start) {
    return false;
  }
  VOCAB_ENTRY.lastIndex = start[0].length;
  let entries = 0;
  let single = 0;
  for (let m = VOCAB_ENTRY.exec(head); m && entries < 1024; m = VOCAB_ENTRY.exec(head)) {
    entries++;
    let key: unknown;
    try {
      key = JSON.parse(`"${m[1]}"`);
    } catch {
      return false;
    }
    if (typeof key === 'string' && [...key].length === 1) {
      single++;
    }
  }
  return entries >= 256 && single >= 200;
}

/** A file (scheme `file`) the server should see: tokenizer name, tokenizer language, or content. */
export function isTokenizerDocument(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme !== 'file') {
    return false;
  }
  if (TOKENIZER_LANGUAGES.has(doc.languageId) || isTokenizerName(doc.uri.fsPath)) {
    return true;
  }
  if (!JSON_LANGUAGES.has(doc.languageId)) {
    return false;
  }
  const end = doc.positionAt(SNIFF_BYTES);
  return looksLikeTokenizerJson(doc.getText(new vscode.Range(new vscode.Position(0, 0), end)));
}
