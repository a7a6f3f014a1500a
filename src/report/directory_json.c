/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * compile_directory.json (spec core.md §5.4): every compile-directory key, sorted by name,
 * with its artifacts, as the reference's serde_json writes it (pretty, fields in order).
 * Streamed through a page sink: with tens of thousands of compile ids it runs to megabytes.
 */
#include "base/config.h"
#include "report/pages.h"
#include "base/json_write.h"
#include "base/xalloc.h"

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
    qsort(v, n, sizeof(*v), cmp_sorted);
    tl_buf_adds(out, "{\n");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct tl_dirkey *k = v[i].key;
        tl_buf_adds(out, "  ");
        tl_json_write_string(out, v[i].name, strlen(v[i].name));
        if (!k->first) {
            tl_buf_adds(out, ": {\n    \"artifacts\": []\n  }");
        } else {
            tl_buf_adds(out, ": {\n    \"artifacts\": [\n");
            for (const struct tl_artifact *a = k->first; a; a = a->next) {
                const char *slash = strrchr(a->name, '/');
                const char *last = slash ? slash + 1 : a->name;
                tl_buf_adds(out, "      {\n        \"name\": ");
                tl_json_write_string(out, last, strlen(last));
                tl_buf_adds(out, ",\n        \"number\": ");
                tl_buf_addu(out, a->number);
                tl_buf_adds(out, ",\n        \"readable_url\": ");
                if (a->readable_url)
                    tl_json_write_string(out, a->readable_url, strlen(a->readable_url));
                else
                    tl_buf_adds(out, "null");
                tl_buf_adds(out, ",\n        \"suffix\": ");
                const char *suf = tl_cache_suffix_text(a->suffix);
                tl_json_write_string(out, suf, strlen(suf));
                tl_buf_adds(out, ",\n        \"url\": ");
                tl_json_write_string(out, a->url, strlen(a->url));
                tl_buf_adds(out, a->next ? "\n      },\n" : "\n      }\n");
            }
            tl_buf_adds(out, "    ]\n  }");
        }
        tl_buf_adds(out, i + 1 < n ? ",\n" : "\n");
        rc = tl_page_flush(sink);
    }
    if (rc == 0)
        tl_buf_adds(out, "}");
    free(v);
    return rc ? -1 : tl_page_flush(sink);
}
