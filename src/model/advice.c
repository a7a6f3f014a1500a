/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The diagnosis rules (advice.h): one table per symptom, matched in order by substrings of
 * the text a log gives, each with its explanation and fix. The texts follow PyTorch's
 * torch.compile troubleshooting guide and its dynamic-shapes debugging guide.
 */
#include "base/config.h"
#include "model/advice.h"

#include <string.h>

#define MAX_ANY 8

/* Matches a substring cannot express. */
enum {
    NO_TEST = 0,
    CONST_COMPARE = 1,   /* it compares something with a literal: x == 0.5 */
    TWO_SYMBOLS = 2,     /* it says two sizes are equal: Eq(s1, s2) */
    STRING_COMPARE = 3,  /* it compares something with a string literal: x == 'relu' */
    SIZE_RANGE = 4,      /* it bounds a size: L['x'].size()[0] <= 8, 2 <= x.size()[0] <= 8 */
    EQ_FLOORDIV = 5,     /* an equation with a floor division: Eq(s0, 2*((s0//2))) */
    LOCAL_IDENTITY = 6,  /* the identity of an argument itself: ___check_obj_id(L['mask'], 9) */
    GLOBAL_IDENTITY = 7, /* a global itself: ___check_obj_id(G['F'], 9), G['F'] == True */
    BOOL_COMPARE = 8,    /* it compares something with True or False: flag == True */
    /* an out-of-resource error of a max-autotune template kernel (triton_tem_...) */
    TEMPLATE_OUT_OF_RESOURCES = 9,
    MODULE_NUMBER = 10, /* an int on the module compared with a literal: self.step == 3 */
};

struct rule {
    const char *any[MAX_ANY]; /* matches when the text holds one of these (none: always) */
    int test;                 /* ... or passes this test */
    struct tl_advice advice;
};

/* ---- the rules ---------------------------------------------------------------------------- */

