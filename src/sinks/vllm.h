/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vLLM mode of the report (model/vllm.h): the files the reference's vLLM parsers write
 * besides the ordinary ones, and what each record tells the vLLM summary. Used by the report
 * sink (report.c) only.
 */
#ifndef TL_SINKS_VLLM_H
#define TL_SINKS_VLLM_H

#include "base/config.h"
#include "engine/sink.h"
#include "model/vllm.h"

/**
 * After the report's parsers ran on r: write vLLM's own file of the entry, if it has one
 * (vllm_compilation_config.json reformatted, vllm_piecewise_split_graph.txt, vllm_<submod>.txt:
 * each a second copy, numbered and listed, as the reference writes it), attach every file r
 * listed (after `before`, its key's last entry before r; NULL: from the first) to the summary,
 * then apply what r says (the config, a new subgraph). -1 only on an output error.
 */
int tl_vllm_record(struct tl_vllm *v, struct tl_sink_ctx *ctx, struct tl_record *r,
                   const struct tl_artifact *before, struct tl_err *err);

#endif
