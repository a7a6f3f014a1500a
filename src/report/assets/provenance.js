// provenance_tracking_*.html: the rows are in the page already (ids "pre-12", "post-12",
// "py-12", "cpp-12"); this script links them through the tables of #lineMappings. It never
// rebuilds the DOM: hovering or clicking a row toggles classes on the few rows it maps to,
// found by id, and scrolls each other column to the middle one of them.
(function () {
  'use strict';
  var maps = {};
  try {
    maps = JSON.parse(document.getElementById('lineMappings').textContent);
  } catch (e) {
    maps = {};
  }
  if (!maps || typeof maps !== 'object') maps = {};
  var own = Object.prototype.hasOwnProperty;
  function table(name) {
    var t = own.call(maps, name) ? maps[name] : null;
    return t && typeof t === 'object' ? t : {};
  }
  var T = {
    preToPost: table('preToPost'), postToPre: table('postToPre'),
    pyToPost: table('pyCodeToPost'), postToPy: table('postToPyCode'),
    cppToPost: table('cppCodeToPost'), postToCpp: table('postToCppCode')
  };
  // Code columns: the table from a code line to post-grad lines, and back.
  var CODE = {
    py: { toPost: T.pyToPost, fromPost: T.postToPy },
    cpp: { toPost: T.cppToPost, fromPost: T.postToCpp }
  };
  // What a row of a column links from: the tables with its outgoing entries.
  var OUTGOING = {
    pre: [T.preToPost], post: [T.postToPre, T.postToPy, T.postToCpp],
    py: [T.pyToPost], cpp: [T.cppToPost]
  };

  var panes = {};
  var paneList = document.querySelectorAll('.pane[data-kind]');
  for (var i = 0; i < paneList.length; i++) {
    panes[paneList[i].getAttribute('data-kind')] = paneList[i];
  }

  function get(t, line) {
    var v = own.call(t, line) ? t[line] : null;
    return Array.isArray(v) ? v : [];
  }
  // The concatenation of t[x] over the lines xs, in order (duplicates kept).
  function concat(t, xs) {
    var out = [];
    for (var i = 0; i < xs.length; i++) {
      var v = get(t, xs[i]);
      for (var j = 0; j < v.length; j++) out.push(v[j]);
    }
    return out;
  }
  // kind -> target lines, for the row `line` of column `kind` (spec modes.md 3.5).
  function related(kind, line) {
    var r = {};
    if (kind === 'pre') {
      r.post = get(T.preToPost, line);
      r.py = concat(T.postToPy, r.post);
      r.cpp = concat(T.postToCpp, r.post);
    } else if (kind === 'post') {
      r.pre = get(T.postToPre, line);
      r.py = get(T.postToPy, line);
      r.cpp = get(T.postToCpp, line);
    } else if (CODE[kind]) {
      r.post = get(CODE[kind].toPost, line);
      r.pre = concat(T.postToPre, r.post);
      var other = kind === 'py' ? 'cpp' : 'py';
      r[other] = concat(CODE[other].fromPost, r.post);
    }
    return r;
  }

  var reduceMotion = window.matchMedia &&
    window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  // Rows have one height (lines do not wrap), so a row's place follows from its number
  // without laying out the chunks of rows around it: measured once per column, on the first
  // row, which is laid out at load.
  var geometry = {};
  window.addEventListener('resize', function () { geometry = {}; });
  function measure(kind) {
    var pane = panes[kind], g = geometry[kind];
    if (g) return g;
    var first = pane.querySelector('.k > div');
    var r = first.getBoundingClientRect(), p = pane.getBoundingClientRect();
    return (geometry[kind] = {
      top: pane.scrollTop + r.top - p.top - pane.clientTop, // the first row, in the content
      h: r.height || 1,
      first: +(pane.getAttribute('data-first') || 1) // the first row's number
    });
  }
  // Scroll column `kind` so that its row `line` is in the middle.
  function centre(kind, line, smooth) {
    var pane = panes[kind], g = measure(kind);
    var top = g.top + (line - g.first) * g.h - (pane.clientHeight - g.h) / 2;
    pane.scrollTo({ top: Math.max(0, top), behavior: smooth && !reduceMotion ? 'smooth' : 'auto' });
  }

  var lit = [];    // rows that carry a highlight class
  var pinned = null; // {kind, line} kept by a click, or null
  function clear() {
    for (var i = 0; i < lit.length; i++) lit[i].classList.remove('hl', 'src');
    lit = [];
  }
  function rowOf(kind, line) {
    return document.getElementById(kind + '-' + line);
  }
  // Highlight the row and what it maps to; scroll the other columns (and, if asked, its own).
  function show(kind, line, scrollOwn) {
    clear();
    var self = rowOf(kind, line);
    if (self) {
      self.classList.add('hl', 'src');
      lit.push(self);
    }
    var r = related(kind, line);
    for (var k in r) {
      if (!panes[k] || k === kind) continue;
      var lines = r[k];
      for (var i = 0; i < lines.length; i++) {
        var el = rowOf(k, lines[i]);
        if (el && !el.classList.contains('hl')) {
          el.classList.add('hl');
          lit.push(el);
        }
      }
      var mid = lines.length ? lines[Math.floor(lines.length / 2)] : null;
      if (mid !== null && rowOf(k, mid)) centre(k, +mid, true);
    }
    if (scrollOwn && self) centre(kind, +line, true);
  }

  // The row element an event happened in, and its column and line (null when not a row).
  function target(node) {
    var row = node && node.closest ? node.closest('.pane .k > div') : null;
    if (!row || !row.id) return row ? { row: row } : null;
    var dash = row.id.indexOf('-');
    return { row: row, kind: row.id.slice(0, dash), line: row.id.slice(dash + 1) };
  }

  function over(e) {
    if (pinned) return;
    var t = target(e.target);
    if (t && t.kind) show(t.kind, t.line, false);
    else clear();
  }
  function out(e) {
    if (pinned) return;
    var from = target(e.target), to = target(e.relatedTarget);
    if (from && (!to || to.row !== from.row)) clear();
  }
  function pin(kind, line, scrollOwn) {
    pinned = { kind: kind, line: line };
    show(kind, line, scrollOwn);
  }
  function unpin() {
    pinned = null;
    clear();
  }
  function click(e) {
    var sel = window.getSelection && window.getSelection();
    if (sel && !sel.isCollapsed && String(sel).length) return; // selecting text, not a click
    var t = target(e.target);
    if (t && t.kind) pin(t.kind, t.line, true);
    else unpin();
  }
  for (var kind in panes) {
    panes[kind].addEventListener('mouseover', over);
    panes[kind].addEventListener('mouseout', out);
  }
  document.addEventListener('click', function (e) {
    if (e.button !== 0 || (e.target.closest && e.target.closest('a, .divider'))) return;
    click(e);
  });

  // Keyboard: Esc clears; in a focused column, n / p (or j / k) pin the next / previous
  // linked row.
  var linkedCache = {};
  function linkedLines(kind) {
    if (linkedCache[kind]) return linkedCache[kind];
    var seen = Object.create(null), lines = [];
    var ts = OUTGOING[kind] || [];
    for (var i = 0; i < ts.length; i++) {
      for (var key in ts[i]) {
        if (own.call(ts[i], key) && !seen[key] && get(ts[i], key).length && rowOf(kind, key)) {
          seen[key] = true;
          lines.push(+key);
        }
      }
    }
    lines.sort(function (a, b) { return a - b; });
    return (linkedCache[kind] = lines);
  }
  function topLine(kind) {
    var g = measure(kind);
    return g.first + Math.floor((panes[kind].scrollTop - g.top) / g.h);
  }
  function step(kind, dir) {
    var lines = linkedLines(kind);
    if (!lines.length) return;
    // From the kept row, else from the row at the top of the view (included).
    var cur = pinned && pinned.kind === kind ? +pinned.line
      : topLine(kind) - (dir > 0 ? 1 : -1);
    // Binary search: the first linked line > cur (dir > 0), or the last < cur.
    var lo = 0, hi = lines.length;
    while (lo < hi) {
      var m = (lo + hi) >> 1;
      if (dir > 0 ? lines[m] <= cur : lines[m] < cur) lo = m + 1;
      else hi = m;
    }
    var idx = dir > 0 ? lo : lo - 1;
    if (idx < 0 || idx >= lines.length) return;
    pin(kind, String(lines[idx]), true);
  }
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Escape') {
      unpin();
      return;
    }
    var pane = document.activeElement && document.activeElement.closest &&
      document.activeElement.closest('.pane[data-kind]');
    if (!pane) return;
    var dir = e.key === 'n' || e.key === 'j' ? 1 : e.key === 'p' || e.key === 'k' ? -1 : 0;
    if (dir) {
      e.preventDefault();
      step(pane.getAttribute('data-kind'), dir);
    }
  });

  // Dividers: drag (or arrow keys) to move the border between the two columns beside it.
  function resize(divider, dx) {
    var left = divider.previousElementSibling, right = divider.nextElementSibling;
    if (!left || !right) return;
    var cols = divider.parentNode.querySelectorAll('.col');
    for (var i = 0; i < cols.length; i++) {
      // Freeze every column at its width first, so that only these two change.
      cols[i].style.flex = '0 0 ' + cols[i].getBoundingClientRect().width + 'px';
    }
    var lw = left.getBoundingClientRect().width, rw = right.getBoundingClientRect().width;
    var min = 80;
    dx = Math.max(min - lw, Math.min(rw - min, dx));
    left.style.flex = '0 0 ' + (lw + dx) + 'px';
    right.style.flex = '0 0 ' + (rw - dx) + 'px';
  }
  var dividers = document.querySelectorAll('.divider');
  for (var d = 0; d < dividers.length; d++) {
    (function (divider) {
      var lastX = null;
      divider.addEventListener('pointerdown', function (e) {
        if (e.button !== 0) return;
        e.preventDefault();
        lastX = e.clientX;
        divider.setPointerCapture(e.pointerId);
        divider.classList.add('drag');
        document.body.classList.add('resizing');
      });
      divider.addEventListener('pointermove', function (e) {
        if (lastX === null) return;
        resize(divider, e.clientX - lastX);
        lastX = e.clientX;
      });
      function end() {
        lastX = null;
        divider.classList.remove('drag');
        document.body.classList.remove('resizing');
      }
      divider.addEventListener('pointerup', end);
      divider.addEventListener('pointercancel', end);
      divider.addEventListener('keydown', function (e) {
        if (e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
          e.preventDefault();
          resize(divider, (e.key === 'ArrowLeft' ? -1 : 1) * (e.shiftKey ? 100 : 20));
        }
      });
    })(dividers[d]);
  }

  // C++ wrapper code opens at its entry point, AOTInductorModel::run_impl.
  for (var k in panes) {
    var start = panes[k].getAttribute('data-start');
    if (start && rowOf(k, start)) centre(k, +start, false);
  }
})();
