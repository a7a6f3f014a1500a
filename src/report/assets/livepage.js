// The live page of `tlparse --watch` (live.html; src/report/live.c writes the page around it).
// The watcher rebuilds the report folder every few seconds and swaps the whole folder into
// place, and rewrites live.js every second or two: one call tlLive({generation, updated,
// heartbeat, last_input, state, final, compile_ids, graph_breaks, recompiles, failures, ranks,
// input, message}) (src/report/live.c, tl_live_status). The final report of a watch keeps
// live.html and a last live.js whose `final` is true: the job finished, or the watch was
// stopped; nothing more will come. This page:
//  - loads live.js again every second with a new script element (src live.js?n=N: fetch and
//    XHR do not work over file://, a script does); two failed loads in a row mean it is missing:
//    the watcher is gone, and the folder holds whatever report it left (the final one);
//  - shows the report (index.html) in one of two iframes stacked in the same place. A new
//    report is loaded into the hidden one, which is shown only once its load event has fired,
//    so the report never goes blank or half drawn; the old one stays loaded behind it;
//  - keeps the reader's place. When the frames are same-origin with this page (served over
//    http) the hidden frame loads the page the reader is on and takes its scroll position
//    before it is shown. Over file:// every file is an origin of its own and nothing in the
//    frame can be read: the index is swapped while the reader stays on it without clicking
//    into it; once they follow a link or click in the report, a button in the bar offers the
//    new report instead of taking them away from their page;
//  - says in the bar, every second from its own clock, how old the report is, what the job and
//    the watcher are doing, and the headline counts (per rank when there are several). The
//    watcher's clock may differ from ours: the difference is learnt from the moments its
//    heartbeat is first seen to advance.
// Everything from live.js is shown with textContent; nothing from it is parsed as HTML.
(function () {
  'use strict';
  var POLL_MS = 1000; // live.js is loaded again this often
  var POLL_GONE_MS = 5000; // ... and this often once it is missing
  var STALE_MS = 5000; // a heartbeat older than this: the watcher has stopped
  var MISSES = 2; // failed loads in a row before live.js counts as missing
  var SCRIPT_TIMEOUT_MS = 10000; // a load of live.js that takes longer has failed
  var LOAD_TIMEOUT_MS = 60000; // a report that has not loaded by then is tried again
  var SKEW_SAMPLES = 30; // heartbeats the difference of the clocks is learnt from
  var DOT = ' \u00b7 '; // a middle dot between spaces (the assets are ASCII)
  var ELLIPSIS = '\u2026';

  function $(id) { return document.getElementById(id); }
  var bar = $('tl-live-bar');
  var frames = [$('tl-live-a'), $('tl-live-b')];
  var front = -1; // the frame shown (-1: none yet)
  var shownKey = null; // what it shows: generation:updated, 'gone', or 'other' (unknown)
  var wantKey = null; // what it should show (null: nothing known yet)
  var loading = null; // {frame, key, timer} while the hidden frame loads a report
  var navigated = false; // the reader left, in the shown frame, the page loaded into it
  var st = null; // the last status from live.js
  var calls = 0; // tlLive calls so far
  var misses = 0; // failed loads of live.js in a row
  var gone = false; // live.js is missing
  var skews = []; // (our clock - the watcher's) when its heartbeat was first seen to advance
  var ranksShown = '';

  // ---- live.js -------------------------------------------------------------------------------

  function num(v) { return typeof v === 'number' && isFinite(v) ? v : 0; }

  window.tlLive = function (s) {
    if (!s || typeof s !== 'object') { return; }
    calls++;
    var hb = num(s.heartbeat);
    if (st && hb > num(st.heartbeat)) {
      skews.push(Date.now() - hb);
      if (skews.length > SKEW_SAMPLES) { skews.shift(); }
    }
    st = s;
    misses = 0;
    gone = false;
    wantKey = num(s.generation) + ':' + num(s.updated);
    render();
    update();
  };

  var pollTimer = null; // the wait before the next load of live.js

  function poll() {
    pollTimer = null;
    var el = document.createElement('script');
    var before = calls;
    var done = false;
    var timer = setTimeout(function () { end(false); }, SCRIPT_TIMEOUT_MS);
    function end(ok) {
      if (done) { return; }
      done = true;
      clearTimeout(timer);
      el.remove();
      // Loaded but no call: cut short or not ours; as good as missing this time.
      if (!ok || calls === before) { miss(); }
      // The final report: nothing more will come, but the folder may be made anew by another
      // watch; looked at now and then.
      pollTimer = setTimeout(poll, gone || (st && st.final === true) ? POLL_GONE_MS : POLL_MS);
    }
    el.onload = function () { end(true); };
    el.onerror = function () { end(false); };
    el.src = 'live.js?n=' + Date.now().toString(36) + '.' + calls;
    document.head.appendChild(el);
  }

  function miss() {
    misses++;
    if (!st && wantKey === null) {
      // No watcher heard of yet: show the report at once rather than an empty page.
      wantKey = 'gone';
    }
    if (misses >= MISSES && !gone) {
      gone = true;
      // Whatever is in the folder now (the final report when the watch ended), once.
      wantKey = 'gone';
    }
    render();
    update();
  }

  // ---- the two frames --------------------------------------------------------------------

  // The frame's window when we may look into it (same origin), else null.
  function readable(f) {
    try {
      var w = f.contentWindow;
      return f.contentDocument && w.location.protocol !== 'about:' ? w : null;
    } catch (e) {
      return null;
    }
  }

  // Leave the report as it is: the reader is elsewhere in it and we cannot follow them.
  function held() {
    if (front < 0 || readable(frames[front])) { return false; }
    return navigated || document.activeElement === frames[front];
  }

  function update() {
    if (loading || wantKey === null || wantKey === shownKey || held()) {
      renderFrames();
      return;
    }
    load(wantKey);
  }

  // Over http the browser may take a new generation's page from its cache, or be told "304 Not
  // Modified" by a server whose dates have whole seconds (python -m http.server), when two
  // generations are less than a second apart: every load gets a URL of its own. The report's
  // query.js passes the parameter on to its links, so pages opened from it are fresh too.
  // Over file:// nothing is cached, and the URL stays plain.
  var BUST = location.protocol === 'http:' || location.protocol === 'https:';
  var loads = 0;

  function fresh(url) {
    if (!BUST) { return url; }
    var u = new URL(url, location.href);
    u.searchParams.set('tl_live', Date.now().toString(36) + '.' + (++loads));
    return u.href;
  }

  function load(key) {
    var back = front < 0 ? 0 : 1 - front;
    var w = front < 0 ? null : readable(frames[front]);
    var url = fresh(w ? w.location.href : 'index.html'); // the reader's page, when we know it
    var timer = setTimeout(function () {
      loading = null;
      update();
    }, LOAD_TIMEOUT_MS);
    loading = { frame: back, key: key, timer: timer };
    try {
      // No entry in the session history: Back stays with the reader's own steps.
      frames[back].contentWindow.location.replace(url);
    } catch (e) {
      frames[back].src = url;
    }
    renderFrames();
  }

  // A same-origin document with nothing in it is not shown (we cannot tell for another origin:
  // its load event is all there is).
  function empty(f) {
    var d = null;
    try { d = f.contentDocument; } catch (e) { return false; }
    return !!d && !(d.body && d.body.firstChild);
  }

  function onLoad(i) {
    if (loading && loading.frame === i) {
      var key = loading.key;
      clearTimeout(loading.timer);
      loading = null;
      if (empty(frames[i])) {
        setTimeout(update, POLL_MS);
      } else {
        show(i, key);
      }
    } else if (i === front) {
      navigated = true; // the reader followed a link, or went back, in the report
    } else if (front >= 0) {
      // The hidden frame moved by itself: Back or Forward in the browser stepped through the
      // history it kept from when it was shown. Show what the reader asked for.
      show(i, 'other');
      navigated = true;
    }
    update();
  }

  function show(i, key) {
    var old = front;
    if (old >= 0 && old !== i) {
      var a = readable(frames[old]);
      var b = readable(frames[i]);
      if (a && b && a.location.pathname === b.location.pathname) {
        b.scrollTo(a.scrollX, a.scrollY);
      }
    }
    var focused = old >= 0 && document.activeElement === frames[old];
    frames[i].classList.remove('tl-live-back');
    if (old >= 0 && old !== i) { frames[old].classList.add('tl-live-back'); }
    front = i;
    shownKey = key;
    navigated = false;
    if (focused) { frames[i].focus(); }
    $('tl-live-wait').hidden = true;
    render();
  }

  frames.forEach(function (f, i) {
    f.addEventListener('load', function () { onLoad(i); });
  });

  $('tl-live-show').addEventListener('click', function () {
    if (!loading && wantKey !== null) { load(wantKey); }
  });

  // ---- the bar ---------------------------------------------------------------------------

  function watcherNow() {
    var skew = skews.length ? Math.min.apply(null, skews) : 0;
    return Date.now() - skew;
  }

  function dur(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    if (s < 60) { return s + ' s'; }
    var m = Math.floor(s / 60);
    if (m < 60) { return m + ' min'; }
    var h = Math.floor(m / 60);
    if (h < 48) { return h + ' h' + (m % 60 ? ' ' + (m % 60) + ' min' : ''); }
    return Math.floor(h / 24) + ' days';
  }

  function ago(ms) { return ms < 1000 ? 'just now' : dur(ms) + ' ago'; }

  function plural(n, one, many) { return n + ' ' + (n === 1 ? one : many); }

  function setText(id, text) {
    var el = $(id);
    if (el.textContent !== text) { el.textContent = text; }
  }

  function render() {
    var now = watcherNow();
    var state, badge, age = '', say;
    if (gone) {
      state = 'gone';
      badge = 'Ended';
      say = 'the watcher is gone (no live.js): this is the report as it is in the folder';
      if (st) { say += DOT + 'last heard from ' + ago(now - num(st.heartbeat)); }
    } else if (!st) {
      state = 'connecting';
      badge = 'Live';
      say = 'connecting to the watcher' + ELLIPSIS;
    } else {
      age = 'updated ' + ago(now - num(st.updated)) + DOT;
      var stale = now - num(st.heartbeat) > STALE_MS;
      if (st.final === true && st.state === 'stopped') {
        state = 'stopped';
        badge = 'Final';
        say = 'the watch was stopped: this is the final report of what the job wrote until then';
      } else if (st.state === 'finished') {
        state = 'finished';
        badge = 'Final';
        say = shownKey === wantKey ? 'the job finished: this is the final report'
          : 'the job finished: loading the final report' + ELLIPSIS;
      } else if (st.state === 'stopped' || stale) {
        state = 'stopped';
        badge = 'Stopped';
        say = 'the watcher stopped ' + ago(now - num(st.heartbeat));
      } else if (st.state === 'idle') {
        state = 'idle';
        badge = 'Live';
        say = num(st.last_input) > 0 ? 'no new lines for ' + dur(now - num(st.last_input))
          : 'no new lines for a while';
      } else {
        state = 'writing';
        badge = 'Live';
        say = 'the job is still writing';
      }
      if (typeof st.message === 'string' && st.message) { say += DOT + st.message; }
    }
    bar.setAttribute('data-state', state);
    setText('tl-live-badge', badge);
    setText('tl-live-age', age);
    setText('tl-live-say', say);
    var title = $('tl-live-title');
    var input = st && typeof st.input === 'string' ? 'watching ' + st.input : '';
    if (title.title !== input) { title.title = input; }
    renderCounts();
    renderFrames();
  }

  function renderCounts() {
    var box = $('tl-live-counts');
    if (!st) {
      box.textContent = '';
      return;
    }
    var parts = [
      [plural(num(st.compile_ids), 'compile id', 'compile ids'), false],
      [plural(num(st.graph_breaks), 'graph break', 'graph breaks'), false],
      [plural(num(st.recompiles), 'recompile', 'recompiles'), false],
      [plural(num(st.failures), 'failure', 'failures'), num(st.failures) > 0],
    ];
    var key = JSON.stringify(parts);
    if (box.getAttribute('data-key') !== key) {
      box.setAttribute('data-key', key);
      box.textContent = '';
      parts.forEach(function (p, i) {
        if (i) { box.appendChild(document.createTextNode(DOT)); }
        var span = document.createElement('span');
        span.textContent = p[0];
        if (p[1]) { span.className = 'bad'; }
        box.appendChild(span);
      });
    }
    var ranks = Array.isArray(st.ranks) ? st.ranks : [];
    var rkey = JSON.stringify(ranks);
    if (rkey === ranksShown) { return; }
    ranksShown = rkey;
    var details = $('tl-live-ranks');
    details.hidden = ranks.length < 2;
    var body = details.querySelector('tbody');
    body.textContent = '';
    ranks.forEach(function (r) {
      var tr = document.createElement('tr');
      [r.rank, r.compile_ids, r.graph_breaks, r.recompiles, r.failures].forEach(function (v, i) {
        var td = document.createElement('td');
        td.textContent = String(num(v));
        if (i === 4 && num(v) > 0) { td.className = 'bad'; }
        tr.appendChild(td);
      });
      body.appendChild(tr);
    });
  }

  function renderFrames() {
    var gen = st ? '#' + num(st.generation) : '';
    var ready = !loading && wantKey !== null && wantKey !== shownKey && held();
    var show = $('tl-live-show');
    show.hidden = !ready;
    if (ready) {
      setText('tl-live-show', gone ? 'show the report in the folder now'
        : 'report ' + gen + ' is ready: show it');
    }
    setText('tl-live-gen', loading ? 'loading ' + (gen || 'the report') + ELLIPSIS
      : shownKey === wantKey ? gen : '');
    $('tl-live-index').hidden = !(gone || (st && (st.state === 'finished' || st.final === true)));
  }

  // A tab in the background has its timers slowed down: when it comes back, ask at once
  // rather than say the watcher stopped on the strength of an old heartbeat.
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'visible' && pollTimer !== null) {
      clearTimeout(pollTimer);
      poll();
    }
  });

  render();
  poll();
  setInterval(function () {
    render();
    update();
  }, 1000);
})();
