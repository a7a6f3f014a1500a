/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * model/redact.c, rule by rule: what PyTorch's messages keep (their words, "e.g.", module
 * names of the standard library, quoted messages, Python file names) and what they lose (the
 * user's names, data files, constants inside quotes); guards keep nn.Module's own attribute
 * names; a link's URL still parses and leads nowhere. tests/redact.sh attacks the whole
 * pipeline with canaries; this pins the rules down to the byte. $(x) below is the hash the
 * run gives x (a fixed salt here), so each expected string says which words were replaced.
 */
#include "base/config.h"
#include "model/redact.h"
#include "base/json.h"
#include "base/json_write.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static struct tl_redact R;

/* The expected text: "$(x)" is replaced by the hash of x. */
static char *expect(const char *tmpl)
{
    struct tl_buf out = TL_BUF_INIT;
    for (const char *p = tmpl; *p;) {
        const char *close = p[0] == '$' && p[1] == '(' ? strchr(p, ')') : NULL;
        if (close) {
            tl_redact_hash(&R, &out, tl_str_make(p + 2, (size_t)(close - p - 2)));
            p = close + 1;
        } else {
            tl_buf_addch(&out, *p++);
        }
    }
    return out.buf ? out.buf : strdup("");
}

enum mode { TEXT, CODE, PATH };

static void check(enum mode mode, const char *in, const char *tmpl)
{
    struct tl_buf out = TL_BUF_INIT;
    struct tl_str s = tl_str_make(in, strlen(in));
    if (mode == TEXT)
        tl_redact_text(&R, &out, s);
    else if (mode == CODE)
        tl_redact_code(&R, &out, s);
    else
        tl_redact_path(&R, &out, s);
    char *want = expect(tmpl);
    assert_string_equal(out.buf ? out.buf : "", want);
    free(want);
    tl_buf_release(&out);
}

static int setup(void **state)
{
    (void)state;
    uint8_t salt[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    tl_redact_init(&R, salt, false);
    return 0;
}

static void test_hash(void **state)
{
    (void)state;
    struct tl_buf a = TL_BUF_INIT, b = TL_BUF_INIT;
    tl_redact_hash(&R, &a, tl_str_make("secret", 6));
    tl_redact_hash(&R, &b, tl_str_make("secret", 6));
    assert_int_equal(a.len, 10);
    assert_memory_equal(a.buf, "h_", 2);
    assert_string_equal(a.buf, b.buf); /* the same text, the same hash within a run */
    struct tl_redact other;
    uint8_t salt[16] = {0};
    tl_redact_init(&other, salt, false);
    tl_buf_reset(&b);
    tl_redact_hash(&other, &b, tl_str_make("secret", 6));
    assert_string_not_equal(a.buf, b.buf); /* another salt, another hash */
    tl_buf_release(&a);
    tl_buf_release(&b);
}

static void test_messages(void **state)
{
    (void)state;
    check(TEXT,
          "Graph break due to unsupported builtin demo_ext._C.fast_scale. This function is "
          "either a Python builtin (e.g. _warnings.warn) or a third-party C/C++ Python "
          "extension (perhaps created with pybind).",
          "Graph break due to unsupported builtin $(demo_ext).$(_C).$(fast_scale). This function "
          "is either a Python builtin (e.g. _warnings.warn) or a third-party C/C++ Python "
          "extension (perhaps created with pybind).");
    /* a quoted message keeps its words and its Python file; a data file is hashed whole but
     * for its extension */
    check(TEXT, "'skip function graph_break in file /data/u/torch/_dynamo/decorators.py'",
          "'skip function graph_break in file /data/u/torch/_dynamo/decorators.py'");
    check(TEXT, "no lowering for secret_op (from /data/acme/ckpt.bin)",
          "no lowering for $(secret_op) (from $(/data/acme/ckpt.bin).bin)");
    /* a decimal is a time or a size in a message, a constant of the user's inside quotes */
    check(TEXT, "compile time 1.5 for 'x * 0.125 + y'",
          "compile time 1.5 for '$(x) * $(0.125) + $(y)'");
    /* a name quoted alone is code: the user's hashed, PyTorch's kept */
    check(TEXT, "backend='inductor' raised, backend='my_backend' raised",
          "backend='inductor' raised, backend='$(my_backend)' raised");
    check(TEXT, "custom op aten::add, acme::op", "custom op aten::add, $(acme)::op");
    /* a word with letters beyond ASCII is one word, hashed */
    check(TEXT, "Graph break: \xc3\xa9t\xc3\xa9 x", "Graph break: $(\xc3\xa9t\xc3\xa9) $(x)");
}

static void test_code(void **state)
{
    (void)state;
    check(CODE, "___check_type_id(L['self']._modules['layers']._parameters['weight'], 1398)",
          "___check_type_id(L['self']._modules['$(layers)']._parameters['weight'], 1398)");
    check(CODE, "L['x'].training == True and hasattr(L['x'], '_dynamo_dynamic_indices')",
          "L['$(x)'].training == True and hasattr(L['$(x)'], '_dynamo_dynamic_indices')");
    check(CODE, "y = torch.nn.functional.relu(self.w * 0.5) # the secret recipe",
          "$(y) = torch.nn.functional.relu(self.$(w) * $(0.5))");
}

static void test_paths(void **state)
{
    (void)state;
    check(PATH, "/home/acme/model.py", "/home/acme/model.py");
    struct tl_redact keep = R;
    R.paths = true;
    check(PATH, "/home/acme/model.py", "$(/home/acme/model.py).py");
    check(TEXT, "skip function f in file /home/acme/model.py.",
          "skip function $(f) in file $(/home/acme/model.py).py.");
    R = keep;
}

static void test_url(void **state)
{
    (void)state;
    static const char doc[] = "{\"link\": {\"name\": \"compile_profile\", "
                              "\"url\": \"https://acme.example/private/run7\"}}";
    struct tl_arena a;
    tl_arena_init(&a, 4096);
    struct tl_json v;
    assert_int_equal(tl_json_parse(&a, doc, sizeof(doc) - 1, &v, NULL), 0);
    tl_redact_json(&R, &a, &v, NULL);
    struct tl_buf out = TL_BUF_INIT;
    tl_json_write_compact(&out, &v);
    char *want =
        expect("{\"link\":{\"name\":\"$(compile_profile)\","
               "\"url\":\"https://redacted.invalid/$(https://acme.example/private/run7)\"}}");
    assert_string_equal(out.buf, want);
    free(want);
    tl_buf_release(&out);
    tl_arena_release(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash),  cmocka_unit_test(test_messages), cmocka_unit_test(test_code),
        cmocka_unit_test(test_paths), cmocka_unit_test(test_url),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
