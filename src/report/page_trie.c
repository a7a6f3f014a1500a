/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stack tries and stacks as HTML (spec core.md §4.6): nested lists in a collapsed
 * <details>, a frame as "file:line in name" with its source line, links to dumped
 * eval_with_key sources, compile ids coloured by status. Iterative, so a deep stack
 * cannot exhaust the C stack.
 */
#include "base/config.h"
#include "report/pages.h"
#include "base/xalloc.h"
#include "report/html.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void tl_page_frame(struct tl_buf *out, const struct tl_iframe *f, const struct tl_strtab *strtab)
{
    struct tl_str file;
    if (f->uninterned) {
        file = tl_str_cstr(f->uninterned);
    } else {
        file = tl_strtab_get(strtab, f->filename);
        if (!file.p)
            file = TL_STR_LIT("(unknown)");
    }
    struct tl_str simple = tl_frame_simplify(file);
    struct tl_str k;
    if (tl_find_eval_with_key(file, &k)) {
        tl_buf_adds(out, "<a href='dump_file/eval_with_key_");
        tl_buf_addstr(out, k);
        tl_buf_adds(out, ".html#L");
        tl_buf_addi(out, f->line);
        tl_buf_adds(out, "'>");
        tl_html_text(out, simple.p, simple.n);
        tl_buf_addch(out, ':');
        tl_buf_addi(out, f->line);
        tl_buf_adds(out, "</a> in ");
        tl_html_text_cstr(out, f->name ? f->name : "");
        return;
    }
    tl_html_text(out, simple.p, simple.n);
    tl_buf_addch(out, ':');
    tl_buf_addi(out, f->line);
    tl_buf_adds(out, " in ");
    tl_html_text_cstr(out, f->name ? f->name : "");
    tl_buf_adds(out, "<br>&nbsp;&nbsp;&nbsp;&nbsp;");
    if (f->loc)
        tl_html_text_cstr(out, f->loc);
}

/* ---- rendering ------------------------------------------------------------- */

static void open_details_as(struct tl_buf *out, const char *caption, bool open)
{
    tl_buf_adds(out, open ? "<details open><summary>" : "<details><summary>");
    tl_buf_adds(out, caption);
    tl_buf_adds(out, "</summary><div class='stack-trie'><ul>");
}

static void open_details(struct tl_buf *out, const char *caption)
{
    open_details_as(out, caption, false);
}

static void close_details(struct tl_buf *out)
{
    tl_buf_adds(out, "</ul></div></details>");
}

const char *const tl_page_status_classes[TL_OV__COUNT] = {
    [TL_OV_OK] = "status-ok",           [TL_OV_RESTART] = "status-break",
    [TL_OV_EMPTY] = "status-empty",     [TL_OV_FAIL] = "status-error",
    [TL_OV_MISSING] = "status-missing",
};

const char *tl_page_status_class(const struct tl_compile *c)
{
    return tl_page_status_classes[tl_overview_status_of(c ? c->status : 0)];
}

static void render_terms(struct tl_buf *out, const struct tl_trie_node *n)
{
    for (size_t i = 0; i < n->nterms; i++) {
        const struct tl_terminal *t = &n->terms[i];
        if (!t->compile) {
            for (uint32_t r = 0; r < t->repeat; r++)
                tl_buf_adds(out, "(unknown) ");
            continue;
        }
        /* Compile ids are rendered from numbers only: nothing to escape. */
        const char *id = t->compile->display;
        tl_buf_adds(out, "<a href='#");
        tl_buf_adds(out, id);
        tl_buf_adds(out, "' class='");
        tl_buf_adds(out, tl_page_status_class(t->compile));
        tl_buf_adds(out, "'>");
        tl_buf_adds(out, id);
        tl_buf_adds(out, "</a> ");
    }
}

struct walk {
    const struct tl_trie_node *parent; /* whose children are being listed */
    const struct tl_trie_node *next;   /* next child to emit */
    bool close;                        /* emit "</ul></li>" when done */
};

void tl_page_trie(struct tl_buf *out, const struct tl_trie *t, const char *caption,
                  const struct tl_strtab *strtab, bool terminals)
{
    open_details(out, caption);
    struct walk *stack = NULL;
    size_t len = 0, alloc = 0;
    TL_GROW(stack, 1, alloc);
    stack[len++] = (struct walk){&t->root, t->root.first_child, false};
    while (len) {
        struct walk *w = &stack[len - 1];
        const struct tl_trie_node *c = w->next;
        if (!c) {
            if (w->close)
                tl_buf_adds(out, "</ul></li>");
            len--;
            continue;
        }
        w->next = c->next_sibling;
        bool multi = w->parent->nchildren > 1;
        if (multi) {
            tl_buf_adds(out, "<li><span onclick='toggleList(this)' class='marker'></span>");
            if (terminals)
                render_terms(out, c);
            tl_buf_addch(out, '\n');
            tl_page_frame(out, &c->frame, strtab);
            tl_buf_adds(out, "<ul>\n");
        } else {
            tl_buf_adds(out, "<li>");
            if (terminals)
                render_terms(out, c);
            tl_page_frame(out, &c->frame, strtab);
            tl_buf_adds(out, "</li>\n");
        }
        TL_GROW(stack, len + 1, alloc);
        stack[len++] = (struct walk){c, c->first_child, multi};
    }
    free(stack);
    close_details(out);
}

void tl_page_stack(struct tl_buf *out, const struct tl_iframe *frames, size_t n,
                   const char *caption, const struct tl_strtab *strtab)
{
    tl_page_stack_as(out, frames, n, caption, strtab, false);
}

void tl_page_stack_as(struct tl_buf *out, const struct tl_iframe *frames, size_t n,
                      const char *caption, const struct tl_strtab *strtab, bool open)
{
    open_details_as(out, caption, open);
    for (size_t i = 0; i < n; i++) {
        tl_buf_adds(out, "<li>");
        tl_page_frame(out, &frames[i], strtab);
        tl_buf_adds(out, "</li>\n");
    }
    close_details(out);
}

void tl_page_trie_path(struct tl_buf *out, const struct tl_trie_node *node, const char *caption,
                       const struct tl_strtab *strtab)
{
    size_t depth = 0;
    for (const struct tl_trie_node *n = node; n && n->parent; n = n->parent)
        depth++;
    struct tl_iframe *frames = tl_xcalloc(depth ? depth : 1, sizeof(*frames));
    size_t i = depth;
    for (const struct tl_trie_node *n = node; n && n->parent; n = n->parent)
        frames[--i] = n->frame;
    tl_page_stack(out, frames, depth, caption, strtab);
    free(frames);
}
