# LibTorch: PyTorch's own, from the torch wheel in the project's virtual environment (installer/install-deps.sh makes
# .venv and installs the pinned torch there), found without a typed path. Order: a Torch_DIR the user gave; .venv's
# torch; python3's; then CMAKE_PREFIX_PATH and the system. Anything else stops the configure with one line saying what
# was found and what to do.
#
# What it defines:
#   ws_torch          INTERFACE target the engine links: LibTorch's CPU library (torch_cpu, c10) and its headers.
#                     CUDA kernels are not linked: the CUDA plugin below brings them when a GPU is there, so the
#                     same binaries start on a machine with no CUDA driver (and the Debian package needs no CUDA).
#   ws_torch_cuda     LibTorch's CUDA libraries (torch_cuda, c10_cuda, cudart), for the plugin alone.
#   WS_TORCH_VERSION  e.g. 2.11.0; WS_TORCH_LIB_DIR the folder holding libtorch_cpu.so.
set(WS_TORCH_MIN_VERSION 2.7)  # the first wheels built with the C++11 ABI that g++ 12 uses by default

function(ws_torch_prefix_from python out)
  execute_process(COMMAND "${python}" -c "import torch.utils, sys; sys.stdout.write(torch.utils.cmake_prefix_path)"
                  OUTPUT_VARIABLE prefix ERROR_QUIET RESULT_VARIABLE rc)
  if(rc EQUAL 0 AND EXISTS "${prefix}/Torch/TorchConfig.cmake")
    set(${out} "${prefix}" PARENT_SCOPE)
  endif()
endfunction()

# The project's pinned torch comes first (a Debian libtorch-dev on the machine must not win over it), then python3's.
if(NOT Torch_DIR)
  set(ws_torch_prefix "")
  foreach(py "${PROJECT_SOURCE_DIR}/.venv/bin/python3" python3)
    if(NOT ws_torch_prefix)
      find_program(ws_py NAMES "${py}" NO_CACHE)
      if(ws_py)
        ws_torch_prefix_from("${ws_py}" ws_torch_prefix)
      endif()
      unset(ws_py)
    endif()
  endforeach()
  if(ws_torch_prefix)
    # FORCE: a configure run before .venv existed left Torch_DIR-NOTFOUND in the cache, which would otherwise stay.
    set(Torch_DIR "${ws_torch_prefix}/Torch" CACHE PATH "LibTorch's CMake folder (found from .venv's or python3's torch)" FORCE)
  endif()
endif()

# The CUDA wheel's configuration looks for the CUDA toolkit (nvcc, cudart) and, without an architecture list, compiles
# a probe for the installed GPUs. The project compiles no kernels of its own (LibTorch's are in the wheel), so the
# list only quiets the probe.
# TorchConfig.cmake looks for its Caffe2 part on the system paths before its own folder: a Debian libtorch-dev would
# lend its 1.13 Caffe2 to the wheel's Torch. Pin it to the one beside Torch_DIR.
if(Torch_DIR AND EXISTS "${Torch_DIR}/../Caffe2/Caffe2Config.cmake")
  get_filename_component(ws_caffe2_dir "${Torch_DIR}/../Caffe2" ABSOLUTE)
  set(Caffe2_DIR "${ws_caffe2_dir}" CACHE PATH "LibTorch's Caffe2 CMake folder (beside Torch_DIR)" FORCE)
