// SPDX-License-Identifier: BSD-3-Clause
// The page: takes dropped or picked files, runs the engine on them in a Web Worker (worker.js,
// started from a blob: URL, as a page opened from file:// may not start one from a file) and
// shows the bundle it makes in the frame. The engine (tlweb.wasm) is in the page as base64.
// What is given decides the run (web/tlweb.c says each as its tlparse command):
//   one file                          tlparse LOG --bundle
//   a folder, or several rank logs    tlparse FOLDER --all-ranks-html --bundle (the multi-rank
//                                     landing); a folder without rank logs: its newest log
//   two other files, or Before/After  tlparse diff BEFORE AFTER (the older file is BEFORE)
// "Save redacted" runs the shown report's command again with --redact and saves the bundle;
// the salt of its hashes is drawn here (tlweb.redactSalt, 32 hex digits, when a test sets it).
// window.tlweb tells the tests where a run is: {state: 'idle'|'running'|'done'|'failed',
// kind ('log'|'ranks'|'diff'), code, bundle (a Blob), messages, ms, progress (how many times
// the bar moved), memory (the worker's: {wasm, pending} bytes at most), started and finished
// (performance.now() of a run's start and end), redact: {state, code,
// bundle, name} of the last "Save redacted"}.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const bar = $('tlw-bar'), status = $('tlw-status'), msgs = $('tlw-msgs'), frame = $('tlw-frame');
  const redactButton = $('tlw-redact');
  const state = { state: 'idle', kind: null, code: null, bundle: null, messages: [], ms: 0,
    progress: 0, redact: { state: 'idle', code: null, bundle: null, name: null } };
  window.tlweb = state;
  let module = null, worker = null, frameUrl = null, shown = null, saveUrl = null;
  const RANK_LOG = /^dedicated_log_torch_trace_rank_\d+/;

  function engine() {
    if (!module) {
      const b64 = $('tlw-wasm').textContent.trim();
      const bin = atob(b64);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      module = new WebAssembly.Module(bytes);
    }
    return module;
  }

  function mb(n) { return (n / 1e6).toFixed(1) + ' MB'; }

  function say(line) {
    state.messages.push(line);
    msgs.textContent += line + '\n';
  }

  // Run the engine on job ({label, kind, files: [{file, path}], args}); done(m) gets the
  // worker's 'done' message, or null when the engine failed.
  function spawn(job, done) {
    const src = new Blob([$('tlw-worker').textContent], { type: 'text/javascript' });
    const url = URL.createObjectURL(src);
    const w = new Worker(url);
    URL.revokeObjectURL(url);
    const size = job.files.reduce((n, f) => n + f.file.size, 0);
    bar.hidden = false;
    bar.value = 0;
    status.textContent = 'Reading ' + job.label + ' (' + mb(size) + ')';
    w.onmessage = (ev) => {
      const m = ev.data;
      if (m.type === 'progress') {
        state.progress++;
        bar.value = m.total ? m.done / m.total : 0;
        status.textContent = 'Reading ' + job.label + ': ' + mb(m.done) + ' of ' + mb(m.total);
      } else if (m.type === 'message') {
        say(m.line);
      } else if (m.type === 'done' || m.type === 'error') {
        bar.hidden = true;
        w.terminate();
        if (m.type === 'error') say(m.text);
        done(m.type === 'done' ? m : null);
      }
    };
    w.postMessage({ module: engine(), files: job.files, args: job.args });
    return w;
  }

  function start(job) {
    if (worker) worker.terminate();
    Object.assign(state, { state: 'running', kind: job.kind, code: null, bundle: null,
      messages: [], ms: 0, progress: 0, memory: null, started: performance.now(),
      finished: Infinity });
    msgs.textContent = '';
    redactButton.hidden = true;
    worker = spawn(job, (m) => {
      worker = null;
      state.finished = performance.now();
      if (!m) {
        state.state = 'failed';
        status.textContent = job.label + ': the engine failed';
        return;
      }
      Object.assign(state, { code: m.code, bundle: m.bundle, ms: m.ms, memory: m.memory });
      if (!m.bundle) {
        state.state = 'failed';
        status.textContent = job.label + ': no report (exit code ' + m.code + ')';
        return;
      }
      if (frameUrl) URL.revokeObjectURL(frameUrl);
      frameUrl = URL.createObjectURL(m.bundle);
      frame.src = frameUrl;
      frame.style.display = 'block';
      status.textContent = job.label + ': ' + (m.ms / 1000).toFixed(1) + ' s';
      shown = job;
      redactButton.hidden = job.kind === 'diff';
      state.state = 'done';
    });
  }

  // "Save redacted": the shown report's run again with --redact, saved as NAME-redacted.html.
  function saveRedacted() {
    if (!shown || shown.kind === 'diff' || state.redact.state === 'running') return;
    let salt = state.redactSalt;
    if (!/^[0-9a-f]{32}$/.test(salt || ''))
      salt = Array.from(crypto.getRandomValues(new Uint8Array(16)),
        (b) => b.toString(16).padStart(2, '0')).join('');
    const job = Object.assign({}, shown, { args: ['--redact=' + salt, ...shown.args] });
    const name = shown.label.replace(/[^A-Za-z0-9._-]+/g, '_') + '-redacted.html';
    state.redact = { state: 'running', code: null, bundle: null, name };
    redactButton.disabled = true;
    spawn(job, (m) => {
      redactButton.disabled = false;
      state.redact.code = m ? m.code : null;
      if (!m || !m.bundle) {
        state.redact.state = 'failed';
        status.textContent = name + ': not written';
        return;
      }
      state.redact.bundle = m.bundle;
      if (saveUrl) URL.revokeObjectURL(saveUrl);
      saveUrl = URL.createObjectURL(m.bundle);
      const a = document.createElement('a');
      a.href = saveUrl;
      a.download = name;
      document.body.appendChild(a);
      a.click();
      a.remove();
      status.textContent = 'Saved ' + name + ' (redacted: no code, names or constants)';
      state.redact.state = 'done';
    });
  }

  function logJob(file, path) {
    return { label: file.name, kind: 'log', files: [{ file, path }],
      args: ['/in', path, '/out/report.html'] };
  }

  // The files of one folder (paths FOLDER/NAME): the multi-rank landing when it holds rank
  // logs, else the report of its newest log (as tlparse FOLDER --bundle).
  function folderJob(folder, files) {
    const ranks = files.some((f) => RANK_LOG.test(f.file.name));
    return { label: folder, kind: ranks ? 'ranks' : 'log', files,
      args: [...(ranks ? ['--all-ranks-html'] : []), '/in', folder, '/out/report.html'] };
  }

  // BEFORE and AFTER as /in/NAME, or /in/1/NAME and /in/2/NAME when their names are the same.
  function diffJob(before, after) {
    const same = before.name === after.name;
    const pb = same ? '1/' + before.name : before.name, pa = same ? '2/' + after.name : after.name;
    return { label: before.name + ' → ' + after.name, kind: 'diff',
      files: [{ file: before, path: pb }, { file: after, path: pa }],
      args: ['diff', '/in', pb, pa, '/out/report.html'] };
  }

  // Files picked or dropped without a folder: one log, several rank logs, or two to compare.
  function filesJob(list) {
    const files = Array.from(list);
    if (files.length === 1) return logJob(files[0], files[0].name);
    if (files.every((f) => RANK_LOG.test(f.name)))
      return folderJob('logs', files.map((file) => ({ file, path: 'logs/' + file.name })));
    if (files.length === 2) {
      const [a, b] = files.slice().sort((x, y) => x.lastModified - y.lastModified ||
        (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
      return diffJob(a, b);
    }
    say('Give one log, a folder or several rank logs, or two logs to compare (' + files.length +
      ' files were given)');
    return null;
  }

  // A picked folder (input webkitdirectory): its own files, not those of its subfolders.
  function pickedFolder(list) {
    const files = Array.from(list).filter((f) => f.webkitRelativePath.split('/').length === 2);
    if (!files.length) return null;
    const folder = files[0].webkitRelativePath.split('/')[0];
    return folderJob(folder, files.map((file) => ({ file, path: file.webkitRelativePath })));
  }

  // A dropped folder's own files (not those of its subfolders), through the File System
  // Access handle where the browser has one, else the older entry API.
  async function handleFolder(dir) {
    const files = [];
    for await (const [name, h] of dir.entries())
      if (h.kind === 'file') files.push({ file: await h.getFile(), path: dir.name + '/' + name });
    return folderJob(dir.name, files);
  }

  function entryFile(entry) { return new Promise((ok, fail) => entry.file(ok, fail)); }

  async function entryFolder(dir) {
    const reader = dir.createReader(), entries = [];
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) break;
      entries.push(...batch);
    }
    const files = [];
    for (const e of entries)
      if (e.isFile) files.push({ file: await entryFile(e), path: dir.name + '/' + e.name });
    return folderJob(dir.name, files);
  }

  function folderFailed(e) {
    say('Cannot read the dropped folder (' + e + '): pick it with "a folder" instead');
  }

  function run(job) { if (job) start(job); }

  $('tlw-file').addEventListener('change', (ev) => run(filesJob(ev.target.files)));
  $('tlw-dir').addEventListener('change', (ev) => run(pickedFolder(ev.target.files)));
  const before = $('tlw-before'), after = $('tlw-after');
  const compare = () => {
    if (before.files.length && after.files.length) run(diffJob(before.files[0], after.files[0]));
  };
  before.addEventListener('change', compare);
  after.addEventListener('change', compare);
  redactButton.addEventListener('click', saveRedacted);
  const drop = $('tlw-drop');
  document.addEventListener('dragover', (ev) => { ev.preventDefault(); drop.classList.add('over'); });
  document.addEventListener('dragleave', () => drop.classList.remove('over'));
  document.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    const files = Array.from(ev.dataTransfer.files);
    const items = Array.from(ev.dataTransfer.items || []).filter((i) => i.kind === 'file');
    // the items are read now: they are gone once the event is over
    if (items.length === 1 && items[0].getAsFileSystemHandle) {
      items[0].getAsFileSystemHandle().then((h) => {
        if (h && h.kind === 'directory') handleFolder(h).then(run, folderFailed);
        else run(filesJob(files));
      }, folderFailed);
      return;
    }
    const entry = items.length === 1 && items[0].webkitGetAsEntry ? items[0].webkitGetAsEntry() : null;
    if (entry && entry.isDirectory) entryFolder(entry).then(run, folderFailed);
    else if (files.length) run(filesJob(files));
  });
})();
