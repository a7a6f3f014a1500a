/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The table of record kinds (kind.h), made out of its one list of rows: indexed by key, and
 * in order.
 */
#include "base/config.h"
#include "model/kind.h"

const struct tl_kind tl_kinds[TL_K__COUNT] = {
#define TL_X(id, payload, page, stem) [TL_K_##id] = {TL_KIND_##payload, TL_KIND_##page, stem},
    TL_KINDS(TL_X)
#undef TL_X
};

const enum tl_key tl_kind_order[] = {
#define TL_X(id, payload, page, stem) TL_K_##id,
    TL_KINDS(TL_X)
#undef TL_X
};

const size_t tl_kind_norder = TL_ARRAY_LEN(tl_kind_order);

const char *tl_kind_stem(enum tl_key k)
{
    return tl_kinds[k].stem ? tl_kinds[k].stem : tl_key_name(k);
}