endif()
if(NOT TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
  set(TORCH_CUDA_ARCH_LIST "8.0;9.0")
endif()
find_package(Torch CONFIG QUIET)
if(NOT Torch_FOUND)
  message(FATAL_ERROR "LibTorch not found: no TorchConfig.cmake under CMAKE_PREFIX_PATH, .venv or python3's torch. "
                      "Run installer/install-deps.sh (it installs the pinned torch into .venv), or pass "
                      "-DCMAKE_PREFIX_PATH=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)').")
endif()

# The version: TorchConfigVersion.cmake's, else the headers' (1.x keeps it in torch/version.h, 2.x in
# torch/headeronly/version.h).
get_filename_component(WS_TORCH_PREFIX "${Torch_DIR}/../../.." ABSOLUTE)
set(WS_TORCH_VERSION "${Torch_VERSION}")
if(NOT WS_TORCH_VERSION)
  set(WS_TORCH_VERSION "unknown")
  foreach(h torch/headeronly/version.h torch/csrc/api/include/torch/version.h)
    if(WS_TORCH_VERSION STREQUAL "unknown" AND EXISTS "${WS_TORCH_PREFIX}/include/${h}")
      file(STRINGS "${WS_TORCH_PREFIX}/include/${h}" ws_version_lines REGEX "#define TORCH_VERSION_(MAJOR|MINOR|PATCH) ")
      if(ws_version_lines)
        foreach(part MAJOR MINOR PATCH)
          string(REGEX MATCH "TORCH_VERSION_${part} ([0-9]+)" _ "${ws_version_lines}")
          set(ws_${part} "${CMAKE_MATCH_1}")
        endforeach()
        set(WS_TORCH_VERSION "${ws_MAJOR}.${ws_MINOR}.${ws_PATCH}")
      endif()
    endif()
  endforeach()
endif()

if(WS_TORCH_VERSION STREQUAL "unknown" OR WS_TORCH_VERSION VERSION_LESS WS_TORCH_MIN_VERSION)
  message(FATAL_ERROR "LibTorch ${WS_TORCH_VERSION} found at ${WS_TORCH_PREFIX}; WorldStudio needs ${WS_TORCH_MIN_VERSION} or newer "
                      "(installer/install-deps.sh installs the pinned one into .venv; remove Debian's libtorch-dev or pass -DTorch_DIR).")
endif()
if(NOT TARGET torch_cpu OR NOT TARGET torch_cuda)
  message(FATAL_ERROR "LibTorch ${WS_TORCH_VERSION} at ${WS_TORCH_PREFIX} is a CPU-only build; WorldStudio builds on the CUDA "
                      "build (PyPI's Linux torch wheel, which runs on a CPU too): installer/install-deps.sh installs it.")
endif()
get_target_property(WS_TORCH_CPU_LIBRARY torch_cpu IMPORTED_LOCATION_RELEASE)
if(NOT WS_TORCH_CPU_LIBRARY)
  get_target_property(WS_TORCH_CPU_LIBRARY torch_cpu IMPORTED_LOCATION)
endif()
get_filename_component(WS_TORCH_LIB_DIR "${WS_TORCH_CPU_LIBRARY}" DIRECTORY)
message(STATUS "LibTorch ${WS_TORCH_VERSION} (CUDA build) at ${WS_TORCH_PREFIX}")

# LibTorch's CPU library needs the CUDA runtime and CUPTI (libcudart.so.13, libcupti.so.13), which the wheel's
# nvidia packages keep beside torch (site-packages/nvidia/*/lib), and it carries no run path of its own: the programs
# carry one for it, as DT_RPATH (which, unlike RUNPATH, the loader also searches for their libraries' libraries).
file(GLOB WS_TORCH_NVIDIA_LIB_DIRS LIST_DIRECTORIES true "${WS_TORCH_PREFIX}/../nvidia/*/lib" "${WS_TORCH_PREFIX}/../nvidia/*/*/lib")
list(APPEND CMAKE_BUILD_RPATH "${WS_TORCH_LIB_DIR}" ${WS_TORCH_NVIDIA_LIB_DIRS})
add_link_options(LINKER:--disable-new-dtags)
set(CMAKE_INSTALL_RPATH "$ORIGIN/../lib/worldstudio")  # installed: the bundled libraries (cmake/Packaging.cmake)
# The libraries an installed program loads from lib/worldstudio (cmake/Packaging.cmake bundles them): LibTorch's CPU
# library and what it needs that Debian does not provide.
set(WS_TORCH_RUNTIME_LIBRARIES "${WS_TORCH_LIB_DIR}/libtorch_cpu.so" "${WS_TORCH_LIB_DIR}/libc10.so")
foreach(lib libgomp.so.1)
  if(EXISTS "${WS_TORCH_LIB_DIR}/${lib}")
    list(APPEND WS_TORCH_RUNTIME_LIBRARIES "${WS_TORCH_LIB_DIR}/${lib}")
  endif()
endforeach()
foreach(lib libcudart.so.13 libcupti.so.13)
  find_file(ws_${lib} ${lib} PATHS ${WS_TORCH_NVIDIA_LIB_DIRS} NO_DEFAULT_PATH NO_CACHE)
  if(ws_${lib})
    list(APPEND WS_TORCH_RUNTIME_LIBRARIES "${ws_${lib}}")
  endif()
endforeach()

# torch 2.14 and newer require C++20 in their headers; the project is C++20 throughout.
# torch_cpu's link interface names protobuf and MKL targets whose empty locations put /lib/intel64 and the like into
# every run path; linking the shared library needs only c10.
set_target_properties(torch_cpu PROPERTIES INTERFACE_LINK_LIBRARIES c10)
add_library(ws_torch INTERFACE)
target_include_directories(ws_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
target_link_libraries(ws_torch INTERFACE torch_cpu c10)
if(TORCH_CXX_FLAGS)
  separate_arguments(ws_torch_flags UNIX_COMMAND "${TORCH_CXX_FLAGS}")
  target_compile_options(ws_torch INTERFACE ${ws_torch_flags})
endif()

# libtorch_cuda is linked for its static initializers (they register the CUDA kernels and hooks): no symbol of it is
# called, so it must be linked --no-as-needed (LibTorch's own torch_cuda_library says so) or the linker drops it.
add_library(ws_torch_cuda INTERFACE)
target_link_libraries(ws_torch_cuda INTERFACE ws_torch "-Wl,--no-as-needed" torch_cuda "-Wl,--as-needed" c10_cuda)

# The LibTorch headers take about 20 s of a 2-core machine's time in every file that includes them; compiled once
# into a precompiled header that every target including them reuses (GCC; clang's builds, the fuzz targets, go
# without). ws_use_torch_pch(TARGET) opts a target in.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  option(WS_PCH "Precompile the LibTorch headers once for every target" ON)
else()
  option(WS_PCH "Precompile the LibTorch headers once for every target" OFF)
endif()
if(WS_PCH)
  # GCC uses a precompiled header only under the same code-generation flags: one for the static libraries and the
  # CLI, one position-independent for the test executables (Qt compiles those with -fPIC).
  file(CONFIGURE OUTPUT "${CMAKE_BINARY_DIR}/ws_pch.cpp" CONTENT "// The targets that own the precompiled LibTorch headers.\n")
  add_library(ws_pch STATIC "${CMAKE_BINARY_DIR}/ws_pch.cpp")
  add_library(ws_pch_pic STATIC "${CMAKE_BINARY_DIR}/ws_pch.cpp")
  set_target_properties(ws_pch_pic PROPERTIES POSITION_INDEPENDENT_CODE ON)
  foreach(t ws_pch ws_pch_pic)
    target_link_libraries(${t} PRIVATE ws_torch)
    target_precompile_headers(${t} PRIVATE <ATen/ATen.h> <string> <vector> <map>)
  endforeach()
endif()
# ws_use_torch_pch(TARGET [PIC]) opts a target into the precompiled LibTorch headers.
function(ws_use_torch_pch target)
  if(WS_PCH)
    if("PIC" IN_LIST ARGN)
      target_precompile_headers(${target} REUSE_FROM ws_pch_pic)
    else()
      target_precompile_headers(${target} REUSE_FROM ws_pch)
    endif()
  endif()
endfunction()