static const struct rule guard_rules[] = {
    /* Not a guard's text either: the same for a Python number (before the rule above it,
     * whose text it holds). */
    {{TL_ADVICE_AUTOMATIC_DYNAMIC_NUMBER},
     NO_TEST,
     {"automatic_dynamic", "A Python number changed once, and became dynamic",
      "This is automatic dynamic shapes at work: the code was compiled for one value "
      "({expr}); the first call with another value compiles the function once more, with the "
      "number as a symbolic input, and later values reuse that code.",
      "Nothing to do. To skip even this one recompile, pass the number as a 0-d tensor, or "
      "compile with dynamic=True so that numbers and sizes are dynamic from the first call."}},
    {{TL_ADVICE_AUTOMATIC_DYNAMIC_FLOAT},
     NO_TEST,
     {"automatic_dynamic", "A Python number changed once, and became dynamic",
      "This is automatic dynamic shapes at work: the code was compiled for one value "
      "({expr}); the first call with another value compiles the function once more, with the "
      "float as a symbolic input, and later values reuse that code.",
      "Nothing to do. To skip even this one recompile, pass the float as a 0-d tensor. "
      "compile(dynamic=True) makes a float dynamic from the first call in recent PyTorch "
      "(2.13), not in 2.6."}},
    /* Not a guard's text: what the diagnosis matches a recompile on when it is automatic
     * dynamic shapes at work (tl_diag_finish): a size changed once, and the recompile made the
     * dimension dynamic. */
    {{TL_ADVICE_AUTOMATIC_DYNAMIC},
     NO_TEST,
     {"automatic_dynamic", "A size changed once, and the dimension became dynamic",
      "This is automatic dynamic shapes at work: the first call with another size of "
      "{tensor}'s dimension {index} compiles the function once more, with that dimension "
      "dynamic; later sizes reuse that code.",
      "Nothing to do. To skip even this one recompile, mark the dimension dynamic before the "
      "first call: torch._dynamo.mark_dynamic({tensor}, {index})."}},
    /* Not a guard's text: a size change of a dimension a parameter fixes (tl_diag_finish) */
    {{TL_ADVICE_PARAMETER_SHAPE},
     NO_TEST,
     {"parameter_shape", "A size that a module's parameter fixes changed between calls",
      "{tensor}'s dimension {index} must equal the size of a parameter it meets inside "
      "PyTorch's module code (its specialization is listed), so every new size compiles "
      "again: automatic dynamic shapes and mark_dynamic cannot make it dynamic. This is what "
      "compiling each layer of a model separately costs when the layers differ in width.",
      "Compile the whole model once (torch.compile(model)) rather than each layer, so that one "
      "graph holds every layer; or, if the widths are a small known set, raise the recompile "
      "limit to their number (torch._dynamo.config.recompile_limit, named cache_size_limit "
      "before PyTorch 2.7)."}},
    /* Not a guard's text: a size change on a dimension that a compile of the frame had
     * specialized to the size expected (tl_diag_finish). */
    {{TL_ADVICE_SPECIALIZED_SHAPE},
     NO_TEST,
     {"specialized_then_changed", "A size changed on a dimension a compile had specialized",
      "{tensor}'s dimension {index} had become dynamic, but a compile of this function "
      "specialized it to a constant again (the specialization is listed, with its line), so a "
      "later call with another size compiled the function once more. Marking it with "
      "mark_dynamic({tensor}, {index}) alone would turn that specialization into an error.",
      "Fix the listed specialization: the operation that needs the exact size (when it meets "
      "another input whose size is static, mark that input's dimension dynamic too, or compile "
      "with dynamic=True). Then the dimension stays dynamic and these recompiles go away."}},
    {{"size mismatch"},
     NO_TEST,
     {"shape_changed", "A tensor's shape changed between calls",
      "The compiled code is specialized to the size that dimension had before; a call with "
      "another size compiles the function again.",
      "Mark the dimension dynamic before the first call: torch._dynamo.mark_dynamic({tensor}, "
      "{index}); or compile with dynamic=True. If only a few sizes occur, pad or bucket the "
      "inputs to those sizes."}},
    {{"stride mismatch"},
     NO_TEST,
     {"layout_changed", "A tensor's memory layout (its strides) changed between calls",
      "A transposed, sliced or channels-last tensor has other strides than a fresh one, and "
      "the compiled code is specialized to the strides it saw.",
      "Give the function inputs of one layout on every call: call .contiguous() (or one "
      "memory format) before it."}},
    {{"dtype mismatch"},
     NO_TEST,
     {"dtype_changed", "A tensor's dtype changed between calls",
      "The compiled code is specialized to a dtype; another dtype compiles it again.",
      "Convert the input to one dtype before calling the compiled function (for example "
      "x.to(torch.float32)), or compile one function per dtype on purpose."}},
    {{"device mismatch"},
     NO_TEST,
     {"device_changed", "A tensor moved to another device between calls",
      "The compiled code is specialized to a device; another device compiles it again.",
      "Keep the inputs on one device, or compile one function per device on purpose."}},
    {{"requires_grad mismatch"},
     NO_TEST,
     {"requires_grad_changed", "A tensor's requires_grad changed between calls",
      "Training and inference need different graphs, so a change of requires_grad compiles "
      "again.",
      "Call the function with inputs that either require grad on every call or never; use "
      "separate compiled functions for training and for inference."}},
    /* "GLOBAL_STATE changed: autocast(cpu)_enabled" (2.13); 2.6 sees autocast as another
     * dispatch key set of the inputs: "... actual DispatchKeySet(CPU, ..., AutocastCPU)" */
    {{"autocast", "Autocast"},
     NO_TEST,
     {"autocast_changed", "Autocast was on for some calls and off for others",
      "The compiled code is specialized to the autocast state around the call (on or off, "
      "and its dtype): each state compiles its own graph.",
      "Call the compiled function always inside the same torch.autocast region, or put the "
      "torch.autocast block inside the compiled function, where it is part of the graph."}},
    {{"grad_mode", "is_grad_enabled"},
     NO_TEST,
     {"grad_mode_changed", "Grad mode changed between calls",
      "The compiled code is specialized to grad mode: a call under torch.no_grad() or "
      "torch.inference_mode() after calls with autograd on (or the reverse) compiles a second "
      "graph. In a train/eval loop this is expected: one graph for training, one for "
      "evaluation, and both are kept.",
      "Nothing to do if it compiled once for each mode: both graphs stay in the cache, and "
      "later switches between training and evaluation reuse them."}},
    {{"___check_global_state", "GLOBAL_STATE"},
     NO_TEST,
     {"global_state_changed", "Global state changed between calls",
      "A global setting the compiled code depends on (the default dtype, deterministic "
      "algorithms, a torch function mode) was different from the call the code was compiled "
      "for.",
      "Keep that setting the same around every call of the compiled function: set the default "
      "dtype and the like once, before the first call."}},
    /* The identity guards that are not about an object of the user's: a module's training
     * flag (2.6 guards bools by identity: "___check_obj_id(L['self'].training, 1052)"; 2.13
     * writes "self.training == True"), an optional argument None one time (2.13 "mask is
     * None"), a bool switch at module level. */
    {{".training,", ".training ==", ".training)", "'training'"},
     NO_TEST,
     {"train_eval_mode", "The model switched between training and evaluation mode",
      "The compiled code reads a module's training flag ({expr}), through dropout, batch norm "
      "or an `if self.training:` of yours; model.train() and model.eval() flip it, and each mode "
      "gets a graph of its own: one compilation for training and one for evaluation, both "
      "kept and reused afterwards.",
      "Nothing to do: two graphs, one per mode, is what a train/eval loop costs. It is a "
      "problem only if the flag keeps flipping while the function recompiles (a submodule "
      "switched to eval() on its own, train() or eval() called inside the compiled step): "
      "call train() and eval() outside the compiled function, on the whole model."}},
    {{" is None", " is not None"},
     LOCAL_IDENTITY,
     {"optional_argument", "An optional argument was None on one call and not on another",
      "The compiled code was specialized to {expr} being None (Dynamo guards None and bools "
      "by identity); a call that passes a tensor instead, or leaves it out after passing it, "
      "takes the other branch of `if {expr} is None`. Each pattern of given and missing "
      "optional arguments compiles once and is reused.",
      "Nothing to do if only a few patterns occur (with and without a mask, say). If it "
      "matters, pass a tensor on every call: a mask of all True, a bias of zeros, so that one "
      "graph serves every call."}},
    {{NULL},
     GLOBAL_IDENTITY,
     {"global_flag", "A module-level flag changed between calls",
      "The compiled code reads a global variable ({expr}) that holds a bool, None or an "
      "object, and bakes it into the graph as a constant: the branch it selects is compiled, "
      "the other is not. Changing it compiles the function again (each value once; later "
      "calls reuse them).",
      "Nothing to do if it is a switch set once or flipped a few times. To change it freely, "
      "make it an argument of the function (a bool argument still compiles once per value), "
      "or a tensor used with torch.where(flag, a, b) or torch.cond so that one graph serves "
      "both values."}},
    {{NULL},
     BOOL_COMPARE,
     {"bool_argument", "A bool argument is baked into the graph",
      "The function takes a Python bool ({expr}) and Dynamo compiles the branch it selects: "
      "each of True and False compiles once, and later calls reuse them.",
      "Nothing to do if it takes both values now and then (a mode switch). If one graph must "
      "serve both, pass a bool tensor and select with torch.where(flag, a, b) or torch.cond."}},
    {{"___check_obj_id", "ID_MATCH", "___check_torch_function_mode"},
     NO_TEST,
     {"object_identity", "The function got a different Python object",
      "It depends on one particular object (a module, a function, a default argument) and "
      "another one was passed: a mutable default argument, a lambda, a list or a module "
      "created on each call changes identity every time.",
      "Reuse the same object on every call: create it once, outside the call; pass data as "
      "tensors rather than as new Python objects."}},
    {{"___check_type_id", "TYPE_MATCH", "type("},
     NO_TEST,
     {"type_changed", "An argument's Python type changed between calls",
      "For example a bool one time and an int the next, a list then a tuple, or a tensor "
      "subclass: each type compiles its own code.",
      "Pass arguments of the same type on every call."}},
    {{"['lr']", "[\"lr\"]", ".lr =="},
     NO_TEST,
     {"lr_as_constant", "The learning rate is baked into the graph as a constant",
      "A learning-rate scheduler changes the optimizer's lr, a Python float, on every step; "
      "each new value compiles the optimizer step again.",
      "Wrap the learning rate in a tensor: torch.optim.Adam(params, lr=torch.tensor(0.01)); "
      "the scheduler then updates it in place and the step compiles once."}},
    {{"len("},
     NO_TEST,
     {"length_changed", "The length of a list, tuple or dict changed between calls",
      "The compiled code unrolls loops over such containers and is specialized to their "
      "length.",
      "Pass containers of one length, or stack the items into one tensor."}},
    {{"G['", "G[\""},
     NO_TEST,
     {"global_changed", "A module-level variable changed between calls",
      "The compiled code reads a global variable ({expr}) and bakes its value in as a "
      "constant; when it changes, the function compiles again.",
      "Pass the value as an argument (as a tensor if it changes often), or keep it constant."}},
    {{"___stack"},
     NO_TEST,
     {"carried_value", "A value carried across a graph break is baked into the code after it",
      "The code after a graph break (a resume function) receives what the code before it "
      "computed: here a Python value ({value}), typically a number read with .item() right "
      "before the break. Dynamo specializes the resumed code to that value, so a new value "
      "compiles it again.",
      "Fix the graph break before it, so the value stays inside one graph: for .item(), set "
      "torch._dynamo.config.capture_scalar_outputs = True, or keep the value a tensor (no "
      ".item()). Passing it as a tensor is not possible: it is not an argument of yours."}},
    {{NULL},
     SIZE_RANGE,
     {"size_branch", "A size outside the range the code was compiled for",
      "The dimension is dynamic, but the code branches on its size (an `if` on x.shape[0], a "
      "comparison with a constant): the compiled code holds only for the sizes on the side of "
      "the branch it saw ({expr}), so the first size on the other side compiles the function "
      "once more, and later sizes reuse one of the graphs.",
      "Nothing to do if the branch has a few sides: each compiles once. For one graph for "
      "every size, write the branch with tensor operations (torch.where, or torch.cond for "
      "whole branches). Marking the dimension dynamic does not help: it is dynamic already."}},
    {{NULL},
     STRING_COMPARE,
     {"constant_string", "A string argument is baked into the graph",
      "The function uses a Python string ({expr}), and each value it takes compiles its own "
      "code. That is expected when it takes a few values (a mode such as 'relu' or 'tanh'): "
      "each compiles once and is reused.",
      "Nothing to do if it takes a few values. If it changes often (a name built per call, a "
      "file name), keep it out of the compiled function, or map it to a small set of values "
      "before the call."}},
    {{NULL},
     MODULE_NUMBER,
     {"module_number", "An int kept on the module is baked into the graph",
      "The module's forward reads a Python int stored on the module ({expr}), such as a "
      "step counter, and Dynamo specializes the graph to its value. PyTorch 2.7 on never makes "
      "such an attribute dynamic (torch._dynamo.config.allow_unspec_int_on_nn_module is "
      "False), so each new value compiles again, up to the recompile limit; older versions "
      "make it dynamic after one recompile, and code that branches on it (min, if) then "
      "compiles once for each side.",
      "Keep the number in a tensor on the module: self.register_buffer(\"step\", "
      "torch.zeros((), dtype=torch.long)) and self.step += 1 update it in place, and one graph "
      "serves every value; or set torch._dynamo.config.allow_unspec_int_on_nn_module = True "
      "(PyTorch 2.7 on)."}},
    /* 2.13: "___dict_contains('labels', batch)" */
    {{"___dict_contains"},
     NO_TEST,
     {"dict_keys_changed", "A dict argument had a key on one call and not on another",
      "The code checks for a key ({expr}): a batch with labels for training and without for "
      "inference, say. Each set of keys compiles its own graph once, and later calls reuse "
      "it.",
      "Nothing to do if a few sets of keys occur. Otherwise pass the same keys on every call "
      "(a placeholder tensor where the value is missing)."}},
    {{NULL},
     CONST_COMPARE,
     {"constant_number", "A Python number is baked into the graph as a constant",
      "The function takes a plain Python number ({expr}) and dynamo specializes the graph to "
      "its value. A number that changes normally becomes dynamic after one recompile "
      "(automatic dynamic shapes); this one stayed a constant, so each new value compiles "
      "again: automatic dynamic shapes are off (torch._dynamo.config.automatic_dynamic_shapes "
      "= False), or the code needs its exact value (Python control flow on it, range(), a "
      "size).",
      "Pass it as a tensor (torch.tensor({value})) and change that tensor in place; if "
      "automatic_dynamic_shapes is off, turn it back on; if the code branches on the number, "
      "make the branch a tensor operation (torch.where)."}},
    {{NULL},
     NO_TEST,
     {"guard_failed", "A guard of the compiled code failed",
      "Something the compiled code depends on (an input's shape, type or value, or a global) "
      "was different on this call.",
      "Find what the guard checks and keep it the same between calls, or make it an input "
      "the code does not specialize on (a tensor, a dimension marked dynamic)."}},
};

