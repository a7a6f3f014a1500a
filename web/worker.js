// SPDX-License-Identifier: BSD-3-Clause
// The engine's worker: runs tlweb.wasm (web/tlweb.c) as a WASI command over a small file
// system of its own, in memory: /in holds the dropped Files at their paths (NAME, or
// FOLDER/NAME for a folder's), each read in pieces with FileReaderSync as the engine asks (a
// log is never loaded whole), and /out/ holds what the engine writes (the bundle, its
// temporary files). Asked with {module, files: [{file, path}], args (after argv[0])}. Only the
// WASI calls the engine makes are real; any other answers ENOSYS. Messages to the page:
// {type: 'progress', done, total}, {type: 'message', line}, {type: 'done', code, bundle (a
// Blob), ms, memory: {wasm: the engine's memory, pending: the most bytes of written files
// held in this worker at once}}, {type: 'error', text}.
'use strict';

const E = { SUCCESS: 0, BADF: 8, EXIST: 20, INVAL: 28, ISDIR: 31, NOENT: 44, NOSYS: 52,
  NOTDIR: 54, NOTEMPTY: 55, SPIPE: 70, IO: 29 };
const FT = { CHAR: 2, DIR: 3, REG: 4 };
const ALL_RIGHTS = 0x1fffffffn;

class Exit { constructor(code) { this.code = code; } }

function dirNode() { return { dir: true, entries: new Map(), ino: nextIno++ }; }
let nextIno = 1;

// A file written by the engine (the bundle, its spools and temporary files): its bytes are
// Blobs of up to CHUNK bytes (parts: flushed bytes in all), which the browser keeps out of
// this worker's memory (on disk when they are large), and a buffer of the bytes written last
// (pending, blen of them). Written at its end, as the engine writes, a file costs the worker
// one CHUNK; a write before its end splices Blobs (no copy). Read back with FileReaderSync.
const CHUNK = 1 << 20;
const memory = { pending: 0, peakPending: 0 }; // bytes in pending buffers, now and at most
function fileNode() {
  return { dir: false, parts: [], whole: null, flushed: 0, pending: null, blen: 0, size: 0,
    ino: nextIno++ };
}

function setPending(node, buf) {
  memory.pending += (buf ? buf.length : 0) - (node.pending ? node.pending.length : 0);
  memory.peakPending = Math.max(memory.peakPending, memory.pending);
  node.pending = buf;
}

function flushed(node) {
  if (!node.whole) node.whole = new Blob(node.parts);
  return node.whole;
}

function flush(node) {
  if (!node.blen) return;
  node.parts.push(new Blob([node.pending.subarray(0, node.blen)]));
  node.whole = null;
  node.flushed += node.blen;
  node.blen = 0;
  setPending(node, null);
}

// bytes at pos of node (pos <= node.size).
function writeNode(node, pos, bytes) {
  if (pos < node.flushed) { // before the end of the Blobs: splice them
    const k = Math.min(bytes.length, node.flushed - pos), w = flushed(node);
    node.parts = [w.slice(0, pos), new Blob([bytes.subarray(0, k)]), w.slice(pos + k)];
    node.whole = null;
    pos += k;
    bytes = bytes.subarray(k);
    if (!bytes.length) return;
  }
  const at = pos - node.flushed, end = at + bytes.length;
  if (!node.pending || end > node.pending.length) {
    let cap = Math.max(node.pending ? node.pending.length * 2 : 0, 1 << 16);
    while (cap < end) cap *= 2;
    const d = new Uint8Array(cap);
    if (node.pending) d.set(node.pending.subarray(0, node.blen));
    setPending(node, d);
  }
  node.pending.set(bytes, at);
  node.blen = Math.max(node.blen, end);
  node.size = node.flushed + node.blen;
  if (node.blen >= CHUNK) flush(node);
}

