/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A message of the TORCH_LOGS text, as the text reader (torchlogs.h, which includes this
 * header) emits it: its kind, its lines, rank and compile id, and the fields each kind has;
 * and the caps that keep one message's memory bounded. Views in a message are borrowed (see
 * torchlogs.h). Depends on base (str) and compile_id.
 */
#ifndef TL_TLOG_MSG_H
#define TL_TLOG_MSG_H

#include "base/config.h"
#include "base/str.h"
#include "input/compile_id.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tl_tlog_kind {
    TL_TLOG_RECOMPILE,     /* "Recompiling function F in FILE:LINE" + "triggered by the
                              following guard failure(s):" + "- 0/0: GUARD" lines */
    TL_TLOG_LIMIT,         /* "torch._dynamo hit config.cache_size_limit (8)" or
                              "recompile_limit (8)" + "function: 'F' (FILE:LINE)" +
                              "last reason: 0/0: GUARD" */
    TL_TLOG_GRAPH_BREAK,   /* "Graph break in user code at FILE:LINE" (or "Graph break (user
                              stack suppressed ...) in user code at ...") + "Reason: R" or
                              "Graph Break Reason: R" + "Explanation:"/"Hint:" lines + "User
                              code traceback:" + 'File "F", line N, in FN' + code lines */
    TL_TLOG_CREATE_SYMBOL, /* "create_symbol s0 = 3 for L['x'].size()[0] [2, int_oo] at F:N
                              in FN (...)" or "... [2, int_oo] CODE  # F:N in FN (...)" */
    TL_TLOG_DUCK_SIZED,    /* "create_symbol s77 duck sized L['x'].size()[1]" */
    TL_TLOG_GUARD_ADDED,   /* "eval Eq(s77, 5) [guard added] CODE  # F:N in FN (...)" or
                              "eval Eq(s1, s2) [guard added] at F:N in FN (...)" */
    TL_TLOG_START,         /* "Step 1: torchdynamo start tracing FN F:N" */
    TL_TLOG_RESTART,       /* "Restarting analysis due to R" */
    TL_TLOG_FALLBACK,      /* "WON'T CONVERT FN F line N due to:" + the error: a frame whose
                              compilation failed and that runs in eager mode
                              (suppress_errors) */
    TL_TLOG_GRAPH,         /* "TRACED GRAPH" + "===== NAME =====" + the graph's code: one
                              graph printed by graph_code or aot_graphs */
    TL_TLOG_GUARD_ERROR,   /* "Error while creating guard:" + the guard ("Name: ''", ...) +
                              the traceback of the error that failed the compilation (a
                              ConstraintViolationError of a dimension marked dynamic) */
    TL_TLOG_UNCAUGHT,      /* "Traceback (most recent call last):" at the start of a line
                              without prefix, outside a message: an exception that reached
                              the program (and, unless caught, ended it); reason and frames
                              as FALLBACK's */
};

/* A place in the user's code; file.p NULL when unknown, line 0 when unknown. */
struct tl_tlog_loc {
    struct tl_str file;
    uint32_t line;
    struct tl_str function;
    struct tl_str code; /* the source line, when the log shows it */
};

/* A failing guard of a recompile: "0/0: tensor 'x' size mismatch ..." gives the compile id
 * 0/0 whose guard failed (has_cid) and the text after it. */
struct tl_tlog_guard {
    bool has_cid;
    struct tl_compile_id cid;
    struct tl_str text;
};

/*
 * Addition, how ambiguous text is read:
 * - A compile id has TL_CID_ATTEMPT only when an attempt is written ("[1/0_1]"), in the
 *   prefix and in guards alike.
 * - A place written "..." (elided in a paste) is unknown: file.p NULL. "x.py:N" (a placeholder
 *   in a test's expected output) is x.py with line 0. String fields not found are empty, not
 *   NULL; only a place's file is NULL when unknown.
 * - RECOMPILE: a guard line "- text" without a compile id (logs before 2.3) has has_cid false;
 *   in recompiles_verbose's "guard N failures:" blocks, such a line gets the compile id of the
 *   block's first guard. `where.function` repeats `function` (also for LIMIT, START, FALLBACK).
 * - GRAPH_BREAK: when the reason is "Failed to handle graph break gracefully. Skipping the
 *   function and falling back to eager. Graph break encountered:", fallback is set and reason
 *   is the graph break it wraps (the next line, "Call to `torch._dynamo.graph_break()`").
 *   "(details suppressed)" also sets user_stack_suppressed.
 * - GUARD_ADDED: symbol and value are set only when the guard pins a symbol to an integer
 *   (Eq(s77, 5) or Eq(5, s77)); Eq(s1, s2), Ne(s0, 1), s0 < 5 have only expr.
 * - FALLBACK, GUARD_ERROR: reason is the last exception line of the traceback
 *   ("torch._dynamo.exc.Unsupported: ..."), or the line after "due to:" when there is no
 *   traceback. An exception line ending with ':' keeps the exception line right after it, the
 *   one it wraps ("...BackendCompilerFailed: backend='b' raised:\nRuntimeError: ...").
 * - FALLBACK, UNCAUGHT: frames are the user's frames the error names after "from user code:"
 *   or "Original traceback:" (the last such list), outermost first, with their code.
 * - FALLBACK: PyTorch prints "WON'T CONVERT" after it left the compile context, so without a
 *   compile id of its own the message gets the one of the last line of its rank that had one
 *   (without its attempt), unless the guards of that compile id were printed (its compilation
 *   succeeded); else none.
 * - Guards (RECOMPILE, LIMIT) lose what PyTorch appends when it prints them: the padding and
 *   the comment "  # CODE  # FILE:LINE in FN".
 * - GRAPH_BREAK with warning: the warning block PyTorch prints on .item() ("Graph break from
 *   `Tensor.item()`, consider setting: ..." + "Graph break: from user code at:" + the frames),
 *   which tells of the same graph break as the graph_breaks record beside it (when that log is
 *   on); reason is "Graph break from `Tensor.item()`".
 */
