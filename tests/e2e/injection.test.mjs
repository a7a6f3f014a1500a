// HTML injection, end to end: a hostile log (make_hostile_log.py) is rendered by tlparse,
// then every .html page of the report is scanned as text and opened in headless Chromium.
// A log is untrusted: no string from it may run script, add an element or an event
// handler, or make a javascript: link; yet every field must still be shown, escaped.
// The custom header (--custom-header-html) is the one documented raw field.
//
//   TLPARSE_BIN=build/tlparse node --test tests/e2e/
//
// Env: TLPARSE_BIN (default build/tlparse), CHROMIUM (default /usr/bin/chromium),
// E2E_KEEP=1 keeps the temp folder (its path is printed).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const BIN = path.resolve(process.env.TLPARSE_BIN || path.join(ROOT, 'build', 'tlparse'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const T0 = Date.now();

// ---- set-up (synchronous, so the expectations can become one test each) -------------------
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'tlparse-e2e-'));
const LOG = path.join(TMP, 'hostile.log');
const MANIFEST = path.join(TMP, 'manifest.json');
const OUT = path.join(TMP, 'out');

const gen = spawnSync('python3', [path.join(HERE, 'make_hostile_log.py'), LOG, MANIFEST],
  { encoding: 'utf8' });
if (gen.status !== 0) throw new Error(`make_hostile_log.py failed: ${gen.stderr}`);
const manifest = JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
const MARKER_RE = new RegExp(manifest.marker_regex, 'g'); // for match()
const HAS_MARKER = new RegExp(manifest.marker_regex); // for test()
const HEADER = manifest.custom_header;

const run = spawnSync(BIN, [LOG, '-o', OUT, '--no-browser', '--custom-header-html', HEADER],
  { encoding: 'utf8', timeout: 60000 });

