/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A report folder given as input (reportdir.h): its summary.json, checked to be one log's.
 */
#include "base/config.h"
#include "input/reportdir.h"
#include "base/arena.h"
#include "base/json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static bool is_file_in(const char *dir, const char *name)
{
    struct tl_buf p = TL_BUF_INIT;
    tl_buf_addf(&p, "%s/%s", dir, name);
    struct stat st;
    bool yes = stat(p.buf, &st) == 0 && S_ISREG(st.st_mode);
    tl_buf_release(&p);
    return yes;
}

bool tl_report_dir_is(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode) && is_file_in(path, "index.html");
}

int tl_summary_file_read(const char *path, struct tl_buf *out, struct tl_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return tl_error_code(err, TL_ERR_INPUT, "cannot open %s: %s", path, strerror(errno));
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (out->len + n > TL_REPORTDIR_MAX_SUMMARY) {
            fclose(f);
            return tl_error_code(err, TL_ERR_INPUT, "%s: too big for a summary", path);
        }
        tl_buf_add(out, chunk, n);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return tl_error(err, "cannot read %s", path);
    return 0;
}

int tl_report_dir_summary(const char *dir, struct tl_buf *json, struct tl_err *err)
{
    if (!is_file_in(dir, "summary.json")) {
        if (is_file_in(dir, "raw.log"))
            return tl_error_code(err, TL_ERR_INPUT,
                                 "%s is a report folder without a summary.json (the reference "
                                 "tlparse writes none): read its log instead, %s/raw.log",
                                 dir, dir);
        return tl_error_code(err, TL_ERR_INPUT,
                             "%s is a report folder without a summary.json (the reference "
                             "tlparse writes none): read the log it was made from instead",
                             dir);
    }
    struct tl_buf path = TL_BUF_INIT;
    tl_buf_addf(&path, "%s/summary.json", dir);
    size_t at = json->len;
    int rc = tl_summary_file_read(path.buf, json, err);
    struct tl_arena arena;
    tl_arena_init(&arena, 0);
    struct tl_json root;
    struct tl_json_error jerr;
    const struct tl_json *schema = NULL;
    if (rc == 0 && tl_json_parse(&arena, json->buf + at, json->len - at, &root, &jerr) != 0)
        rc = tl_error_code(err, TL_ERR_INPUT, "%s is not JSON (at byte %zu: %s)", path.buf,
                           jerr.offset, jerr.msg);
    else if (rc == 0)
        schema = root.type == TL_JSON_OBJECT ? tl_json_get(&root, "schema") : NULL;
    if (rc == 0 && (!schema || schema->type != TL_JSON_STRING)) {
        rc = tl_error_code(err, TL_ERR_INPUT,
                           "%s is not a tlparse summary (no \"schema\": \"tlparse-summary/1\")",
                           path.buf);
    } else if (rc == 0 && tl_str_eq_cstr(schema->u.str, "tlparse-ranks/1")) {
        rc = tl_error_code(err, TL_ERR_INPUT,
                           "%s is a multi-rank report (tlparse-ranks/1): give the report of one "
                           "of its ranks, %s/rank_N",
                           dir, dir);
    } else if (rc == 0 && !tl_str_eq_cstr(schema->u.str, "tlparse-summary/1")) {
        rc = tl_error_code(err, TL_ERR_INPUT,
                           "%s is of the schema \"%.*s\", not tlparse-summary/1 (made by another "
                           "version of tlparse?)",
                           path.buf, (int)(schema->u.str.n > 64 ? 64 : schema->u.str.n),
                           schema->u.str.p);
    }
    tl_arena_release(&arena);
    tl_buf_release(&path);
    return rc;
}
