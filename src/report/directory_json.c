/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compile_directory.json (spec core.md §5.4): every compile-directory key, sorted by name,
 * with its artifacts, as the reference's serde_json writes it (pretty, fields in order, strings
 * escaped as serde's).
 * Streamed through a page sink: with tens of thousands of compile ids it runs to megabytes.
 */
#include "base/config.h"
#include "report/pages.h"
#include "base/json_write.h"
#include "base/xalloc.h"
#include "base/sort.h"

#include <stdlib.h>
#include <string.h>

struct sorted {
    const char *name; /* display, or "unknown" */
    const struct tl_dirkey *key;
};

static int cmp_sorted(const void *a, const void *b)
{
    return strcmp(((const struct sorted *)a)->name, ((const struct sorted *)b)->name);
}

int tl_page_directory_json(const struct tl_page_sink *sink, const struct tl_directory *d)
{
    struct tl_buf *out = sink->buf;
    size_t n = tl_map_len(&d->keys);
    if (!n) {
        tl_buf_adds(out, "{}");
        return 0;
    }
    struct sorted *v = tl_xcalloc(n, sizeof(*v));
    for (size_t i = 0; i < n; i++) {
        const struct tl_dirkey *k = tl_map_at(&d->keys, i)->value;
        v[i].key = k;
        v[i].name = k->unknown ? "unknown" : k->display;
    }
    tl_sort(v, n, sizeof(*v), cmp_sorted);
    struct tl_json_doc w;
    tl_json_doc_init(&w, out, TL_JSON_DOC_PRETTY | TL_JSON_DOC_SERDE_STRINGS);
    tl_json_doc_object(&w);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        tl_json_doc_key(&w, v[i].name);
        tl_json_doc_object(&w);
        tl_json_doc_key(&w, "artifacts");
        tl_json_doc_array(&w);
        for (const struct tl_artifact *a = v[i].key->first; a; a = a->next) {
            const char *slash = strrchr(a->name, '/');
            tl_json_doc_object(&w);
            tl_json_doc_kstr(&w, "name", slash ? slash + 1 : a->name);
            tl_json_doc_ku64(&w, "number", a->number);
            tl_json_doc_kstr(&w, "readable_url", a->readable_url);
            tl_json_doc_kstr(&w, "suffix", tl_cache_suffix_text(a->suffix));
            tl_json_doc_kstr(&w, "url", a->url);
            tl_json_doc_end(&w, '}');
        }
        tl_json_doc_end(&w, ']');
        tl_json_doc_end(&w, '}');
        rc = tl_page_flush(sink);
    }
    if (rc == 0)
        tl_json_doc_end(&w, '}');
    free(v);
    return rc ? -1 : tl_page_flush(sink);
}