static const struct rule break_rules[] = {
    /* Not a reason's text: what the diagnosis matches a break on when Dynamo skipped its
     * whole frame because the break is inside a for/while loop (tl_diag_finish). */
    {{TL_ADVICE_LOOP_BREAK},
     NO_TEST,
     {"graph_break_in_loop", "A graph break inside a loop: the whole function ran in eager mode",
      "Dynamo cannot resume in the middle of a for/while loop, so a graph break inside one "
      "makes it skip the whole frame: nothing of this function was compiled, and it runs in "
      "eager mode on every call (the functions it calls may still be compiled). The break "
      "inside the loop (its reason is shown) is the cause.",
      "Remove that break (its reason says what Dynamo could not trace), or move the call that "
      "breaks out of the loop, before or after it. Otherwise put the loop body in a function "
      "of its own: the loop then runs in Python and the body compiles, with an ordinary graph "
      "break."}},
    /* Not a reason's text: a frame Dynamo gave up on after a graph break it could not handle
     * ("Graph break: skip:"), so the whole function ran in eager mode. */
    {{TL_ADVICE_SKIPPED_FRAME},
     NO_TEST,
     {"frame_skipped", "Dynamo gave up on the function: it ran in eager mode",
      "Tracing stopped with an error that Dynamo treats as a graph break it cannot split the "
      "function at (the reason says which), so it skipped the whole frame: nothing of it was "
      "compiled, and it runs in eager mode on every call. This is no failure of your program "
      "(no exception reached it), but the function gets none of torch.compile's speed.",
      "Fix what the reason names, at the line of yours shown: for a value read into Python "
      "(.item(), .tolist()) keep it a tensor or set "
      "torch._dynamo.config.capture_scalar_outputs = True; otherwise move the call out of the "
      "compiled function. fullgraph=True turns such a skip into an error that shows where it "
      "comes from."}},
    {{"ignore_logging_functions"},
     NO_TEST,
     {"logger_call", "A logging call inside the compiled function",
      "Dynamo does not trace the methods of a logging.Logger (logger.info(...)), so each such "
      "call splits the graph.",
      "Tell Dynamo to drop these calls while tracing: "
      "torch._dynamo.config.ignore_logging_functions = {logging.Logger.info} (the methods you "
      "call; the old name ignore_logger_methods still works); they then do not run inside "
      "compiled code. To keep the messages, log outside the compiled function."}},
    {{"Logger not supported", "logging.Logger", "Logger method", "ignore_logger_methods"},
     NO_TEST,
     {"logger_call", "A logging call inside the compiled function",
      "Dynamo does not trace the methods of a logging.Logger (logger.info(...)), so each such "
      "call splits the graph.",
      "Tell Dynamo to drop these calls while tracing: "
      "torch._dynamo.config.ignore_logger_methods = {logging.Logger.info} (the methods you "
      "call); they then do not run inside compiled code. To keep the messages, log outside "
      "the compiled function."}},
    {{"torch._dynamo.disable() wrapped", "torch.compiler.disable()`d", "torch.compiler.disable`",
      "_dynamo.disable()`d"},
     NO_TEST,
     {"disabled_function", "A function disabled for torch.compile on purpose is called here",
      "The function {callee} is decorated with torch.compiler.disable (or "
      "torch._dynamo.disable): someone "
      "chose to keep it out of compilation. It runs in eager mode, and the graph breaks "
      "around the call.",
      "Nothing to do if that is what was meant: the break costs one more graph. If it should "
      "be compiled, remove the decorator (find why it was put there first); if it was "
      "disabled because Dynamo cannot trace it, wrap it as a custom operator "
      "(torch.library.custom_op) so that it stays inside the graph, or call it outside the "
      "compiled function."}},
    {{"Tensor.item", ".item()", "item()", "capture_scalar_outputs", "_local_scalar_dense",
      "Dynamic shape operator"},
     NO_TEST,
     {"item_call", "A tensor's value is read into Python (.item(), .tolist(), int(t))",
      "Dynamo cannot know the number while tracing, so it stops the graph there.",
      "Keep the value a tensor; or set torch._dynamo.config.capture_scalar_outputs = True so "
      ".item() is traced as a symbolic number (tell dynamo what you know about it with "
      "torch._check)."}},
    {{"Data-dependent", "data-dependent", "Data dependent", "data dependent", "generic_jump",
      "jump"},
     NO_TEST,
     {"data_dependent_branch", "Python control flow depends on a tensor's value",
      "A branch like `if x.sum() > 0:` needs the value of a tensor, which is unknown while "
      "tracing.",
      "Express the branch on tensors: torch.where(cond, a, b), or torch.cond(pred, true_fn, "
      "false_fn) for whole branches; if the condition is an invariant, assert it with "
      "torch._check."}},
    {{"graph_break()", "skip function graph_break", "graph_break in file"},
     NO_TEST,
     {"user_graph_break", "A graph break written in the code",
      "torch._dynamo.graph_break() splits the graph on purpose.",
      "Remove the torch._dynamo.graph_break() call if it is no longer needed."}},
    {{"builtin: print", "print(", "operator `print`"},
     NO_TEST,
     {"print", "A print() in the compiled function",
      "Printing is a side effect that dynamo does not put in a graph.",
      "Remove the print, print outside the compiled function, or use "
      "torch._dynamo.comptime.print() while debugging."}},
    {{"Tensor.backward", "backward()"},
     NO_TEST,
     {"backward_in_compiled", "Tensor.backward() is called inside the compiled function",
      "Dynamo does not trace the backward call itself.",
      "Compile the model's forward and loss, not the whole training step, and call "
      "loss.backward() outside; or turn on compiled autograd "
      "(torch._dynamo.config.compiled_autograd = True) to compile the backward too."}},
    {{"builtin: open", "open(", "input(", "socket", "operator `open`", "operator `input`"},
     NO_TEST,
     {"io", "File or other I/O inside the compiled function",
      "Reading or writing files cannot be part of a graph.",
      "Move the I/O out of the compiled function and pass its result in."}},
    {{"deepcopy"},
     NO_TEST,
     {"deepcopy", "copy.deepcopy inside the compiled function",
      "Dynamo does not trace copy.deepcopy.",
      "Copy outside the compiled function; inside it, clone tensors with t.clone()."}},
    {{"generator", "Generator"},
     NO_TEST,
     {"generator", "A Python generator inside the compiled function",
      "Dynamo does not trace every use of generators.",
      "Build a list instead of a generator, or move the generator out of the compiled "
      "function."}},
    {{"context manager", "GenericContextWrappingVariable", "ContextWrappingVariable"},
     NO_TEST,
     {"context_manager", "A context manager that does not support graph breaks",
      "A graph break happened inside a context manager that dynamo cannot split.",
      "Move the context manager outside the compiled region, or remove the graph break "
      "inside it."}},
    {{"C/C++ Python extension", "pybind", "third-party C"},
     NO_TEST,
     {"c_extension", "A C/C++ extension function is called in the compiled function",
      "Dynamo cannot see inside compiled extension code, so it stops the graph there.",
      "Wrap the function as a custom operator (torch.library.custom_op, with a fake "
      "implementation for shapes) so it becomes part of the graph; if it is traceable, "
      "torch.compiler.allow_in_graph; or call it outside the compiled function."}},
    {{"TypeError", "ValueError", "AttributeError", "KeyError", "IndexError"},
     NO_TEST,
     {"user_error", "Tracing your code raised a Python error",
      "The call is wrong as written: it would fail without torch.compile too.",
      "Fix the call named in the reason."}},
    {{"skip function", "marked as skipped", "skip_files", "skipped", "SkipFunctionVariable"},
     NO_TEST,
     {"skipped_function", "A function dynamo is told not to trace",
      "The function is on dynamo's skip list (often a C extension or a library that is not "
      "traceable).",
      "If it is safe to put in a graph, allow it with torch.compiler.allow_in_graph; wrap it "
      "as a custom op (torch.library.custom_op); or call it outside the compiled function."}},
    {{"numpy", "np."},
     NO_TEST,
     {"numpy", "A NumPy call dynamo cannot trace",
      "Dynamo traces a subset of NumPy; this call is outside it.",
      "Use the torch equivalent, or move the NumPy call out of the compiled function."}},
    {{"builtin", "call_function", "C function", "non-Tensor", "torch.*"},
     NO_TEST,
     {"unsupported_call", "A call dynamo cannot put in a graph",
      "A builtin, a C function or a torch function that returns something other than tensors "
      "cannot be traced.",
      "Replace it with a torch operation, or move it out of the compiled function."}},
    {{NULL},
     NO_TEST,
     {"unsupported", "Dynamo could not trace an operation",
      "It stopped the graph before this operation and went on after it.",
      "Read the reason and the graph-break site page it links (if any); rewrite the "
      "operation with torch operations, or move it out of the compiled function."}},
};

