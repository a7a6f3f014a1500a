// The single-file bundle's loader (src/report/bundle_html.c writes the page around it). Every
// file of the report is in a <script type="application/x-tlparse-file" data-path="P"> (then
// more "application/x-tlparse-more" ones for each further 64 KiB) holding its bytes gzip'd and
// base64'd. This shows one file at a time, decoding only that one:
//  - the URL's hash names it: bundle.html#/-_0_0_0/x.html?q#anchor (default index.html), so
//    back/forward (with the scroll position), reloads and shared links work;
//  - an .html page is written into a fresh iframe with document.write: the frame is then
//    same-origin with us (we see its clicks) and its document URL is ours, given the page's
//    ?query with history.replaceState, so the report's own scripts read location.search as in
//    the folder (textlog.js's ?cid=, query.js); #anchors are real fragment navigations in the
//    frame (:target styles apply);
//  - other files are shown from a blob: URL of their MIME type (text as text, in a frame of
//    another origin: nothing in it can run here);
//  - a click on a link in the frame is resolved against the page's path (and its <base>), in
//    a virtual URL space, so "../index.html#[0/1]" or "log.html?cid=[0/1]" open the right
//    embedded file; ctrl/middle click open bundle.html#/PATH in a new tab, and the context
//    menu offers that URL; absolute http(s) links leave the bundle as usual; a file that is
//    not in the bundle gets a message, not an error.
// Runs in <head> while the rest of the page is still being parsed: index.html is shown as soon
// as its element is complete, not after the whole (maybe 100 MB) page. No network: nothing
// is fetched, ever (the page's CSP forbids it anyway). Our own code; no dependency.
(function () {
  'use strict';
  var TYPE = 'application/x-tlparse-file';
  var MORE = 'application/x-tlparse-more';
  // Links are resolved in this made-up URL space (".invalid" never resolves, and nothing here
  // is fetched); a path that climbs above /r/ leaves the report.
  var ROOT = 'http://tlparse.invalid/r/';
  var ORIGIN = 'http://tlparse.invalid';
  var CACHE_BYTES = 32 << 20; // recently opened files kept decoded, for back and forward
  var FIRST_SLICE = 32768; // characters of a page written before its first paint

  var scripts = document.getElementsByTagName('script'); // live, in document order
  var files = Object.create(null); // path -> its data element
  var paths = [];
  var seen = 0; // scripts[0 .. seen) looked at
  var lastFile = null; // the last file element seen: its pieces may still be arriving
  var parsed = false; // the parser is done: every element is complete
  var waiting = []; // lookups that cannot be answered yet: {keys, resolve}
  var cache = []; // [{el, data}] decoded, most recent last
  var decoding = new Map(); // el -> promise of its data, while it is decoded
  var view = null, pathBox = null, saveLink = null;
  var current = null; // what is shown: {key, search, kind, win, doc, urls}
  var generation = 0; // of render(): a decode that ends after a newer click is dropped
  var idle = Promise.resolve();
  var bundleTitle = document.title;
  // Times in ms since the navigation started: the loader runs, the first file (index.html) is
  // painted in part and whole, the page is parsed to its end.
  var stats = { files: 0, start: null, firstPaint: null, firstDone: null, parsed: null,
                shown: 0, route: null };

  // ---- the data elements, found while the parser adds them ------------------------------

  // A file is complete once another file follows it or the parser is done.
  function complete(el) {
    return parsed || lastFile !== el;
  }

  // The element of the first of `keys` in the bundle; undefined: cannot tell yet.
  function lookup(keys) {
    for (var i = 0; i < keys.length; i++) {
      var el = files[keys[i]];
      if (el) return complete(el) ? el : undefined;
    }
    return parsed ? null : undefined;
  }

  function find(keys) {
    return new Promise(function (resolve) {
      var el = lookup(keys);
      if (el !== undefined) resolve(el);
      else waiting.push({ keys: keys, resolve: resolve });
    });
  }

  function scan() {
    for (; seen < scripts.length; seen++) {
      var el = scripts[seen];
      if (el.getAttribute('type') !== TYPE) continue;
      lastFile = el;
      var p = el.getAttribute('data-path');
      // A path given again (two dumps of one name) replaces the earlier file, as the folder
      // keeps the file written last.
      if (p !== null) {
        if (!(p in files)) {
          paths.push(p);
          stats.files++;
        }
        files[p] = el;
      }
    }
    if (!view && document.getElementById('tlb-view')) start();
    if (waiting.length) {
      waiting = waiting.filter(function (w) {
        var el = lookup(w.keys);
        if (el === undefined) return true;
        w.resolve(el);
        return false;
      });
    }
  }

  var observer = new MutationObserver(scan);
  observer.observe(document.documentElement, { childList: true, subtree: true });
  document.addEventListener('DOMContentLoaded', function () {
    parsed = true;
    stats.parsed = performance.now();
    observer.disconnect();
    scan();
  });

  // ---- decoding ---------------------------------------------------------------------------

  function fromBase64(s) {
    if (Uint8Array.fromBase64) return Uint8Array.fromBase64(s);
    var bin = atob(s);
    var a = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) a[i] = bin.charCodeAt(i);
    return a;
  }

  // The file's bytes as {chunks: [Uint8Array], size}: its pieces of base64 decoded one by one
  // into a gzip DecompressionStream, so that a big file never exists three times over. Read
  // straight from the stream (a Blob would be one more round trip to the browser process per
  // file). Rejects on damaged data (gzip's CRC) or a wrong size.
  function decodeNow(el) {
    var ds = new DecompressionStream('gzip');
    var writer = ds.writable.getWriter();
    var feed = (async function () {
      for (var e = el; e; e = e.nextElementSibling) {
        if (e !== el && e.getAttribute('type') !== MORE) break;
        await writer.write(fromBase64(e.textContent));
      }
      await writer.close();
    })();
    var out = (async function () {
      var reader = ds.readable.getReader(), chunks = [], size = 0;
      for (;;) {
        var r = await reader.read();
        if (r.done) break;
        chunks.push(r.value);
        size += r.value.length;
      }
      return { chunks: chunks, size: size };
    })();
    return Promise.all([out, feed]).then(function (r) {
      var want = Number(el.getAttribute('data-size'));
      if (el.hasAttribute('data-size') && r[0].size !== want)
        throw new Error('it holds ' + r[0].size + ' bytes, not ' + want);
      return r[0];
    });
  }

  function remember(el, data) {
    if (data.size > CACHE_BYTES) return;
    cache.push({ el: el, data: data });
    var total = 0;
    for (var j = cache.length - 1; j >= 0; j--) {
      total += cache[j].data.size;
      if (total > CACHE_BYTES) {
        cache.splice(0, j + 1);
        return;
      }
    }
  }

  function decode(el) {
    for (var i = 0; i < cache.length; i++) {
      if (cache[i].el === el) {
        var hit = cache.splice(i, 1)[0];
        cache.push(hit);
        return Promise.resolve(hit.data);
      }
    }
    if (!decoding.has(el)) {
      decoding.set(el, decodeNow(el).then(function (data) {
        decoding.delete(el);
        remember(el, data);
        return data;
      }, function (e) {
        decoding.delete(el);
        throw e;
      }));
    }
    return decoding.get(el);
  }

  function utf8(data) {
    var d = new TextDecoder('utf-8'), parts = [];
    for (var i = 0; i < data.chunks.length; i++)
      parts.push(d.decode(data.chunks[i], { stream: true }));
    parts.push(d.decode());
    return parts.join('');
  }

  // ---- routes: "/path?query#fragment", the part of our URL after '#' -----------------------

  function encodePath(p) {
    return p.split('/').map(encodeURIComponent).join('/');
  }

  function decodePath(p) {
    try {
      return decodeURIComponent(p);
    } catch (e) {
      return p; // not percent-encoded UTF-8: the name as written
    }
  }

  // A URL of the virtual space to {key, search, hash}, or {outside: text}.
  function parse(url) {
    if (url.origin !== ORIGIN || url.pathname.indexOf('/r/') !== 0)
      return { outside: url.pathname.replace(/^\/r\//, '') || '/' };
    return { key: decodePath(url.pathname.slice(3)), search: url.search, hash: url.hash };
  }

  function routeOf(t) {
    if (t.outside !== undefined) return '/../' + t.outside;
    return '/' + encodePath(t.key) + t.search + t.hash;
  }

  function hashRoute() {
    var h = location.hash.slice(1);
    if (!h) return '/index.html';
    if (h.charAt(0) !== '/') return '/index.html#' + h; // an anchor of the index
    return h;
  }

  function parseRoute(route) {
    try {
      return parse(new URL(route.replace(/^\/+/, ''), ROOT));
    } catch (e) {
      return { outside: route };
    }
  }

  // The files a path may mean: itself, or the index.html of a folder.
  function candidates(key) {
    if (key === '' || key.charAt(key.length - 1) === '/') return [key + 'index.html'];
    return [key, key + '/index.html'];
  }

  function mimeOf(key) {
    var m = /\.([A-Za-z0-9]+)$/.exec(key);
    var ext = m ? m[1].toLowerCase() : '';
    if (ext === 'html' || ext === 'htm') return 'text/html';
    if (ext === 'json') return 'application/json';
    var images = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif',
                   webp: 'image/webp' };
    // Everything else as text (.txt, .log, .jsonl, .py, .svg too: shown, never run).
    return images[ext] || 'text/plain;charset=utf-8';
  }

  function ourUrl(route) {
    var u = new URL(location.href);
    u.hash = route;
    return u.href;
  }

  // ---- showing a file ---------------------------------------------------------------------

  function forget() {
    if (current) current.urls.forEach(function (u) { URL.revokeObjectURL(u); });
    current = null;
  }

  // The bar: the path shown, and a link that saves the file (its blob: URL made on demand).
  var saveData = null, saveType = '';
  function bar(key, data, type) {
    pathBox.textContent = key;
    saveData = data;
    saveType = type;
    saveLink.hidden = !data;
    saveLink.removeAttribute('href');
    if (data) saveLink.download = key.split('/').pop();
  }

  function blobUrl(data, type) {
    var u = URL.createObjectURL(new Blob(data.chunks, { type: type }));
    if (current) current.urls.push(u);
    return u;
  }

  function message(key, parts) {
    forget();
    bar(key, null);
    var box = document.createElement('div');
    box.className = 'tlb-msg';
    var p = document.createElement('p');
    parts.forEach(function (x) {
      if (typeof x === 'string') p.append(x);
      else {
        var c = document.createElement('code');
        c.textContent = x.code;
        p.append(c);
      }
    });
    var back = document.createElement('p');
    var a = document.createElement('a');
    a.href = '#/index.html';
    a.textContent = "Back to the report's index";
    back.append(a);
    box.append(p, back);
    view.replaceChildren(box);
    current = { key: key, search: '', kind: 'message', win: null, doc: null, urls: [] };
    document.title = bundleTitle;
  }

  function newFrame(key) {
    var f = document.createElement('iframe');
    f.title = key;
    f.id = 'tlb-frame';
    return f;
  }

  // Where the page goes once written: the scroll position it had in this history entry (back,
  // forward, reload), else its #fragment, as a real fragment navigation in the frame (it
  // scrolls and sets :target, as in the folder; replace, not assign: our own hash holds the
  // history, the frame adds no entries), else its top. Should the browser refuse the
  // navigation (Chromium ignores a frame's navigations for a while after 200 in 10 s), the
  // element is scrolled to by hand.
  function place(win, hash, scroll) {
    try {
      if (hash && hash !== '#') {
        win.location.replace(hash);
        if (win.location.hash !== hash) {
          var id = decodePath(hash.slice(1)), d = win.document;
          var el = d.getElementById(hash.slice(1)) || d.getElementById(id) ||
            d.getElementsByName(id)[0];
          if (el) el.scrollIntoView();
        }
      } else if (!scroll) {
        win.scrollTo(0, 0);
      }
      if (scroll) win.scrollTo(scroll[0], scroll[1]);
    } catch (e) {
      /* the page is gone */
    }
  }

  // After the browser has painted what is there (a frame, then a task after it). A hidden tab
  // paints nothing (and gets no animation frames): no wait.
  function painted() {
    return new Promise(function (resolve) {
      if (document.hidden) setTimeout(resolve, 0);
      else requestAnimationFrame(function () { setTimeout(resolve, 0); });
    });
  }

  // The scroll position of the shown page, kept in our history entry (when it changed: the
  // browser limits how often history may be written), so that back and forward return to it.
  // Saved a little after scrolling stops, and when a link is followed.
  var scrollTimer = 0;
  function saveScroll() {
    clearTimeout(scrollTimer);
    scrollTimer = 0;
    if (!current || current.kind !== 'html') return;
    try {
      var route = hashRoute(), x = current.win.scrollX, y = current.win.scrollY;
      var old = history.state && history.state.tlbRoute === route ? history.state.tlbScroll : null;
      if (old ? old[0] === x && old[1] === y : x === 0 && y === 0) return;
      history.replaceState({ tlbRoute: route, tlbScroll: [x, y] }, '');
    } catch (e) {
      /* the page is gone, or history refused */
    }
  }

  function savedScroll(route) {
    var st = history.state;
    return st && st.tlbRoute === route && st.tlbScroll ? st.tlbScroll : null;
  }

  // The page is written in growing slices with a paint between them, as a page loads from
  // disk: the top of a big page (the index of a big log: 1.3 MB, a second of layout) shows
  // at once, not after all of it is laid out.
  async function showHtml(t, key, html, data, mine, scroll) {
    forget();
    bar(key, data, 'text/html');
    var f = newFrame(key);
    view.replaceChildren(f);
    var win = f.contentWindow, doc = f.contentDocument;
    doc.open(); // the frame's URL is now ours: give it the page's query, not our hash
    try {
      var u = new URL(location.href);
      u.hash = '';
      u.search = t.search;
      win.history.replaceState(null, '', u.href);
    } catch (e) {
      /* a browser that refuses: the page's scripts see no ?query */
    }
    win.addEventListener('click', onFrameClick);
    win.addEventListener('auxclick', onFrameClick);
    win.addEventListener('contextmenu', onFrameMenu);
    current = { key: key, search: t.search, kind: 'html', win: win, doc: doc, urls: [] };
    var step = FIRST_SLICE;
    for (var pos = 0; pos < html.length;) {
      var end = Math.min(html.length, pos + step);
      var c = html.charCodeAt(end - 1);
      if (end < html.length && c >= 0xd800 && c < 0xdc00) end--; // keep a surrogate pair whole
      doc.write(html.slice(pos, end));
      pos = end;
      if (pos < html.length || stats.firstPaint === null) {
        await painted();
        if (stats.firstPaint === null) stats.firstPaint = performance.now();
        if (mine !== generation) return; // another file was asked for meanwhile
        step *= 4;
      }
    }
    doc.close();
    document.title = doc.title || key;
    place(win, t.hash, scroll);
    win.addEventListener('scroll', function () {
      clearTimeout(scrollTimer);
      scrollTimer = setTimeout(saveScroll, 300);
    });
    try {
      win.focus();
    } catch (e) {
      /* not focusable: nothing lost */
    }
  }

  function showFile(key, data) {
    forget();
    var type = mimeOf(key);
    bar(key, data, type);
    current = { key: key, search: '', kind: 'file', win: null, doc: null, urls: [] };
    var f = newFrame(key);
    f.src = blobUrl(data, type);
    f.addEventListener('load', function () { f.contentWindow.focus(); });
    view.replaceChildren(f);
    document.title = key;
  }

  // Show a route; `scroll`: the position to return to (back, forward, reload), or null.
  function render(route, scroll) {
    var mine = ++generation;
    var t = parseRoute(route);
    if (t.outside !== undefined) {
      message(t.outside, [{ code: t.outside }, ' is outside the report.']);
      return Promise.resolve();
    }
    if (current && current.kind === 'html' && current.key === t.key &&
        current.search === t.search) {
      place(current.win, t.hash, scroll);
      return Promise.resolve();
    }
    pathBox.textContent = t.key + ' \u2026';
    return find(candidates(t.key)).then(function (el) {
      if (mine !== generation) return;
      if (!el) {
        message(t.key, [{ code: t.key }, ' is not in this bundle.']);
        return;
      }
      var key = el.getAttribute('data-path');
      return decode(el).then(function (data) {
        if (mine !== generation) return;
        if (mimeOf(key) !== 'text/html') showFile(key, data);
        else return showHtml(t, key, utf8(data), data, mine, scroll);
      }, function (e) {
        if (mine !== generation) return;
        var why = typeof DecompressionStream === 'undefined'
          ? 'this browser has no DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or later)'
          : (e && e.message) || String(e);
        message(key, ['Cannot open ', { code: key }, ': ' + why + '.']);
      });
    });
  }

  // Renders do not wait for each other: a click while a big file is being decoded shows its
  // target at once, and the late decode is dropped (render checks its generation).
  function go(route, scroll) {
    var p = render(route, scroll || null).then(null, function (e) {
      message('', ['Cannot show this file: ' + ((e && e.message) || e)]);
    }).then(function () {
      if (idle !== p) return;
      stats.shown++;
      stats.route = route;
      if (stats.firstDone === null) {
        painted().then(function () {
          stats.firstDone = performance.now();
          if (stats.firstPaint === null) stats.firstPaint = stats.firstDone;
        });
      }
    });
    idle = p;
    return p;
  }

  // Open a route: through our hash, so that it is a history entry (the scroll position of the
  // page we leave is saved in its entry first); we render it at once and skip the hashchange
  // that follows. The same route again (a second click on an anchor) scrolls again.
  var ownHash = null;
  function open(route) {
    saveScroll();
    var before = location.hash;
    location.hash = route;
    ownHash = location.hash !== before ? location.hash : null;
    return go(hashRoute());
  }

  // ---- links in the shown page ------------------------------------------------------------

  function baseOf(doc, key) {
    var base = new URL(encodePath(key), ROOT);
    var b = doc.querySelector('base[href]');
    if (b) {
      try {
        base = new URL(b.getAttribute('href'), base);
      } catch (e) {
        /* an invalid <base> is ignored, as a browser does */
      }
    }
    return base;
  }

  // The link an event is on, and the URL it names in the virtual space, or null.
  function linkOf(e) {
    if (!current || current.kind !== 'html') return null;
    var el = e.target;
    if (el && el.nodeType !== 1) el = el.parentElement;
    var a = el && el.closest ? el.closest('a[href], area[href]') : null;
    if (!a || a.hasAttribute('download')) return null;
    // data-tlb-href: the link as written, once the context menu has put our URL in its href.
    var raw = a.getAttribute('data-tlb-href');
    if (raw === null) raw = a.getAttribute('href');
    try {
      return { a: a, raw: raw, url: new URL(raw.trim(), baseOf(current.doc, current.key)) };
    } catch (err) {
      return { a: a, raw: raw, url: null };
    }
  }

  function onFrameClick(e) {
    if (e.defaultPrevented) return;
    if (e.type === 'click' ? e.button !== 0 : e.button !== 1) return;
    var l = linkOf(e);
    if (!l) return;
    e.preventDefault();
    if (!l.url) return; // not a URL: a browser would go nowhere either
    var newTab = e.type === 'auxclick' || e.ctrlKey || e.metaKey || e.shiftKey ||
      (l.a.getAttribute('target') || '').toLowerCase() === '_blank';
    if (l.url.origin !== ORIGIN) {
      // Outside the bundle: the web (a new tab as the user asked, else this tab) or, for any
      // other scheme (javascript:, data:, file:), nothing.
      if (!/^(https?|mailto|ftp):$/.test(l.url.protocol)) return;
      if (newTab) window.open(l.url.href, '_blank', 'noopener');
      else location.href = l.url.href;
      return;
    }
    var route = routeOf(parse(l.url));
    if (newTab) window.open(ourUrl(route), '_blank', 'noopener');
    else open(route);
  }

  // Right click on a link of the report: its href becomes bundle.html#/PATH, so that "copy
  // link" and "open in new tab" give a URL that works (the file path it names does not exist).
  function onFrameMenu(e) {
    var l = linkOf(e);
    if (!l || !l.url || l.url.origin !== ORIGIN) return;
    if (!l.a.hasAttribute('data-tlb-href')) l.a.setAttribute('data-tlb-href', l.raw);
    l.a.setAttribute('href', ourUrl(routeOf(parse(l.url))));
  }

  // ---- start --------------------------------------------------------------------------------

  function start() {
    view = document.getElementById('tlb-view');
    pathBox = document.getElementById('tlb-path');
    saveLink = document.getElementById('tlb-save');
    saveLink.addEventListener('click', function () {
      if (saveData && !saveLink.hasAttribute('href')) saveLink.href = blobUrl(saveData, saveType);
    });
    stats.start = performance.now();
    window.addEventListener('hashchange', function () {
      var mine = ownHash === location.hash;
      ownHash = null;
      if (!mine) go(hashRoute(), savedScroll(hashRoute()));
    });
    window.addEventListener('pagehide', saveScroll);
    go(hashRoute(), savedScroll(hashRoute()));
  }

  // For tests and the curious: the embedded paths, the shown file, a promise of the end of
  // the current rendering, and opening a route as a click would.
  window.tlbBundle = {
    stats: stats,
    paths: function () { return paths.slice(); },
    parsed: function () { return parsed; },
    current: function () {
      return current && { key: current.key, search: current.search, kind: current.kind };
    },
    idle: function () { return idle; },
    open: open,
  };
  scan();
})();
