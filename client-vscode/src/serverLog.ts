// The "Tokenizer LSP" output channel is a LogOutputChannel: every entry gets one timestamp and
// level from VS Code. vscode-languageclient writes its own "[Info  - 6:23:36 PM] ..." prefix, the
// server's stderr arrives in chunks with Python logging's own "2026-11-24 18:23:47,788 INFO ..."
// prefix and a trailing newline. This adapter, handed to the client as its output channel, strips
// those second timestamps, keeps the level, and drops the blank lines.
import * as vscode from 'vscode';

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

/** `[Info  - 6:23:36 PM] message` as vscode-languageclient writes it (also `[Trace - ...]`, `[LSP   - ...]`). */
const CLIENT_LINE = /^\[(Trace|Debug|Info|Warn|Error|LSP)\s*-\s*[^\]]*\]\s?/;
/** Python logging's `%(asctime)s %(levelname)s %(name)s: %(message)s`, the server's format. */
const SERVER_LINE = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[,.]\d+)? (DEBUG|INFO|WARNING|ERROR|CRITICAL) (.*)$/;

const CLIENT_LEVELS: Record<string, Level> = {
  // Traces are asked for with tokenizerLsp.trace.server: show them at the channel's default level.
  Trace: 'info',
  LSP: 'info',
  Debug: 'debug',
  Info: 'info',
  Warn: 'warn',
  Error: 'error',
};
const SERVER_LEVELS: Record<string, Level> = {
  DEBUG: 'debug',
  INFO: 'info',
  WARNING: 'warn',
  ERROR: 'error',
  CRITICAL: 'error',
};

export class ServerLogChannel implements vscode.OutputChannel {
  readonly name: string;
  private pending = '';
  private flushTimer: NodeJS.Timeout | undefined;
  /** Level of the last server log line, for the lines that continue it (a traceback). */
  private serverLevel: Level = 'info';

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.name = log.name;
  }

  /** The server's stderr, in chunks that need not end at a line end. */
  append(value: string): void {
    this.pending += value;
    const end = this.pending.lastIndexOf('\n');
    if (end >= 0) {
      const complete = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 1);
      for (const line of complete.split('\n')) {
        this.serverLine(line);
      }
    }
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    if (this.pending !== '') {
      // a last line without its newline (a process that died mid-line) still shows
      this.flushTimer = setTimeout(() => this.flush(), 200);
    }
  }

  /** The client's own messages and traces: one entry each, its time prefix removed. */
  appendLine(value: string): void {
    const text = value.replace(/\s+$/, '');
    if (text.trim() === '') {
      return;
    }
    const m = CLIENT_LINE.exec(text);
    if (m) {
      this.write(CLIENT_LEVELS[m[1]] ?? 'info', text.slice(m[0].length));
    } else {
      this.write('info', text);
    }
  }

  replace(value: string): void {
    this.log.replace(value);
  }

  clear(): void {
    this.log.clear();
  }

  show(columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    if (typeof columnOrPreserveFocus === 'boolean' || columnOrPreserveFocus === undefined) {
      this.log.show(columnOrPreserveFocus);
    } else {
      this.log.show(columnOrPreserveFocus, preserveFocus);
    }
  }

  hide(): void {
    this.log.hide();
  }

  /** The channel belongs to the extension, not to one client: only the pending text is written. */
  dispose(): void {
    this.flush();
  }

  flush(): void {
    if (this.flushTimer) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    const rest = this.pending;
    this.pending = '';
    if (rest !== '') {
      this.serverLine(rest);
    }
  }

  private serverLine(raw: string): void {
    const line = raw.replace(/\s+$/, '');
    if (line.trim() === '') {
      return;
    }
    const m = SERVER_LINE.exec(line);
    if (m) {
      this.serverLevel = SERVER_LEVELS[m[1]] ?? 'info';
      this.write(this.serverLevel, m[2]);
    } else {
      if (line.startsWith('Traceback (most recent call last)')) {
        this.serverLevel = 'error';
      }
      this.write(this.serverLevel, line);
    }
  }

  private write(level: Level, text: string): void {
    this.log[level](text);
  }
}
