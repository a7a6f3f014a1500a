/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The prefixes of one line of TORCH_LOGS text, for the text reader (torchlogs.h, which
 * includes this header) and for whoever reads a line's compile id: glog ("V0120 22:19:48.783000
 * 2343082 path.py:611] "), cut to the path or to "... ", bracket ("[2024-03-06 15:35:13,994]
 * torch._dynamo.guards.__recompiles: [DEBUG] "), "[rank3]:" and worker prefixes, glued after
 * other output; then a compile id and an artifact tag. Views into the line. Depends on base
 * (str) and compile_id.
 */
#ifndef TL_TLOG_PREFIX_H
#define TL_TLOG_PREFIX_H

#include "base/config.h"
#include "base/str.h"
#include "input/compile_id.h"

#include <stdbool.h>
#include <stdint.h>

/* What the prefix of one line says. */
struct tl_tlog_line {
    struct tl_str body; /* the text after every prefix, compile id and tag */
    bool has_prefix;    /* a log prefix was found (glog, path, bracket, "... ") */
    int rank;           /* from "[rankN]:" (or a worker prefix "N: "); -1 when none */
    bool has_cid;
    struct tl_compile_id cid; /* from "[0/1]", "[1/0_1]", "[!0/2/1]" after the prefix */
    struct tl_str tag;        /* "recompiles" for "[__recompiles]" or the logger name
                                 "torch._dynamo.guards.__recompiles"; empty when none */
    char level;               /* 'V' 'I' 'W' 'E' 'D' (DEBUG) ...; 0 when unknown */
    uint32_t prefix_key;      /* equal for lines whose prefixes are the same but for the
                                 time (one multi-line message); 0 without prefix */
};

/**
 * Read the prefixes of one line (a view; the line has no newline; a trailing '\r' is ignored).
 * The views of *out point into line.
 */
void tl_tlog_split(struct tl_str line, struct tl_tlog_line *out);

/* What kind of log prefix a line had (the reader's own; tl_tlog_line says has_prefix). */
enum tl_tlog_pfx {
    TL_TLOG_PFX_NONE,
    TL_TLOG_PFX_GLOG,
    TL_TLOG_PFX_BRACKET,
    TL_TLOG_PFX_PATH,
    TL_TLOG_PFX_ELIDED,
    TL_TLOG_PFX_CID,
};

/** tl_tlog_split(), and which kind of prefix the line had. */
enum tl_tlog_pfx tl_tlog_prefix(struct tl_str line, struct tl_tlog_line *out);

#endif