static const struct rule shape_rules[] = {
    /* Not a guard's text: a dimension specialized in PyTorch's nn.Module code (tl_diag_finish) */
    {{TL_ADVICE_PARAMETER_SHAPE},
     NO_TEST,
     {"parameter_shape", "A size fixed by a module's parameter",
      "Inside PyTorch's module code ({expr}), this dimension meets a parameter (a Linear's "
      "in_features, a convolution's channels), and parameters have static shapes: the size "
      "must equal the parameter's, so the dimension is fixed by the model, not by the data.",
      "Do not mark this dimension dynamic: it cannot stay dynamic. If layers of different "
      "widths run the same compiled function (each compiled on its own), each width compiles "
      "once: compile the whole model once instead (torch.compile(model)), or raise the "
      "recompile limit to the number of widths (torch._dynamo.config.recompile_limit, named "
      "cache_size_limit before PyTorch 2.7)."}},
    /* Not a guard's text: what the diagnosis matches a guard on a size's range on when a
     * recompile shows that sizes outside it came (tl_diag_finish). */
    {{TL_ADVICE_SIZE_BRANCH},
     NO_TEST,
     {"size_branch", "A branch on a dynamic size: the code holds for one side of it",
      "The code compares this dynamic size with a constant ({expr}), as an `if` on x.shape[0] "
      "does: the compiled code holds only for the sizes on that side, and a size on the other "
      "side compiled the function again (its recompile is listed).",
      "Nothing to do if the branch has a few sides: each compiles once, and later sizes reuse "
      "them; the recompile's fix says how to have one graph instead."}},
    {{"duck sized"},
     NO_TEST,
     {"duck_sizing", "Two dimensions share one symbol because their sizes were equal",
      "Dynamo assumes dimensions that had the same size stay equal (duck sizing).",
      "If they can differ, turn duck sizing off "
      "(torch.fx.experimental._config.use_duck_shape = False) or mark them dynamic "
      "separately."}},
    {{"2 <=", ">= 2"},
     NO_TEST,
     {"zero_one_specialization", "A dynamic size is assumed to be at least 2",
      "Sizes 0 and 1 are special-cased: the compiled code assumes this dimension is at least "
      "2 ({expr}), and a size of 0 or 1 compiles again.",
      "If sizes 0 or 1 occur, mark the dimension with torch._dynamo.mark_unbacked(x, dim) and "
      "state what holds with torch._check(x.size(dim) >= 0), instead of mark_dynamic."}},
    {{NULL},
     TWO_SYMBOLS,
     {"dimensions_equal", "Two dynamic sizes must be equal",
      "The code needs these sizes to be the same ({expr}), for example the inner dimensions "
      "of a matrix product; the compiled code holds only while they are.",
      "Nothing to do if they are always equal. If they can differ, the operation that needs "
      "them equal would fail in eager mode too."}},
    {{"Mod("},
     EQ_FLOORDIV,
     {"divisibility_guard", "A dynamic size must divide evenly",
      "The code needs this size to be a multiple of a number ({expr}), for example a view or "
      "reshape that splits it into equal parts; the dimension stays dynamic, and the compiled "
      "code holds for every size that divides evenly.",
      "Nothing to do if the size always divides evenly; a size that does not would fail in "
      "eager mode too, or compile again if the code takes another path for it."}},
    {{"Eq("},
     CONST_COMPARE,
     {"dimension_specialized", "A dynamic dimension was specialized to one value",
      "The code needs this size's exact value ({expr}): a hard-coded size in view or reshape, "
      "Python arithmetic on the size, int() of it, or an operation with another tensor whose "
      "matching size is static (an elementwise product, cat or matmul with an input of size "
      "{value}) turns the dynamic dimension into the constant {value}.",
      "Make that operation work with any size (-1 in view/reshape, sizes taken from "
      "x.size(), no int() of sizes); when the other operand is an input of static size "
      "{value}, mark its dimension dynamic too (torch._dynamo.mark_dynamic(t, dim)) or "
      "compile with dynamic=True. Find the operation with "
      "TORCHDYNAMO_EXTENDED_DEBUG_GUARD_ADDED=\"{expr}\". If the size is really constant, do "
      "not mark it dynamic."}},
    {{NULL},
     NO_TEST,
     {"shape_guard", "A guard on dynamic sizes",
      "The compiled code holds only while this relation between sizes holds ({expr}).",
      "Nothing to do if the relation always holds; otherwise make the code independent of "
      "it."}},
};

static const struct rule failure_rules[] = {
    /* Not a failure's text: an Unsupported error of a frame that ran in eager mode (no
     * fullgraph=True made it an error), tl_diag_finish. */
    {{TL_ADVICE_SKIPPED_FRAME},
     NO_TEST,
     {"frame_skipped", "Dynamo gave up on the function: it ran in eager mode",
      "Tracing stopped with an error that Dynamo treats as a graph break it cannot split the "
      "function at (the reason says which), so it skipped the whole frame: nothing of it was "
      "compiled, and it runs in eager mode on every call. No exception reached your program, "
      "but the function gets none of torch.compile's speed.",
      "Fix what the reason names, at the line of yours shown, or move that call out of the "
      "compiled function. Compiling with fullgraph=True turns such a skip into an error with "
      "its full traceback."}},
    {{"DataDependentOutputException", "_local_scalar_dense"},
     NO_TEST,
     {"data_dependent_output",
      "A value read into Python (.tolist(), .item()) made the compiler fail: it ran in eager mode",
      "Dynamo traced the read of a tensor's values into the graph (it always does for "
      ".tolist() of an integer tensor), but the backend (AOT autograd, under Inductor) cannot "
      "produce a number that depends on the data unless scalar outputs are captured. The "
      "compilation failed, and Dynamo ran the frame in eager mode instead (no error reached "
      "your program): nothing of the function is compiled, nor of the functions on the way "
      "to that line, each of which failed the same way.",
      "Set torch._dynamo.config.capture_scalar_outputs = True, so that such values become "
      "symbolic numbers the compiler handles (tell it what you know about them with "
      "torch._check); or compute the values before calling the compiled function and pass "
      "them in."}},
    {{NULL},
     TEMPLATE_OUT_OF_RESOURCES,
     {"autotune_out_of_resources",
      "A max-autotune matmul template needs more GPU memory than the device has",
      "max-autotune generates Triton templates for the matrix multiplications (kernels named "
      "triton_tem_...) with block sizes and pipeline stages tuned for larger GPUs; the one "
      "chosen here needs more shared memory (or registers) than this GPU offers, and Triton "
      "refused to build it.",
      "Leave the matmuls to cuBLAS and keep the rest of max-autotune: "
      "torch._inductor.config.max_autotune_gemm_backends = \"ATEN\" (or "
      "torch._inductor.config.max_autotune_gemm = False); or compile with the default mode. "
      "A newer PyTorch skips template configs that do not fit the device."}},
    {{"OutOfResources", "out of resource"},
     NO_TEST,
     {"triton_out_of_resources", "A Triton kernel needs more GPU memory than the device has",
      "Triton could not build a kernel Inductor generated: its block sizes and pipeline "
      "stages need more shared memory (or registers) than this GPU offers (the reason gives "
      "both numbers). Under mode=\"max-autotune\" it is most often a matmul template (a "
      "kernel named triton_tem_...) tuned for a larger GPU.",
      "Under max-autotune, leave the matmuls to cuBLAS: "
      "torch._inductor.config.max_autotune_gemm_backends = \"ATEN\", or compile with the "
      "default mode. Otherwise report it with this log (TORCHDYNAMO_REPRO_AFTER=\"aot\" "
      "writes a small repro)."}},
    {{"backend='inductor'", "backend=\"inductor\""},
     NO_TEST,
     {"backend_failed", "The compiler backend raised an error",
      "Dynamo captured the graph, and Inductor, the backend, failed on it.",
      "Run with backend=\"aot_eager\" to see whether the error is in Inductor, and report it "
      "with this log; TORCHDYNAMO_REPRO_AFTER=\"aot\" writes a small repro."}},
    {{"BackendCompilerFailed"},
     NO_TEST,
     {"backend_failed", "The compiler backend raised an error",
      "Dynamo captured the graph, and {backend} failed on it: the error is the backend's, "
      "not in your code's tracing.",
      "Read the backend's error above; run with backend=\"eager\" to confirm the graph "
      "itself runs, then fix {backend} or report the error to its authors with this log."}},
    {{"Dynamic control flow is not supported", "control_flow.cond", "data-dependent control",
      "Data-dependent control"},
     NO_TEST,
     {"export_control_flow", "Export met Python control flow on a tensor's value",
      "A branch such as `if x.sum() > 0:` depends on the data, and torch.export must produce "
      "one graph for every input, so it cannot pick a side while tracing.",
      "Write the branch with torch.cond(pred, true_fn, false_fn) (both functions take the "
      "same operands and return tensors of the same shapes), or torch.where(pred, a, b) for "
      "an element-wise choice; if the condition is the same for every input, compute it "
      "outside the model."}},
    {{"ConstraintViolation", "Constraints violated"},
     NO_TEST,
     {"dynamic_constraint_violated", "A dimension marked dynamic had to be specialized",
      "You marked a dimension dynamic (torch._dynamo.mark_dynamic, or a Dim in export), and "
      "the code needs it to be one value or in a narrower range: the reason names the "
      "dimension and what it was inferred to be. Dynamo refuses to compile rather than "
      "silently specialize it.",
      "Find the line that specializes it (its specialization or shape guard is listed in "
      "this diagnosis): make that code work for any size (-1 in view/reshape, sizes from "
      "x.size(), no int() of sizes or comparisons with constants). If the dimension really "
      "is constant, do not mark it dynamic, or use torch._dynamo.maybe_mark_dynamic, which "
      "allows specialization."}},
    {{"RecompileLimitExceeded", "CacheLimitExceeded", "cache_size_limit", "recompile_limit"},
     NO_TEST,
     {"limit_exceeded", "The recompile limit stopped compilation",
      "The function recompiled too often; see its recompile reasons.",
      "Fix what makes the function compile again (its recompiles say which guard failed); "
      "raise the limit only when every compilation is wanted."}},
    {{"Unsupported"},
     NO_TEST,
     {"unsupported_fullgraph", "Dynamo could not trace the function",
      "With fullgraph=True (or in export) a graph break is an error.",
      "Remove the graph break (see its reason), or compile without fullgraph=True."}},
    {{NULL},
     NO_TEST,
     {"compile_failed", "Compilation failed", "An exception stopped the compilation of this frame.",
      "Read the exception; run with torch._dynamo.config.suppress_errors = False and "
      "TORCH_LOGS=\"+dynamo\" to see where it comes from."}},
};

