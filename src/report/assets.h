/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Our own CSS and JavaScript, embedded at build time from src/assets/ by
 * cmake/Embed.cmake. Each is a NUL-terminated string.
 */
#ifndef TL_ASSETS_H
#define TL_ASSETS_H

#include <stddef.h>

extern const char tl_asset_base_css[];
extern const char tl_asset_style_css[];
extern const char tl_asset_overview_css[];
extern const char tl_asset_diff_css[];
extern const char tl_asset_code_css[];
extern const char tl_asset_toggle_js[];
extern const char tl_asset_query_js[];
extern const char tl_asset_failures_css[];
extern const char tl_asset_dump_css[];
extern const char tl_asset_diagnosis_css[];
extern const char tl_asset_sort_js[];
extern const char tl_asset_textlog_css[];
extern const char tl_asset_textlog_js[];
extern const char tl_asset_provenance_css[];
extern const char tl_asset_provenance_js[];
extern const char tl_asset_export_css[];
extern const char tl_asset_bundle_css[];
extern const char tl_asset_bundle_js[];
extern const char tl_asset_livepage_css[];
extern const char tl_asset_livepage_js[];
extern const char tl_asset_landing_css[];

#endif
