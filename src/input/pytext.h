/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PyTorch's own wording, read in one place for the structured trace (its artifacts and
 * metrics, read by model/diag_trace.c) and the TORCH_LOGS text (input/torchlogs.c): a
 * traceback's frames and exception line, a compile id and a guard as PyTorch prints them, the
 * labelled lines of a graph-break message ("Reason:", "Explanation:", "Hint:", "Developer
 * debug context:", the gb url, a nested break) and the whole message, a frame's failure
 * ("WON'T CONVERT"), a restart's reason, a resume function's name, the recompile limit's
 * reason, a guard that pins a symbol ("Eq(s0, 8)").
 *
 * Conventions: every function reads a view and writes views into it (or, for a whole message,
 * into arrays allocated from the caller's arena): results are borrowed, valid as long as the
 * text (and the arena). Nothing here fails: text it does not recognise gives false, an empty
 * view or zero. Depends on base (str, arena) and compile_id only.
 */
#ifndef TL_PYTEXT_H
#define TL_PYTEXT_H

#include "base/config.h"
#include "base/arena.h"
#include "base/str.h"
#include "input/compile_id.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- tracebacks --------------------------------------------------------------------------- */

/* A frame of a Python traceback; line 0 when not written, code empty unless a reader saw the
 * line of code under the frame. */
struct tl_pytext_frame {
    struct tl_str file, function, code;
    uint32_t line;
};

/**
 * 'File "F", line N, in FN' (after any indentation; straight or curly double quotes) into *f:
 * file and function are views into t (function trimmed; empty without ", in "), the line at
 * most 9 digits (0 otherwise). False, *f untouched, when t is no frame line.
 */
bool tl_pytext_frame_line(struct tl_str t, struct tl_pytext_frame *f);

/** A line of only carets, tildes and blanks: the marks under a line of code in a traceback. */
bool tl_pytext_carets(struct tl_str t);

/**
 * Whether t (trimmed) is the last line of a Python traceback: a dotted name
 * ("torch._dynamo.exc.Unsupported: ...") or a name ending in Error, Exception, Unsupported,
 * Interrupt, Exit or Warning ("TypeError: ...", "AssertionError"), then ':' or the end.
 */
bool tl_pytext_exception_line(struct tl_str t);

/**
 * The short name of the exception a reason starts with: "Unsupported" of
 * "torch._dynamo.exc.Unsupported: msg" (the last dotted part of what comes before ": ", or of
 * all of it); TL_STR_NULL when that part holds a space (a sentence, not an exception).
 */
struct tl_str tl_pytext_exception_type(struct tl_str reason);

/**
 * The short name of the exception that a traceback's last line names, when that line is
 * clearly one: it starts with a letter, has ": " after the name, and the name ends with Error
 * or Exception or is PyTorch's ("....exc.X"). "DataDependentOutputException" of
 * "torch._subclasses.fake_tensor.DataDependentOutputException: aten...". Else TL_STR_NULL.
 */
struct tl_str tl_pytext_exception_name(struct tl_str line);

/* ---- compile ids and guards --------------------------------------------------------------- */

/**
 * A compile id at p[0..n) as PyTorch writes it: "0/1", "1/0_1", "!0", "!0/2/1", "!0/2/1_3".
 * Returns its length, 0 when there is none (then *id may have been written). The attempt bit is set
 * only when an attempt is written.
 */
size_t tl_pytext_cid(const char *p, size_t n, struct tl_compile_id *id);

/**
 * A guard as PyTorch printed it, without the padding to 60 columns and the "  # CODE  #
 * FILE:LINE in FN" that follow it (guards.py's verbose code part): the first "  # " outside a
 * quoted string starts them. A view into guard.
 */
struct tl_str tl_pytext_guard_code(struct tl_str guard);

/* ---- graph breaks ------------------------------------------------------------------------- */

/* The lines of a graph-break message that a label starts (t trimmed). */
enum tl_pytext_gb_label {
    TL_PYGB_NONE,
    TL_PYGB_REASON,      /* "Reason: R" (2.6), "Graph Break Reason: R" (2.7 on) */
    TL_PYGB_EXPLANATION, /* "Explanation: ..." */
    TL_PYGB_HINT,        /* "Hint: ..." */
    TL_PYGB_CONTEXT,     /* "Developer debug context: ..." */
    TL_PYGB_MORE,        /* "For more details about this graph break, please visit: URL" */
    TL_PYGB_NESTED,      /* "*** While handling this graph break, another graph break ..." */
    TL_PYGB_USER_TB,     /* "User code traceback:" */
    TL_PYGB_TRACEBACK,   /* "Traceback (most recent call last):" */
    TL_PYGB_ATTRIBUTION, /* "Stack variable source attribution:" */
};

/**
 * Which labelled line t (without its indentation) is, and in *value what follows the label,
 * trimmed: the reason, the note, the url (TL_STR_NULL without "visit:"); empty for the others.
 */
enum tl_pytext_gb_label tl_pytext_gb_label(struct tl_str t, struct tl_str *value);

/**
 * "GB0124" of a graph-break site url ("https://.../gb/gb0124.html") into out (NUL-terminated,
 * at most 15 bytes); returns its length, 0 when the url names no site.
 */
size_t tl_pytext_gb_id(struct tl_str url, char out[16]);

/* What PyTorch says of one graph break: its reason, its type (2.7 on: the line before its first
 * "Explanation:"), its first explanation, its hints, its developer debug context and url. A
 * note goes on over the indented lines after it, joined by '\n'. */
#define TL_PYTEXT_GB_HINTS 8
struct tl_pytext_gb_note {
    struct tl_str reason, type, explanation, context, url;
    struct tl_str hints[TL_PYTEXT_GB_HINTS];
    size_t nhints;
};

/* At most this many frames of a graph break's user code traceback are kept: the innermost. */
#define TL_PYTEXT_GB_FRAMES 32

/*
 * A graph-break message as a dynamo_graph_break_reason artifact holds it:
 *
 *   Graph break in user code at /x/m.py:7
 *   Graph Break Reason: Encountered graph break when attempting to trace CALL: ...:
 *
 *   Unsupported Tensor.item() call with capture_scalar_outputs=False
 *     Explanation: Dynamo does not support tracing `Tensor.item()` with ...
 *     Hint: Set `torch._dynamo.config.capture_scalar_outputs = True` or ...
 *
 *     Developer debug context: call_method TensorVariable() item () {}
 *
 *    For more details about this graph break, please visit: https://.../gb/gb0124.html
 *
 *   User code traceback:
 *     File "/x/m.py", line 7, in f
 *       s = x.sum().item()
 *
 *   Traceback (most recent call last): ...
 *
 * notes[0] is the graph break; notes[1], when nnotes is 2, the one that broke while handling it
 * ("*** While handling this graph break, another graph break occurred: ***", its reason the
 * next line). The first note's reason spans the lines up to the first labelled one (a reason
 * of several lines, joined as written); the others are one line. frames: the user code
 * traceback, outermost first, each frame's code its line as written (indented).
 */
struct tl_pytext_gb {
    struct tl_pytext_gb_note notes[2];
    size_t nnotes;
    const struct tl_pytext_frame *frames;
    size_t nframes;
};

/**
 * Read a graph-break message into *out. Views point into text, or into arena for a note of
 * several lines and for the frames; both must outlive *out.
 */
void tl_pytext_graph_break(struct tl_str text, struct tl_arena *arena, struct tl_pytext_gb *out);

/* ---- failures ----------------------------------------------------------------------------- */

/*
 * A frame's failure as a dynamo_graph_break_reason artifact tells it (PyTorch 2.6, a backend
 * failing on a data-dependent output):
 *
 *   WON'T CONVERT pack /x/m.py line 15
 *   ========== TorchDynamo Stack Trace ==========
 *   Traceback (most recent call last): ...
 *   torch._subclasses.fake_tensor.DataDependentOutputException: aten._local_scalar_dense.default
 *
 *   While executing %item : ...
 *   Original traceback:
 *     File "/x/m.py", line 7, in lengths
 *
 * type and reason: of the last exception line (tl_pytext_exception_name); frames: every frame
 * of the user's ("Original traceback:", "from user code:"), in the order written.
 */
struct tl_pytext_failure {
    struct tl_str type, reason;
    const struct tl_pytext_frame *frames;
    size_t nframes;
};

/** Read a failure's text into *out; views into text, frames in arena. */
void tl_pytext_wont_convert(struct tl_str text, struct tl_arena *arena,
                            struct tl_pytext_failure *out);

/* ---- restarts, resume functions, limits, guards on symbols -------------------------------- */

/**
 * The kind of a restart that is no graph break: "TensorifyScalarRestartAnalysis" of
 * "<class 'torch._dynamo.exc.TensorifyScalarRestartAnalysis'>" (str(type(e)) of a
 * RestartAnalysis raised without a reason); empty (not NULL) for any other reason.
 */
struct tl_str tl_pytext_restart_kind(struct tl_str reason);

/**
 * The function a resume function goes on with: "fn" of "torch_dynamo_resume_in_fn_at_61";
 * name itself when it is no resume function.
 */
struct tl_str tl_pytext_resume_function(struct tl_str name);

/** The line of a resume function ("torch_dynamo_resume_in_fn_at_61": 61), 0 when none. */
uint32_t tl_pytext_resume_line(struct tl_str name);

/**
 * What a failure stopped by the recompile limit says of the limit: PyTorch 2.13's "Limit
 * type: recompile_limit" and "(currently set to 2)", or the name of the setting anywhere in
 * it. *name and *value are set only when the reason says them.
 */
void tl_pytext_limit_reason(struct tl_str reason, struct tl_str *name, uint64_t *value);

/**
 * A guard that pins a symbol to an integer: "Eq(s77, 5)" or "Eq(5, s77)" gives the symbol "s77"
 * and "5"; false (nothing set) for any other expression (Eq(s1, s2), Ne(s0, 1), s0 < 5).
 */
bool tl_pytext_eq_constant(struct tl_str expr, struct tl_str *symbol, struct tl_str *value);

#endif
