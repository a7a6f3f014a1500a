# Cross-compiling to wasm32-wasi with Debian's clang, lld and wasi-libc (scripts/deps.sh web).
# The sysroot is a folder of links to wasi-libc's headers and libraries only (made by
# web/CMakeLists.txt), so that no header of the host (/usr/include) can be picked up.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR wasm32)
set(CMAKE_C_COMPILER clang)
set(CMAKE_C_COMPILER_TARGET wasm32-wasi)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# An archive of wasm objects needs LLVM's ar and ranlib for its symbol index (binutils' ar
# writes none, and wasm-ld then refuses the archive).
find_program(CMAKE_AR NAMES llvm-ar llvm-ar-14 REQUIRED)
find_program(CMAKE_RANLIB NAMES llvm-ranlib llvm-ranlib-14 REQUIRED)
set(TL_WASI_SYSROOT ${CMAKE_BINARY_DIR}/sysroot)
set(CMAKE_SYSROOT ${TL_WASI_SYSROOT})
file(MAKE_DIRECTORY ${TL_WASI_SYSROOT}/include ${TL_WASI_SYSROOT}/lib)
file(CREATE_LINK /usr/include/wasm32-wasi ${TL_WASI_SYSROOT}/include/wasm32-wasi SYMBOLIC)
file(CREATE_LINK /usr/lib/wasm32-wasi ${TL_WASI_SYSROOT}/lib/wasm32-wasi SYMBOLIC)