static const struct rule limit_rules[] = {
    /* Not a limit's text: what the diagnosis matches a limit on when the log's config turns
     * automatic dynamic shapes off and sizes or numbers changed (tl_diag_finish). */
    {{TL_ADVICE_LIMIT_STATIC},
     NO_TEST,
     {"recompile_limit", "The recompile limit was hit: the function runs in eager mode now",
      "It was compiled {limit} times, and dynamo gave up on it; later calls are not compiled. "
      "The cause is in the log's config: torch._dynamo.config.automatic_dynamic_shapes = "
      "False. A size or a number that changes then stays a constant in every compilation "
      "instead of becoming dynamic after one recompile, so each new value compiles again, "
      "until the limit.",
      "Remove the line that sets torch._dynamo.config.automatic_dynamic_shapes = False (or "
      "mark the changing dimension dynamic with torch._dynamo.mark_dynamic); then one "
      "compilation serves every value. Raise torch._dynamo.config.{limit_name} instead only "
      "if the values are a small known set and each needs its own compiled code."}},
    {{NULL},
     NO_TEST,
     {"recompile_limit", "The recompile limit was hit: the function runs in eager mode now",
      "It was compiled {limit} times, and dynamo gave up on it; later calls are not compiled.",
      "Fix what makes it compile again: its recompiles are listed with the guard that failed "
      "and their own fix. Raise torch._dynamo.config.{limit_name} only when every compilation "
      "is wanted: a small known set of values or sizes, more of them than the limit."}},
};

static const struct rule frame_rules[] = {
    {{NULL},
     NO_TEST,
     {"many_compiles", "A function was compiled many times",
      "Each compilation costs time; so many suggest that something changes on every call, "
      "even below the recompile limit.",
      "Look at the reasons of its recompiles and keep what they name the same between "
      "calls."}},
};

/* A graph break whose innermost frame is PyTorch's own (matched on the break's reason). */
static const struct rule framework_break_rules[] = {
    {{"graph_break()", "skip function graph_break", "graph_break in file"},
     NO_TEST,
     {"framework_graph_break", "PyTorch breaks the graph here on purpose",
      "PyTorch's own code calls torch._dynamo.graph_break() ({inside}), reached from the "
      "line of yours shown. The optimizer's step does so around the parameter update (see "
      "the comment in torch/optim/optimizer.py): the update is compiled as a graph of its "
      "own.",
      "Nothing to do: you cannot remove it, and it costs one more graph, not a recompile. "
      "Compile the model's forward and the optimizer step as separate functions, as "
      "PyTorch's compiled-optimizer recipe does."}},
    {{NULL},
     NO_TEST,
     {"framework_break", "The graph breaks inside PyTorch's own code",
      "Dynamo could not trace a part of PyTorch ({inside}) that your line shown calls; the "
      "reason says what.",
      "Call that PyTorch API outside the compiled function, or look for a variant dynamo "
      "supports; a newer PyTorch may trace it. The break is not in your code, so you cannot "
      "remove it there."}},
};

/* A restart of dynamo's analysis that is no graph break (matched on the exception's name). */
static const struct rule restart_rules[] = {
    {{"TensorifyScalarRestartAnalysis"},
     NO_TEST,
     {"float_specialized", "A Python float could not become a tensor input, so it was baked in",
      "Dynamo first traced the float ({what}) as a symbol, to pass it to the graph as a 0-d "
      "tensor; it is used where a tensor cannot stand in for it (Python arithmetic, an "
      "argument that must be a Python number), so Dynamo restarted the analysis of the frame "
      "and specialized the graph to its value. This is a restart, not a graph break: the "
      "frame still compiles to one graph, but each new value of the float compiles it "
      "again.",
      "Nothing to do if the float keeps its value. If it changes between calls (a learning "
      "rate under a scheduler, a step size), pass it as a tensor: for an optimizer, "
      "lr=torch.tensor(0.01); for your own function, a 0-d tensor argument."}},
    {{"UnspecializeRestartAnalysis"},
     NO_TEST,
     {"module_unspecialized", "An nn.Module is traced without specializing on it",
      "Dynamo found that an nn.Module's attributes change (or that it is called in a way it "
      "cannot specialize on) and traced the frame again, treating the module as an ordinary "
      "object.",
      "Nothing to do; if the module's attributes change on purpose between calls, expect "
      "guards on them."}},
    {{"CompileCollectiveRestartAnalysis"},
     NO_TEST,
     {"collective_restart", "The analysis restarted to compile a collective",
      "Dynamo traced the frame again to put a distributed collective into the graph the "
      "same way on every rank.",
      "Nothing to do."}},
    {{NULL},
     NO_TEST,
     {"restart", "Dynamo restarted the analysis of a frame",
      "It traced the frame again for the reason shown; this is not a graph break.",
      "Nothing to do unless it happens on every call."}},
};

/* Matched on the name of the export problem's kind (diagnosis.c), not on the log's text: an
 * expression or a kernel's reason must not pick another kind's rule. */
static const struct rule export_rules[] = {
    {{"data_dependent"},
     NO_TEST,
     {"export_data_dependent", "Export could not decide a data-dependent condition",
      "Whether {expr} holds depends on the data (a number read with .item(), .tolist() or "
      "nonzero(), written u0, u1, ...), which export does not know while tracing. It ran the "
      "real kernels, specialized the graph to {value} (what the example inputs gave) and "
      "inserted a runtime assert: other inputs may fail it.",
      "If the outcome is the same for every input, say so before that line: {check}. If both "
      "outcomes occur, write the branch with torch.cond(pred, true_fn, false_fn)."}},
    {{"guard_evaluated"},
     NO_TEST,
     {"export_guard_evaluated", "Export evaluated a guard on a dynamic size",
      "The code needed to know whether {expr} holds, so export evaluated it. For a dimension "
      "marked dynamic (a Dim) this fixes it to one value or narrows its range, and export "
      "stops with a constraint violation.",
      "If the size really varies, remove what depends on it in the model (a branch or an "
      "assert on {dim}, a hard-coded size in view or reshape). Otherwise make the "
      "dimension's spec agree with the guard: widen or adjust the Dim's min and max, or use "
      "Dim.AUTO or Dim.DYNAMIC and let export infer it (Dim.STATIC if it is a constant)."}},
    {{"missing_fake_kernel"},
     NO_TEST,
     {"export_missing_fake_kernel", "A custom operator has no fake kernel",
      "torch.ops.{op} has no fake (meta) implementation, which export needs to know the "
      "shapes and dtypes of its outputs without running it. Draft export ran the real kernel "
      "instead and took the shapes of the example inputs' outputs.",
      "Register a fake kernel: a function decorated with "
      "@torch.library.register_fake(\"{qualname}\") that takes the operator's arguments and "
      "returns empty tensors of the right shape, dtype and device (torch.empty_like, "
      "x.new_empty; torch.library.get_ctx().new_dynamic_size() for sizes that depend on the "
      "data). How to write one: "
      "https://docs.google.com/document/d/1_W62p8WJOQQUzPsJYa7s701JXt0qf2OfLub2sbkHOaU/"
      "edit#heading=h.ahugy69p2jmz"}},
    {{"mismatched_fake_kernel"},
     NO_TEST,
     {"export_mismatched_fake_kernel",
      "A custom operator's fake kernel disagrees with its real kernel",
      "The fake kernel of torch.ops.{op} returns outputs whose shape, dtype or strides differ "
      "from what the real kernel returns (the reason says which), so the exported graph would "
      "describe the wrong tensors.",
      "Fix the fake kernel registered with @torch.library.register_fake(\"{qualname}\") so "
      "that it computes its outputs' metadata as the real kernel does; "
      "torch.library.opcheck(torch.ops.{op}, args) checks it. How to write one: "
      "https://docs.google.com/document/d/1_W62p8WJOQQUzPsJYa7s701JXt0qf2OfLub2sbkHOaU/"
      "edit#heading=h.ahugy69p2jmz"}},
    {{NULL},
     NO_TEST,
     {"export_problem", "A problem that stops a sound export",
      "The log reports a problem torch.export could not resolve on its own.",
      "Run torch.export.draft_export(model, args) for a report of every problem with its "
      "fix."}},
};