/** Every file under dir, as report-relative paths with '/'. */
function walk(dir, rel = '') {
  let out = [];
  for (const ent of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${ent.name}` : ent.name;
    if (ent.isDirectory()) out = out.concat(walk(dir, r));
    else out.push(r);
  }
  return out;
}
const FILES = fs.existsSync(OUT) ? walk(OUT).sort() : [];
const PAGES = FILES.filter((f) => f.endsWith('.html'));

// ---- helpers -------------------------------------------------------------------------------
const nonul = (s) => s.replace(/[\u0000\uFFFD]/g, '');
const show = (s, n = 160) => JSON.stringify(s.length > n ? s.slice(0, n) + '…' : s);

const describeMarkers = (ms) =>
  ms.map((m) => `${m} (${manifest.fields[m.slice(2, 5)] || '?'})`).join(', ') || 'no marker nearby';

/**
 * The field a piece of HTML came from: the markers inside the tag that holds html[start..],
 * else the closest marker before that tag (a hostile string is written after its marker).
 */
function fieldsNear(html, start) {
  const lt = html.lastIndexOf('<', start);
  const s = lt >= 0 && html.lastIndexOf('>', start - 1) < lt ? lt : start;
  const gt = html.indexOf('>', start);
  const e = gt < 0 ? html.length : gt + 1;
  let markers = [...new Set(html.slice(s, e).match(MARKER_RE) || [])];
  if (!markers.length) {
    const before = html.slice(Math.max(0, s - 600), s).match(MARKER_RE);
    if (before) markers = [before[before.length - 1]];
  }
  return describeMarkers(markers);
}

const DANGEROUS_TAGS = new Set(['img', 'svg', 'iframe', 'frame', 'frameset', 'object', 'embed',
  'math', 'video', 'audio', 'source', 'image', 'form', 'input', 'button', 'textarea', 'select',
  'marquee', 'link', 'applet', 'portal', 'template', 'noscript', 'isindex']);
const BAD_SCHEME = /^(javascript|vbscript|data):/i;
const decodeEntities = (s) => s.replace(/&(#x[0-9a-f]+|#[0-9]+|quot|apos|amp|lt|gt|tab|newline|colon);?/gi,
  (m, e) => {
    const l = e.toLowerCase();
    if (l[0] === '#') return String.fromCodePoint(l[1] === 'x' ? parseInt(l.slice(2), 16) : parseInt(l.slice(1), 10));
    return { quot: '"', apos: "'", amp: '&', lt: '<', gt: '>', tab: '\t', newline: '\n', colon: ':' }[l];
  });
// What a browser strips before reading a URL's scheme.
const urlScheme = (v) => decodeEntities(v).replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, '');

/**
 * Static scan of one page's HTML. Log text is always escaped ('<' never raw), so every raw
 * tag is tlparse's own markup or a leak. Returns findings {page, rule, html, field}.
 */
function scanHtml(rel, html) {
  const found = [];
  const add = (rule, start, end) => found.push({
    page: rel, rule, html: html.slice(start, end), field: fieldsNear(html, start) });
  let m;
  // The literal greps of the issue.
  const literal = [
    [/<script[^>]*>\s*(window|parent)\.__pwned/gi, 'raw <script>…__pwned'],
    [/<iframe/gi, 'raw <iframe'],
    [/<img/gi, 'raw <img'],
    [/<svg/gi, 'raw <svg'],
    [/href\s*=\s*["']?[\u0000-\u0020]*j[\t\n\r]*a[\t\n\r]*v[\t\n\r]*a[\t\n\r]*s[\t\n\r]*c[\t\n\r]*r[\t\n\r]*i[\t\n\r]*p[\t\n\r]*t[\t\n\r]*:/gi,
      'href="javascript:'],
  ];
  for (const [re, rule] of literal) while ((m = re.exec(html))) add(rule, m.index, m.index + 120);
  // Every raw start tag, with its attributes.
  const tagRe = /<([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
  while ((m = tagRe.exec(html))) {
    const name = m[1].toLowerCase();
    const attrs = m[2];
    const s = m.index, e = m.index + m[0].length;
    if (DANGEROUS_TAGS.has(name)) add(`raw <${name}> element`, s, e);
    if (name === 'script') {
      const close = html.toLowerCase().indexOf('</script', e);
      const body = html.slice(e, close < 0 ? html.length : close);
      if (HAS_MARKER.test(body) || /__pwned/.test(body)) add('log text inside a <script>', s, close < 0 ? e + 200 : close);
    }
    const attrRe = /([^\s"'>\/=]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'=<>`]+))?/g;
    let a;
    while ((a = attrRe.exec(attrs))) {
      const an = a[1].toLowerCase();
      const av = a[2] ? a[2].replace(/^["']|["']$/g, '') : '';
      if (an.startsWith('on')) {
        // tlparse's own handler is onclick='toggleList(this)'; anything else is injected.
        if (!(an === 'onclick' && av === 'toggleList(this)')) add(`event-handler attribute ${an}=`, s, e);
      } else if (['autofocus', 'srcdoc', 'formaction', 'x', 'src', 'xlink:href', 'action'].includes(an)) {
        add(`injected attribute ${an}`, s, e);
      } else if (an === 'href' && BAD_SCHEME.test(urlScheme(av))) {
        add(`href with a ${urlScheme(av).split(':')[0]}: URL`, s, e);
      }
    }
  }
  return found;
}

// ---- the browser part (filled in by before()) ---------------------------------------------------
const results = new Map(); // rel -> {text, findings[], clicks, opened}
let browserError = null;
let pagesOpened = 0;
let markerClicks = 0;
let jsLinkClicks = 0;

const INIT_SCRIPT = `(() => {
  const log = [];
  Object.defineProperty(window, '__e2eLog', { value: log });
  let v;
  Object.defineProperty(window, '__pwned', { configurable: true,
    get() { return v; },
    set(x) {
      v = x;
      let where = null;
      try {
        const cs = document.currentScript, ev = window.event;
        const el = cs || (ev && ev.target && ev.target.nodeType === 1 ? ev.target : null);
        if (el) {
          const prev = el.previousSibling ? (el.previousSibling.textContent || '') : '';
          where = { prev: prev.slice(-80), html: el.outerHTML.slice(0, 260) };
        }
      } catch (e) {}
      log.push({ value: String(x), where, frame: window === window.top ? 'top' : 'child' });
    } });
})();`;

