// A minimal LSP session over stdio with a server command: initialize, initialized, shutdown,
// exit. Resolves with a one-line summary; rejects when the server does not answer or exits
// with an error.
import { spawn } from 'node:child_process';

export function lspSmoke(argv, timeoutMs = 60_000) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    let buffer = Buffer.alloc(0);
    let stderr = '';
    const waiting = new Map();
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer within ${timeoutMs / 1000} s; stderr: ${stderr.slice(-400)}`));
    }, timeoutMs);
    const send = (message) => {
      const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...message }), 'utf8');
      child.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
    };
    const request = (id, method, params) =>
      new Promise((done) => {
        waiting.set(id, done);
        send({ id, method, params });
      });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.stdout.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, end).toString())?.[1]);
        if (buffer.length < end + 4 + length) return;
        const message = JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString('utf8'));
        buffer = buffer.subarray(end + 4 + length);
        if (message.id !== undefined && waiting.has(message.id)) waiting.get(message.id)(message);
      }
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    (async () => {
      const init = await request(1, 'initialize', { processId: process.pid, rootUri: null, capabilities: {} });
      if (!init.result?.capabilities) throw new Error(`initialize answered ${JSON.stringify(init).slice(0, 300)}`);
      send({ method: 'initialized', params: {} });
      const name = `${init.result.serverInfo?.name ?? '?'} ${init.result.serverInfo?.version ?? ''}`.trim();
      const provides = ['hoverProvider', 'inlayHintProvider', 'definitionProvider'].filter((k) => init.result.capabilities[k]);
      await request(2, 'shutdown', null);
      send({ method: 'exit' });
      const code = await new Promise((done) => child.on('exit', done));
      clearTimeout(timer);
      if (code !== 0) throw new Error(`exit status ${code} after shutdown/exit; stderr: ${stderr.slice(-400)}`);
      resolve(`LSP initialize answered by ${name} (${provides.join(', ')}), shutdown/exit -> status 0`);
    })().catch((err) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}; stderr: ${stderr.slice(-400)}`));
    });
  });
}