struct table {
    const struct rule *rules;
    size_t n;
};

static const struct table tables[] = {
    [TL_ADVICE_GUARD] = {guard_rules, TL_ARRAY_LEN(guard_rules)},
    [TL_ADVICE_GRAPH_BREAK] = {break_rules, TL_ARRAY_LEN(break_rules)},
    [TL_ADVICE_SHAPE] = {shape_rules, TL_ARRAY_LEN(shape_rules)},
    [TL_ADVICE_FAILURE] = {failure_rules, TL_ARRAY_LEN(failure_rules)},
    [TL_ADVICE_LIMIT] = {limit_rules, TL_ARRAY_LEN(limit_rules)},
    [TL_ADVICE_FRAME] = {frame_rules, TL_ARRAY_LEN(frame_rules)},
    [TL_ADVICE_EXPORT] = {export_rules, TL_ARRAY_LEN(export_rules)},
    [TL_ADVICE_FRAMEWORK_BREAK] = {framework_break_rules, TL_ARRAY_LEN(framework_break_rules)},
    [TL_ADVICE_RESTART] = {restart_rules, TL_ARRAY_LEN(restart_rules)},
};

/* ---- matching ----------------------------------------------------------------------------- */

static bool is_literal(struct tl_str s)
{
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
        s.n--;
    if (!s.n)
        return false;
    if (tl_str_eq_cstr(s, "True") || tl_str_eq_cstr(s, "False") || tl_str_eq_cstr(s, "None"))
        return true;
    if (s.p[0] == '\'' || s.p[0] == '"')
        return true;
    size_t i = 0;
    if (s.p[0] == '-')
        i++;
    bool digit = false;
    for (; i < s.n; i++) {
        char c = s.p[i];
        if (c >= '0' && c <= '9')
            digit = true;
        else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+')
            return false;
    }
    return digit;
}

/* "Eq(s1, s2)": a relation between two symbolic sizes. */
static bool two_symbols(struct tl_str text)
{
    long at = tl_str_find(text, "Eq(");
    if (at < 0)
        return false;
    const char *p = text.p + at + 3, *end = text.p + text.n;
    for (int k = 0; k < 2; k++) {
        if (p >= end || (*p != 's' && *p != 'u'))
            return false;
        p++;
        const char *d = p;
        while (p < end && *p >= '0' && *p <= '9')
            p++;
        if (p == d)
            return false;
        if (k == 0) {
            if (end - p < 2 || p[0] != ',' || p[1] != ' ')
                return false;
            p += 2;
        }
    }
    return p < end && *p == ')';
}

/* A bound on a size with a constant, no equation: "L['x'].size()[0] <= 8", "2 <= x.size()[0] <=
 * 8", "x.size()[1] > 3". */
static bool size_range(struct tl_str text)
{
    if (tl_str_find(text, ".size()[") < 0 || tl_str_find(text, "==") >= 0 ||
        tl_str_find(text, "!=") >= 0)
        return false;
    return tl_str_find(text, "<") >= 0 || tl_str_find(text, ">") >= 0;
}

/* "Eq(s0, 2*((s0//2)))": an equation a floor division is in (the size divides evenly). */
static bool eq_floordiv(struct tl_str text)
{
    return tl_str_has_prefix(text, "Eq(") && tl_str_find(text, "//") >= 0;
}

/* "L['mask']" or "G['FLAG']" (which: 'L' or 'G'): a variable itself, no attribute or item of
 * it. */
static bool plain_source(struct tl_str s, char which)
{
    if (s.n < 6 || s.p[0] != which || s.p[1] != '[' || (s.p[2] != '\'' && s.p[2] != '"') ||
        s.p[s.n - 1] != ']' || s.p[s.n - 2] != s.p[2])
        return false;
    for (size_t i = 3; i < s.n - 2; i++) {
        char c = s.p[i];
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9')))
            return false;
    }
    return s.n > 5;
}

/*
 * "___check_obj_id(SOURCE, ID)" of a variable itself (which 'L' an argument, 'G' a global)
 * whose ID is a static object of the interpreter: None, True or False, which Python keeps in
 * its executable's data, far below the heap's addresses (0x7f... on Linux, where a function or
 * a module lives). PyTorch 2.6 guards bools and None so.
 */
static bool singleton_identity(struct tl_str text, char which)
{
    long at = tl_str_find(text, "___check_obj_id(");
    if (at < 0)
        return false;
    struct tl_str rest = tl_str_make(text.p + at + 16, text.n - (size_t)at - 16);
    long comma = tl_str_find(rest, ", ");
    if (comma <= 0 || !plain_source(tl_str_make(rest.p, (size_t)comma), which))
        return false;
    const char *p = rest.p + comma + 2, *end = rest.p + rest.n;
    unsigned long long id = 0;
    const char *d = p;
    while (p < end && *p >= '0' && *p <= '9' && p - d < 20)
        id = id * 10 + (unsigned long long)(*p++ - '0');
    return p > d && p < end && *p == ')' && id < 0x700000000000ULL;
}

/* "G['FLAG'] == True" (False, None): PyTorch 2.13's spelling of a global bool or None. */
static bool global_constant(struct tl_str text)
{
    long at = tl_str_find(text, " == ");
    if (at < 0)
        return false;
    struct tl_str lhs = tl_str_make(text.p, (size_t)at);
    while (lhs.n && lhs.p[0] == ' ') {
        lhs.p++;
        lhs.n--;
    }
    struct tl_str rhs = tl_str_make(text.p + at + 4, text.n - (size_t)at - 4);
    return plain_source(lhs, 'G') &&
           (tl_str_has_prefix(rhs, "True") || tl_str_has_prefix(rhs, "False") ||
            tl_str_has_prefix(rhs, "None"));
}

/* "EXPR == LITERAL": where the literal starts, or -1. */
static long const_compare(struct tl_str text)
{
    long at = tl_str_find(text, " == ");
    if (at < 0)
        return -1;
    struct tl_str rhs = tl_str_make(text.p + at + 4, text.n - (size_t)at - 4);
    /* A trailing comment ("# elif is" in an old paste) is not part of the literal. */
    long hash = tl_str_find(rhs, " #");
    if (hash >= 0)
        rhs.n = (size_t)hash;
    return is_literal(rhs) ? at + 4 : -1;
}

/* s without its leading blanks */
static struct tl_str trim_left(struct tl_str s)
{
    while (s.n && (s.p[0] == ' ' || s.p[0] == '\t')) {
        s.p++;
        s.n--;
    }
    return s;
}

/* A literal of const_compare that is an int: 3, -1 (not a float, a string, a bool or None). */
static bool is_int(struct tl_str s)
{
    s = trim_left(s);
    long hash = tl_str_find(s, " #");
    if (hash >= 0)
        s.n = (size_t)hash;
    while (s.n && s.p[s.n - 1] == ' ')
        s.n--;
    size_t i = s.n && s.p[0] == '-';
    if (i == s.n)
        return false;
    for (; i < s.n; i++)
        if (s.p[i] < '0' || s.p[i] > '9')
            return false;
    return true;
}