/** Runs in the page: everything that shows an injection, plus the page's visible text. */
function auditInPage(markerSrc) {
  const MARK = new RegExp(markerSrc);
  const out = [];
  const ctx = (el) => {
    const prev = el.previousSibling ? (el.previousSibling.textContent || '') : '';
    return { prev: prev.slice(-80), html: el.outerHTML.slice(0, 260) };
  };
  for (const sel of ['img', 'svg', 'iframe', 'frame', 'object', 'embed', 'math', 'video',
    'audio', 'form', 'input', 'textarea', 'button', 'link', 'meta[http-equiv]', '[autofocus]',
    '[srcdoc]', '[x]']) {
    for (const el of document.querySelectorAll(sel)) out.push({ rule: `element ${sel}`, ...ctx(el) });
  }
  for (const s of document.querySelectorAll('script')) {
    if (MARK.test(s.textContent) || /__pwned/.test(s.textContent)) out.push({ rule: 'script with log text', ...ctx(s) });
  }
  for (const el of document.querySelectorAll('*')) {
    for (const at of el.attributes) {
      const n = at.name.toLowerCase();
      if (n.startsWith('on') && (MARK.test(at.value) || /__pwned/.test(at.value) ||
          !(n === 'onclick' && at.value === 'toggleList(this)'))) {
        out.push({ rule: `attribute ${n}`, ...ctx(el) });
      }
    }
  }
  for (const a of document.querySelectorAll('a[href], area[href]')) {
    const p = (a.protocol || '').toLowerCase();
    if (p === 'javascript:' || p === 'vbscript:' || p === 'data:') out.push({ rule: `link with ${p} URL`, ...ctx(a) });
  }
  return out;
}

function expandAll() {
  for (const d of document.querySelectorAll('details')) d.open = true;
  for (const u of document.querySelectorAll('ul')) u.style.display = 'block';
}

