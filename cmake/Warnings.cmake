# Warning set of ../shared/STYLE.md, for gcc 12 and clang 14; -Werror with TL_DEVELOPER.
function(tl_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes
    -Wold-style-definition -Wpointer-arith -Wwrite-strings -Wvla -Wformat=2 -Wundef
    -Wcast-align -Wnull-dereference -Wimplicit-fallthrough)
  if(TL_DEVELOPER)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
