// What each platform .vsix (dist/tokenizer-lsp-<target>.vsix, `npm run package:all`) must hold:
// its manifest names the target, it is under 60 MB, and for every CPython 3.10-3.14 the compiled
// modules of orjson, regex, tiktoken and tokenizers are there (in bundled/libs/cpXY, or abi3 in
// bundled/libs/common) built for that platform: the file name's tag and the binary's own header
// (ELF machine, Mach-O CPU type, PE machine) are read from the zip.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64'];
export const PYTHONS = ['3.10', '3.11', '3.12', '3.13', '3.14'];
export const COMPILED = ['orjson', 'regex', 'tiktoken', 'tokenizers'];
const MAX_BYTES = 60 * 1024 * 1024;
const LIBS = 'extension/bundled/libs';

/** The CPU a binary is built for, from its header: 'x64', 'arm64', 'universal2' or what it is. */
export function binaryArch(head) {
  if (head.length >= 20 && head[0] === 0x7f && head.toString('latin1', 1, 4) === 'ELF') {
    const machine = head.readUInt16LE(18);
    return { format: 'elf', arch: { 62: 'x64', 183: 'arm64' }[machine] ?? `machine ${machine}` };
  }
  if (head.length >= 8 && head.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = head.readUInt32LE(4);
    return { format: 'macho', arch: { 0x01000007: 'x64', 0x0100000c: 'arm64' }[cpu] ?? `cpu ${cpu.toString(16)}` };
  }
  if (head.length >= 8 && head.readUInt32BE(0) === 0xcafebabe) {
    // a fat (universal) Mach-O: the CPU types of its slices
    const n = head.readUInt32BE(4);
    const cpus = [];
    for (let i = 0; i < n && 8 + i * 20 + 4 <= head.length; i++) cpus.push(head.readUInt32BE(8 + i * 20));
    const has = (c) => cpus.includes(c);
    return { format: 'macho', arch: has(0x01000007) && has(0x0100000c) ? 'universal2' : `fat ${cpus.map((c) => c.toString(16))}` };
  }
  if (head.length >= 64 && head.toString('latin1', 0, 2) === 'MZ') {
    const pe = head.readUInt32LE(0x3c);
    if (pe + 6 <= head.length && head.toString('latin1', pe, pe + 4) === 'PE\0\0') {
      const machine = head.readUInt16LE(pe + 4);
      return { format: 'pe', arch: { 0x8664: 'x64', 0xaa64: 'arm64' }[machine] ?? `machine ${machine.toString(16)}` };
    }
  }
  return { format: 'unknown', arch: 'unknown' };
}

/** What a target's binaries look like: format, CPU, and the file names CPython X.Y loads. */
function platformOf(target) {
  const [os, cpu] = target.split('-');
  const format = { linux: 'elf', darwin: 'macho', win32: 'pe' }[os];
  const names = (v) => {
    const nodot = v.replace('.', '');
    if (os === 'win32') return { own: new RegExp(`\\.cp${nodot}-win_amd64\\.pyd$`), abi3: /^[^.]+\.pyd$/ };
    if (os === 'darwin') return { own: new RegExp(`\\.cpython-${nodot}-darwin\\.so$`), abi3: /\.abi3\.so$/ };
    const triple = cpu === 'x64' ? 'x86_64-linux-gnu' : 'aarch64-linux-gnu';
    return { own: new RegExp(`\\.cpython-${nodot}-${triple}\\.so$`), abi3: /\.abi3\.so$/ };
  };
  return { format, cpu, names };
}

function listZip(vsix) {
  return execFileSync('unzip', ['-Z1', vsix], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).split('\n').filter(Boolean);
}

function readZipEntry(vsix, entry) {
  return execFileSync('unzip', ['-p', vsix, entry], { maxBuffer: 256 * 1024 * 1024 });
}

/**
 * The checks of one .vsix, as { name, ok, detail } rows: manifest target, size, and one row per
 * CPython version with the four compiled modules found for it.
 */
export function checkVsix(vsix, target) {
  const rows = [];
  const row = (name, ok, detail) => rows.push({ name: `${target} ${name}`, ok, detail });
  if (!fs.existsSync(vsix)) {
    row('exists', false, `${vsix} is missing (run npm run package:all)`);
    return rows;
  }
  const size = fs.statSync(vsix).size;
  const manifest = readZipEntry(vsix, 'extension.vsixmanifest').toString('utf8');
  const named = /TargetPlatform="([^"]+)"/.exec(manifest)?.[1];
  row('manifest-and-size', named === target && size < MAX_BYTES,
    `TargetPlatform="${named}", ${(size / 1e6).toFixed(1)} MB (limit 60 MiB)`);

  const entries = listZip(vsix);
  const { format, cpu, names } = platformOf(target);
  const archCache = new Map();
  const archOf = (entry) => {
    if (!archCache.has(entry)) archCache.set(entry, binaryArch(readZipEntry(vsix, entry).subarray(0, 4096)));
    return archCache.get(entry);
  };
  const wantArch = (a) => a === cpu || (format === 'macho' && a === 'universal2');
  for (const version of PYTHONS) {
    const folder = `cp${version.replace('.', '')}`;
    const { own, abi3 } = names(version);
    const found = [];
    const missing = [];
    for (const mod of COMPILED) {
      const candidates = entries.filter((e) => {
        const m = new RegExp(`^${LIBS}/(${folder}|common)/${mod}/[^/]+$`).exec(e);
        if (!m) return false;
        const file = e.slice(e.lastIndexOf('/') + 1);
        return m[1] === folder ? own.test(file) || abi3.test(file) : abi3.test(file);
      });
      const good = candidates.find((e) => {
        const a = archOf(e);
        return a.format === format && wantArch(a.arch);
      });
      if (good) {
        found.push(`${good.slice(LIBS.length + 1)} (${archOf(good).arch})`);
      } else {
        missing.push(candidates.length ? `${mod}: ${candidates.map((c) => `${c} is ${JSON.stringify(archOf(c))}`).join(', ')}` : `${mod}: no file`);
      }
    }
    row(`cpython-${version}`, missing.length === 0, missing.length ? `missing/wrong: ${missing.join('; ')}` : found.join(', '));
  }
  const server = entries.includes(`${LIBS}/common/tokenizer_lsp/__init__.py`) && entries.includes('extension/bundled/tool/launch.py');
  const stray = entries.filter((e) => /\/(__pycache__|tests?)\/|\.pyc$|\.pyi$/.test(e));
  // pruning keeps each METADATA's headers: importlib.metadata needs Name and Version
  const metadata = entries.filter((e) => /\.dist-info\/METADATA$/.test(e));
  const broken = metadata.filter((e) => !/^Name: \S+$[\s\S]*^Version: \S+$/m.test(readZipEntry(vsix, e).toString('utf8')));
  row('server-and-pruned', server && stray.length === 0 && metadata.length > 0 && broken.length === 0,
    `${server ? 'tokenizer_lsp and launch.py present' : 'tokenizer_lsp or launch.py missing'}; ` +
      `${stray.length} cache/test/stub files${stray.length ? ` e.g. ${stray.slice(0, 3).join(', ')}` : ''}; ` +
      `${metadata.length - broken.length} of ${metadata.length} METADATA with Name and Version${broken.length ? ` (not: ${broken.slice(0, 3).join(', ')})` : ''}; ${entries.length} files`);
  return rows;
}