before(async () => {
  if (run.status !== 0 || !PAGES.includes('index.html')) {
    browserError = 'tlparse wrote no report to open';
    return;
  }
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch (e) {
    browserError = `cannot load playwright-core (run npm ci --prefix tests/e2e): ${e.message}`;
    return;
  }
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (e) {
    browserError = `cannot launch ${CHROMIUM}: ${e.message}`;
    return;
  }
  try {
    const context = await browser.newContext({ javaScriptEnabled: true });
    await context.addInitScript({ content: INIT_SCRIPT });
    const page = await context.newPage();
    page.setDefaultTimeout(5000);
    let dialogs = [];
    let requests = [];
    let docUrl = '';
    page.on('dialog', (d) => { dialogs.push(`${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}); });
    page.on('request', (r) => {
      if (r.url() === docUrl || (r.isNavigationRequest() && r.frame() === page.mainFrame() && r.url() === page.url())) return;
      requests.push(r.url());
    });
    page.on('popup', (p) => { requests.push(`popup ${p.url()}`); p.close().catch(() => {}); });

    const visit = async (rel, query = '') => {
      const findings = [];
      dialogs = [];
      requests = [];
      docUrl = pathToFileURL(path.join(OUT, rel)).href + query;
      await page.goto(docUrl, { waitUntil: 'load', timeout: 15000 });
      pagesOpened++;
      await page.waitForTimeout(30);
      for (const f of await page.evaluate(auditInPage, manifest.marker_regex)) findings.push(f);
      // Interactions: hover and focus everything (injected handlers would run), expand, then
      // click every trie marker (deepest first, then again to re-open) like a person.
      await page.evaluate(() => {
        for (const el of document.querySelectorAll('body *')) {
          for (const t of ['mouseover', 'mouseenter', 'focus']) el.dispatchEvent(new Event(t));
        }
      });
      await page.evaluate(() => { for (const d of document.querySelectorAll('details')) d.open = true; });
      const markers = page.locator('span.marker');
      const n = await markers.count();
      for (const order of [[...Array(n).keys()].reverse(), [...Array(n).keys()]]) {
        for (const i of order) {
          try {
            await markers.nth(i).click({ timeout: 1000 });
          } catch {
            await markers.nth(i).dispatchEvent('click');
          }
          markerClicks++;
        }
      }
      // javascript-like links: there should be none; click any so an effect shows.
      const jsLinks = await page.evaluate(() => {
        const r = [];
        for (const a of document.querySelectorAll('a[href]')) {
          const p = (a.protocol || '').toLowerCase();
          if (p === 'javascript:' || p === 'vbscript:' || p === 'data:') { r.push(a.outerHTML.slice(0, 200)); a.click(); }
        }
        return r;
      });
      jsLinkClicks += jsLinks.length;
      if (jsLinks.length) await page.waitForTimeout(200);
      else await page.waitForTimeout(20);
      const state = await page.evaluate(() => ({
        log: window.__e2eLog ? [...window.__e2eLog] : [],
        pwned: window.__pwned,
        url: location.href,
      }));
      for (const l of state.log) findings.push({ rule: `script ran: __pwned=${l.value} (${l.frame} frame)`, ...(l.where || { html: '' }) });
      if (state.pwned !== undefined && !state.log.length) findings.push({ rule: `window.__pwned=${state.pwned}`, html: '' });
      for (const d of dialogs) findings.push({ rule: 'dialog fired', html: d });
      for (const r of requests) findings.push({ rule: 'unexpected request', html: r });
      if (state.url !== docUrl) findings.push({ rule: 'page navigated away', html: state.url });
      await page.evaluate(expandAll);
      const text = await page.evaluate(() => (document.body ? document.body.innerText : ''));
      const extra = rel === 'index.html' && !query ? await page.evaluate(() => {
        const h = document.getElementById('custom-hdr');
        return h ? { tag: h.tagName, text: h.textContent } : null;
      }) : undefined;
      return { findings, text, clicks: n, jsLinks, extra };
    };

    for (const rel of PAGES) {
      try {
        results.set(rel, await visit(rel));
      } catch (e) {
        results.set(rel, { findings: [{ rule: 'page failed to load', html: e.message.slice(0, 200) }], text: '' });
      }
    }
    // The query-parameter script copies location.search onto links: a hostile query
    // must not become markup either.
    const q = '?q=%22%3E%3Cimg%20src%3Dx%20onerror%3D%22window.__pwned%3D11%22%3E&r=javascript:window.__pwned=11';
    for (const rel of ['index.html', 'failures_and_restarts.html']) {
      if (!PAGES.includes(rel)) continue;
      try {
        results.set(`${rel}${q}`, await visit(rel, q));
      } catch (e) {
        results.set(`${rel}${q}`, { findings: [{ rule: 'page failed to load', html: e.message }], text: '' });
      }
    }
  } catch (e) {
    browserError = `browser run failed: ${e.stack || e}`;
  } finally {
    await browser.close();
  }
}, { timeout: 300000 });

let markersChecked = 0;
let staticFindings = [];

after(() => {
  const browserFindings = [...results.values()].reduce((n, r) => n + r.findings.length, 0);
  const secs = ((Date.now() - T0) / 1000).toFixed(1);
  console.log(`e2e injection summary: ${FILES.length} files, ${PAGES.length} .html pages, ` +
    `${pagesOpened} page loads in Chromium, ${markerClicks} trie-marker clicks, ` +
    `${jsLinkClicks} javascript-like links, ${markersChecked} markers checked visible, ` +
    `${Object.keys(manifest.fields).length} hostile fields, ` +
    `${staticFindings.length} static findings, ${browserFindings} browser findings, ${secs}s`);
  if (process.env.E2E_KEEP) console.log(`e2e: kept ${TMP}`);
  else fs.rmSync(TMP, { recursive: true, force: true });
});

const fmt = (list) => list.map((f) =>
  `  - ${f.page}: ${f.rule}\n      field: ${f.field || '?'}\n      html: ${show(f.html, 260)}`).join('\n');

// ---- the tests -------------------------------------------------------------------------------------
describe('HTML injection: a hostile log renders inert', () => {
  it('tlparse renders the hostile log (exit 0, index.html written)', () => {
    assert.equal(run.error, undefined, `cannot run ${BIN}: ${run.error}`);
    assert.equal(run.status, 0, `tlparse exited ${run.status}\n${run.stderr}`);
    assert.ok(PAGES.includes('index.html'), 'no index.html');
    assert.ok(PAGES.includes('failures_and_restarts.html'), 'no failures_and_restarts.html');
  });

  it('static scan: no page holds raw injected markup', () => {
    for (const rel of PAGES) {
      const html = fs.readFileSync(path.join(OUT, rel), 'utf8');
      staticFindings = staticFindings.concat(scanHtml(rel, html));
    }
    assert.ok(PAGES.length > 0);
    assert.deepEqual(staticFindings, [], `raw injected markup in ${staticFindings.length} place(s):\n${fmt(staticFindings)}`);
  });

  it('no log-named file is one a browser renders as active content (.svg/.xhtml/.htm/...)', () => {
    const bad = FILES.filter((f) => /\.(svg|svgz|xhtml|xht|htm|xml|xsl|mht|mhtml|shtml)$/i.test(f));
    assert.deepEqual(bad, []);
  });

  it('the custom header is the one raw field: present as markup in index.html', () => {
    const html = fs.readFileSync(path.join(OUT, 'index.html'), 'utf8');
    assert.ok(html.includes(HEADER), `index.html lacks the raw custom header ${HEADER}`);
    if (browserError) return;
    const r = results.get('index.html');
    assert.ok(r, 'index.html was not opened');
    assert.deepEqual(r.extra, { tag: 'B', text: 'ok' }, 'the custom header is not an element in the DOM');
  });

  it('browser: on every page no script ran, no dialog, no injected element or handler, no javascript: link', () => {
    assert.equal(browserError, null, browserError || '');
    assert.equal(results.size, PAGES.length + 2, 'not every page was opened');
    const all = [];
    for (const [rel, r] of results) {
      for (const f of r.findings) {
        // Markers inside the element name the field; else the text just before it does.
        const h = f.html || '';
        let ms = h.slice(0, h.indexOf('>') + 1 || h.length).match(MARKER_RE) || [];
        if (!ms.length) ms = ((f.prev || '').match(MARKER_RE) || []).slice(-1);
        if (!ms.length) ms = h.match(MARKER_RE) || [];
        all.push({ page: rel, rule: f.rule, html: f.html, field: describeMarkers([...new Set(ms)]) });
      }
    }
    assert.deepEqual(all, [], `${all.length} injection(s) seen in the browser:\n${fmt(all)}`);
  });

  it('browser: the stack trie has markers, and clicking them changes nothing', () => {
    assert.equal(browserError, null, browserError || '');
    const r = results.get('index.html');
    assert.ok(r && r.clicks > 0, 'index.html has no trie marker to click (the hostile stacks diverge)');
  });

  for (const e of manifest.expect) {
    it(`shown escaped, not dropped: ${e.what} (${e.page})`, () => {
      assert.equal(browserError, null, browserError || '');
      const re = new RegExp(e.page);
      const pages = [...results.keys()].filter((k) => re.test(k));
      assert.ok(pages.length > 0, `no page matches ${e.page}`);
      const text = pages.map((p) => results.get(p).text).join('\n');
      const missing = e.markers.filter((m) => !text.includes(m));
      markersChecked += e.markers.length;
      // Up to the first NUL (what follows a NUL is checked below).
      const notVerbatim = e.verbatim.filter((v) => !text.includes(v.split('\u0000')[0]));
      assert.deepEqual(missing, [], `markers not visible on ${pages.join(', ')}: ${missing.map((m) => `${m} (${manifest.fields[m.slice(2, 5)]})`).join('; ')}`);
      assert.deepEqual(notVerbatim.map((v) => show(v, 120)), [],
        `text not shown exactly as logged on ${pages.join(', ')}`);
    });
  }

  // Variant j puts a script between NUL bytes. A page should show the NUL as U+FFFD (or
  // the HTML parser drops it) and keep the text after it; some fields are cut at the
  // first NUL instead. Not an injection (nothing after the NUL is shown at all), so this
  // is reported as a TODO rather than a failure.
  it('a NUL in a field is shown as U+FFFD and the text after it is kept', () => {
    assert.equal(browserError, null, browserError || '');
    const cut = [];
    for (const e of manifest.expect) {
      const re = new RegExp(e.page);
      const text = nonul([...results.keys()].filter((k) => re.test(k)).map((p) => results.get(p).text).join('\n'));
      for (const v of e.verbatim) {
        if (!v.includes('\u0000') || text.includes(nonul(v))) continue;
        const m = v.slice(0, v.indexOf('\u0000')).match(MARKER_RE);
        cut.push(`${e.page}: ${describeMarkers(m ? [m[m.length - 1]] : [])}`);
      }
    }
    assert.deepEqual(cut, [], `text after a NUL is missing:\n  ${cut.join('\n  ')}`);
  });
});
