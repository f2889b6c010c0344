// How busy the browser's web workers are, from Linux's /proc: VS Code colours (tokenizes) a
// file in a worker, and a large edit made while it still colours a 31 MB file costs the window
// a rescan of the edit's text for every batch of tokens the worker sends back (see
// untilWorkersIdle). The run's browser is the Chromium whose command line names its profile.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { TMP, sleep } from './harness.mjs';

/** harness.mjs's openWorkbench() launches Chromium with this profile. */
const BROWSER_PROFILE = path.join(TMP, 'chromium-profile');
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * CPU seconds so far of each web worker thread (Linux: /proc, by thread id) in the processes of
 * the browser this run launched (the one whose command line names its profile, and its
 * descendants); null when there is no /proc.
 */
function workerCpu() {
  let pids;
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const parent = new Map();
  let root;
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!root) {
        const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (cmd.includes(BROWSER_PROFILE) && !cmd.includes('--type=')) root = pid;
      }
    } catch {
      /* gone */
    }
  }
  if (!root) return null;
  const ours = (pid) => {
    for (let p = pid, i = 0; p && i < 20; p = parent.get(p), i++) if (p === root) return true;
    return false;
  };
  const cpu = new Map();
  for (const pid of pids) {
    if (!ours(pid)) continue;
    let tids = [];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        if (!stat.includes('(DedicatedWorker')) continue;
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        cpu.set(tid, (Number(f[11]) + Number(f[12])) / CLK_TCK);
      } catch {
        /* gone */
      }
    }
  }
  return cpu;
}

/**
 * Waits until the browser's web workers have been idle (under 5% of a core) for 2 s in a row,
 * at most `timeoutMs`; returns the seconds waited (null without /proc). VS Code colours a file
 * in a worker (TextMate tokenization): 30-40 s for a 31 MB tokenizer.json on 2 cores, and a
 * large edit made meanwhile costs its window a rescan of the edit's text for every batch of
 * tokens the worker sends back (the 10 MB conversion took 43-56 s instead of 7).
 */
export async function untilWorkersIdle(timeoutMs) {
  const t0 = Date.now();
  let before = workerCpu();
  if (!before) return null;
  let quiet = 0;
  while (quiet < 2 && Date.now() - t0 < timeoutMs) {
    await sleep(1000);
    const now = workerCpu() || new Map();
    let used = 0;
    for (const [tid, secs] of now) used += secs - (before.get(tid) ?? secs);
    quiet = used < 0.05 ? quiet + 1 : 0;
    before = now;
  }
  return (Date.now() - t0) / 1000;
}
