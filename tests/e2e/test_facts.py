#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""One set of facts per page, and the multi-rank landing page's table, in headless Chromium.

1. The demo trace (tests/fixtures/demo.log): the overview, the diagnosis and summary.json say
   the same number of compile ids and the same compile time; the slowest compilations name
   each compile id once; the normal findings come after the problems, folded; the failure's
   advice names the backend its reason names.
2. A multi-rank run of our own (tests/make_rank_logs.py, 4 ranks: rank 1 compiles [0/0] only,
   rank 2 also compiles helper [1/0]): the landing page opens on the verdict and the table,
   above the fold; the table has a row per rank whose status says what sets it apart and whose
   counts are its summary.json's, each linking its report; a click on a heading sorts the rows
   by it (numbers by value, then the other way round); the divergences name the compile ids
   some ranks lack and what the ranks that recompiled did; the footer says what made it.

    python3 tests/e2e/test_facts.py

Env: TLPARSE_BIN (default build/tlparse), CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1
keeps the temp folder. Python 3 standard library only.
"""
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402  (after the path is set)

ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.abspath(os.environ.get("TLPARSE_BIN") or os.path.join(ROOT, "build", "tlparse"))
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
DEMO = os.path.join(ROOT, "tests", "fixtures", "demo.log")
TMP = tempfile.mkdtemp(prefix="tlparse-e2e-facts-")

if not os.environ.get("E2E_KEEP"):
    atexit.register(shutil.rmtree, TMP, True)


class S:
    demo = ranks = None


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def tlparse(*args):
    p = subprocess.run([BIN, *args, "--no-browser"], capture_output=True, timeout=300, cwd=TMP)
    if p.returncode != 0:
        raise AssertionError("tlparse %s: exit %d: %s" % (
            " ".join(args), p.returncode, p.stderr.decode(errors="replace")))
    return p


def setUpModule():
    S.demo = os.path.join(TMP, "demo")
    tlparse(DEMO, "-o", S.demo)
    logs = os.path.join(TMP, "logs")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "make_rank_logs.py"), logs,
                    "--ranks", "4", "--short", "1", "--extra", "2"], check=True, timeout=120)
    S.ranks = os.path.join(TMP, "ranks")
    tlparse(logs, "--all-ranks-html", "-o", S.ranks)


class Facts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.browser = cdp.Browser(CHROMIUM)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()

    def open(self, path):
        page = self.browser.new_page(width=1280, height=900)
        self.addCleanup(page.close)
        page.navigate(cdp.file_url(path))
        return page

    def test_1_demo_agrees(self):
        """demo: overview, diagnosis and summary.json agree on compile ids and time"""
        s = load(os.path.join(S.demo, "summary.json"))
        page = self.open(os.path.join(S.demo, "index.html"))
        counts = page.evaluate("document.querySelector('.overview .counts strong').textContent")
        self.assertEqual(counts, "%d compile ids" % s["compile_ids"])
        total = page.evaluate("document.querySelector('.overview .total strong').textContent")
        diag = page.evaluate("""(() => {
          for (const p of document.querySelectorAll('.diagnosis p'))
            if (p.textContent.startsWith('Compile time:'))
              return p.querySelector('strong').textContent;
          return null; })()""")
        # the same sum, to the precision each shows (1.641 s and 1.64 s)
        self.assertAlmostEqual(float(total.split()[0]), s["compile_time"]["total_s"], places=3)
        self.assertAlmostEqual(float(diag.split()[0]), s["compile_time"]["total_s"], places=2)
        slowest = page.evaluate("""(() => {
          for (const p of document.querySelectorAll('.diagnosis p'))
            if (p.textContent.startsWith('Compile time:'))
              return Array.from(p.querySelectorAll('a.cid')).map(a => a.textContent);
          return []; })()""")
        self.assertEqual(len(slowest), len(set(slowest)), slowest)
        self.assertEqual(slowest, [x["compile_id"] for x in s["compile_time"]["slowest"][:5]])
        # the problems first; what is normal after them, folded
        self.assertEqual(page.evaluate("document.querySelector('details.normal').open"), False)
        normal = [f["normal"] for f in s["findings"]]
        self.assertEqual(normal, sorted(normal), s["findings"])
        shown = page.evaluate("document.querySelectorAll('.diagnosis details.normal li.finding')"
                              ".length")
        self.assertEqual(shown, sum(normal))
        fix = page.evaluate("document.querySelector('.diagnosis .sev-failure .fix').textContent")
        # a max-autotune template (triton_tem_...) out of shared memory: cuBLAS instead
        self.assertIn("max_autotune_gemm_backends", fix)

    def test_2_rank_table(self):
        """landing: a row per rank with its summary's counts and a link to its report"""
        page = self.open(os.path.join(S.ranks, "index.html"))
        rows = page.evaluate("""Array.from(document.querySelectorAll('table.ranks tbody tr'))
            .map(r => Array.from(r.cells).map(c => c.textContent))""")
        self.assertEqual([r[0] for r in rows], ["Rank 0", "Rank 1", "Rank 2", "Rank 3"])
        # rank 1 compiled less and rank 2 more than ranks 0 and 3: their compile ids (and so
        # their collectives, cache results and tensor metadata) set them apart
        apart = "differs: collectives, compile ids, cache, tensor meta"
        self.assertEqual([r[1] for r in rows], ["ok", apart, apart, "ok"])
        for r, row in enumerate(rows):
            s = load(os.path.join(S.ranks, "rank_%d" % r, "summary.json"))
            want = [str(s["compile_ids"]), str(len(s["graph_breaks"]) and sum(
                b["count"] for b in s["graph_breaks"])), str(sum(
                    x["count"] for x in s["recompiles"])), str(len(s["failures"])),
                str(len(s["limits_hit"]))]
            self.assertEqual(row[2:7], want, "rank %d" % r)
            self.assertEqual(row[7], "%.2f" % s["compile_time"]["total_s"])
        links = page.evaluate("Array.from(document.querySelectorAll('table.ranks a'))"
                              ".map(a => a.getAttribute('href'))")
        self.assertEqual(links, ["rank_%d/index.html" % r for r in range(4)])
        for href in links:
            self.assertTrue(os.path.isfile(os.path.join(S.ranks, href)), href)

    def test_2b_ledger(self):
        """landing: where each rank's time went, each rank's own ledger lines, linked"""
        page = self.open(os.path.join(S.ranks, "index.html"))
        rows = page.evaluate("""Array.from(document.querySelectorAll('table.ledger tbody tr'))
            .map(r => [r.cells[0].querySelector('a').getAttribute('href')].concat(
                Array.from(r.cells).slice(1, 5).map(c => Number(c.getAttribute('data-value')))))""")
        want, compiling = [], {}
        for r in range(4):
            led = load(os.path.join(S.ranks, "rank_%d" % r, "summary.json"))
            led = led["compile_time"]["ledger"]
            if led:
                want.append(["rank_%d/compile_time.html" % r] + [
                    led[k] for k in ("span_s", "compiling_s", "runtime_s", "unaccounted_s")])
                compiling[r] = led["compiling_s"]
        self.assertEqual(rows, want)
        for row in rows:
            self.assertTrue(os.path.isfile(os.path.join(S.ranks, row[0])), row[0])
        top = max(compiling, key=compiling.get)
        self.assertGreater(compiling[top], min(compiling.values()))
        self.assertIn("Rank %d compiled longest" % top, page.evaluate("document.body.innerText"))

    def test_3_sort(self):
        """landing: a click on a heading sorts by it, a second click the other way round"""
        page = self.open(os.path.join(S.ranks, "index.html"))
        col = "Array.from(document.querySelectorAll('table.ranks tbody tr')).map(r => r.cells[%d].textContent)"
        compiles = page.evaluate(col % 2)
        page.click("table.ranks thead th:nth-child(3)")
        page.sleep(0.1)
        up = page.evaluate(col % 2)
        self.assertEqual([int(x) for x in up], sorted(int(x) for x in compiles))
        self.assertEqual(page.evaluate(
            "document.querySelector('table.ranks thead th:nth-child(3)').getAttribute('aria-sort')"),
            "ascending")
        page.click("table.ranks thead th:nth-child(3)")
        page.sleep(0.1)
        down = page.evaluate(col % 2)
        self.assertEqual([int(x) for x in down], sorted((int(x) for x in compiles), reverse=True))
        # the rows moved whole: each rank keeps its own counts
        before = {r[0]: r for r in page.evaluate(
            "Array.from(document.querySelectorAll('table.ranks tbody tr'))"
            ".map(r => Array.from(r.cells).map(c => c.textContent))")}
        page.click("table.ranks thead th:nth-child(1)")
        page.sleep(0.1)
        after = page.evaluate("Array.from(document.querySelectorAll('table.ranks tbody tr'))"
                              ".map(r => Array.from(r.cells).map(c => c.textContent))")
        self.assertEqual([r[0] for r in after], ["Rank 0", "Rank 1", "Rank 2", "Rank 3"])
        for r in after:
            self.assertEqual(before[r[0]], r)
        self.assertEqual(page.errors, [])

    def test_4_divergences(self):
        """landing: which compile ids diverge, on which ranks, and what the others did"""
        page = self.open(os.path.join(S.ranks, "index.html"))
        text = page.evaluate("document.body.innerText")
        self.assertIn("[0/1]: not on Rank 1", text)
        self.assertIn("[1/0]: not on Rank 0, Rank 1, Rank 3", text)
        self.assertIn("Rank 0, Rank 2, Rank 3 recompiled; Rank 1 did not.", text)
        self.assertIn("Rank 0, Rank 2, Rank 3: step at ", text)

    def test_5_lead(self):
        """landing: the verdict and the whole table above the fold, then the details; a footer"""
        page = self.open(os.path.join(S.ranks, "index.html"))
        box = page.evaluate("""(() => {
          const r = s => { const e = document.querySelector(s); if (!e) return null;
                           const b = e.getBoundingClientRect(); return [b.top, b.bottom]; };
          return {verdict: r('#summary'), table: r('table.ranks'), details: r('#details'),
                  footer: r('footer.runinfo'), height: window.innerHeight}; })()""")
        self.assertLess(box["verdict"][1], box["table"][0])
        self.assertLessEqual(box["table"][1], box["height"])  # the table is above the fold
        self.assertLess(box["table"][1], box["details"][0])
        self.assertLess(box["details"][1], box["footer"][0])
        verdict = page.evaluate("document.querySelector('#summary').innerText")
        self.assertIn("Rank 1 did not compile [0/1], which Ranks 0, 3 did", verdict)
        self.assertIn("Rank 2 compiled [1/0], which Ranks 0, 3 did not", verdict)
        # red only for what can hang a job: the compile ids; cache and tensor metadata amber
        colors = page.evaluate("""Array.from(document.querySelectorAll('#summary li strong'))
            .map(e => [e.textContent, getComputedStyle(e).color])""")
        red = [t for t, c in colors if c == "rgb(207, 34, 46)"]
        self.assertTrue(red and all(t in ("Compile ids differ:", "Collectives differ:")
                                    for t in red), colors)
        self.assertNotEqual(page.evaluate(
            "getComputedStyle(document.querySelector('.warning-box')).backgroundColor"),
            "rgb(253, 236, 236)")  # no red wall
        footer = page.evaluate("document.querySelector('footer.runinfo').innerText")
        self.assertIn("--all-ranks-html", footer)
        self.assertEqual(page.errors, [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
