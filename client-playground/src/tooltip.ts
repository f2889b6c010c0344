// Hover a token: its id, stored form, bytes and decoded text, and the other tokens of its
// segment (a character split across tokens shows all of its pieces). One listener per view.

import type { EncodedToken } from './backend';
import type { Segmented } from './segments';
import { escapeHtml } from './view';

export interface Painted { tokens: EncodedToken[]; sg: Segmented; specials: Set<number> }

const painted = new WeakMap<Element, Painted>();

export function remember(body: Element, p: Painted): void {
  painted.set(body, p);
}

function row(t: EncodedToken, specials: Set<number>): string {
  const stored = t.token === null ? '—' : JSON.stringify(t.token);
  const hex = t.bytes.match(/../g)?.join(' ') ?? '';
  const text = t.text === null ? '<em>not UTF-8 on its own</em>' : escapeHtml(JSON.stringify(t.text));
  return `<tr><th>${t.id}${specials.has(t.id) ? ' <small>special</small>' : ''}</th>` +
    `<td>${escapeHtml(stored)}</td><td><code>${hex || '(no bytes)'}</code></td><td>${text}</td></tr>`;
}

export function installTooltip(root: HTMLElement): void {
  const tip = document.createElement('div');
  tip.className = 'tooltip';
  tip.hidden = true;
  document.body.appendChild(tip);
  let shown: Element | null = null;
  root.addEventListener('mouseover', (ev) => {
    const tok = (ev.target as Element).closest?.('.tok');
    const body = tok?.closest('.tokens');
    const p = body ? painted.get(body) : undefined;
    if (!tok || !p) {
      tip.hidden = true;
      shown = null;
      return;
    }
    if (tok === shown) return;
    shown = tok;
    const k = Number(tok.getAttribute('data-k'));
    const seg = p.sg.segs.find((s) => s.first <= k && k <= s.last);
    const ks = seg ? Array.from({ length: seg.last - seg.first + 1 }, (_, i) => seg.first + i) : [k];
    tip.innerHTML = `<table><tr><th>id</th><th>stored</th><th>bytes</th><th>text</th></tr>` +
      ks.map((i) => row(p.tokens[i], p.specials)).join('') + '</table>' +
      (ks.length > 1 ? `<p>${ks.length} tokens make this segment</p>` : '');
    tip.hidden = false;
    const r = tok.getBoundingClientRect();
    tip.style.left = `${Math.min(r.left, window.innerWidth - tip.offsetWidth - 8)}px`;
    tip.style.top = `${r.bottom + 6 + tip.offsetHeight > window.innerHeight ? r.top - tip.offsetHeight - 6 : r.bottom + 6}px`;
  });
  root.addEventListener('mouseleave', () => {
    tip.hidden = true;
    shown = null;
  });
}
