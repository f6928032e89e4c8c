# Cross toolchain for AArch64 Linux on a Debian x86-64 host:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# scripts/test-aarch64.sh installs what it needs (gcc-aarch64-linux-gnu, libc6:arm64 and the
# other arm64 run-time libraries, qemu-user, qemu-user-binfmt) and unpacks Criterion for arm64
# into DMLCPU_ARM64_DEPS (default: .deps/arm64 in the source tree), because Debian's Criterion
# cannot be installed for amd64 and arm64 at once.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

set(DMLCPU_ARM64_DEPS "${CMAKE_CURRENT_LIST_DIR}/../.deps/arm64"
    CACHE PATH "Folder holding the unpacked arm64 packages (Criterion, nanomsg)")
get_filename_component(DMLCPU_ARM64_DEPS "${DMLCPU_ARM64_DEPS}" ABSOLUTE)

# Libraries and headers: the cross compiler's own tree, the unpacked packages, and the host's
# multiarch folders (/usr/lib/aarch64-linux-gnu, found under the root "/"). Programs are the
# host's.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu "${DMLCPU_ARM64_DEPS}" /)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (SLEEF) reads the target's .pc files from the multiarch folder of libsleef-dev:arm64.
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")

# The linker must find the indirect dependencies of the unpacked libraries (libcriterion needs
# libnanomsg), and the programs must find them at run time through the old-style RPATH, which
# (unlike RUNPATH) also applies to indirect dependencies.
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,--disable-new-dtags -Wl,-rpath-link,${DMLCPU_ARM64_DEPS}/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,/lib/aarch64-linux-gnu")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${CMAKE_EXE_LINKER_FLAGS_INIT}")

# ctest and custom commands run the programs under qemu-user (neoverse-n1 unless QEMU_CPU is
# set), with a private binfmt_misc handler so that programs exec'ing others work too.
get_filename_component(dmlcpu_qemu_run "${CMAKE_CURRENT_LIST_DIR}/../scripts/qemu-aarch64-run" ABSOLUTE)
set(CMAKE_CROSSCOMPILING_EMULATOR "${dmlcpu_qemu_run}")

# LLVM's libomp on this host is the x86-64 one (Debian's libomp for arm64 cannot sit beside it):
# the cross build links the cross compiler's libgomp instead.
set(DMLCPU_USE_LIBOMP OFF CACHE BOOL "Link LLVM's OpenMP runtime instead of the compiler's")
