"use strict";
(() => {
  // client-playground/src/backend.ts
  var ApiFailure = class extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  };
  async function call(path, body, signal) {
    const init = body === void 0 ? { signal } : {
      method: "POST",
      signal,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body)
    };
    const res = await fetch(path, init);
    if (!res.ok) throw new ApiFailure(res.status, (await res.text()).trim() || res.statusText);
    return await res.json();
  }
  var httpBackend = {
    tokenizers: () => call("api/tokenizers"),
    specials: async (i) => (await call(`api/specials?tokenizer=${i}`)).ids,
    encode: (i, text, signal) => call("api/encode", { tokenizer: i, text }, signal),
    render: (i, messages, signal) => call("api/render", { tokenizer: i, messages }, signal)
  };
  function webviewBackend(api) {
    let next = 1;
    const waiting = /* @__PURE__ */ new Map();
    window.addEventListener("message", (ev) => {
      const msg = ev.data;
      if (msg?.type !== "response" || typeof msg.id !== "number") return;
      const w = waiting.get(msg.id);
      if (!w) return;
      waiting.delete(msg.id);
      if (msg.error) w.reject(new ApiFailure(msg.error.status, msg.error.message));
      else w.resolve(msg.result);
    });
    const ask = (op, args = {}) => new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      api.postMessage({ type: "request", id, op, ...args });
    });
    return {
      tokenizers: () => ask("tokenizers"),
      specials: async (i) => (await ask("specials", { index: i })).ids,
      encode: (i, text) => ask("encode", { index: i, text }),
      render: (i, messages) => ask("render", { index: i, messages }),
      reveal: (i, tokenId) => api.postMessage({ type: "request", id: 0, op: "reveal", index: i, tokenId })
    };
  }

  // client-playground/src/segments.ts
  function codePointIndex(text) {
    const out = new Int32Array(text.length + 1);
    let cp = 0;
    for (let i = 0; i < text.length; i++) {
      out[cp++] = i;
      const c = text.charCodeAt(i);
      if (c >= 55296 && c <= 56319 && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 56320 && d <= 57343) i++;
      }
    }
    out[cp] = text.length;
    return out.subarray(0, cp + 1);
  }
  function codePointLength(text) {
    return codePointIndex(text).length - 1;
  }
  function graphemeBoundaries(text) {
    const out = new Uint8Array(text.length + 1);
    out[0] = 1;
    out[text.length] = 1;
    if (typeof Intl !== "undefined" && "Segmenter" in Intl) {
      const seg = new Intl.Segmenter(void 0, { granularity: "grapheme" });
      for (const s of seg.segment(text)) out[s.index] = 1;
    } else {
      out.fill(1);
    }
    return out;
  }
  function segmentsOf(text, tokens) {
    const cp = codePointIndex(text);
    const n = cp.length - 1;
    const at = (k) => cp[Math.max(0, Math.min(k, n))];
    const whole = graphemeBoundaries(text);
    const out = [];
    const end16 = new Int32Array(tokens.length);
    let cur = null;
    tokens.forEach((t, k) => {
      const start2 = at(t.start);
      const end = Math.max(start2, at(t.end));
      end16[k] = end;
      if (cur && cur.end > cur.start && (start2 < cur.end || !whole[cur.end])) {
        cur.end = Math.max(cur.end, end);
        cur.last = k;
        return;
      }
      cur = { start: Math.max(start2, cur ? cur.end : 0), end, first: k, last: k };
      cur.end = Math.max(cur.end, cur.start);
      out.push(cur);
    });
    return { segs: out, end16 };
  }
  function segmentKeys(segs) {
    const out = /* @__PURE__ */ new Set();
    for (const s of segs) if (s.end > s.start) out.add(`${s.start}:${s.end}`);
    return out;
  }

  // client-playground/src/view.ts
  var COLOURS = 8;
  var ESC = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
  function escapeHtml(s) {
    return s.replace(/[&<>"]/g, (c) => ESC[c]);
  }
  function visible(s, showWhitespace) {
    if (!showWhitespace) return escapeHtml(s);
    let out = "";
    for (const ch of s) {
      const c = ch.codePointAt(0);
      if (ch === " ") out += '<i class="ws">\xB7</i>';
      else if (ch === "	") out += '<i class="ws">\u2192</i>	';
      else if (ch === "\n") out += '<i class="ws">\u21B5</i>\n';
      else if (ch === "\r") out += '<i class="ws">\u240D</i>';
      else if (c < 32) out += `<i class="ws">${String.fromCharCode(9216 + c)}</i>`;
      else if (c === 127) out += '<i class="ws">\u2421</i>';
      else if (c === 160 || c === 12288 || c >= 8192 && c <= 8207 || c === 8232 || c === 8233 || c === 65279)
        out += `<i class="ws" title="U+${c.toString(16).toUpperCase().padStart(4, "0")}">\u237D</i>`;
      else out += escapeHtml(ch);
    }
    return out;
  }
  function originAt(origins, cpStart, hint) {
    if (!origins) return "";
    while (hint.k < origins.length && origins[hint.k].end <= cpStart) hint.k++;
    const s = origins[hint.k];
    return s && s.start <= cpStart && s.origin === "template" ? " tpl" : "";
  }
  var CHUNK_MIN = 300;
  var CHUNK_MAX = 3e3;
  function tokensHtml(text, tokens, sg, o) {
    const { segs, end16 } = sg;
    const parts = ['<div class="chunk">'];
    let pos = 0;
    let inChunk = 0;
    const hint = { k: 0 };
    const tokenAttrs = (k) => {
      const t = tokens[k];
      return [
        (o.specials.has(t.id) ? " special" : "") + originAt(o.origins, t.start, hint),
        ` data-token-id="${t.id}" data-tokenizer="${o.tokenizer}" data-k="${k}"`
      ];
    };
    segs.forEach((seg, si) => {
      if (seg.start > pos) parts.push(`<span class="gap">${visible(text.slice(pos, seg.start), o.showWhitespace)}</span>`);
      const diff = o.differs && o.differs[si] ? " diff" : "";
      if (seg.last === seg.first) {
        const [cls, attrs] = tokenAttrs(seg.first);
        parts.push(`<span class="seg tok c${si % COLOURS}${diff}${cls}" data-seg="${si}"${attrs}>${visible(text.slice(seg.start, seg.end), o.showWhitespace)}</span>`);
      } else {
        parts.push(`<span class="seg multi c${si % COLOURS}${diff}" data-seg="${si}">`);
        let p = seg.start;
        for (let k = seg.first; k <= seg.last; k++) {
          const e = k === seg.last ? seg.end : Math.max(p, Math.min(seg.end, end16[k]));
          const [cls, attrs] = tokenAttrs(k);
          parts.push(`<span class="tok${cls}"${attrs}>${visible(text.slice(p, e), o.showWhitespace)}</span>`);
          p = e;
        }
        parts.push("</span>");
      }
      pos = Math.max(pos, seg.end);
      inChunk++;
      if (inChunk >= CHUNK_MIN && text.charCodeAt(seg.end - 1) === 10 || inChunk >= CHUNK_MAX) {
        parts.push('</div><div class="chunk">');
        inChunk = 0;
      }
    });
    if (pos < text.length) parts.push(`<span class="gap">${visible(text.slice(pos), o.showWhitespace)}</span>`);
    parts.push("</div>");
    return parts.join("");
  }
  function idsHtml(tokens, sg) {
    const parts = [];
    sg.segs.forEach((seg, si) => {
      for (let k = seg.first; k <= seg.last; k++) parts.push(`<span class="id c${si % COLOURS}" data-k="${k}">${tokens[k].id}</span>`);
    });
    return parts.join(" ");
  }

  // client-playground/src/tooltip.ts
  var painted = /* @__PURE__ */ new WeakMap();
  function remember(body, p) {
    painted.set(body, p);
  }
  function row(t, specials) {
    const stored = t.token === null ? "\u2014" : JSON.stringify(t.token);
    const hex = t.bytes.match(/../g)?.join(" ") ?? "";
    const text = t.text === null ? "<em>not UTF-8 on its own</em>" : escapeHtml(JSON.stringify(t.text));
    return `<tr><th>${t.id}${specials.has(t.id) ? " <small>special</small>" : ""}</th><td>${escapeHtml(stored)}</td><td><code>${hex || "(no bytes)"}</code></td><td>${text}</td></tr>`;
  }
  function installTooltip(root2) {
    const tip = document.createElement("div");
    tip.className = "tooltip";
    tip.hidden = true;
    document.body.appendChild(tip);
    let shown = null;
    root2.addEventListener("mouseover", (ev) => {
      const tok = ev.target.closest?.(".tok");
      const body = tok?.closest(".tokens");
      const p = body ? painted.get(body) : void 0;
      if (!tok || !p) {
        tip.hidden = true;
        shown = null;
        return;
      }
      if (tok === shown) return;
      shown = tok;
      const k = Number(tok.getAttribute("data-k"));
      const seg = p.sg.segs.find((s) => s.first <= k && k <= s.last);
      const ks = seg ? Array.from({ length: seg.last - seg.first + 1 }, (_, i) => seg.first + i) : [k];
      tip.innerHTML = `<table><tr><th>id</th><th>stored</th><th>bytes</th><th>text</th></tr>` + ks.map((i) => row(p.tokens[i], p.specials)).join("") + "</table>" + (ks.length > 1 ? `<p>${ks.length} tokens make this segment</p>` : "");
      tip.hidden = false;
      const r = tok.getBoundingClientRect();
      tip.style.left = `${Math.min(r.left, window.innerWidth - tip.offsetWidth - 8)}px`;
      tip.style.top = `${r.bottom + 6 + tip.offsetHeight > window.innerHeight ? r.top - tip.offsetHeight - 6 : r.bottom + 6}px`;
    });
    root2.addEventListener("mouseleave", () => {
      tip.hidden = true;
      shown = null;
    });
  }

  // client-playground/src/columns.ts
  var Column = class {
    constructor(parent, info, specials) {
      this.info = info;
      this.specials = specials;
      this.el = document.createElement("section");
      this.el.className = "column";
      this.el.dataset.tokenizer = String(info.index);
      const name = info.path.replace(/[\\/]+$/, "").split(/[\\/]/).pop() || info.path;
      this.el.innerHTML = `<header><strong title="${escapeHtml(info.path)}">${escapeHtml(name)}</strong> <span class="format">${escapeHtml(info.format)}</span><span class="counts"></span></header><div class="note" hidden></div><div class="tokens"></div><div class="ids"></div>`;
      this.head = this.el.querySelector(".counts");
      this.note = this.el.querySelector(".note");
      this.body = this.el.querySelector(".tokens");
      this.ids = this.el.querySelector(".ids");
      parent.appendChild(this.el);
    }
    el;
    head;
    body;
    ids;
    note;
    shown = null;
    sg = null;
    painted = null;
    // what the DOM shows (the diff marks aside)
    differs;
    fail(message) {
      this.shown = null;
      this.painted = null;
      this.sg = null;
      this.note.hidden = false;
      this.note.textContent = message;
      this.body.innerHTML = "";
      this.ids.innerHTML = "";
      this.head.textContent = "";
    }
    show(s) {
      this.shown = s;
      this.sg = segmentsOf(s.text, s.tokens);
      this.note.hidden = true;
    }
    /** The diff marks alone, on what is painted (no rebuild): false when a paint is needed. */
    mark(differs) {
      if (!this.shown || this.painted !== this.shown) return false;
      const els = this.body.querySelectorAll("[data-seg]");
      if (els.length !== this.sg.segs.length) return false;
      const old = this.differs;
      els.forEach((el, i) => {
        const want = !!differs?.[i];
        if (want !== !!old?.[i]) el.classList.toggle("diff", want);
      });
      this.differs = differs;
      this.counts();
      return true;
    }
    paint(settings, differs) {
      const s = this.shown;
      if (!s || !this.sg) return;
      this.painted = s;
      this.differs = differs;
      this.body.innerHTML = tokensHtml(s.text, s.tokens, this.sg, {
        tokenizer: this.info.index,
        showWhitespace: settings.showWhitespace,
        specials: this.specials,
        differs,
        origins: s.origins
      });
      remember(this.body, { tokens: s.tokens, sg: this.sg, specials: this.specials });
      this.ids.hidden = !settings.showIds;
      this.ids.innerHTML = settings.showIds ? idsHtml(s.tokens, this.sg) : "";
      this.counts();
    }
    counts() {
      const s = this.shown;
      const differs = this.differs;
      const n = s.tokens.length;
      const chars = codePointLength(s.text);
      const split = differs ? differs.reduce((a, b) => a + b, 0) : 0;
      this.head.innerHTML = ` <span class="count" data-count="tokens">${n}</span> token${n === 1 ? "" : "s"} \xB7 <span class="count" data-count="characters">${chars}</span> character${chars === 1 ? "" : "s"}` + (differs ? ` \xB7 <span class="count differ" data-count="differ">${split}</span> split otherwise` : "") + (s.extra ?? "");
    }
  };
  function paintAll(cols, settings, marksOnly = false) {
    const ready = cols.filter((c) => c.shown && c.sg);
    const sameText = ready.length > 1 && ready.every((c) => c.shown.text === ready[0].shown.text);
    const keys = sameText ? ready.map((c) => segmentKeys(c.sg.segs)) : [];
    for (const c of cols) {
      let differs;
      if (sameText && c.sg) {
        const others = keys.filter((_, i) => ready[i] !== c);
        differs = new Uint8Array(c.sg.segs.length);
        c.sg.segs.forEach((s, i) => {
          if (s.end > s.start && others.some((o) => !o.has(`${s.start}:${s.end}`))) differs[i] = 1;
        });
      }
      if (!(marksOnly && c.mark(differs))) c.paint(settings, differs);
    }
  }

  // client-playground/src/chatMode.ts
  var SAMPLE_CHAT = [
    { role: "system", content: "You are a helpful assistant." },
    { role: "user", content: "What is a tokenizer?" },
    { role: "assistant", content: "It splits text into tokens, the units a model reads." },
    { role: "user", content: "How many tokens is \u201C\u4F60\u597D \u{1F44B}\u201D?" }
  ];
  var ROLES = ["system", "user", "assistant", "tool"];
  var ChatMode = class {
    constructor(parent, backend, infos, specials, settings) {
      this.backend = backend;
      this.settings = settings;
      this.el = document.createElement("div");
      this.el.id = "chat-view";
      this.el.innerHTML = `
      <div class="chat-editor">
        <div class="messages"></div>
        <div class="chat-actions">
          <button type="button" data-act="add">+ message</button>
          <label><input type="checkbox" class="gen" checked> add_generation_prompt</label>
        </div>
        <label class="tools-label">tools (JSON list, empty for none)
          <textarea class="tools" spellcheck="false" rows="3" placeholder='[{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]'></textarea>
        </label>
        <div class="chat-error" hidden></div>
      </div>
      <div class="columns"></div>`;
      parent.appendChild(this.el);
      this.list = this.el.querySelector(".messages");
      this.tools = this.el.querySelector(".tools");
      this.genPrompt = this.el.querySelector(".gen");
      this.error = this.el.querySelector(".chat-error");
      const box = this.el.querySelector(".columns");
      this.cols = infos.map((info, k) => new Column(box, info, specials[k]));
      SAMPLE_CHAT.forEach((m) => this.addMessage(m));
      this.el.querySelector('[data-act="add"]').addEventListener("click", () => {
        this.addMessage({ role: "user", content: "" });
        this.schedule();
      });
      this.el.addEventListener("input", (ev) => {
        if (ev.target.closest(".chat-editor")) this.schedule();
      });
      this.el.addEventListener("change", (ev) => {
        if (ev.target.closest(".chat-editor")) this.schedule();
      });
    }
    el;
    list;
    tools;
    genPrompt;
    error;
    cols;
    timer = 0;
    seq = 0;
    addMessage(m) {
      const row2 = document.createElement("div");
      row2.className = "message";
      row2.innerHTML = `<select aria-label="role">${ROLES.map((r) => `<option${r === m.role ? " selected" : ""}>${r}</option>`).join("")}</select><textarea rows="2" spellcheck="false" aria-label="content"></textarea><button type="button" title="remove this message" aria-label="remove">\xD7</button>`;
      row2.querySelector("textarea").value = m.content;
      row2.querySelector("button").addEventListener("click", () => {
        row2.remove();
        this.schedule();
      });
      this.list.appendChild(row2);
    }
    /** The request of the render API (docs/playground.md): {"messages", "tools"?, "add_generation_prompt"}. */
    request() {
      const messages = Array.from(this.list.querySelectorAll(".message")).map((row2) => ({
        role: row2.querySelector("select").value,
        content: row2.querySelector("textarea").value
      }));
      const req = { messages, add_generation_prompt: this.genPrompt.checked };
      const raw = this.tools.value.trim();
      if (raw) {
        try {
          const tools = JSON.parse(raw);
          if (!Array.isArray(tools)) return "tools: a JSON list of tool definitions";
          req.tools = tools;
        } catch (e) {
          return `tools: not JSON (${e.message})`;
        }
      }
      return req;
    }
    schedule() {
      clearTimeout(this.timer);
      this.timer = window.setTimeout(() => void this.update(), 150);
    }
    async update() {
      const req = this.request();
      this.error.hidden = typeof req !== "string";
      if (typeof req === "string") {
        this.error.textContent = req;
        return;
      }
      const seq = ++this.seq;
      this.cols.forEach((c) => c.el.dataset.current = "false");
      await Promise.all(this.cols.map(async (col) => {
        let got = null;
        let failure = "";
        try {
          got = await this.backend.render(col.info.index, req);
        } catch (e) {
          failure = e instanceof ApiFailure ? `${e.status}: ${e.message}` : String(e);
        }
        if (seq !== this.seq) return;
        if (got) col.show({ text: got.text, tokens: got.tokens, origins: got.spans, extra: chatCounts(got) });
        else col.fail(failure);
        col.el.dataset.current = "true";
      }));
      if (seq === this.seq) this.repaint();
    }
    repaint() {
      paintAll(this.cols, this.settings());
    }
  };
  function chatCounts(r) {
    const msgSpans = r.spans.filter((s) => s.origin === "message");
    const per = msgSpans.map(() => 0);
    let inMessages = 0;
    for (const t of r.tokens) {
      const i = msgSpans.findIndex((s) => s.start <= t.start && t.start < s.end);
      if (i >= 0) {
        per[i]++;
        inMessages++;
      }
    }
    const tpl = r.tokens.length - inMessages;
    const name = r.template.name ? ` (${escapeHtml(r.template.name)})` : "";
    return `<div class="chat-counts">template${name}: <span data-count="template">${tpl}</span> tokens \xB7 messages: <span data-count="messages">${inMessages}</span> \xB7 per message text: ` + per.map((n, i) => `<span class="per-message" data-message="${i}">${n}</span>`).join(" + ") + `<div class="template-source">${escapeHtml(r.template.source)}</div>${findingsHtml(r.findings)}</div>`;
  }
  function findingsHtml(findings) {
    if (findings === void 0) return "";
    if (findings.length === 0) return '<div class="findings" data-findings="0">template checks: no finding</div>';
    const rows = findings.map((f) => `<li class="finding ${escapeHtml(f.severity)}" data-code="${escapeHtml(f.code)}"><b>${escapeHtml(f.severity)}</b> <code>${escapeHtml(f.code)}</code>${f.line ? ` (template line ${f.line})` : ""}: ${escapeHtml(f.message)}</li>`).join("");
    return `<ul class="findings" data-findings="${findings.length}">${rows}</ul>`;
  }

  // client-playground/src/textMode.ts
  var SAMPLE_TEXT = 'Tokenizers split text into tokens: "Hello, world!"\n	def f(x):    return x  # a tab and runs of spaces\n\u4F60\u597D\uFF0C\u4E16\u754C\u3002\u65E5\u672C\u8A9E\u306E\u30C6\u30AD\u30B9\u30C8\u3002\nEmoji: \u{1F44B} \u{1F469}\u200D\u{1F469}\u200D\u{1F467} \u{1F3F3}\uFE0F\u200D\u{1F308}, combining marks: e\u0301 n\u0303 a\u0308\n';
  var TextMode = class {
    constructor(parent, backend, infos, specials, settings) {
      this.backend = backend;
      this.settings = settings;
      this.el = document.createElement("div");
      this.el.id = "text-view";
      this.el.innerHTML = '<textarea id="text-input" spellcheck="false" aria-label="Text to tokenize"></textarea><div class="columns"></div>';
      parent.appendChild(this.el);
      this.input = this.el.querySelector("textarea");
      this.input.value = SAMPLE_TEXT;
      const box = this.el.querySelector(".columns");
      this.cols = infos.map((info, k) => new Column(box, info, specials[k]));
      this.busy = infos.map(() => false);
      this.input.addEventListener("input", () => this.update());
      this.update();
    }
    el;
    input;
    cols = [];
    busy = [];
    update() {
      this.cols.forEach((c, k) => {
        c.el.dataset.current = "false";
        if (!this.busy[k]) void this.fetch(k);
      });
    }
    repaint() {
      paintAll(this.cols, this.settings());
    }
    async fetch(k) {
      const col = this.cols[k];
      const text = this.input.value;
      this.busy[k] = true;
      try {
        const got = await this.backend.encode(col.info.index, text);
        col.show({ text, tokens: got.tokens });
      } catch (e) {
        col.fail(e instanceof ApiFailure ? `${e.status}: ${e.message}` : String(e));
      } finally {
        this.busy[k] = false;
      }
      if (this.input.value !== text) {
        void this.fetch(k);
        return;
      }
      col.paint(this.settings());
      col.el.dataset.current = "true";
      if (this.cols.every((c) => c.el.dataset.current === "true")) paintAll(this.cols, this.settings(), true);
    }
  };

  // client-playground/src/main.ts
  async function start(root2, backend) {
    const infos = await backend.tokenizers();
    const specials = await Promise.all(infos.map(async (i) => new Set(await backend.specials(i.index).catch(() => []))));
    const settings = { showWhitespace: false, showIds: false };
    root2.innerHTML = `
    <header class="bar">
      <h1>Tokenizer playground</h1>
      <nav role="tablist">
        <button type="button" role="tab" data-mode="text" aria-selected="true">Text</button>
        <button type="button" role="tab" data-mode="chat" aria-selected="false">Chat</button>
      </nav>
      <label><input type="checkbox" id="toggle-whitespace"> whitespace</label>
      <label><input type="checkbox" id="toggle-ids"> ids</label>
      <span class="legend"><span class="seg c0 multi"><span class="tok">ab</span></span> one character, several tokens
        <span class="seg c1 diff"><span class="tok">ab</span></span> split otherwise in another column
        <span class="seg c2"><span class="tok special">&lt;s&gt;</span></span> special</span>
    </header>
    <main></main>`;
    const main = root2.querySelector("main");
    if (infos.length === 0) {
      main.textContent = "No tokenizer: start the playground with the paths of tokenizer files or model folders.";
      return;
    }
    const text = new TextMode(main, backend, infos, specials, () => settings);
    let chat = null;
    const showMode = (mode) => {
      root2.querySelectorAll('[role="tab"]').forEach((b) => b.setAttribute("aria-selected", String(b.dataset.mode === mode)));
      text.el.hidden = mode !== "text";
      if (mode === "chat" && !chat) {
        chat = new ChatMode(main, backend, infos, specials, () => settings);
        void chat.update();
      }
      if (chat) chat.el.hidden = mode !== "chat";
      document.body.dataset.mode = mode;
    };
    root2.querySelectorAll('[role="tab"]').forEach((b) => b.addEventListener("click", () => showMode(b.dataset.mode)));
    const toggle = (id, key) => {
      root2.querySelector(`#${id}`).addEventListener("change", (ev) => {
        settings[key] = ev.target.checked;
        text.repaint();
        chat?.repaint();
      });
    };
    toggle("toggle-whitespace", "showWhitespace");
    toggle("toggle-ids", "showIds");
    installTooltip(main);
    if (backend.reveal) {
      main.addEventListener("click", (ev) => {
        const tok = ev.target.closest?.("[data-token-id]");
        if (tok) backend.reveal(Number(tok.dataset.tokenizer), Number(tok.dataset.tokenId));
      });
    }
    const wanted = root2.dataset.mode ?? new URLSearchParams(location.search).get("mode");
    showMode(wanted === "chat" ? "chat" : "text");
    text.input.focus();
  }
  var root = document.getElementById("app");
  start(root, window.acquireVsCodeApi ? webviewBackend(window.acquireVsCodeApi()) : httpBackend).catch((e) => {
    root.textContent = `The playground could not start: ${e instanceof Error ? e.message : String(e)}`;
  });
})();