struct tl_tlog_msg {
    enum tl_tlog_kind kind;
    uint64_t first_line, last_line; /* 1-based line numbers of the message in the input */
    int rank;                       /* -1 when none */
    bool has_cid;
    struct tl_compile_id cid; /* the compile id of its prefix */
    bool cut;                 /* the input ended (or another message began) before
                                 the message was complete */

    /* RECOMPILE, LIMIT, START, FALLBACK: the function and where it is defined */
    struct tl_str function;
    struct tl_tlog_loc where;
    /* RECOMPILE: every failing guard; LIMIT: the last reason, as one guard */
    const struct tl_tlog_guard *guards;
    size_t nguards;
    /* LIMIT: "cache_size_limit" or "recompile_limit", and its value (0 when not given) */
    struct tl_str limit_name;
    uint64_t limit;

    /* GRAPH_BREAK: the reason (first line), Explanation and Hint lines, the graph-break site
     * URL ("https://.../gb0025.html"), and the user code traceback, outermost first; `where`
     * is the location of "in user code at F:N" (with the function of the innermost frame).
     * nested: "*** While handling this graph break, another graph break occurred: ***",
     * the reason of the second one in reason2. fallback: the message says the function is
     * skipped and falls back to eager. RESTART, FALLBACK: reason. */
    struct tl_str reason, reason2;
    const struct tl_str *explanations, *hints;
    size_t nexplanations, nhints;
    struct tl_str url;
    const struct tl_tlog_loc *frames;
    size_t nframes;
    bool nested, fallback, user_stack_suppressed;
    /* Addition. GRAPH_BREAK: a warning block, not the graph_breaks record (see above). */
    bool warning;
    /* Addition. GRAPH_BREAK with nested: how many of the last explanations and hints belong to
     * the nested graph break (the one of reason2); the others belong to the first one. */
    size_t nexplanations2, nhints2;
    /* Addition. GRAPH_BREAK, PyTorch 2.7 on: its type, the line before its first "Explanation:"
     * (the reason itself, or the line after "Encountered graph break when attempting to trace
     * X:"); the "Developer debug context:". Empty when not given (or a nested break's). An
     * explanation, a hint or the context goes on over the indented lines after it, joined by
     * '\n'. */
    struct tl_str type, debug_context;
    /* Addition. GRAPH_BREAK with nested: the url of the nested graph break. */
    struct tl_str url2;

    /* CREATE_SYMBOL, DUCK_SIZED, GUARD_ADDED: the symbol ("s77"), its value ("5"), source
     * ("L['x'].size()[0]"), range ("[2, int_oo]"), the guard expression ("Eq(s77, 5)"), and
     * `where` the user code that made it, with its line of code */
    struct tl_str symbol, value, source, range, expr;

    /* GRAPH: its name ("__compiled_fn_1", "Forward graph 1", "Backward graph 1") and node
     * count (assignment lines "name: type = ..." or "name = ..." of its code) */
    struct tl_str graph_name;
    uint32_t nodes;

    /* Addition. FALLBACK, UNCAUGHT, GUARD_ERROR: the first Triton kernel a line of it names
     * ("triton_tem_fused_mm_0", in the traceback of an error while building it), else empty. */
    struct tl_str kernel;

    /* Addition. The message was longer than what the parser keeps (TL_TLOG_MAX_* below): some
     * guards, frames, explanations, hints or bytes of a field were dropped. Counts such as
     * nodes and line numbers stay exact. */
    bool truncated;
};

/* Additions: what one message keeps at most, so that memory stays bounded whatever the input:
 * one open message per rank, at most TL_TLOG_MAX_RANKS of them (rank r > 1022 shares the slot
 * of rank r % 1023, and a line of either closes the other's message), each holding at most
 * TL_TLOG_MAX_BYTES of text; a rank whose message is over keeps no large buffer. */
#define TL_TLOG_MAX_GUARDS 1000        /* guards of a RECOMPILE */
#define TL_TLOG_MAX_FRAMES 200         /* user frames of a GRAPH_BREAK */
#define TL_TLOG_MAX_NOTES 100          /* explanations, and hints, of a GRAPH_BREAK */
#define TL_TLOG_MAX_FIELD (16 * 1024)  /* bytes of one string field */
#define TL_TLOG_MAX_BYTES (256 * 1024) /* bytes of all the fields of a message */
#define TL_TLOG_MAX_RANKS 1024

#endif
