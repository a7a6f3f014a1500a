/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text that TORCH_LOGS="recompiles,graph_breaks,dynamic,guards" (and recompiles_verbose,
 * +dynamo, graph_code, aot_graphs) prints, read as a stream of lines into messages: a
 * recompile with its failing guards, a recompile limit hit, a graph break with its reason
 * and user code location, a symbol created, a guard added, a compile started, a graph
 * printed, a frame that fell back to eager. What it does not recognise is kept and counted,
 * never fatal.
 *
 * Real logs come in many shapes, all handled here: glog prefixes ("V0120 22:19:48.783000
 * 2343082 path.py:611] ") with millisecond or microsecond timestamps, or cut to the path
 * ("path.py:2045] ") or to "... "; the bracket format of 2023-2024 ("[2024-03-06
 * 15:35:13,994] torch._dynamo.guards.__recompiles: [DEBUG] ", "[2023-10-12 11:24:01,657]
 * [12/0] torch.fx...: [INFO] "); "[rank3]:" and worker prefixes ("[default0]:", "0: "),
 * with ranks interleaved; a compile id after the prefix ("[0/1]", "[1/0_1]", "[!0/2/1]") and
 * an artifact tag ("[__recompiles]", "[__graph_breaks]", ...); no prefix at all (a notebook,
 * a paste); multi-line messages whose continuation lines carry the same prefix or none; a
 * prefix glued to the end of other output (a progress bar, "100%|####| 3/3 [00:01]V0120 ...",
 * glog or bracket); a glog prefix cut to its level and path ("W convert_frame.py:1676] "); the
 * 2023 messages printed as a tuple of strings ("('Recompiling function f in F', \"triggered by
 * ...\")"); log lines wrapped by a terminal (a log line as long as the longest so far, followed
 * by a line without prefix that is one word, or any text once that width was seen twice, is
 * one line; the message's line numbers are those of its first part); and excerpts that start
 * or stop in the middle of a message.
 *
 * What one line's prefixes say is in tlog_prefix.h, what a message holds in tlog_msg.h; both
 * are included here. Views: strings of a message point into the parser's own copy of the
 * lines, valid during the emit callback only. Depends on base (str, buf, arena) and
 * compile_id.
 */
#ifndef TL_TORCHLOGS_H
#define TL_TORCHLOGS_H

#include "base/config.h"
#include "base/str.h"
#include "input/compile_id.h"
#include "input/tlog_msg.h"
#include "input/tlog_prefix.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Whether text (the first bytes of an input, at most a few hundred KiB) looks like TORCH_LOGS
 * output rather than a TORCH_TRACE structured log: no line holds a structured-trace envelope
 * (a glog prefix followed by a JSON object), and at least one line is a message this reader
 * recognises or carries a TORCH_LOGS prefix with a compile id or an artifact tag.
 * Addition: a line that only TORCH_LOGS prints also counts (e.g. "GUARDS:",
 * "TREE_GUARD_MANAGER:", "create_env", "produce_guards", "TRACE starts_line ..."), so that a
 * prefix-less paste of guards or bytecode tracing is detected too.
 */
bool tl_tlog_detect(const char *text, size_t n);

struct tl_tlog;

/**
 * A parser; emit is called with each message as soon as it is complete (the message and every
 * view in it are borrowed, valid during the call only). Caller frees with tl_tlog_free().
 */
struct tl_tlog *tl_tlog_new(void (*emit)(void *ctx, const struct tl_tlog_msg *m), void *ctx);
/** Free the parser (NULL is fine); a message still open is dropped, not emitted. */
void tl_tlog_free(struct tl_tlog *p);
/** Feed the next line (without its newline); lineno is its 1-based number. */
void tl_tlog_feed(struct tl_tlog *p, uint64_t lineno, struct tl_str line);
/**
 * The input ended: emit the messages still open, in the order of their first lines, marked cut
 * when they were not complete (e.g. a graph break without its reason, a graph without its
 * return; a recompile with at least one guard is complete). The parser may be fed again.
 * Returns whether anything was open (a line or a message it ended).
 */
bool tl_tlog_end(struct tl_tlog *p);
/**
 * The input paused (a log still written): a line held to see whether a terminal wrapped it is
 * fed, and the messages still open are emitted as they are now, in the order of their first
 * lines, but kept open. When the input goes on as a new message, nothing is emitted again and
 * every message is what an input without the pause gives; when a line goes on one of them (or
 * messages could come in another order), tl_tlog_diverged becomes true. Returns whether
 * anything was said.
 */
bool tl_tlog_settle(struct tl_tlog *p);
/** Whether a line after tl_tlog_settle made what it said differ from an input without the
 * pause. */
bool tl_tlog_diverged(const struct tl_tlog *p);

/* Counts, for the Stats line of a TORCH_LOGS input. */
struct tl_tlog_stats {
    uint64_t lines;        /* lines fed */
    uint64_t messages;     /* messages emitted */
    uint64_t in_messages;  /* lines that belonged to an emitted message */
    uint64_t unrecognized; /* lines neither in a message nor with a prefix it knows (blank
                              lines and "..." elision marks are not counted) */
};
const struct tl_tlog_stats *tl_tlog_stats(const struct tl_tlog *p);

#endif
