// Which open documents are tokenizer files. The extension activates on every JSON file, but
// starts the server (and so checks Python, and may report that it is missing) only once one of
// these is opened: by its name, its language mode, or a cheap look at the start of the document.
// The server makes the final call on content; this only decides when it is worth starting.
//
// The rules (names, language ids, HF keys, model types, line shapes, sniff size) are the
// server's own: server/tokenizer_lsp/core/detect_rules.json, which core/detect.py reads at run
// time and esbuild bundles into dist/extension.js here (the .vsix does not ship the server).
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import rules from '../../server/tokenizer_lsp/core/detect_rules.json';

/** What a file holds, as the server names it (core/detect.py). */
export type Kind = 'json' | 'merges' | 'tiktoken';

function asKind(value: string | null, key: string): Kind | null {
  if (value === null || value === 'json' || value === 'merges' || value === 'tiktoken') {
    return value;
  }
  throw new Error(`detect_rules.json: languageIds.${key} is ${JSON.stringify(value)}, not a kind`);
}

/**
 * Editor language ids that may hold a tokenizer file, with what the id alone says (`null`: it
 * may hold one, the content decides; e.g. `plaintext`). These are the languages the server is
 * given (the client's document selector) and the only ones looked at here.
 */
export const LANGUAGE_KINDS: ReadonlyMap<string, Kind | null> = new Map(
  Object.entries(rules.languageIds as Record<string, string | null>).map(([id, kind]) => [id, asKind(kind, id)]),
);

/** How much of a document is looked at (characters; the server reads as many bytes). */
export const SNIFF_BYTES: number = rules.sniffBytes;

const JSON_NAMES = new Set(rules.jsonNames.map((n) => n.toLowerCase()));
const MERGES_NAMES = new Set(rules.mergesNames.map((n) => n.toLowerCase()));
const MERGES_NAME = new RegExp(rules.mergesNamePattern);
const MERGES_LINE = new RegExp(rules.mergesLine);
const TIKTOKEN_LINE = new RegExp(rules.tiktokenLine);

/** What a file name alone suggests (core/detect.py name_kind): tokenizer.json, vocab.bpe, ... */
export function nameKind(fsPath: string): Kind | undefined {
  const base = path.basename(fsPath).toLowerCase();
  if (rules.tiktokenSuffixes.some((s) => base.endsWith(s))) {
    return 'tiktoken';
  }
  if (MERGES_NAMES.has(base) || MERGES_NAME.test(base)) {
    return 'merges';
  }
  if (JSON_NAMES.has(base) || rules.jsonSuffixes.some((s) => base.endsWith(s))) {
    return 'json';
  }
  return undefined;
}

const TABLE_NAME = new RegExp(rules.tableNamePattern);

/** A text table format's usual name (tekken_*.json, vocab.txt; core/detect.py is_table_name). */
export function isTableName(fsPath: string): boolean {
  return TABLE_NAME.test(path.basename(fsPath).toLowerCase());
}

export function isTokenizerName(fsPath: string): boolean {
  return nameKind(fsPath) !== undefined || isTableName(fsPath);
}

const CONFIG_NAMES = new Set(rules.modelConfigNames.map((n) => n.toLowerCase()));

/**
 * A model folder's config file (tokenizer_config.json, generation_config.json, config.json, ...)
 * with a tokenizer file beside it: the server checks it against that tokenizer (core/detect.py
 * is_config_name; core/model_folder/folder.py tokenizer_beside). Any other config.json is not ours.
 */
export function isModelConfigBesideTokenizer(fsPath: string): boolean {
  if (!CONFIG_NAMES.has(path.basename(fsPath).toLowerCase())) {
    return false;
  }
  const folder = path.dirname(fsPath);
  return rules.modelTokenizerNames.some((name) => fs.existsSync(path.join(folder, name)));
}

/**
 * A model folder's chat template file (core/detect.py is_chat_template_name): chat_template.jinja,
 * or a .jinja inside additional_chat_templates/.
 */
export function isChatTemplateName(fsPath: string): boolean {
  const base = path.basename(fsPath).toLowerCase();
  if (base === rules.chatTemplateName) {
    return true;
  }
  return base.endsWith(rules.chatTemplateSuffix) && path.basename(path.dirname(fsPath)) === rules.chatTemplateDir;
}

/** A chat template file with a tokenizer in its model folder: the server checks it (docs/guides/check-a-chat-template.md). */
export function isChatTemplateBesideTokenizer(fsPath: string): boolean {
  if (!isChatTemplateName(fsPath)) {
    return false;
  }
  let folder = path.dirname(fsPath);
  if (path.basename(folder) === rules.chatTemplateDir) {
    folder = path.dirname(folder);
  }
  return rules.modelTokenizerNames.some((name) => fs.existsSync(path.join(folder, name)));
}

