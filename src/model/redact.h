/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `--redact`: what a report may show of a model it is shared without. Every entry of the log
 * goes through here before anything reads it (the report, the diagnosis, the other files), so
 * what is not kept cannot reach a page: one choke point, safe by construction.
 *
 * Kept, as a compiler engineer needs them: file names, line numbers and function names of
 * the code that was compiled (file names hashed too with paths), compile ids, numbers
 * (metrics, sizes, counts), failure types, the words of PyTorch's own messages, op names
 * (torch.*, aten.*), the shapes of tensors ("f32[32, 64]"), and the structure of graphs and
 * guards. Replaced by a short hash (h_1a2b3c4d, the same for the same text within a report,
 * salted so that it cannot be looked up) is everything else: identifiers of the user's code
 * and graph names derived from them, string literals, decimal constants, source lines, JSON
 * keys that are not PyTorch's, words of free text that are not PyTorch's. Dropped: comments
 * in code, generated code bodies (inductor's output code), dumped source files and payloads
 * of unknown kinds (a line says what was there).
 *
 * Depends on base (buf, json, arena), libmd, and the table of record kinds (model/kind.h).
 */
#ifndef TL_REDACT_H
#define TL_REDACT_H

#include "base/config.h"
#include "base/arena.h"
#include "base/buf.h"
#include "base/json.h"
#include "base/str.h"
#include "input/envelope.h"

#include <stdbool.h>
#include <stdint.h>

struct tl_redact {
    uint8_t salt[16];
    bool paths; /* --redact=paths: file names are hashed too */
};

/** The redaction of a run; salt: 16 random bytes (hashes differ from run to run). */
void tl_redact_init(struct tl_redact *r, const uint8_t salt[16], bool paths);

/** "h_" and 8 hex digits of the salted MD5 of s. */
void tl_redact_hash(const struct tl_redact *r, struct tl_buf *out, struct tl_str s);

/** Free text (a message, a reason): PyTorch's words and numbers kept, the rest hashed. */
void tl_redact_text(const struct tl_redact *r, struct tl_buf *out, struct tl_str s);

/** Code (a graph, a guard, an expression): its structure, keywords, op names, shapes and
 * whole numbers kept; identifiers, strings and decimal constants hashed; comments dropped. */
void tl_redact_code(const struct tl_redact *r, struct tl_buf *out, struct tl_str s);

/** A file name: as it is, or hashed (keeping its extension) with paths. */
void tl_redact_path(const struct tl_redact *r, struct tl_buf *out, struct tl_str s);

/** A JSON value in place (new strings in a); key: the member it is the value of, or NULL. */
void tl_redact_json(const struct tl_redact *r, struct tl_arena *a, struct tl_json *v,
                    const char *key);

/* How a payload is redacted. */
enum tl_redact_payload {
    TL_REDACT_CODE, /* graphs, guards: tl_redact_code */
    TL_REDACT_JSON, /* JSON artifacts: tl_redact_json */
    TL_REDACT_DROP, /* generated code, dumped files, anything else: one line says what it was */
};

/** How the payload of an entry is redacted: as the payload class of its kinds says
 * (model/kind.h): code if one of its keys logs code, JSON if one logs JSON, else dropped. */
enum tl_redact_payload tl_redact_kind(const struct tl_envelope *env);

/** A payload into out, as kind says. */
void tl_redact_payload(const struct tl_redact *r, struct tl_buf *out, struct tl_str payload,
                       enum tl_redact_payload kind);

#endif
