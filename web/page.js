// SPDX-License-Identifier: BSD-3-Clause
// The page: takes a dropped or picked log, runs the engine on it in a Web Worker (worker.js,
// started from a blob: URL, as a page opened from file:// may not start one from a file) and
// shows the bundle it makes in the frame. The engine (tlweb.wasm) is in the page as base64.
// window.tlweb tells the tests where a run is: {state: 'idle'|'running'|'done'|'failed',
// code, bundle (a Blob), messages, ms, progress (how many times the bar moved)}.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const bar = $('tlw-bar'), status = $('tlw-status'), msgs = $('tlw-msgs'), frame = $('tlw-frame');
  const state = { state: 'idle', code: null, bundle: null, messages: [], ms: 0, progress: 0 };
  window.tlweb = state;
  let module = null, worker = null, frameUrl = null;

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

  function start(file) {
    if (!file) return;
    if (worker) worker.terminate();
    const src = new Blob([$('tlw-worker').textContent], { type: 'text/javascript' });
    const url = URL.createObjectURL(src);
    worker = new Worker(url);
    URL.revokeObjectURL(url);
    Object.assign(state, { state: 'running', code: null, bundle: null, messages: [], ms: 0, progress: 0 });
    msgs.textContent = '';
    bar.hidden = false;
    bar.value = 0;
    status.textContent = 'Reading ' + file.name + ' (' + mb(file.size) + ')';
    worker.onmessage = (ev) => {
      const m = ev.data;
      if (m.type === 'progress') {
        state.progress++;
        bar.value = m.total ? m.done / m.total : 0;
        status.textContent = 'Reading ' + file.name + ': ' + mb(m.done) + ' of ' + mb(m.total);
      } else if (m.type === 'message') {
        state.messages.push(m.line);
        msgs.textContent += m.line + '\n';
      } else if (m.type === 'done') {
        Object.assign(state, { code: m.code, bundle: m.bundle, ms: m.ms });
        bar.hidden = true;
        worker.terminate();
        worker = null;
        if (!m.bundle) {
          state.state = 'failed';
          status.textContent = file.name + ': no report (exit code ' + m.code + ')';
          return;
        }
        if (frameUrl) URL.revokeObjectURL(frameUrl);
        frameUrl = URL.createObjectURL(m.bundle);
        frame.src = frameUrl;
        frame.style.display = 'block';
        status.textContent = file.name + ': ' + (m.ms / 1000).toFixed(1) + ' s';
        state.state = 'done';
      } else if (m.type === 'error') {
        state.state = 'failed';
        state.messages.push(m.text);
        msgs.textContent += m.text + '\n';
        status.textContent = file.name + ': the engine failed';
        bar.hidden = true;
      }
    };
    worker.postMessage({ module: engine(), file });
  }

  $('tlw-file').addEventListener('change', (ev) => start(ev.target.files[0]));
  const drop = $('tlw-drop');
  document.addEventListener('dragover', (ev) => { ev.preventDefault(); drop.classList.add('over'); });
  document.addEventListener('dragleave', () => drop.classList.remove('over'));
  document.addEventListener('drop', (ev) => {
    ev.preventDefault();
    drop.classList.remove('over');
    if (ev.dataTransfer.files.length) start(ev.dataTransfer.files[0]);
  });
})();