const struct tl_advice *tl_advice_match(enum tl_advice_table t, struct tl_str text)
{
    const struct table *tb = &tables[t];
    for (size_t i = 0; i < tb->n; i++) {
        const struct rule *r = &tb->rules[i];
        bool any = r->any[0] == NULL && r->test == NO_TEST;
        for (size_t k = 0; k < MAX_ANY && r->any[k] && !any; k++)
            any = tl_str_find(text, r->any[k]) >= 0;
        if (!any && r->test == CONST_COMPARE)
            any = const_compare(text) >= 0;
        if (!any && r->test == STRING_COMPARE) {
            long at = const_compare(text);
            any = at >= 0 && (text.p[at] == '\'' || text.p[at] == '"');
        }
        if (!any && r->test == TWO_SYMBOLS)
            any = two_symbols(text);
        if (!any && r->test == SIZE_RANGE)
            any = size_range(text);
        if (!any && r->test == EQ_FLOORDIV)
            any = eq_floordiv(text);
        if (!any && r->test == LOCAL_IDENTITY)
            any = singleton_identity(text, 'L');
        if (!any && r->test == GLOBAL_IDENTITY)
            any = singleton_identity(text, 'G') || global_constant(text);
        if (!any && r->test == TEMPLATE_OUT_OF_RESOURCES)
            any = (tl_str_find(text, "OutOfResources") >= 0 ||
                   tl_str_find(text, "out of resource") >= 0) &&
                  (tl_str_find(text, "triton_tem_") >= 0 ||
                   tl_str_find(text, "TritonTemplateCaller") >= 0);
        if (!any && r->test == MODULE_NUMBER) {
            long at = const_compare(text);
            struct tl_str lhs = trim_left(text);
            any = at >= 0 &&
                  (tl_str_has_prefix(lhs, "self.") || tl_str_has_prefix(lhs, "L['self'].")) &&
                  is_int(tl_str_make(text.p + at, text.n - (size_t)at));
        }
        if (!any && r->test == BOOL_COMPARE) {
            long at = const_compare(text);
            struct tl_str lit = at >= 0 ? tl_str_make(text.p + at, text.n - (size_t)at) : text;
            any = at >= 0 && (tl_str_has_prefix(lit, "True") || tl_str_has_prefix(lit, "False"));
        }
        if (any)
            return &r->advice;
    }
    return &tb->rules[tb->n - 1].advice;
}

/* ---- placeholders ------------------------------------------------------------------------- */

static void fill(struct tl_buf *out, struct tl_str v, const char *stand_in)
{
    if (v.p && v.n)
        tl_buf_addstr(out, v);
    else
        tl_buf_adds(out, stand_in);
}

void tl_advice_format(struct tl_buf *out, const char *s, const struct tl_advice_vars *v)
{
    static const struct tl_advice_vars none;
    if (!v)
        v = &none;
    for (const char *p = s; *p;) {
        const char *open = strchr(p, '{');
        if (!open) {
            tl_buf_adds(out, p);
            break;
        }
        tl_buf_add(out, p, (size_t)(open - p));
        const char *close = strchr(open, '}');
        if (!close) {
            tl_buf_adds(out, open);
            break;
        }
        struct tl_str name = tl_str_make(open + 1, (size_t)(close - open - 1));
        if (tl_str_eq_cstr(name, "tensor"))
            fill(out, v->tensor, "x");
        else if (tl_str_eq_cstr(name, "index"))
            fill(out, v->index, "DIM");
        else if (tl_str_eq_cstr(name, "expr"))
            fill(out, v->expr, "the guard");
        else if (tl_str_eq_cstr(name, "value"))
            fill(out, v->value, "its value");
        else if (tl_str_eq_cstr(name, "limit"))
            fill(out, v->limit, "the maximum number of");
        else if (tl_str_eq_cstr(name, "limit_name"))
            fill(out, v->limit_name, "recompile_limit");
        else if (tl_str_eq_cstr(name, "inside"))
            fill(out, v->inside, "in torch/");
        else if (tl_str_eq_cstr(name, "what"))
            fill(out, v->what, "a float argument");
        else if (tl_str_eq_cstr(name, "callee"))
            fill(out, v->callee, "that the line calls");
        else if (tl_str_eq_cstr(name, "op"))
            fill(out, v->op, "OP");
        else if (tl_str_eq_cstr(name, "qualname"))
            fill(out, v->qualname, "namespace::name");
        else if (tl_str_eq_cstr(name, "backend"))
            fill(out, v->backend, "the backend");
        else if (tl_str_eq_cstr(name, "check"))
            fill(out, v->check,
                 "call torch._check() with the outcome, written on the Python values the "
                 "condition reads (torch._check_is_size() for a number used as a size)");
        else if (tl_str_eq_cstr(name, "dim"))
            fill(out, v->dim, "the size");
        else
            tl_buf_add(out, open, (size_t)(close - open + 1));
        p = close + 1;
    }
}

struct tl_str tl_advice_backend(struct tl_str reason)
{
    long at = tl_str_find(reason, "backend=");
    if (at < 0 || (size_t)at + 9 >= reason.n)
        return tl_str_make("", 0);
    const char *p = reason.p + at + 8;
    char q = *p;
    if (q != '\'' && q != '"')
        return tl_str_make("", 0);
    const char *e = memchr(p + 1, q, reason.n - (size_t)(p + 1 - reason.p));
    if (!e || e == p + 1 || e - p > 128)
        return tl_str_make("", 0);
    return tl_str_make(p + 1, (size_t)(e - p - 1));
}

void tl_advice_op_qualname(struct tl_buf *out, struct tl_str op)
{
    if (!op.p)
        return;
    while (op.n && op.p[0] == ' ') {
        op.p++;
        op.n--;
    }
    while (op.n && op.p[op.n - 1] == ' ')
        op.n--;
    if (tl_str_has_prefix(op, "torch.ops."))
        op = tl_str_make(op.p + 10, op.n - 10);
    /* namespace, then name: "ns::name" or "ns.name"; an overload (".default") may follow */
    long sep = tl_str_find(op, "::");
    size_t ns_len, name_at;
    if (sep > 0) {
        ns_len = (size_t)sep;
        name_at = ns_len + 2;
    } else {
        const char *dot = memchr(op.p, '.', op.n);
        if (!dot || dot == op.p)
            return;
        ns_len = (size_t)(dot - op.p);
        name_at = ns_len + 1;
    }
    if (name_at >= op.n)
        return;
    const char *name = op.p + name_at;
    const char *end = memchr(name, '.', op.n - name_at);
    size_t name_len = end ? (size_t)(end - name) : op.n - name_at;
    if (!name_len)
        return;
    tl_buf_add(out, op.p, ns_len);
    tl_buf_adds(out, "::");
    tl_buf_add(out, name, name_len);
}

/* The name inside "tensor 'L['x']'": x (from L['x']), or the quoted text as it is. */
static struct tl_str tensor_name(struct tl_str guard)
{
    long at = tl_str_find(guard, "tensor ");
    if (at < 0)
        return TL_STR_NULL;
    const char *p = guard.p + at + 7, *end = guard.p + guard.n;
    /* the quoted name runs to "' " (before "size mismatch", "dtype mismatch" ...) */
    if (p >= end || (*p != '\'' && *p != '"'))
        return TL_STR_NULL;
    p++;
    const char *q = p;
    while (q + 1 < end && !(q[0] == '\'' && q[1] == ' ') && !(q[0] == '"' && q[1] == ' '))
        q++;
    struct tl_str name = tl_str_make(p, (size_t)(q - p));
    /* L['x'] -> x; L['args'][0] has no name of its own in the code (2.13 writes args[0]):
     * the advice's stand-in says it */
    if (name.n > 5 && (tl_str_has_prefix(name, "L['") || tl_str_has_prefix(name, "L[\""))) {
        long close =
            tl_str_find(tl_str_make(name.p + 3, name.n - 3), name.p[2] == '\'' ? "']" : "\"]");
        if (close < 0 || (size_t)close + 5 != name.n)
            return TL_STR_NULL;
        name.p += 3;
        name.n -= 5;
    }
    return name;
}

