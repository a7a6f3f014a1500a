/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The files of a report's compile folders, as the report and the custom parsers add them:
 * a name gets the "_N" of the report's sequence (spec core.md §3.1), is written through the
 * output and listed under its compile id (tl_sink_list_file).
 */
#include "base/config.h"
#include "sinks/files.h"
#include "base/json.h"
#include "report/pages.h"

#include <string.h>

/* Insert "_N" before the extension of the last path component (Rust's
 * file_stem/extension rules: a name whose only dot is its first character
 * has no extension). */
static void add_suffixed(struct tl_buf *out, struct tl_str name, uint32_t n)
{
    const char *slash = NULL;
    for (size_t i = name.n; i > 0; i--)
        if (name.p[i - 1] == '/') {
            slash = name.p + i - 1;
            break;
        }
    const char *base = slash ? slash + 1 : name.p;
    size_t blen = (size_t)(name.p + name.n - base);
    const char *dot = NULL;
    for (size_t i = blen; i > 1; i--)
        if (base[i - 1] == '.') {
            dot = base + i - 1;
            break;
        }
    if (blen == 2 && base[0] == '.' && base[1] == '.')
        dot = NULL;
    if (dot) {
        tl_buf_add(out, name.p, (size_t)(dot - name.p));
        tl_buf_addf(out, "_%u", n);
        tl_buf_add(out, dot, (size_t)(name.p + name.n - dot));
    } else {
        tl_buf_addstr(out, name);
        tl_buf_addf(out, "_%u", n);
    }
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* The readable companion page of a kernel-stack-traces JSON file (spec §3.3), numbering
 * skew included; returns its path ("" when the JSON did not parse), or NULL when path is
 * not such a file. */
static const char *readable_page(struct tl_sink_ctx *ctx, const struct tl_buf *path,
                                 const char *data, size_t n, int *rc, struct tl_err *err)
{
    static const char kst[] = "inductor_provenance_tracking_kernel_stack_traces";
    const char *base = strrchr(path->buf, '/');
    base = base ? base + 1 : path->buf;
    if (strncmp(base, kst, sizeof(kst) - 1) || !ends_with(path->buf, path->len, ".json"))
        return NULL;
    struct tl_json v;
    if (tl_json_parse(ctx->scratch, data, n, &v, NULL) < 0)
        return "";
    /* Its own buffer: data (and so v's strings) may live in the report's page buffer. */
    struct tl_buf rp = TL_BUF_INIT, rused = TL_BUF_INIT, page = TL_BUF_INIT;
    tl_buf_add(&rp, path->buf, path->len - 5);
    tl_buf_adds(&rp, "_readable.html");
    tl_page_readable_stack_traces(&page, &v);
    *rc = tl_outdir_write(ctx->out, rp.buf, page.buf, page.len, &rused, err);
    const char *readable = tl_arena_memdupz(ctx->arena, rused.buf, rused.len);
    tl_buf_release(&rp);
    tl_buf_release(&rused);
    tl_buf_release(&page);
    tl_sink_take_number(ctx);
    return readable;
}

/*
 * Add a file of the record's compile folder: fname gets the _N suffix (spec §3.1), is
 * written and listed. payload_file: it holds the record's payload (for raw.jsonl). The path
 * written (which differs from the one wanted when it collides) goes to *used when not NULL.
 */
int tl_files_emit(struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_str fname,
                  const char *data, size_t n, bool payload_file, struct tl_buf *used,
                  struct tl_err *err)
{
    struct tl_buf want = TL_BUF_INIT, path = TL_BUF_INIT;
    tl_buf_adds(&want, r->folder);
    tl_buf_addch(&want, '/');
    add_suffixed(&want, fname, tl_sink_next_number(ctx));
    int rc = tl_outdir_write(ctx->out, want.buf, data, n, &path, err);
    tl_buf_release(&want);
    const char *readable = NULL;
    if (rc == 0)
        readable = readable_page(ctx, &path, data, n, &rc, err);
    if (rc == 0) {
        struct tl_artifact *a = tl_sink_list_file(ctx, r->key, path.buf, path.buf, false);
        a->readable_url = readable;
        if (payload_file) {
            tl_buf_reset(&r->payload_file);
            tl_buf_add(&r->payload_file, path.buf, path.len);
        }
        if (used)
            tl_buf_add(used, path.buf, path.len);
    }
    tl_buf_release(&path);
    return rc;
}

int tl_files_emit_named(struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_str fname,
                        const char *data, size_t n, struct tl_err *err)
{
    struct tl_buf safe = TL_BUF_INIT;
    tl_path_safe(&safe, fname, true);
    int rc = tl_files_emit(ctx, r, tl_buf_str(&safe), data, n, false, NULL, err);
    tl_buf_release(&safe);
    return rc;
}

void tl_files_add_link(struct tl_sink_ctx *ctx, struct tl_record *r, struct tl_str text,
                       struct tl_str url)
{
    struct tl_buf u = TL_BUF_INIT, nm = TL_BUF_INIT;
    tl_buf_add_nonul(&u, url.p, url.n);
    tl_buf_add_nonul(&nm, text.p, text.n);
    tl_sink_list_file(ctx, r->key, u.buf, nm.buf, true);
    tl_buf_release(&u);
    tl_buf_release(&nm);
}

struct flush_ctx {
    struct tl_outfile *f;
    struct tl_err *err;
};

static int flush_page(void *ctx)
{
    struct flush_ctx *s = ctx;
    return tl_outfile_maybe_flush(s->f, s->err);
}

int tl_files_stream_page(struct tl_sink_ctx *ctx, const char *name,
                         int (*render)(const struct tl_page_sink *sink, const void *arg),
                         const void *arg, struct tl_err *err)
{
    struct tl_outfile f;
    if (tl_outfile_open(&f, ctx->out, name, err) < 0)
        return -1;
    struct flush_ctx fc = {&f, err};
    struct tl_page_sink sink = {&f.buf, flush_page, &fc};
    if (render(&sink, arg) < 0) {
        tl_outfile_close(&f, NULL);
        return -1;
    }
    return tl_outfile_close(&f, err);
}