// node cut or grown (with zeros) to n bytes.
function resize(node, n) {
  if (n <= node.flushed) {
    node.parts = n ? [flushed(node).slice(0, n)] : [];
    node.whole = null;
    node.flushed = n;
    node.blen = 0;
    setPending(node, null);
    node.size = n;
  } else if (n < node.size) {
    node.blen = n - node.flushed;
    node.size = n;
  } else {
    for (let at = node.size; at < n; at += CHUNK)
      writeNode(node, at, new Uint8Array(Math.min(CHUNK, n - at)));
  }
}

function run(module, files, argv) {
  const root = dirNode();
  const inDir = dirNode(), outDir = dirNode();
  root.entries.set('in', inDir);
  root.entries.set('out', outDir);
  for (const { file, path } of files) {
    const parts = path.split('/').filter((p) => p && p !== '.' && p !== '..');
    let d = inDir;
    for (const part of parts.slice(0, -1)) {
      if (!d.entries.has(part)) d.entries.set(part, dirNode());
      d = d.entries.get(part);
      if (!d.dir) throw new Error(path + ': not a folder');
    }
    d.entries.set(parts[parts.length - 1], { dir: false, file, size: file.size, ino: nextIno++ });
  }
  const reader = new FileReaderSync();
  const args = ['tlweb', ...argv];
  const fds = new Map();
  fds.set(3, { node: root, pos: 0, preopen: '/' });
  let nextFd = 4;
  let mem = null;
  const enc = new TextEncoder(), dec = new TextDecoder();
  const errText = [''];

  const u8 = () => new Uint8Array(mem.buffer);
  const dv = () => new DataView(mem.buffer);
  const str = (p, n) => dec.decode(u8().subarray(p, p + n));

  // A path relative to a directory fd: the node's parent, its last name and the node itself.
  function lookup(dirfd, path) {
    const d = fds.get(dirfd);
    if (!d || !d.node.dir) return { err: E.BADF };
    const parts = path.split('/').filter((s) => s && s !== '.');
    let parent = d.node;
    for (let i = 0; i < parts.length - 1; i++) {
      if (parts[i] === '..') return { err: E.NOENT };
      const next = parent.entries.get(parts[i]);
      if (!next) return { err: E.NOENT };
      if (!next.dir) return { err: E.NOTDIR };
      parent = next;
    }
    const name = parts.length ? parts[parts.length - 1] : null;
    if (name === '..') return { err: E.NOENT };
    return { parent, name, node: name === null ? d.node : parent.entries.get(name) };
  }

  function read(node, pos, n) {
    const end = Math.min(pos + n, node.size);
    if (end <= pos) return new Uint8Array(0);
    if (node.file) return new Uint8Array(reader.readAsArrayBuffer(node.file.slice(pos, end)));
    if (pos >= node.flushed) return node.pending.subarray(pos - node.flushed, end - node.flushed);
    const from = new Uint8Array(reader.readAsArrayBuffer(flushed(node).slice(pos, Math.min(end, node.flushed))));
    if (end <= node.flushed) return from;
    const out = new Uint8Array(end - pos);
    out.set(from);
    out.set(node.pending.subarray(0, end - node.flushed), from.length);
    return out;
  }

  function write(node, pos, bytes) {
    if (node.file) return E.BADF;
    if (pos > node.size) resize(node, pos);
    writeNode(node, pos, bytes);
    return E.SUCCESS;
  }

  function iovs(ptr, n) {
    const v = dv(), out = [];
    for (let i = 0; i < n; i++) out.push([v.getUint32(ptr + 8 * i, true), v.getUint32(ptr + 8 * i + 4, true)]);
    return out;
  }

  function stdout(fd, bytes) {
    if (fd !== 2 && fd !== 1) return;
    errText[0] += dec.decode(bytes, { stream: true });
    let nl;
    while ((nl = errText[0].indexOf('\n')) >= 0) {
      postMessage({ type: 'message', line: errText[0].slice(0, nl) });
      errText[0] = errText[0].slice(nl + 1);
    }
  }

  function filestat(ptr, node) {
    const v = dv();
    for (let i = 0; i < 64; i += 8) v.setBigUint64(ptr + i, 0n, true);
    v.setBigUint64(ptr + 8, BigInt(node.ino), true);
    v.setUint8(ptr + 16, node.dir ? FT.DIR : FT.REG);
    v.setBigUint64(ptr + 24, 1n, true);
    v.setBigUint64(ptr + 32, BigInt(node.dir ? 0 : node.size), true);
    const t = BigInt(node.file ? node.file.lastModified : Date.now()) * 1000000n;
    v.setBigUint64(ptr + 40, t, true);
    v.setBigUint64(ptr + 48, t, true);
    v.setBigUint64(ptr + 56, t, true);
  }

  const wasi = {
    args_sizes_get(argc, size) {
      dv().setUint32(argc, args.length, true);
      dv().setUint32(size, args.reduce((n, a) => n + enc.encode(a).length + 1, 0), true);
      return E.SUCCESS;
    },
    args_get(argv, buf) {
      for (let i = 0; i < args.length; i++) {
        const b = enc.encode(args[i] + '\0');
        dv().setUint32(argv + 4 * i, buf, true);
        u8().set(b, buf);
        buf += b.length;
      }
      return E.SUCCESS;
    },
    environ_sizes_get(n, size) {
      dv().setUint32(n, 0, true);
      dv().setUint32(size, 0, true);
      return E.SUCCESS;
    },
    environ_get() { return E.SUCCESS; },
    clock_res_get(id, out) { dv().setBigUint64(out, 1000n, true); return E.SUCCESS; },
    clock_time_get(id, prec, out) {
      const ns = id === 0 ? BigInt(Date.now()) * 1000000n
        : BigInt(Math.round(performance.now() * 1000)) * 1000n;
      dv().setBigUint64(out, ns, true);
      return E.SUCCESS;
    },
    random_get(p, n) {
      for (let i = 0; i < n; i += 65536) crypto.getRandomValues(u8().subarray(p + i, p + Math.min(n, i + 65536)));
      return E.SUCCESS;
    },
    proc_exit(code) { throw new Exit(code); },
    sched_yield() { return E.SUCCESS; },
    fd_prestat_get(fd, out) {
      const f = fds.get(fd);
      if (!f || !f.preopen) return E.BADF;
      dv().setUint8(out, 0);
      dv().setUint32(out + 4, enc.encode(f.preopen).length, true);
      return E.SUCCESS;
    },
    fd_prestat_dir_name(fd, p, n) {
      const f = fds.get(fd);
      if (!f || !f.preopen) return E.BADF;
      u8().set(enc.encode(f.preopen).subarray(0, n), p);
      return E.SUCCESS;
    },
    fd_fdstat_get(fd, out) {
      const v = dv();
      let type;
      if (fd <= 2) type = FT.CHAR;
      else {
        const f = fds.get(fd);
        if (!f) return E.BADF;
        type = f.node.dir ? FT.DIR : FT.REG;
      }
      v.setUint8(out, type);
      v.setUint16(out + 2, 0, true);
      v.setBigUint64(out + 8, ALL_RIGHTS, true);
      v.setBigUint64(out + 16, ALL_RIGHTS, true);
      return E.SUCCESS;
    },
    fd_fdstat_set_flags() { return E.SUCCESS; },
    fd_filestat_get(fd, out) {
      if (fd <= 2) {
        filestat(out, { dir: false, size: 0, ino: 0 });
        dv().setUint8(out + 16, FT.CHAR);
        return E.SUCCESS;
      }
      const f = fds.get(fd);
      if (!f) return E.BADF;
      filestat(out, f.node);
      return E.SUCCESS;
    },
    fd_filestat_set_size(fd, size) {
      const f = fds.get(fd);
      if (!f || f.node.dir || f.node.file) return E.BADF;
      resize(f.node, Number(size));
      return E.SUCCESS;
    },
    fd_filestat_set_times() { return E.SUCCESS; },
    path_filestat_set_times() { return E.SUCCESS; },
    fd_advise() { return E.SUCCESS; },
    fd_sync() { return E.SUCCESS; },
    fd_datasync() { return E.SUCCESS; },
    fd_close(fd) {
      if (!fds.delete(fd) && fd > 2) return E.BADF;
      return E.SUCCESS;
    },
    fd_read(fd, iov, n, nread) {
      const f = fds.get(fd);
      if (!f || f.node.dir) return E.BADF;
      let total = 0;
      for (const [p, len] of iovs(iov, n)) {
        const b = read(f.node, f.pos, len);
        u8().set(b, p);
        f.pos += b.length;
        total += b.length;
        if (b.length < len) break;
      }
      dv().setUint32(nread, total, true);
      return E.SUCCESS;
    },
    fd_pread(fd, iov, n, off, nread) {
      const f = fds.get(fd);
      if (!f || f.node.dir) return E.BADF;
      let pos = Number(off), total = 0;
      for (const [p, len] of iovs(iov, n)) {
        const b = read(f.node, pos, len);
        u8().set(b, p);
        pos += b.length;
        total += b.length;
        if (b.length < len) break;
      }
      dv().setUint32(nread, total, true);
      return E.SUCCESS;
    },
    fd_write(fd, iov, n, nwritten) {
      let total = 0;
      const f = fds.get(fd);
      if (fd > 2 && (!f || f.node.dir)) return E.BADF;
      for (const [p, len] of iovs(iov, n)) {
        const b = u8().subarray(p, p + len);
        if (fd <= 2) stdout(fd, b);
        else {
          if (f.append) f.pos = f.node.size;
          const rc = write(f.node, f.pos, b);
          if (rc) return rc;
          f.pos += len;
        }
        total += len;
      }
      dv().setUint32(nwritten, total, true);
      return E.SUCCESS;
    },
    fd_pwrite(fd, iov, n, off, nwritten) {
      const f = fds.get(fd);
      if (!f || f.node.dir) return E.BADF;
      let pos = Number(off), total = 0;
      for (const [p, len] of iovs(iov, n)) {
        const rc = write(f.node, pos, u8().subarray(p, p + len));
        if (rc) return rc;
        pos += len;
        total += len;
      }
      dv().setUint32(nwritten, total, true);
      return E.SUCCESS;
    },
    fd_seek(fd, off, whence, out) {
      const f = fds.get(fd);
      if (!f) return fd <= 2 ? E.SPIPE : E.BADF;
      const base = whence === 0 ? 0 : whence === 1 ? f.pos : f.node.size || 0;
      const pos = base + Number(off);
      if (pos < 0) return E.INVAL;
      f.pos = pos;
      dv().setBigUint64(out, BigInt(pos), true);
      return E.SUCCESS;
    },
    fd_tell(fd, out) {
      const f = fds.get(fd);
      if (!f) return E.BADF;
      dv().setBigUint64(out, BigInt(f.pos), true);
      return E.SUCCESS;
    },
    fd_readdir(fd, buf, len, cookie, used) {
      const f = fds.get(fd);
      if (!f || !f.node.dir) return E.NOTDIR;
      const names = ['.', '..', ...f.node.entries.keys()];
      let at = 0;
      for (let i = Number(cookie); i < names.length && at < len; i++) {
        const nb = enc.encode(names[i]);
        const node = i < 2 ? f.node : f.node.entries.get(names[i]);
        const ent = new Uint8Array(24 + nb.length);
        const v = new DataView(ent.buffer);
        v.setBigUint64(0, BigInt(i + 1), true);
        v.setBigUint64(8, BigInt(node.ino), true);
        v.setUint32(16, nb.length, true);
        v.setUint8(20, node.dir ? FT.DIR : FT.REG);
        ent.set(nb, 24);
        const take = Math.min(ent.length, len - at);
        u8().set(ent.subarray(0, take), buf + at);
        at += take;
      }
      dv().setUint32(used, at, true);
      return E.SUCCESS;
    },
    path_open(dirfd, dirflags, p, n, oflags, rights, inh, fdflags, out) {
      const l = lookup(dirfd, str(p, n));
      if (l.err) return l.err;
      let node = l.node;
      if (node && (oflags & 1) && (oflags & 4)) return E.EXIST;
      if (!node) {
        if (!(oflags & 1) || l.name === null) return E.NOENT;
        if (!l.parent.dir) return E.NOTDIR;
        node = fileNode();
        l.parent.entries.set(l.name, node);
      }
      if ((oflags & 2) && !node.dir) return E.NOTDIR;
      const writing = (rights & 0x40n) !== 0n; // fd_write
      if (node.dir && (writing || (oflags & 4))) return E.ISDIR;
      if ((oflags & 8) && !node.dir) {
        if (node.file) return E.INVAL;
        resize(node, 0);
      }
      const fd = nextFd++;
      fds.set(fd, { node, pos: 0, append: (fdflags & 1) !== 0 });
      dv().setUint32(out, fd, true);
      return E.SUCCESS;
    },
    path_filestat_get(dirfd, flags, p, n, out) {
      const l = lookup(dirfd, str(p, n));
      if (l.err) return l.err;
      if (!l.node) return E.NOENT;
      filestat(out, l.node);
      return E.SUCCESS;
    },
    path_create_directory(dirfd, p, n) {
      const l = lookup(dirfd, str(p, n));
      if (l.err) return l.err;
      if (l.node) return E.EXIST;
      l.parent.entries.set(l.name, dirNode());
      return E.SUCCESS;
    },
    path_remove_directory(dirfd, p, n) {
      const l = lookup(dirfd, str(p, n));
      if (l.err) return l.err;
      if (!l.node) return E.NOENT;
      if (!l.node.dir) return E.NOTDIR;
      if (l.node.entries.size) return E.NOTEMPTY;
      l.parent.entries.delete(l.name);
      return E.SUCCESS;
    },
    path_unlink_file(dirfd, p, n) {
      const l = lookup(dirfd, str(p, n));
      if (l.err) return l.err;
      if (!l.node) return E.NOENT;
      if (l.node.dir) return E.ISDIR;
      l.parent.entries.delete(l.name); // open descriptors keep the node
      return E.SUCCESS;
    },
    path_rename(fd1, p1, n1, fd2, p2, n2) {
      const a = lookup(fd1, str(p1, n1)), b = lookup(fd2, str(p2, n2));
      if (a.err) return a.err;
      if (b.err) return b.err;
      if (!a.node) return E.NOENT;
      if (b.node && b.node.dir !== a.node.dir) return b.node.dir ? E.ISDIR : E.NOTDIR;
      a.parent.entries.delete(a.name);
      b.parent.entries.set(b.name, a.node);
      return E.SUCCESS;
    },
  };

  const tlweb = {
    progress(done, total) { postMessage({ type: 'progress', done, total }); },
    dup(fd) {
      const f = fds.get(fd);
      if (!f) return -E.BADF;
      const nfd = nextFd++;
      fds.set(nfd, f); // one open file, its offset shared (as dup's)
      return nfd;
    },
  };

  const imports = { wasi_snapshot_preview1: {}, tlweb };
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.module !== 'wasi_snapshot_preview1') continue;
    imports.wasi_snapshot_preview1[imp.name] = wasi[imp.name] || (() => E.NOSYS);
  }
  const inst = new WebAssembly.Instance(module, imports);
  mem = inst.exports.memory;
  let code = 0;
  try {
    inst.exports._start();
  } catch (e) {
    if (!(e instanceof Exit)) throw e;
    code = e.code;
  }
  if (errText[0]) postMessage({ type: 'message', line: errText[0] });
  const out = outDir.entries.get('report.html');
  let bundle = null;
  if (out) {
    flush(out);
    bundle = new Blob(out.parts, { type: 'text/html' });
  }
  return { code, bundle, memory: { wasm: mem.buffer.byteLength, pending: memory.peakPending } };
}

onmessage = (ev) => {
  const t0 = performance.now();
  try {
    const { code, bundle, memory } = run(ev.data.module, ev.data.files, ev.data.args);
    postMessage({ type: 'done', code, bundle, memory, ms: performance.now() - t0 });
  } catch (e) {
    postMessage({ type: 'error', text: String(e && e.stack || e) });
  }
};