void tl_advice_guard_vars(struct tl_str guard, struct tl_advice_vars *v)
{
    memset(v, 0, sizeof(*v));
    /* the guard alone: not the source comment nor the user stack PyTorch 2.13 appends */
    const char *nl = guard.n ? memchr(guard.p, '\n', guard.n) : NULL;
    if (nl)
        guard.n = (size_t)(nl - guard.p);
    long comment = tl_str_find(guard, " #");
    if (comment > 0)
        guard.n = (size_t)comment;
    while (guard.n && guard.p[guard.n - 1] == ' ')
        guard.n--;
    v->tensor = tensor_name(guard);
    long at = tl_str_find(guard, "at index ");
    if (at >= 0) {
        const char *p = guard.p + at + 9, *e = p;
        while (e < guard.p + guard.n && *e >= '0' && *e <= '9')
            e++;
        if (e > p)
            v->index = tl_str_make(p, (size_t)(e - p));
    }
    if (size_range(guard))
        v->expr = guard;
    long lit = const_compare(guard);
    long id = tl_str_find(guard, "___check_obj_id(");
    long none = tl_str_find(guard, " is not None");
    if (none < 0)
        none = tl_str_find(guard, " is None");
    if (lit < 0 && id >= 0) {
        /* the object whose identity is checked: "mask" of ___check_obj_id(L['mask'], 9) */
        struct tl_str src = tl_str_make(guard.p + id + 16, guard.n - (size_t)id - 16);
        long comma = tl_str_find(src, ", ");
        if (comma > 0) {
            src.n = (size_t)comma;
            if (plain_source(src, 'L') || plain_source(src, 'G'))
                src = tl_str_make(src.p + 3, src.n - 5);
            v->expr = src;
        }
    } else if (lit < 0 && none > 0) {
        size_t start = 0;
        while (start < (size_t)none && guard.p[start] == ' ')
            start++;
        v->expr = tl_str_make(guard.p + start, (size_t)none - start);
    }
    if (lit >= 0) {
        v->expr = guard;
        v->value = tl_str_make(guard.p + lit, guard.n - (size_t)lit);
        long hash = tl_str_find(v->value, " #");
        if (hash >= 0)
            v->value.n = (size_t)hash;
        if (tl_str_eq_cstr(v->value, "True") || tl_str_eq_cstr(v->value, "False") ||
            tl_str_eq_cstr(v->value, "None")) {
            /* a flag: what it is ("self.training", "USE_RELU"), not the comparison */
            struct tl_str lhs = tl_str_make(guard.p, (size_t)lit - 4);
            while (lhs.n && lhs.p[0] == ' ') {
                lhs.p++;
                lhs.n--;
            }
            if (plain_source(lhs, 'L') || plain_source(lhs, 'G'))
                lhs = tl_str_make(lhs.p + 3, lhs.n - 5);
            v->expr = lhs;
        }
    }
}

/* ---- export: a condition and a dimension in the user's terms ------------------------------ */

static bool ident_start(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool ident_char(char c)
{
    return ident_start(c) || (c >= '0' && c <= '9');
}

static struct tl_str trim_spaces(struct tl_str s)
{
    while (s.n && (s.p[0] == ' ' || s.p[0] == '\t')) {
        s.p++;
        s.n--;
    }
    while (s.n && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
        s.n--;
    return s;
}

/* The one variable a line of code assigns: "n" of "n = x.item()"; none of "a, b = ...",
 * "n == 1", "n += 1", "x[0] = ...". */
static struct tl_str assigned(struct tl_str code)
{
    code = trim_spaces(code);
    size_t i = 0;
    if (!code.n || !ident_start(code.p[0]))
        return TL_STR_NULL;
    while (i < code.n && ident_char(code.p[i]))
        i++;
    struct tl_str name = tl_str_make(code.p, i);
    while (i < code.n && code.p[i] == ' ')
        i++;
    if (i + 1 >= code.n || code.p[i] != '=' || code.p[i + 1] == '=')
        return TL_STR_NULL;
    return name;
}

/* An operand of the comparison with its unbacked symbols replaced by their variables; false
 * when it holds anything else that Python would not read as it stands (a function of the
 * expression language, a symbol without a variable, a float). */
static bool operand(struct tl_buf *out, struct tl_str side, const struct tl_advice_unbacked *syms,
                    size_t n)
{
    side = trim_spaces(side);
    if (!side.n)
        return false;
    for (size_t i = 0; i < side.n;) {
        char c = side.p[i];
        if (ident_start(c)) {
            size_t start = i;
            while (i < side.n && ident_char(side.p[i]))
                i++;
            struct tl_str tok = tl_str_make(side.p + start, i - start);
            struct tl_str var = TL_STR_NULL;
            for (size_t k = 0; k < n && !var.n; k++)
                if (tl_str_eq(tok, syms[k].symbol))
                    var = assigned(syms[k].code);
            if (!var.n)
                return false;
            tl_buf_addstr(out, var);
            continue;
        }
        if (c == '\0' || !strchr("0123456789+-*/%() ", c))
            return false;
        if (c >= '0' && c <= '9' && i + 1 < side.n && ident_start(side.p[i + 1]))
            return false; /* "1e5", "2j" */
        tl_buf_addch(out, c);
        i++;
    }
    return true;
}

/* The comparisons a condition may be, each with its negation: two-character ones first. */
static const struct {
    const char *op, *negated;
} comparisons[] = {
    {"<=", ">"}, {">=", "<"}, {"==", "!="}, {"!=", "=="}, {"<", ">="}, {">", "<="},
};

/* Split s at its one comparison outside parentheses: false when it has none, or several. */
static bool split_comparison(struct tl_str s, struct tl_str *a, struct tl_str *b, size_t *which)
{
    int depth = 0;
    bool found = false;
    for (size_t i = 0; i < s.n; i++) {
        char c = s.p[i];
        if (c == '(') {
            depth++;
        } else if (c == ')') {
            depth--;
        } else if (depth == 0 && strchr("<>=!", c)) {
            size_t k = 0;
            while (k < TL_ARRAY_LEN(comparisons) &&
                   strncmp(s.p + i, comparisons[k].op, strlen(comparisons[k].op)) != 0)
                k++;
            if (k == TL_ARRAY_LEN(comparisons) || found)
                return false;
            found = true;
            *which = k;
            *a = tl_str_make(s.p, i);
            i += strlen(comparisons[k].op);
            *b = tl_str_make(s.p + i, s.n - i);
            i--;
        }
    }
    return found && depth == 0;
}

void tl_advice_export_check(struct tl_buf *out, struct tl_str expr, struct tl_str result,
                            const struct tl_advice_unbacked *syms, size_t n)
{
    if (!expr.p || !result.p)
        return;
    expr = trim_spaces(expr);
    result = trim_spaces(result);
    bool holds;
    if (tl_str_eq_cstr(result, "True"))
        holds = true;
    else if (tl_str_eq_cstr(result, "False"))
        holds = false;
    else
        return;
    struct tl_str a, b;
    size_t which = 0;
    if ((tl_str_has_prefix(expr, "Eq(") || tl_str_has_prefix(expr, "Ne(")) &&
        tl_str_has_suffix(expr, ")")) {
        /* Eq(A, B), Ne(A, B): the one comma outside parentheses splits them */
        struct tl_str inner = tl_str_make(expr.p + 3, expr.n - 4);
        int depth = 0;
        size_t comma = 0, commas = 0;
        for (size_t i = 0; i < inner.n; i++) {
            if (inner.p[i] == '(')
                depth++;
            else if (inner.p[i] == ')')
                depth--;
            else if (inner.p[i] == ',' && depth == 0) {
                comma = i;
                commas++;
            }
        }
        if (commas != 1 || depth != 0)
            return;
        a = tl_str_make(inner.p, comma);
        b = tl_str_make(inner.p + comma + 1, inner.n - comma - 1);
        which = expr.p[0] == 'E' ? 2 : 3; /* "==", "!=" */
    } else if (!split_comparison(expr, &a, &b, &which)) {
        return;
    }
    struct tl_buf check = TL_BUF_INIT;
    tl_buf_adds(&check, "torch._check(");
    bool ok = operand(&check, a, syms, n);
    tl_buf_addch(&check, ' ');
    tl_buf_adds(&check, holds ? comparisons[which].op : comparisons[which].negated);
    tl_buf_addch(&check, ' ');
    ok = ok && operand(&check, b, syms, n);
    tl_buf_addch(&check, ')');
    if (ok)
        tl_buf_addstr(out, tl_buf_str(&check));
    tl_buf_release(&check);
}

void tl_advice_dim(struct tl_buf *out, struct tl_str readable)
{
    /* a source "L['x'].size()[0]": the input x's dimension 0 */
    for (long at = tl_str_find(readable, "L['"); at >= 0;) {
        struct tl_str rest = tl_str_make(readable.p + at + 3, readable.n - (size_t)at - 3);
        size_t i = 0;
        while (i < rest.n && ident_char(rest.p[i]))
            i++;
        struct tl_str name = tl_str_make(rest.p, i);
        struct tl_str tail = tl_str_make(rest.p + i, rest.n - i);
        if (name.n && ident_start(name.p[0]) && tl_str_has_prefix(tail, "'].size()[")) {
            struct tl_str num = tl_str_make(tail.p + 10, tail.n - 10);
            size_t k = 0;
            while (k < num.n && num.p[k] >= '0' && num.p[k] <= '9')
                k++;
            if (k && k < num.n && num.p[k] == ']') {
                tl_buf_addstr(out, name);
                tl_buf_adds(out, ".shape[");
                tl_buf_add(out, num.p, k);
                tl_buf_addch(out, ']');
                return;
            }
        }
        long next = tl_str_find(rest, "L['");
        at = next < 0 ? -1 : at + 3 + next;
    }
}