/** Scalar members of an object before the one that matters (`"dropout": null,` ...). */
const SCALARS = String.raw`(?:\s*"[A-Za-z_]+"\s*:\s*(?:null|true|false|-?[\d.eE+-]+|"(?:[^"\\]|\\.)*")\s*,)*`;
/** HF tokenizer.json: a "model" object with a known "type", or with a "vocab" object or list. */
const MODEL_TYPE = new RegExp(String.raw`"model"\s*:\s*\{${SCALARS}\s*"type"\s*:\s*"(?:${rules.modelTypes.join('|')})"`);
const MODEL_VOCAB = new RegExp(String.raw`"model"\s*:\s*\{${SCALARS}\s*"vocab"\s*:\s*[\{\[]`);
/** Top-level keys HF writes before the model; enough of them identify a tokenizer.json whose
 * model starts beyond the sniffed head (e.g. thousands of added tokens). */
const HF_KEYS = rules.hfTopLevelKeys.map((k) => JSON.stringify(k));
/** A Mistral tekken file: `{rank, token_bytes, token_str}` entries near the top. */
const TEKKEN_KEYS = rules.tekkenKeys.map((k) => JSON.stringify(k));
const VOCAB_ENTRY = /\s*"((?:[^"\\]|\\.)*)"\s*:\s*\d+\s*,/y;
/** A GPT-2 vocab.json under another name holds the 256-character byte alphabet first. */
const BYTE_ALPHABET = 256;
const VOCAB_ENTRIES_LOOKED_AT = 1024;
const SINGLE_CHARACTER_ENTRIES = 200;

/** Whether the head of a JSON text looks like a tokenizer file (HF or GPT-2 vocab). */
export function looksLikeTokenizerJson(head: string): boolean {
  if (MODEL_TYPE.test(head) || MODEL_VOCAB.test(head)) {
    return true;
  }
  if (HF_KEYS.filter((k) => head.includes(k)).length >= rules.hfKeysNeeded) {
    return true;
  }
  if (/^\uFEFF?\s*\{/.test(head) && TEKKEN_KEYS.every((k) => head.includes(k))) {
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
  for (let m = VOCAB_ENTRY.exec(head); m && entries < VOCAB_ENTRIES_LOOKED_AT; m = VOCAB_ENTRY.exec(head)) {
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
  return entries >= BYTE_ALPHABET && single >= SINGLE_CHARACTER_ENTRIES;
}

/** The first lines of a text document as core/detect.py content_kind sees them. */
const CONTENT_WINDOW = 4096;

/**
 * The format by content (core/detect.py content_kind, on text): JSON by its first character, a
 * merges file by its `#version` header or (when its name says merges) by its lines, a tiktoken
 * file by base64-and-rising-rank lines.
 */
export function contentKind(text: string, fsPath?: string): Kind | undefined {
  const head = text.slice(0, CONTENT_WINDOW).replace(/^[\uFEFF \t\r\n]+/, '');
  if (head.startsWith('{') || head.startsWith('[')) {
    return 'json';
  }
  let lines = head.split('\n');
  if (lines.length > 1) {
    lines.pop(); // cut by the window
  }
  lines = lines.filter((l) => l.trim() !== '').slice(0, rules.linesToSniff + 1);
  if (lines.length === 0) {
    return undefined;
  }
  const named = fsPath ? nameKind(fsPath) : undefined;
  if (lines[0].slice(0, 256).includes(rules.mergesHeader)) {
    const rest = lines.slice(1);
    return (rest.length > 0 || named === 'merges') && rest.every((l) => MERGES_LINE.test(l)) ? 'merges' : undefined;
  }
  const first = lines.slice(0, rules.linesToSniff);
  const ranks = first.map((l) => TIKTOKEN_LINE.exec(l));
  if (ranks.every((m) => m !== null)) {
    const values = ranks.map((m) => Number(m![2]));
    if (values.every((v, i) => i === 0 || values[i - 1] < v)) {
      return 'tiktoken';
    }
  }
  if (named === 'merges' && first.every((l) => MERGES_LINE.test(l))) {
    return 'merges';
  }
  return undefined;
}

/**
 * A file (scheme `file`) in a language the server is given, that is a tokenizer file by its
 * language (tiktoken, bpe-merges), its name, or its first SNIFF_BYTES characters.
 */
export function isTokenizerDocument(doc: vscode.TextDocument): boolean {
  if (doc.uri.scheme !== 'file' || !LANGUAGE_KINDS.has(doc.languageId)) {
    return false;
  }
  const byLanguage = LANGUAGE_KINDS.get(doc.languageId);
  if (byLanguage === 'tiktoken' || byLanguage === 'merges' || isTokenizerName(doc.uri.fsPath)) {
    return true;
  }
  if (byLanguage === 'json' && isModelConfigBesideTokenizer(doc.uri.fsPath)) {
    return true;
  }
  if (isChatTemplateBesideTokenizer(doc.uri.fsPath)) {
    return true;
  }
  const head = doc.getText(new vscode.Range(new vscode.Position(0, 0), doc.positionAt(SNIFF_BYTES)));
  if (byLanguage === 'json') {
    return looksLikeTokenizerJson(head);
  }
  // a language that may hold any of them (plaintext): the content says which
  const kind = contentKind(head, doc.uri.fsPath);
  return kind === 'json' ? looksLikeTokenizerJson(head) : kind !== undefined;
}
